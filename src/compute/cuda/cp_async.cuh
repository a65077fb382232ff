/* cp.async: 16-byte copies from global into shared memory that stay in flight without holding
 * registers (sm_80 and later), committed and waited for in groups. Shared by the pipelined 3D sweep
 * and the fused 3D passes. */
#ifndef HALOX_CUDA_CP_ASYNC_CUH
#define HALOX_CUDA_CP_ASYNC_CUH

#ifdef HALOX_EMULATE
/* host tests (tests/emu/cuda_runtime.h defines it): copies queued per thread and group, landing at
 * the wait that covers them, so a body that reads a slot before its wait sees stale bytes */
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) { hx_emu::cp_async16(smem, gmem); }
__device__ __forceinline__ void cp_async_commit() { hx_emu::cp_async_commit(); }
template <int N> __device__ __forceinline__ void cp_async_wait() { hx_emu::cp_async_wait(N); }
#else
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
#endif

#endif
