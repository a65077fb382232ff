/* The loops over the cells of a box that the kernel-initiated kernels share (the pass kernel's
 * pack, unpack and 3D sweeps; the role kernel's every role; the operator pass kernel's sweeps with
 * a norm): a box's cells spread over the threads of the k-th of nb blocks, HX_BATCH loads in flight
 * per thread, field reads through L2 (ld.global.cg: other blocks wrote them during the kernel, and
 * L1 is not coherent between SMs). Included by persistent_kernel.cuh after hx_pparams and HX_BATCH. */
#ifndef HALOX_BOX_LOOPS_CUH
#define HALOX_BOX_LOOPS_CUH

/* Stencil on values loaded around p with ld.global.cg, for global fields. */
template <typename T, int ST> __device__ __forceinline__ T hx_apply_cg(const T *p, long sy, long sz);
#define HX_APPLY_CG(T, SUF)                                                                                 \
    template <> __device__ __forceinline__ T hx_apply_cg<T, HX_JACOBI5>(const T *p, long sy, long)          \
    {                                                                                                       \
        return hx_jacobi5v_##SUF(__ldcg(p - 1), __ldcg(p + 1), __ldcg(p - sy), __ldcg(p + sy));             \
    }                                                                                                       \
    template <> __device__ __forceinline__ T hx_apply_cg<T, HX_JACOBI7>(const T *p, long sy, long sz)       \
    {                                                                                                       \
        return hx_jacobi7v_##SUF(__ldcg(p - 1), __ldcg(p + 1), __ldcg(p - sy), __ldcg(p + sy), __ldcg(p - sz), \
                                 __ldcg(p + sz));                                                           \
    }                                                                                                       \
    template <> __device__ __forceinline__ T hx_apply_cg<T, HX_STAR9>(const T *p, long sy, long)            \
    {                                                                                                       \
        return hx_star9v_##SUF(__ldcg(p - 1), __ldcg(p + 1), __ldcg(p - sy), __ldcg(p + sy), __ldcg(p - 2),  \
                               __ldcg(p + 2), __ldcg(p - 2 * sy), __ldcg(p + 2 * sy));                      \
    }                                                                                                       \
    template <> __device__ __forceinline__ T hx_apply_cg<T, HX_STAR13>(const T *p, long sy, long sz)        \
    {                                                                                                       \
        return hx_star13v_##SUF(__ldcg(p - 1), __ldcg(p + 1), __ldcg(p - sy), __ldcg(p + sy), __ldcg(p - sz), \
                                __ldcg(p + sz), __ldcg(p - 2), __ldcg(p + 2), __ldcg(p - 2 * sy),          \
                                __ldcg(p + 2 * sy), __ldcg(p - 2 * sz), __ldcg(p + 2 * sz));               \
    }
HX_APPLY_CG(float, f32)
HX_APPLY_CG(double, f64)
#undef HX_APPLY_CG

/* hx_row_of, hx_box_cells_dev and the message copies (hx_copy_msgs) are halox/kernels/detail/copy.cuh's */
#include "halox/kernels/detail/copy.cuh"

/* A sweep's store of v at cell at (x, y, z); acc gets its squared change when `norm` and the cell
 * is owned. */
template <typename T>
__device__ __forceinline__ void hx_sweep_cell(const hx_pparams &p, const T *src, T *dst, long at, int x, int y, int z,
                                              T v, bool norm, double &acc)
{
    dst[at] = v;
    if (norm && x >= p.olo[0] && x < p.ohi[0] && y >= p.olo[1] && y < p.ohi[1] && z >= p.olo[2] && z < p.ohi[2]) {
        const double d = (double)v - (double)__ldcg(src + at);
        acc += d * d;
    }
}

