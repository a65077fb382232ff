/* The fused 2D body (temporal blocking): L sweeps in one pass, a warp marching a strip of 32 vectors down y. */
#ifndef HALOX_CUDA_FUSED2D_CUH
#define HALOX_CUDA_FUSED2D_CUH

#include "compute/backend.h"
#include "compute/cuda/common.cuh"

/* Temporal blocking for the sweeps of a deep-halo cycle: level j+1 (sweep k+j) is computed from
 * level j as the rows of level j come out, so the field is read and written once for L sweeps.
 * A warp owns a strip of 32 vectors and marches down y; each level keeps 2R+1 rows in registers
 * and takes its x neighbours from the adjacent lanes (shuffles). The outermost `margin` lanes of a
 * strip only feed their neighbours (their own cells lack the x neighbours after a level or two),
 * so strips overlap by 2*margin lanes. Each level's cells outside that sweep's box keep the value
 * of the source field, as in separate sweeps (fixed boundary cells stay 0); the arithmetic is the
 * shared expression tree, so the result is bit-identical to L separate sweeps.
 *
 * Registers: L x (2R+1) vectors of 16 bytes per thread (L x R <= 8: at most 96 floats or 48
 * doubles), with no copies when the window advances: the march is unrolled by 2R+1 steps and
 * each step names its rows by (phase + k) mod (2R+1). Level-0 rows are loaded 2R+1 steps ahead
 * (2R+1 vectors in flight per thread: few warps fit beside these windows). No instance spills
 * (ptxas, 255 registers at most: table in docs/design.md). */

struct fused_args {
    int lo[HX_FUSE_MAX][2], hi[HX_FUSE_MAX][2]; /* the box of each level (sweep) */
    int xstart;                                  /* first output vector of strip 0 */
    int margin;                                  /* lanes of a strip that only feed neighbours */
    int pitch, rows;                             /* allocation: cells per row, rows */
    long sy;
};

template <typename T, int R>
__device__ __forceinline__ cells<T> level_row(const cells<T> (&w)[2 * R + 1])
{
    const int V = vec16<T>::n;
    xrow<T, R> c;
#pragma unroll
    for (int i = 0; i < R; i++) {
        c.v[i] = __shfl_up_sync(0xffffffffu, w[R].v[V - R + i], 1);
        c.v[R + V + i] = __shfl_down_sync(0xffffffffu, w[R].v[i], 1);
    }
#pragma unroll
    for (int i = 0; i < V; i++) c.v[R + i] = w[R].v[i];
    return stencil_row2<T, R>(c, w);
}

/* Cells of one level's row outside that sweep's box take the source value (clamped reads: lanes
 * outside the allocation only feed cells that are never stored). */
template <typename T>
__device__ __forceinline__ void keep_source(cells<T> &out, const T *__restrict__ src, const fused_args &a, int j, int row,
                                            bool row_in, int x0)
{
    const T *sr = src + (long)min(max(row, 0), a.rows - 1) * a.sy;
#pragma unroll
    for (int i = 0; i < vec16<T>::n; i++) {
        const int x = x0 + i;
        if (!row_in || x < a.lo[j][0] || x >= a.hi[j][0]) out.v[i] = __ldg(sr + min(max(x, 0), a.pitch - 1));
    }
}

/* One step of the march: level-0 row t arrives (row0), level j+1 is computed at row
 * t-(j+1)R. P is the step's phase: row k of a window (k = 0 oldest) lives in slot (P+k) mod 2R+1. */
template <typename T, int R, int L, int P>
__device__ __forceinline__ void fused2d_step(const T *__restrict__ src, T *__restrict__ dst, const fused_args &a,
                                             cells<T> (&w)[L][2 * R + 1], const cells<T> &row0, int t, int x0,
                                             unsigned xin, bool store_lane, int Y0)
{
    const int W = 2 * R + 1;
    w[0][(P + 2 * R) % W] = row0;
#pragma unroll
    for (int j = 0; j < L; j++) {
        cells<T> win[W];
#pragma unroll
        for (int k = 0; k < W; k++) win[k] = w[j][(P + k) % W];
        cells<T> out = level_row<T, R>(win);
        const int row = t - (j + 1) * R;
        if (j + 1 < L) {
            const bool row_in = (unsigned)(row - a.lo[j][1]) < (unsigned)(a.hi[j][1] - a.lo[j][1]);
            if (!row_in || !((xin >> j) & 1u)) keep_source(out, src, a, j, row, row_in, x0);
            w[j + 1][(P + 2 * R) % W] = out;
        } else if (store_lane && row >= Y0) {
            store_cells(dst + (long)row * a.sy + x0, out, x0, a.lo[j][0], a.hi[j][0]);
        }
    }
}

/* tile: this block's place in the grid (x: strip, y: group of blockDim.y warps, each ROWS rows);
 * blockDim.x must be 32 (one warp per strip), and a whole warp returns or none of it. */
