/* The pass kernel's 3D passes that fuse sweeps (--fuse in 3D under the fused and persistent
 * schedules): the cycle schedule's fused body (compute/cuda/fused3d.cuh) over tiles that the
 * grid's blocks take in turn, with a plan per pass worked out on the host. Included by
 * persistent_kernel.cuh; the kernel instances are in persistent_fused3d.cu. */
#ifndef HALOX_PASS3D_FUSED_CUH
#define HALOX_PASS3D_FUSED_CUH

#include "compute/cuda/fused3d.cuh"

/* A pass's arguments and tile counts: they depend only on the sweeps left in the cycle when the
 * pass starts, so the host works them out once for each (hx_f3_plans, persistent_plan.cuh). */
typedef struct {
    fused3d_args a;
    int ntx, nty, nz; /* tile columns, tile rows, z chunks */
} hx_f3plan;
/* Plans a fused 3D kernel holds: passes with q = levels .. levels + HX_F3_PLANS - 1 sweeps left,
 * so --depth <= fuse + HX_F3_PLANS - 1. They travel in the kernel's parameters, as the cycle
 * schedule's fused kernel gets its fused3d_args, so that a pass whose plan sits at a fixed place
 * reads its fields as constant-bank operands (hx_persistent_body). */
#define HX_F3_PLANS 16

#ifdef HALOX_EMULATE
static long hx_emu_fused3d_passes; /* fused 3D passes run (block 0 counts), so that single sweeps cannot pass for them */
#endif

/* 3D: sweeps k .. k+L-1 of a cycle in one pass of the fused body (compute/cuda/fused3d.cuh, tile
 * rows of S lanes), tile by tile over the grid's blocks, with the plan pl of its sweeps left (a
 * kernel parameter); dst gets the last level. The body's loads of the source are coherent
 * (cp.async.cg, and ld.global.cg in its fix-up): other blocks wrote it before the last grid barrier. */
template <typename T, int R, int L, int S>
__device__ __forceinline__ void hx_pass3d_fused(const hx_f3plan &pl, const T *__restrict__ src, T *__restrict__ dst, T *sm)
{
    typedef fused3d_tile<T, R, L, S> C;
#ifdef HALOX_EMULATE
    if (threadIdx.x == 0 && blockIdx.x == 0) hx_emu_fused3d_passes++; /* host tests: the passes did run fused */
#endif
    const fused3d_args &a = pl.a;
    const int per_z = pl.ntx * pl.nty, n = per_z * pl.nz;
    for (int t = (int)blockIdx.x; t < n; t += (int)gridDim.x) {
        const uint3 tile = {(unsigned)(t % pl.ntx), (unsigned)(t % per_z / pl.ntx), (unsigned)(t / per_z)};
        sweep3d_fused_body<T, R, L, C::BY, C::P, C::RY, S, false>(src, dst, a, tile, sm, (int)(threadIdx.x & 31), (int)(threadIdx.x >> 5));
        __syncthreads(); /* the next tile reuses the shared memory */
    }
}

#endif
