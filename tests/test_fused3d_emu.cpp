/* The fused 3D pass bodies (src/compute/cuda/fused3d.cuh) run on the host through tests/emu: a
 * block's S x BY / RY threads as fibers, __syncthreads and warp shuffles as rendezvous, the shared
 * memory of fused3d_smem per block (NaN at the start), cp.async copies landing at the wait that
 * covers them. Launched as fused3d.cu launches them (fused3d_plan: arguments, z chunks, grid,
 * tile shape), against N separate sweeps as plain loops: level j+1 is sweep j over level j inside
 * box j and the source value outside it; dst must hold the last level inside the last box, bit for
 * bit, and nothing else may be written. Every (radius, N) the library builds, both dtypes (floats
 * in tile rows of 32 and of 16 lanes), odd
 * boxes (partial vectors, tiles and z chunks, one-plane chunks) reaching into the ghost cells, sides
 * clipped as at a fixed boundary, blocks in either order. Races, memory ordering and timing on a
 * GPU are the GPU suite's (tests/gpu_fuse.sh, compute-sanitizer). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "compute/cuda/fused3d.cuh"

#include "emu_ref.h"

static int failures = 0, checks = 0, one_plane = 0, one_chunk = 0;

struct fused_case {
    int n[3];       /* owned cells (0 in x or y: see run_case) */
    int slack;      /* ghost cells beyond the (N + extra) R that the first level reaches */
    int extra;      /* the last level's box grows this many radii into the ghosts */
    unsigned fixed; /* sides that stop at the owned cells (emu_level_box) */
    long slots;     /* blocks resident at once, for the z chunks */
};

template <typename T, int R, int L, int S> static void run_case(const fused_case &c)
{
    typedef fused3d_tile<T, R, L, S> C;
    const int g = (L + c.extra) * R + c.slack;
    const int V = vec16<T>::n, H = L * R, lo = g - c.extra * R;
    /* n[0] or n[1] == 0: the last tile in x (y) holds one vector (row) of the box */
    const int n[3] = {c.n[0] ? c.n[0] : (S - 2 * ((H + V - 1) / V)) * V + 1 - lo % V - 2 * c.extra * R,
                      c.n[1] ? c.n[1] : C::BY - 2 * H + 1 - 2 * c.extra * R, c.n[2]};
    const int alloc[3] = {(n[0] + 2 * g + HX_ROW_ALIGN - 1) / HX_ROW_ALIGN * HX_ROW_ALIGN, n[1] + 2 * g, n[2] + 2 * g};
    const long sy = alloc[0], sz = sy * alloc[1], cells = sz * alloc[2];
    hx_box boxes[HX_FUSE_MAX_3D];
    for (int j = 0; j < L; j++) boxes[j] = emu_level_box(3, n, g, (L - 1 - j + c.extra) * R, c.fixed);
    std::vector<T> src((size_t)cells), dst((size_t)cells), want((size_t)cells, (T)-7);
    emu_fill(src, (uint64_t)(n[0] * 131 + n[1] * 7 + n[2] + L * 3 + R));
    const std::vector<T> src0 = src;
    /* N separate sweeps; outside its box a level holds the source */
    std::vector<T> cur = src, next;
    for (int j = 0; j < L; j++) {
        next = src;
        const hx_box &b = boxes[j];
        for (int z = b.lo[2]; z < b.hi[2]; z++)
            for (int y = b.lo[1]; y < b.hi[1]; y++)
                for (int x = b.lo[0]; x < b.hi[0]; x++) {
                    const long i = x + y * sy + z * sz;
                    next[(size_t)i] = emu_ref3(cur.data(), i, sy, sz, R);
                }
        cur.swap(next);
    }
    const hx_box &out = boxes[L - 1];
    for (int z = out.lo[2]; z < out.hi[2]; z++)
        for (int y = out.lo[1]; y < out.hi[1]; y++)
            for (int x = out.lo[0]; x < out.hi[0]; x++) want[(size_t)(x + y * sy + z * sz)] = cur[(size_t)(x + y * sy + z * sz)];

    const fused3d_launch l = fused3d_plan<T, R, L, S>(boxes, alloc, c.slots);
    one_plane += l.a.zchunk == 1;
    one_chunk += l.grid.z == 1;
    checks++;
    for (int rev = 0; rev < 2; rev++) { /* blocks forwards, then backwards: overlapping writes show */
        std::fill(dst.begin(), dst.end(), (T)-7);
        hx_emu_reverse_blocks(rev);
        hx_emu_launch_block(l.grid, l.block, l.smem, [&] {
            sweep3d_fused_body<T, R, L, C::BY, C::P, C::RY, S>(src.data(), dst.data(), l.a, blockIdx, reinterpret_cast<T *>(hx_emu_shared()), (int)threadIdx.x, (int)threadIdx.y);
        });
        const long i = emu_first_diff(dst, want);
        if (i < 0 && emu_first_diff(src, src0) < 0) continue;
        failures++;
        printf("FAIL %s S=%d R=%d N=%d n=%dx%dx%d g=%d fixed=%#x zchunk=%d grid=%ux%ux%u blocks %s: ",
               sizeof(T) == 4 ? "float" : "double", S, R, L, n[0], n[1], n[2], g, c.fixed, l.a.zchunk, l.grid.x, l.grid.y,
               l.grid.z, rev ? "backwards" : "forwards");
        emu_print_where(i, sy, sz, dst, want);
        return;
    }
}