/* The n cells of box b (n > 0) numbered row-major and spread over the threads of the k-th of nb
 * blocks, HX_BATCH new values in flight a thread before their stores (hx_sweep_cell). value(c, at)
 * is the new value of the cell at src + at = c: the stencil sweeps' hx_cg_stencil, the operator's
 * hx_op_cells (persistent_op.cuh). */
template <typename T, typename V>
__device__ __forceinline__ void hx_sweep_cells(const hx_pparams &p, const T *src, T *dst, const hx_box &b, long n, long k,
                                               long nb, bool norm, double &acc, const V &value)
{
    const int w = b.hi[0] - b.lo[0], h = b.hi[1] - b.lo[1];
    const long stride = nb * blockDim.x;
    for (long i0 = k * blockDim.x + threadIdx.x; i0 < n; i0 += stride * HX_BATCH) {
        T v[HX_BATCH]; /* every load of the batch in flight before the first store */
        int c[HX_BATCH][3];
        long at[HX_BATCH];
#pragma unroll
        for (int u = 0; u < HX_BATCH; u++) {
            const long i = i0 + stride * u;
            if (i >= n) continue;
            hx_box_cell(b, i, w, h, n, c[u]);
            at[u] = p.sy * c[u][1] + p.sz * c[u][2] + c[u][0];
            v[u] = value(src + at[u], at[u]);
        }
#pragma unroll
        for (int u = 0; u < HX_BATCH; u++)
            if (i0 + stride * u < n) hx_sweep_cell<T>(p, src, dst, at[u], c[u][0], c[u][1], c[u][2], v[u], norm, acc);
    }
}

/* hx_sweep_cells' value for stencil ST, its neighbours read with ld.global.cg (hx_apply_cg). */
template <typename T, int ST> struct hx_cg_stencil {
    long sy, sz;
    __device__ __forceinline__ T operator()(const T *c, long) const { return hx_apply_cg<T, ST>(c, sy, sz); }
};

/* One sweep on box b, straight from global memory, by the k-th of nb blocks (the pass kernel:
 * every block of the grid; the role kernel: the blocks of one role); acc gets the squared change
 * of the owned cells when `norm`. A warp per row (no division per cell), or, on boxes narrower
 * than a warp (x slabs) or with fewer rows than warps (a y slab), cells spread over every thread. */
template <typename T, int ST>
__device__ void hx_sweep_rows(const hx_pparams &p, const T *src, T *dst, const hx_box &b, int k, int nb, bool norm,
                              double &acc)
{
    const int w = b.hi[0] - b.lo[0], h = b.hi[1] - b.lo[1], rows = h * (b.hi[2] - b.lo[2]);
    if (w <= 0 || rows <= 0) return;
    const int lane = threadIdx.x & 31, warps = (int)(blockDim.x >> 5), nw = nb * warps;
    if (w < 32 || rows < nw) {
        hx_sweep_cells<T>(p, src, dst, b, (long)w * rows, k, nb, norm, acc, hx_cg_stencil<T, ST>{p.sy, p.sz});
        return;
    }
    for (int r = k * warps + (int)(threadIdx.x >> 5); r < rows; r += nw) {
        const int y = b.lo[1] + r % h, z = b.lo[2] + r / h;
        const long base = p.sy * y + p.sz * z;
        for (int x0 = b.lo[0] + lane; x0 < b.hi[0]; x0 += 32 * HX_BATCH) {
            T v[HX_BATCH]; /* every load of the batch in flight before the first store */
#pragma unroll
            for (int u = 0; u < HX_BATCH; u++)
                if (x0 + 32 * u < b.hi[0]) v[u] = hx_apply_cg<T, ST>(src + base + x0 + 32 * u, p.sy, p.sz);
#pragma unroll
            for (int u = 0; u < HX_BATCH; u++)
                if (x0 + 32 * u < b.hi[0]) hx_sweep_cell<T>(p, src, dst, base + x0 + 32 * u, x0 + 32 * u, y, z, v[u], norm, acc);
        }
    }
}

#endif
