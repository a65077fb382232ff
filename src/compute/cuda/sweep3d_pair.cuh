/* The 3D fp32 march with two floats a thread (8-byte vectors) instead of four. Plain C++ but for
 * the CUDA built-ins, so tests/test_sweep3d_emu.cpp runs it on the host.
 *
 * Why: a 512^2 fp32 plane is 65536 16-byte vectors, and the 16-byte march holds 6 blocks of 256
 * threads a multiprocessor, so about three chunk layers run at once. Two chunks side by side read
 * the planes they share about 2/3 of a march apart, after L2 has dropped them (+13% DRAM reads at
 * 512^3, session 27), and DRAM serves three sets of planes at a time. With two floats a thread a
 * plane takes twice the threads and the resident blocks cover half as many layers, as fp64's
 * 16-byte march does (session 28, one H200: jacobi7 fp32 512^3 313 -> 298 us a sweep).
 * The cost is twice the instructions a byte, which the arithmetic-light stencils have to spare,
 * and half the bytes a load, which the L2 prefetches (PF planes ahead) put back in flight.
 *
 * It is the walk of sweep3d_walk_body (sweep3d.cuh) for a pair of floats; it keeps its own few
 * lines for loads and stores because common.cuh's helpers are built on 16-byte vectors, which
 * every other kernel shares. */
#ifndef HALOX_CUDA_SWEEP3D_PAIR_CUH
#define HALOX_CUDA_SWEEP3D_PAIR_CUH

#include "compute/cuda/common.cuh"

/* Planes ahead and L2 prefetch distance by radius, from side-by-side runs on one H200 (session 28,
 * calls 3-5: 1 to 3 ahead x 0 to 6 prefetched, 5 sizes from 128^3 to 512^3): jacobi7 1 and 2
 * (2 or 3 prefetched are equal; none loses 15%), star13 2 and 3. */
template <int R> __host__ __device__ constexpr int sweep3d_pair_ahead() { return R == 1 ? 1 : 2; }
template <int R> __host__ __device__ constexpr int sweep3d_pair_prefetch() { return R == 1 ? 2 : 3; }

struct float_pair {
    float v[2];
};

__device__ __forceinline__ float_pair load_pair(const float *p)
{
    const float2 r = __ldg(reinterpret_cast<const float2 *>(p));
    float_pair c;
    c.v[0] = r.x;
    c.v[1] = r.y;
    return c;
}

/* tile: this block's place in the grid (x: 32 pairs, y: blockDim.y rows, z: chunk planes);
 * a.xbase is a multiple of 2 (cu_sweep rounds it to the 16-byte vector). */
template <int R, int AHEAD = sweep3d_pair_ahead<R>(), int PF = sweep3d_pair_prefetch<R>()>
__device__ __forceinline__ void sweep3d_pair_body(const float *__restrict__ src, float *__restrict__ dst, const sweep_args &a,
                                                  const uint3 tile, int chunk)
{
    const int x0 = a.xbase + (tile.x * blockDim.x + threadIdx.x) * 2;
    const int y = a.lo[1] + tile.y * blockDim.y + threadIdx.y;
    const int z0 = a.lo[2] + tile.z * chunk;
    if (x0 >= a.hi[0] || y >= a.hi[1] || z0 >= a.hi[2]) return;
    const int n = min(z0 + chunk, a.hi[2]) - z0;
    const float *base = src + x0 + (long)y * a.sy;
    float_pair win[2 * R + 1]; /* planes z-R .. z+R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = load_pair(base + (long)(z0 + k - R) * a.sz);
    float_pair ahead[AHEAD] = {}; /* planes z+R .. z+R+AHEAD-1 */
#pragma unroll
    for (int i = 0; i < AHEAD; i++)
        if (i < n) ahead[i] = load_pair(base + (long)(z0 + R + i) * a.sz);
    float_pair ys[2 * R]; /* y-R .. y-1, y+1 .. y+R of the current plane */
#pragma unroll
    for (int j = 0; j < R; j++) {
        ys[j] = load_pair(base + (long)z0 * a.sz - (long)(R - j) * a.sy);
        ys[R + j] = load_pair(base + (long)z0 * a.sz + (long)(j + 1) * a.sy);
    }
    const float *plane = base + (long)z0 * a.sz; /* plane z of this thread's row */
#pragma unroll
    for (int i = 0; i < PF; i++)
        if (AHEAD + i < n) prefetch_l2(plane + (long)(AHEAD + R + i) * a.sz);
    for (int s = 0; s < n; s++, plane += a.sz) {
        win[2 * R] = ahead[0];
#pragma unroll
        for (int i = 0; i + 1 < AHEAD; i++) ahead[i] = ahead[i + 1];
        if (s + AHEAD < n) ahead[AHEAD - 1] = load_pair(plane + (long)(AHEAD + R) * a.sz);
        if (PF > 0 && s + AHEAD + PF < n) prefetch_l2(plane + (long)(AHEAD + R + PF) * a.sz);
        float_pair cur_ys[2 * R]; /* this plane's; ys now takes the next plane's */
#pragma unroll
        for (int j = 0; j < 2 * R; j++) cur_ys[j] = ys[j];
        if (s + 1 < n) {
#pragma unroll
            for (int j = 0; j < R; j++) {
                ys[j] = load_pair(plane + a.sz - (long)(R - j) * a.sy);
                ys[R + j] = load_pair(plane + a.sz + (long)(j + 1) * a.sy);
            }
        }
        /* the centre row x0-R .. x0+1+R: R scalars each side (L1 hits, the neighbour lanes' pairs),
         * clamped to the row as load_xrow does */
        const float *row = plane - x0;
        float c[2 + 2 * R];
#pragma unroll
        for (int i = 0; i < R; i++) {
            c[i] = __ldg(row + max(x0 - R + i, 0));
            c[R + 2 + i] = __ldg(row + min(x0 + 2 + i, a.pitch - 1));
        }
        c[R] = win[R].v[0];
        c[R + 1] = win[R].v[1];
        float out[2];
#pragma unroll
        for (int i = 0; i < 2; i++) {
            const int k = R + i;
            out[i] = apply3(c[k - 1], c[k + 1], cur_ys[R - 1].v[i], cur_ys[R].v[i], win[R - 1].v[i], win[R + 1].v[i], c[k - R],
                            c[k + R], cur_ys[0].v[i], cur_ys[2 * R - 1].v[i], win[0].v[i], win[2 * R].v[i], R);
        }
        float *p = dst + (plane - src);
        if (x0 >= a.lo[0] && x0 + 2 <= a.hi[0]) {
            float2 pair;
            pair.x = out[0];
            pair.y = out[1];
            *reinterpret_cast<float2 *>(p) = pair;
        } else {
#pragma unroll
            for (int i = 0; i < 2; i++)
                if (x0 + i >= a.lo[0] && x0 + i < a.hi[0]) p[i] = out[i];
        }
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
}

#endif
