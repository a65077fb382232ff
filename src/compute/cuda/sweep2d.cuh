/* The 2D sweep body: one thread marches a vector of cells down ROWS rows of y. */
#ifndef HALOX_CUDA_SWEEP2D_CUH
#define HALOX_CUDA_SWEEP2D_CUH

#include "compute/cuda/common.cuh"

/* Rows beyond the entering one that a step prefetches into L2 in the kernels for fields that L2
 * does not hold (prefetch_l2), the fastest measured: 4 for star9 fp32, 2 for star9 fp64; jacobi5
 * loses (fp64 gains at some sizes only), and every case loses where the fields fit in L2. */
template <typename T, int R> __host__ __device__ constexpr int sweep2d_prefetch()
{
    return R == 2 ? (sizeof(T) == 4 ? 4 : 2) : 0;
}

/* The row for the next step is loaded one step ahead, so a load is always in flight while a
 * row is computed: bytes in flight, not arithmetic, set the speed of these kernels.
 * tile: this block's place in the grid (blockIdx of a 32 x by block over groups x rows/ROWS).
 * PF: rows prefetched beyond the entering one (0: none). */
template <typename T, int R, int ROWS, int PF = 0>
__device__ __forceinline__ void sweep2d_body(const T *__restrict__ src, T *__restrict__ dst, const sweep_args &a,
                                             const uint3 tile)
{
    const int V = vec16<T>::n;
    const int x0 = a.xbase + (tile.x * blockDim.x + threadIdx.x) * V;
    const int y0 = a.lo[1] + (tile.y * blockDim.y + threadIdx.y) * ROWS;
    if (x0 >= a.hi[0] || y0 >= a.hi[1]) return;
    const int y1 = min(y0 + ROWS, a.hi[1]);
    const T *base = src + x0;
    cells<T> win[2 * R + 1]; /* rows y-R .. y+R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = load_vec(base + (long)(y0 - R + k) * a.sy);
    cells<T> ahead = load_vec(base + (long)(y0 + R) * a.sy);
#pragma unroll
    for (int i = 1; i <= PF; i++)
        if (y0 + i < y1) prefetch_l2(base + (long)(y0 + i + R) * a.sy);
    for (int y = y0; y < y1; y++) {
        win[2 * R] = ahead;
        if (y + 1 < y1) ahead = load_vec(base + (long)(y + 1 + R) * a.sy);
        if (PF > 0 && y + 1 + PF < y1) prefetch_l2(base + (long)(y + 1 + PF + R) * a.sy);
        xrow<T, R> c = load_xrow<T, R>(src + (long)y * a.sy, win[R], x0, a.pitch);
        store_cells(dst + (long)y * a.sy + x0, stencil_row2<T, R>(c, win), x0, a.lo[0], a.hi[0]);
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
}

#endif