template <typename T, int R, int L, int ROWS>
__device__ __forceinline__ void sweep2d_fused_body(const T *__restrict__ src, T *__restrict__ dst, const fused_args &a,
                                                   const uint3 tile)
{
    static_assert(R == 1 || R == 2, "the march below is unrolled for radius 1 and 2");
    const int V = vec16<T>::n, W = 2 * R + 1, m = a.margin, lane = threadIdx.x;
    const int x0 = a.xstart + ((int)tile.x * (32 - 2 * m) + lane - m) * V; /* may lie left of the row */
    const int Y0 = a.lo[L - 1][1] + (tile.y * blockDim.y + threadIdx.y) * ROWS;
    if (Y0 >= a.hi[L - 1][1]) return; /* the whole warp: shuffles stay complete */
    const int Y1 = min(Y0 + ROWS, a.hi[L - 1][1]);
    const bool store_lane = lane >= m && lane < 32 - m;
    unsigned xin = 0; /* bit j: this vector lies inside level j's box in x */
#pragma unroll
    for (int j = 0; j + 1 < L; j++) xin |= (x0 >= a.lo[j][0] && x0 + V <= a.hi[j][0]) ? 1u << j : 0u;
    const T *col = src + min(max(x0, 0), a.pitch - V);
    cells<T> w[L][W]; /* w[j]: the last 2R+1 rows of level j (level 0 = src) */
#pragma unroll
    for (int j = 0; j < L; j++)
#pragma unroll
        for (int k = 0; k < W; k++)
#pragma unroll
            for (int i = 0; i < V; i++) w[j][k].v[i] = (T)0;
    int t = Y0 - L * R; /* level-0 row loaded at this step; level j+1 is computed at row t-(j+1)R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) w[0][k] = load_vec(col + (long)(t + k) * a.sy);
    t += 2 * R;
    const int last = Y1 - 1 + L * R;
    cells<T> ahead[W]; /* rows t .. t+2R of the next W steps: loads stay 2R+1 rows ahead */
#pragma unroll
    for (int p = 0; p < W; p++) {
#pragma unroll
        for (int i = 0; i < V; i++) ahead[p].v[i] = (T)0;
        if (t + p <= last) ahead[p] = load_vec(col + (long)(t + p) * a.sy);
    }
    for (; t <= last; t += W) {
        /* W steps with phases 0 .. 2R: the windows come back to slot order 0 .. 2R */
#define HX_FUSED2D_STEP(P)                                                                            \
        if (P > 0 && t + P > last) break;                                                            \
        {                                                                                            \
            const cells<T> row_in = ahead[P % W];                                                    \
            if (t + P + W <= last) ahead[P % W] = load_vec(col + (long)(t + P + W) * a.sy);          \
            fused2d_step<T, R, L, P % W>(src, dst, a, w, row_in, t + P, x0, xin, store_lane, Y0);    \
        }
        HX_FUSED2D_STEP(0)
        HX_FUSED2D_STEP(1)
        HX_FUSED2D_STEP(2)
        if (R == 2) {
            HX_FUSED2D_STEP(3)
            HX_FUSED2D_STEP(4)
        }
#undef HX_FUSED2D_STEP
    }
}

/* The launch of a pass (fused2d.cu; tests/test_fused2d_emu.cpp runs the same): the arguments from
 * the level boxes and the allocation (alloc: cells per row, rows), the march (rows per warp: the
 * ROWS instance to launch) and a grid of blocks of 32 x 4 threads. */
struct fused2d_launch {
    fused_args a;
    int rows;
    dim3 grid, block;
};

template <typename T, int R, int L> static inline fused2d_launch fused2d_plan(const hx_box *boxes, const int *alloc, int sms)
{
    const int V = vec16<T>::n;
    const hx_box *out = &boxes[L - 1];
    fused2d_launch l;
    fused_args &a = l.a;
    memset(&a, 0, sizeof a);
    for (int j = 0; j < L; j++)
        for (int i = 0; i < 2; i++) {
            a.lo[j][i] = boxes[j].lo[i];
            a.hi[j][i] = boxes[j].hi[i];
        }
    a.margin = (L * R + V - 1) / V;
    a.xstart = out->lo[0] / V * V;
    a.pitch = alloc[0];
    a.rows = alloc[1];
    a.sy = alloc[0];
    const int per_strip = 32 - 2 * a.margin;
    const int strips = ((out->hi[0] - a.xstart + V - 1) / V + per_strip - 1) / per_strip;
    const int ny = out->hi[1] - out->lo[1];
    /* a march re-reads and recomputes 2LR rows that start it: long marches for deep fusion, shortened
     * until the GPU holds about 16 warps per multiprocessor */
    int rows = L * R > 4 ? 128 : 64;
    while (rows > 16 && (long)strips * ((ny + rows - 1) / rows) < 16L * sms) rows /= 2;
    const int chunks = (ny + rows - 1) / rows;
    l.rows = rows;
    l.block = dim3(32, 4);
    l.grid = dim3((unsigned)strips, (unsigned)((chunks + 3) / 4));
    return l;
}

#endif