template <typename T, int R, int L> static void run_levels()
{
    const fused_case cases[] = {
        {{45, 33, 9}, 1, 0, 0u, 1000},     /* many blocks resident: one plane per chunk */
        {{130, 30, 13}, 0, 1, 0x21u, 1},   /* two or three tiles in x, one chunk; x low, z high fixed */
        {{21, 60, 7}, 2, 0, 0x16u, 6},     /* tall: several tile rows; x high, y low, z low fixed */
        {{21, 130, 6}, 0, 0, 0u, 4},       /* taller: several tile rows of the tallest tiles (64 rows) */
        {{0, 0, 5}, 1, 1, 0u, 3},          /* a tile and one vector in x, a tile and one row in y */
        {{250, 70, 23}, 1, 0, 0x4u, 2},    /* tiles inside every box (the march's fast steps), full rounds of NS steps and a remainder */
        {{250, 70, 29}, 1, 0, 0x30u, 1},   /* z sides fixed, x and y open: inner tiles' fast rounds end short of the fixed planes */
        {{250, 70, 40}, 0, 1, 0x10u, 2},   /* z low fixed, two chunks: the fast rounds start past it */
        {{250, 70, 31}, 0, 0, 0x20u, 3},   /* z high fixed, three chunks of other lengths: rounds meet the fixed plane at other phases */
    };
    for (const fused_case &c : cases) {
        run_case<T, R, L, 32>(c);
        if constexpr (sizeof(T) == 4 && L > 1) run_case<T, R, L, 16>(c); /* the narrow tile */
    }
}

template <typename T> static void run_dtype()
{
    run_levels<T, 1, 2>();
    run_levels<T, 1, 3>();
    run_levels<T, 1, 4>();
    run_levels<T, 2, 2>();
}

/* fused3d_pick_lanes at the blocks it was chosen for (132 SMs, a pass of 4 jacobi7 sweeps of
 * floats at depth 4): the narrow tile at a 4-GPU rank's block, the wide one at 512x256x256, where
 * each was the faster (docs/performance.md). */
static void check_lanes_choice(void)
{
    const struct {
        int n[3], want;
    } cases[] = {{{256, 128, 128}, 16}, {{256, 256, 128}, 16}, {{512, 256, 256}, 32}};
    for (const auto &c : cases) {
        const int g = 4, alloc[3] = {(c.n[0] + 2 * g + HX_ROW_ALIGN - 1) / HX_ROW_ALIGN * HX_ROW_ALIGN, c.n[1] + 2 * g, c.n[2] + 2 * g};
        hx_box boxes[4];
        for (int j = 0; j < 4; j++) boxes[j] = emu_level_box(3, c.n, g, 3 - j, 0u);
        const double c16 = fused3d_plan<float, 1, 4, 16>(boxes, alloc, 132).cost, c32 = fused3d_plan<float, 1, 4, 32>(boxes, alloc, 132).cost;
        const int got = fused3d_pick_lanes<float>(c16, c32, 0);
        checks++;
        if (got != c.want || fused3d_pick_lanes<double>(c16, c32, 16) != 32 || fused3d_pick_lanes<float>(c16, c32, 48 - c.want) != 48 - c.want) {
            failures++;
            printf("FAIL lanes at %dx%dx%d: the model picks %d (costs %.0f narrow, %.0f wide), want %d\n", c.n[0], c.n[1], c.n[2], got, c16,
                   c32, c.want);
        }
    }
}

int main(void)
{
    check_lanes_choice();
    run_dtype<float>();
    run_dtype<double>();
    printf("fused 3D bodies on the host: %d of %d passes bit-identical to separate sweeps, blocks in either order "
           "(%d with one-plane z chunks, %d with one chunk)\n", checks - failures, checks, one_plane, one_chunk);
    return failures ? 1 : 0;
}
