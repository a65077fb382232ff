/* The fused 2D pass bodies (src/compute/cuda/fused2d.cuh) run on the host through tests/emu (a
 * block's threads as fibers, warp shuffles as rendezvous of the 32 lanes), launched as fused2d.cu
 * launches them (fused2d_plan: arguments, march length, grid), against N separate sweeps as plain
 * loops: level j+1 is sweep j over level j inside box j and the source value outside it; dst must
 * hold the last level inside the last box, bit for bit, and nothing else may be written. Every
 * (radius, N) the library builds, both dtypes, odd boxes (partial vectors, strips, marches and
 * blocks) reaching into the ghost cells, sides clipped as at a fixed boundary, and every march
 * length. Memory ordering and timing on a GPU are the GPU suite's (tests/gpu_fuse.sh). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "compute/cuda/fused2d.cuh"
#include "halox/decomp.h" /* HX_ROW_ALIGN */

#include "emu_ref.h"

static int failures = 0, checks = 0, by_rows[257];

struct fused_case {
    int n[2];       /* owned cells; n[0] < 0: a row exactly -n[0] cells wide, without padding */
    int slack;      /* ghost cells beyond the (N + extra) R that the first level reaches */
    int extra;      /* the last level's box grows this many radii into the ghosts */
    unsigned fixed; /* sides that stop at the owned cells (emu_level_box) */
    int sms;        /* multiprocessors the march is chosen for (0: the longest march) */
    long held;      /* warps the GPU holds (fused2d_plan; > the marches: whole rounds, any_rows) */
};

template <typename T, int R, int L> static void run_case(const fused_case &c)
{
    const int g = (L + c.extra) * R + c.slack;
    const int V = vec16<T>::n, lo = g - c.extra * R, strip = (32 - 2 * ((L * R + V - 1) / V)) * V;
    /* n[0] == 0: the last strip holds one vector of the box (one cell, from a vector boundary) */
    int n[2] = {c.n[0] > 0 ? c.n[0] : c.n[0] < 0 ? -c.n[0] - 2 * g : strip + 1 - lo % V - 2 * c.extra * R, c.n[1]};
    const int alloc[2] = {(n[0] + 2 * g + HX_ROW_ALIGN - 1) / HX_ROW_ALIGN * HX_ROW_ALIGN, n[1] + 2 * g};
    const long sy = alloc[0], cells = sy * alloc[1];
    hx_box boxes[HX_FUSE_MAX];
    for (int j = 0; j < L; j++) boxes[j] = emu_level_box(2, n, g, (L - 1 - j + c.extra) * R, c.fixed);
    std::vector<T> src((size_t)cells), dst((size_t)cells, (T)-7), want((size_t)cells, (T)-7);
    emu_fill(src, (uint64_t)(n[0] * 131 + n[1] * 7 + L * 3 + R));
    const std::vector<T> src0 = src;
    /* N separate sweeps; outside its box a level holds the source */
    std::vector<T> cur = src, next;
    for (int j = 0; j < L; j++) {
        next = src;
        for (int y = boxes[j].lo[1]; y < boxes[j].hi[1]; y++)
            for (int x = boxes[j].lo[0]; x < boxes[j].hi[0]; x++) next[(size_t)(x + y * sy)] = emu_ref2(cur.data(), x + y * sy, sy, R);
        cur.swap(next);
    }
    const hx_box &out = boxes[L - 1];
    for (int y = out.lo[1]; y < out.hi[1]; y++)
        for (int x = out.lo[0]; x < out.hi[0]; x++) want[(size_t)(x + y * sy)] = cur[(size_t)(x + y * sy)];

    const fused2d_launch l = fused2d_plan<T, R, L>(boxes, alloc, c.sms, c.held);
    if (c.held && !l.any_rows) {
        failures++;
        printf("FAIL: %d warps held and the usual marches (n=%dx%d) do not fill them, but any_rows is off\n", (int)c.held, n[0], n[1]);
    }
    by_rows[l.any_rows ? 0 : l.rows]++;
    checks++;
    /* level-0 rows in registers, then through a shared-memory queue of 7 rows (fused2d_ring's; the launch's own choice
     * is one of the two paths) */
    for (int run = 0; run < 4; run++) { /* blocks forwards, then backwards: overlapping writes show */
        const int rev = run & 1, dq = run < 2 ? 0 : 7;
        std::fill(dst.begin(), dst.end(), (T)-7);
        hx_emu_reverse_blocks(rev);
        hx_emu_launch_block(l.grid, l.block, (size_t)dq * 128 * 16, [&] {
            const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y), tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);
            T *ring = reinterpret_cast<T *>(hx_emu_shared());
            if (dq == 0) sweep2d_fused_body<T, R, L>(src.data(), dst.data(), l.a, (int)blockIdx.x, y, l.rows);
            else sweep2d_fused_body<T, R, L, HX_LD_NC, 7>(src.data(), dst.data(), l.a, (int)blockIdx.x, y, l.rows, ring, tid, 128);
        });
        const long i = emu_first_diff(dst, want);
        if (i < 0 && emu_first_diff(src, src0) < 0) continue;
        failures++;
        printf("FAIL %s R=%d N=%d n=%dx%d g=%d fixed=%#x rows=%d grid=%ux%u blocks %s: ", sizeof(T) == 4 ? "float" : "double",
               R, L, n[0], n[1], g, c.fixed, l.rows, l.grid.x, l.grid.y, rev ? "backwards" : "forwards");
        printf("(level-0 queue of %d rows) ", dq);
        emu_print_where(i, sy, 0, dst, want);
        return;
    }
}

