/* The 3D fp32 march with two floats a thread (8-byte vectors) instead of four. Plain C++ but for
 * the CUDA built-ins, so tests/test_sweep3d_emu.cpp runs it on the host.
 *
 * Why: a 512^2 fp32 plane is 65536 16-byte vectors, and the 16-byte march holds 6 blocks of 256
 * threads a multiprocessor, so about three chunk layers run at once. Two chunks side by side read
 * the planes they share about 2/3 of a march apart, after L2 has dropped them (more DRAM reads),
 * and DRAM serves three sets of planes at a time. With two floats a thread a plane takes twice the
 * threads and the resident blocks cover half as many layers, as fp64's 16-byte march does.
 * The cost is twice the instructions a byte, which the arithmetic-light stencils have to spare,
 * and half the bytes a load, which the L2 prefetches (PF planes ahead) put back in flight.
 *
 * The march is sweep3d_walk_body's (sweep3d.cuh) with lanes_pair for its cells. */
#ifndef HALOX_CUDA_SWEEP3D_PAIR_CUH
#define HALOX_CUDA_SWEEP3D_PAIR_CUH

#include "compute/cuda/sweep3d.cuh"

/* Planes ahead and L2 prefetch distance by radius, the fastest of 1 to 3 ahead x 0 to 6 prefetched:
 * jacobi7 1 and 2, star13 2 and 3. */
template <int R> __host__ __device__ constexpr int sweep3d_pair_ahead()
{
#ifdef HX_SWEEP3D_PAIR_AHEAD /* a tuning build's */
    return HX_SWEEP3D_PAIR_AHEAD;
#else
    return R == 1 ? 1 : 2;
#endif
}
template <int R> __host__ __device__ constexpr int sweep3d_pair_prefetch()
{
#ifdef HX_SWEEP3D_PAIR_PF
    return HX_SWEEP3D_PAIR_PF;
#else
    return R == 1 ? 2 : 3;
#endif
}

/* Two floats a thread: 8-byte loads and stores, the x neighbours as scalars (L1 hits: the
 * neighbour lanes' pairs), the helpers of common.cuh at width 2 but for the store: store_cells
 * at width 2 laid its branches out the other way, and the pair marches ran slower. */
struct lanes_pair : lanes<float, 2> {
    template <int R>
    static __device__ __forceinline__ void sweep(const float *src, float *dst, const float *at, const cell &centre, int x0,
                                                 const sweep_args &a, const cell (&ys)[2 * R], const cell (&w)[2 * R + 1])
    {
        const xrow<float, R, 2> c = load_xrow<float, R, 2>(at - x0, centre, x0, a.pitch);
        const cell out = stencil_row3<float, R, 2>(c, ys, w);
        float *p = dst + (at - src);
        if (x0 >= a.lo[0] && x0 + 2 <= a.hi[0]) {
            float2 pair;
            pair.x = out.v[0];
            pair.y = out.v[1];
            *reinterpret_cast<float2 *>(p) = pair;
        } else {
#pragma unroll
            for (int i = 0; i < 2; i++)
                if (x0 + i >= a.lo[0] && x0 + i < a.hi[0]) p[i] = out.v[i];
        }
    }
};

/* g, tile: this block's place in a march_dim launch over pairs (tile.z: the layer of chunk planes);
 * a.xbase is a multiple of 2 (cu_sweep rounds it to the 16-byte vector). */
template <int R, int AHEAD = sweep3d_pair_ahead<R>(), int PF = sweep3d_pair_prefetch<R>()>
__device__ __forceinline__ void sweep3d_pair_body(const float *__restrict__ src, float *__restrict__ dst, const sweep_args &a,
                                                  const march_grid &g, const uint3 tile, int chunk)
{
    if (!march_in_tail<R>(g, tile)) sweep3d_walk_body<float, R, 0, AHEAD, PF, lanes_pair>(src, dst, a, g, tile, chunk);
    else sweep3d_walk_body<float, R, 0, AHEAD, PF, lanes_pair, true>(src, dst, a, g, tile, chunk);
}

#endif
