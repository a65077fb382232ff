/* The pipelined 3D sweep body (src/compute/cuda/sweep3d_pipe.cuh) runs on the host through
 * tests/emu: a block's 32 x by threads as fibers, __syncthreads as a rendezvous of the block, the
 * ring of sweep3d_pipe_smem per block (NaN at the start), cp.async copies landing at the wait that
 * covers them. Launched as sweep3d.cu's launch_pipe launches it (sweep3d_grid, one row per thread)
 * with the arguments cu_sweep builds, against a plain loop over the same stencil expressions:
 * bit-identical inside the box, nothing written outside it. The instance cu_sweep launches (fp64,
 * radius 2, 2 planes ahead), blocks of 1 to 8 warps, marches of 8 to 64 planes, boxes that start off the vector
 * boundary and reach into the ghost cells or to the end of an unpadded row, partial tiles and
 * chunks in every axis, blocks in either order. Races, memory ordering and timing on a GPU are the
 * GPU suite's (tests/gpu_*.sh). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "compute/cuda/sweep3d.cuh"
#include "compute/cuda/sweep3d_pipe.cuh"
#include "halox/decomp.h" /* HX_ROW_ALIGN */

#include "emu_ref.h"

static int failures = 0, checks = 0;

struct pipe_case {
    int n[3];   /* owned cells; n[0] <= 0: a row exactly -n[0] cells wide, without padding */
    int g;      /* ghost width */
    int expand; /* the box reaches this far into the ghosts (a deep-halo sweep), at most g - R */
    int by;     /* warps per block (tile rows) */
    int chunk;  /* planes per block */
};

/* lead: the field's origin lies that many cells into its allocation (test_sweep3d_emu.cpp says why) */
template <typename T, int R, int P> static void run_case(const pipe_case &c, int lead = 0)
{
    const int V = vec16<T>::n;
    const int n0 = c.n[0] > 0 ? c.n[0] : -c.n[0] - 2 * c.g;
    const int alloc[3] = {(n0 + 2 * c.g + HX_ROW_ALIGN - 1) / HX_ROW_ALIGN * HX_ROW_ALIGN, c.n[1] + 2 * c.g, c.n[2] + 2 * c.g};
    const long sy = alloc[0], sz = sy * alloc[1], cells = sz * alloc[2] + lead + 64;
    std::vector<T> src((size_t)cells), dst((size_t)cells), want((size_t)cells, (T)-7);
    emu_fill(src, (uint64_t)(R + 3 * P + 7 * c.by + 11 * c.chunk + n0));
    const std::vector<T> src0 = src;
    /* the arguments as cu_sweep (sweep.cu) and launch_pipe (sweep3d.cu) build them */
    pipe_args pa;
    sweep_args &a = pa.s;
    const int n[3] = {n0, c.n[1], c.n[2]};
    for (int d = 0; d < 3; d++) {
        a.lo[d] = c.g - c.expand;
        a.hi[d] = c.g + n[d] + c.expand;
    }
    a.pitch = alloc[0];
    sweep_args_vectors(a, lead % V, V); /* as cu_sweep sets them */
    a.sy = sy;
    a.sz = sz;
    pa.rows = alloc[1];
    pa.chunk = c.chunk;
    const int groups = (a.hi[0] - a.xbase + V - 1) / V;
    for (int z = a.lo[2]; z < a.hi[2]; z++)
        for (int y = a.lo[1]; y < a.hi[1]; y++)
            for (int x = a.lo[0]; x < a.hi[0]; x++) {
                const long i = lead + x + y * sy + z * sz;
                want[(size_t)i] = emu_ref3(src.data(), i, sy, sz, R);
            }
    const dim3 grid = sweep3d_grid(groups, a.hi[1] - a.lo[1], a.hi[2] - a.lo[2], c.by, c.chunk);
    checks++;
    for (int rev = 0; rev < 2; rev++) { /* blocks forwards, then backwards: overlapping writes show */
        std::fill(dst.begin(), dst.end(), (T)-7);
        hx_emu_reverse_blocks(rev);
        hx_emu_launch_block(grid, dim3(32, (unsigned)c.by), sweep3d_pipe_smem<R, P>(c.by), [&] {
            sweep3d_pipe_body<T, R, P>(src.data() + lead, dst.data() + lead, pa, blockIdx, reinterpret_cast<T *>(hx_emu_shared()));
        });
        const long i = emu_first_diff(dst, want);
        if (i < 0 && emu_first_diff(src, src0) < 0) continue;
        failures++;
        printf("FAIL %s R=%d P=%d by=%d chunk=%d n=%dx%dx%d expand=%d lead=%d blocks %s (where: from the allocation's start): ",
               sizeof(T) == 4 ? "float" : "double", R, P, c.by, c.chunk, n[0], n[1], n[2], c.expand, lead, rev ? "backwards" : "forwards");
        emu_print_where(i, sy, sz, dst, want);
        return;
    }
}

template <typename T, int R, int P> static void run_depth()
{
    /* odd extents: partial vectors, warps, tiles and chunks; boxes reaching into the ghosts up to the
     * last that leaves R ghost cells for the neighbours (expand <= g - R) */
    const pipe_case cases[] = {
        {{13, 11, 9}, 2 * R, 0, 3, 8},
        {{13, 11, 9}, 2 * R, R, 1, 16},
        {{70, 9, 21}, 3 * R, 2 * R, 2, 8},
        {{5, 17, 3}, 2 * R, R, 8, 8},
        {{-64, 7, 70}, R + 1, 1, 4, 64},    /* the row without padding; two chunks of 64 planes */
        {{150, 30, 5}, 2 * R + 1, 0, 8, 32}, /* several tiles in x and y */
    };
    for (const pipe_case &c : cases) {
        run_case<T, R, P>(c);
        for (int lead : {(32 - c.g % 32) % 32, 1, 3}) run_case<T, R, P>(c, lead); /* hx_field_lead's, and other phases */
    }
}

int main(void)
{
    run_depth<double, 2, 2>(); /* sweep3d.cu: launch_pipe<double, 2> with PIPE_AHEAD 2 */
    printf("pipelined sweep3d body on the host: %d of %d sweeps bit-identical to the reference loop, blocks in either "
           "order\n", checks - failures, checks);
    return failures ? 1 : 0;
}
