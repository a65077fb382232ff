/* The pass kernel's 2D passes by marching register windows (its MARCH instance for jacobi5 and
 * star9, for passes of several sweeps; it replaced the shared-memory tiles of hx_pass2d there but
 * in the NVSHMEM device API's kernel): the cycle schedule's fused body (src/compute/cuda/fused2d.cuh: a warp marches a strip
 * down y with L levels of 2R+1 rows in registers, x neighbours by shuffles), run over the pass's
 * marches by every warp of the grid in turn, its loads cached in L1 (HX_LD_CA: each pass follows
 * a grid barrier that invalidates L1, see hx_march_ld). L is a power of two, at most
 * HX_FUSE_MAX / R: a pass of another length runs as several (the sweeps and their order are the
 * same, so the result is too). A single sweep, and every sweep followed by a norm, goes through
 * hx_pass_rows. The arithmetic is the fused body's, bit-identical to separate sweeps.
 * Included by persistent_kernel.cuh after hx_pparams and hx_pass_rows. */
#ifndef HALOX_PASS2D_MARCH_CUH
#define HALOX_PASS2D_MARCH_CUH

#include "compute/cuda/fused2d.cuh"

/* Sweeps k .. k+L-1 of a cycle of m sweeps, src to dst, by the whole grid. */
template <typename T, int R, int L>
__device__ void hx_pass2d_march_levels(const hx_pparams &p, const T *src, T *dst, int k, int m)
{
    hx_box boxes[L];
#pragma unroll
    for (int j = 0; j < L; j++) boxes[j] = hx_dev_sweep_box(p, (m - 1 - k - j) * p.radius);
    fused_args a;
    const int strips = fused2d_args<T, R, L>(boxes, (int)p.sy, (int)(p.sz / p.sy), a);
    if (strips <= 0) return;
    const long warps = (long)gridDim.x * (blockDim.x >> 5);
    const int ny = boxes[L - 1].hi[1] - boxes[L - 1].lo[1];
    const int rows = hx_march2d_rows<R, L>(strips, ny, warps);
    const long marches = (long)strips * ((ny + rows - 1) / rows);
    for (long i = (long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); i < marches; i += warps)
        sweep2d_fused_body<T, R, L, HX_LD_CA>(src, dst, a, (int)(i % strips), (int)(i / strips), rows);
}

/* Up to `levels` sweeps from sweep k of a cycle of m: returns how many it ran (a power of two). */
template <typename T, int ST>
__device__ int hx_pass2d_march(const hx_pparams &p, const T *src, T *dst, int k, int levels, int m, double *norm)
{
    constexpr int R = ST == HX_STAR9 ? 2 : 1;
    if constexpr (R == 1) {
        if (levels >= 8) return hx_pass2d_march_levels<T, R, 8>(p, src, dst, k, m), 8;
    }
    if (levels >= 4) return hx_pass2d_march_levels<T, R, 4>(p, src, dst, k, m), 4;
    if (levels >= 2) return hx_pass2d_march_levels<T, R, 2>(p, src, dst, k, m), 2;
    hx_pass_rows<T, ST>(p, src, dst, hx_dev_sweep_box(p, (m - 1 - k) * p.radius), norm);
    return 1;
}

#endif