template <typename T, int R, int L> static void run_levels()
{
    const fused_case cases[] = {
        {{37, 23}, 1, 0, 0u, 132},      /* short marches, one strip, partial vectors at both ends */
        {{70, 45}, 0, 1, 0x9u, 0},      /* x low and y high sides fixed; the longest march */
        {{-96, 19}, 2, 0, 0x6u, 8},     /* the row without padding; x high and y low fixed */
        {{150, 230}, 1, 2, 0u, 1},      /* several strips, marches and blocks of 4 warps */
        {{5, 3}, 0, 0, 0xfu, 0},        /* smaller than a strip and a march, every side fixed */
        {{0, 21}, 3, 1, 0u, 4},         /* a strip and one cell */
        {{150, 230}, 1, 1, 0x5u, 1, 4000}, /* marches cut to fill whole rounds of a GPU's warps (any_rows) */
        {{70, 45}, 0, 0, 0u, 2, 700},   /* the same, one round of odd marches */
        {{300, 90}, 1, 0, 0xcu, 0},     /* y sides fixed, x open: inner strips take fast steps up to the fixed rows */
        {{300, 200}, 0, 1, 0x8u, 132},  /* y high fixed, short marches: the fast steps end where its rows begin */
    };
    for (const fused_case &c : cases) run_case<T, R, L>(c);
}

template <typename T> static void run_dtype()
{
    run_levels<T, 1, 2>();
    run_levels<T, 1, 3>();
    run_levels<T, 1, 4>();
    run_levels<T, 1, 5>();
    run_levels<T, 1, 6>();
    run_levels<T, 1, 7>();
    run_levels<T, 1, 8>();
    run_levels<T, 2, 2>();
    run_levels<T, 2, 3>();
    run_levels<T, 2, 4>();
}

int main(void)
{
    run_dtype<float>();
    run_dtype<double>();
    printf("fused 2D bodies on the host: %d of %d passes bit-identical to separate sweeps, blocks in either order "
           "(marches of 16/32/64/128/256 rows: %d/%d/%d/%d/%d; of any rows: %d)\n", checks - failures, checks, by_rows[16],
           by_rows[32], by_rows[64], by_rows[128], by_rows[256], by_rows[0]);
    return failures ? 1 : 0;
}
