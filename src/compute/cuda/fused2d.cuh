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
 * shared expression tree, so the result is bit-identical to L separate sweeps. */

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

/* tile: this block's place in the grid (x: strip, y: group of blockDim.y warps, each ROWS rows);
 * blockDim.x must be 32 (one warp per strip), and a whole warp returns or none of it. */
template <typename T, int R, int L, int ROWS>
__device__ __forceinline__ void sweep2d_fused_body(const T *__restrict__ src, T *__restrict__ dst, const fused_args &a,
                                                   const uint3 tile)
{
    const int V = vec16<T>::n, m = a.margin, lane = threadIdx.x;
    const int x0 = a.xstart + ((int)tile.x * (32 - 2 * m) + lane - m) * V; /* may lie left of the row */
    const int Y0 = a.lo[L - 1][1] + (tile.y * blockDim.y + threadIdx.y) * ROWS;
    if (Y0 >= a.hi[L - 1][1]) return; /* the whole warp: shuffles stay complete */
    const int Y1 = min(Y0 + ROWS, a.hi[L - 1][1]);
    const T *col = src + min(max(x0, 0), a.pitch - V);
    cells<T> w[L][2 * R + 1]; /* w[j]: the last 2R+1 rows of level j (level 0 = src) */
#pragma unroll
    for (int j = 0; j < L; j++)
#pragma unroll
        for (int k = 0; k <= 2 * R; k++)
#pragma unroll
            for (int i = 0; i < V; i++) w[j][k].v[i] = (T)0;
    int t = Y0 - L * R; /* level-0 row loaded at this step; level j+1 is computed at row t-(j+1)R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) w[0][k] = load_vec(col + (long)(t + k) * a.sy);
    t += 2 * R;
    const int last = Y1 - 1 + L * R;
    cells<T> ahead = load_vec(col + (long)t * a.sy);
    for (; t <= last; t++) {
        w[0][2 * R] = ahead;
        if (t + 1 <= last) ahead = load_vec(col + (long)(t + 1) * a.sy);
#pragma unroll
        for (int j = 0; j < L; j++) {
            const int row = t - (j + 1) * R;
            cells<T> out = level_row<T, R>(w[j]);
            if (j + 1 < L) {
                /* cells outside this sweep's box keep the source value */
                const bool row_in = row >= a.lo[j][1] && row < a.hi[j][1];
                if (!row_in || x0 < a.lo[j][0] || x0 + V > a.hi[j][0]) {
                    const T *sr = src + (long)min(max(row, 0), a.rows - 1) * a.sy;
#pragma unroll
                    for (int i = 0; i < V; i++) {
                        const int x = x0 + i;
                        if (!row_in || x < a.lo[j][0] || x >= a.hi[j][0]) out.v[i] = __ldg(sr + min(max(x, 0), a.pitch - 1));
                    }
                }
                w[j + 1][2 * R] = out;
            } else if (row >= Y0 && lane >= m && lane < 32 - m) {
                store_cells(dst + (long)row * a.sy + x0, out, x0, a.lo[j][0], a.hi[j][0]);
            }
        }
#pragma unroll
        for (int j = 0; j < L; j++)
#pragma unroll
            for (int k = 0; k < 2 * R; k++) w[j][k] = w[j][k + 1];
    }
}

#endif
