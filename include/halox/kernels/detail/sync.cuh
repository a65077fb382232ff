/* Memory-ordering primitives of the kernel-initiated code (the persistent and resident kernels,
 * halox pingpong's device model), written once: the clock the watchdogs read, release stores and
 * acquire loads of flags, and the volatile 8-byte stores and loads of flagged words. CUDA, or
 * the host tests' emulator (HALOX_EMULATE, tests/emu: GPU threads are fibers, one running at a
 * time, so plain accesses are ordered already; the clock is the emulator's). */
#ifndef HALOX_DEVICE_SYNC_CUH
#define HALOX_DEVICE_SYNC_CUH

#ifdef HALOX_EMULATE
__device__ __forceinline__ unsigned long long hx_now_ns() { return hx_emu_now_ns(); }
__device__ __forceinline__ void hx_store_release_sys(unsigned long long *a, unsigned long long v) { *(volatile unsigned long long *)a = v; }
__device__ __forceinline__ void hx_store_relaxed_sys(unsigned long long *a, unsigned long long v) { *(volatile unsigned long long *)a = v; }
__device__ __forceinline__ unsigned long long hx_load_acquire_sys(const unsigned long long *a) { return *(const volatile unsigned long long *)a; }
__device__ __forceinline__ unsigned long long hx_load_acquire_gpu(const unsigned long long *a) { return *(const volatile unsigned long long *)a; }
__device__ __forceinline__ void hx_fence_acq_rel_sys() {}
__device__ __forceinline__ void hx_fence_acq_rel_gpu() {}
/* a flagged word moves whole on a GPU only from an aligned address (else it faults): so here */
__device__ __forceinline__ void hx_ll_store(unsigned long long *a, unsigned long long v)
{
    if ((uintptr_t)a & 7) hx_emu::fail("an 8-byte flagged store to an address not 8-byte aligned");
    *(volatile unsigned long long *)a = v;
}
__device__ __forceinline__ unsigned long long hx_ll_load(const unsigned long long *a)
{
    if ((uintptr_t)a & 7) hx_emu::fail("an 8-byte flagged load from an address not 8-byte aligned");
    return *(const volatile unsigned long long *)a;
}
__device__ __forceinline__ void hx_ll_store2(unsigned long long *a, unsigned long long x, unsigned long long y)
{
    if ((uintptr_t)a & 15) hx_emu::fail("a 16-byte flagged store to an address not 16-byte aligned");
    ((volatile unsigned long long *)a)[0] = x;
    ((volatile unsigned long long *)a)[1] = y;
}
__device__ __forceinline__ void hx_ll_load2(const unsigned long long *a, unsigned long long *x, unsigned long long *y)
{
    if ((uintptr_t)a & 15) hx_emu::fail("a 16-byte flagged load from an address not 16-byte aligned");
    *x = ((const volatile unsigned long long *)a)[0];
    *y = ((const volatile unsigned long long *)a)[1];
}
#else

/* Nanoseconds of the GPU's global timer. */
__device__ __forceinline__ unsigned long long hx_now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* A flag store that publishes the thread's earlier writes to every GPU and the host. */
__device__ __forceinline__ void hx_store_release_sys(unsigned long long *a, unsigned long long v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
}

/* A flag store with no fence of its own: after a fence of the same thread (__threadfence_system()
 * or hx_fence_acq_rel_*, whose scope must hold the flag's readers) it publishes what that fence
 * ordered (a fence and a strong store make a release), so one fence serves several flags; a
 * release store per flag costs a system-scope fence each. */
__device__ __forceinline__ void hx_store_relaxed_sys(unsigned long long *a, unsigned long long v)
{
    asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
}

/* Fences lighter than __threadfence_system() / __threadfence() (fence.sc): in the PTX memory
 * model an acq_rel fence followed by a strong store is a release, and one before a strong load an
 * acquire, which is all the flag protocols here need; they need no single order of all fences. */
__device__ __forceinline__ void hx_fence_acq_rel_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }
__device__ __forceinline__ void hx_fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

/* A flag load after which the writes it publishes are visible (system or GPU scope). */
__device__ __forceinline__ unsigned long long hx_load_acquire_sys(const unsigned long long *a)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long hx_load_acquire_gpu(const unsigned long long *a)
{
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}

/* Flagged words: an aligned 8-byte (or 16-byte, two words) volatile store is seen whole or not at
 * all, on the GPU and over NVLink; the volatile load polls it without caching. */
__device__ __forceinline__ void hx_ll_store(unsigned long long *a, unsigned long long v)
{
    asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long hx_ll_load(const unsigned long long *a)
{
    unsigned long long v;
    asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}
__device__ __forceinline__ void hx_ll_store2(unsigned long long *a, unsigned long long x, unsigned long long y)
{
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(a), "l"(x), "l"(y) : "memory");
}
__device__ __forceinline__ void hx_ll_load2(const unsigned long long *a, unsigned long long *x, unsigned long long *y)
{
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(*x), "=l"(*y) : "l"(a) : "memory");
}
#endif

/* A spin-wait's watchdog, consulted every 64th spin (the clock costs more than a poll), written
 * once for every device wait. t0 is 0 until the wait proves not to be short, then its start;
 * `waited` gets the nanoseconds so far. The caller reports an expiry (it knows what it waited for). */
enum { HX_WATCH_WAIT = 0, HX_WATCH_ABORTED = 1, HX_WATCH_EXPIRED = 2 };
__device__ __forceinline__ int hx_watchdog(const int *abort_flag, unsigned long long timeout_ns,
                                           unsigned long long &t0, unsigned long long &waited)
{
#ifdef HALOX_EMULATE
    hx_emu_spin(t0 == 0); /* the other blocks run: what this wait waits for happens there */
#endif
    if (*(const volatile int *)abort_flag) return HX_WATCH_ABORTED; /* another thread or block gave up */
    if (!t0) t0 = hx_now_ns();
    waited = hx_now_ns() - t0;
    return waited > timeout_ns ? HX_WATCH_EXPIRED : HX_WATCH_WAIT;
}

#endif
