/* The floor under halox pingpong's device model (issue 10): a bare flag ping-pong between two GPUs
 * of one process, one thread per GPU, no payload, no barrier, no watchdog. It prints the half round
 * trip (median over 7 launches of 20000 round trips each, after 2000 untimed) for four ways to
 * store and poll the flag, so that `halox pingpong --transport ipc-kernel` at 8 B can be read
 * against what the link itself allows on this machine. Not part of the library or the tests.
 * Build and run on a machine with 2 GPUs: nvcc -O3 -arch=sm_90 -o raw bench/raw_flag_pingpong.cu && ./raw */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "raw_flag_pingpong: %s: %s\n", #x, cudaGetErrorString(e_));           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef unsigned long long u64;
__device__ __forceinline__ u64 now_ns() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

/* MODE 0: st.volatile to the peer, ld.volatile on one's own flag (halox's flagged words)
 * MODE 1: st.release.sys to the peer, ld.acquire.sys on one's own flag
 * MODE 2: st.relaxed.sys to the peer, ld.relaxed.sys on one's own flag
 * MODE 3: store to one's own flag, poll the peer's flag over the link (remote loads) */
template <int MODE> __device__ __forceinline__ void put(u64 *a, u64 v)
{
    if (MODE == 1) asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
    else if (MODE == 2) asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
    else asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
}
template <int MODE> __device__ __forceinline__ u64 get(const u64 *a)
{
    u64 v;
    if (MODE == 1) asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    else if (MODE == 2) asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    else asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}

/* mine/peer: this GPU's flag and the peer's (mapped); rounds s0+1 .. s0+n; timeout 5 s */
template <int MODE> __global__ void pingpong(u64 *mine, u64 *peer, int initiator, u64 s0, int warm, int n, u64 *ns)
{
    u64 *out = MODE == 3 ? mine : peer; /* where my flag goes */
    const u64 *in = MODE == 3 ? peer : mine; /* where I read the peer's */
    const u64 start = now_ns();
    u64 t0 = 0;
    for (int r = 1; r <= warm + n; r++) {
        if (r == warm + 1) t0 = now_ns();
        const u64 s = s0 + (u64)r;
        if (initiator) put<MODE>(out, 2 * s);
        while (get<MODE>(in) < (initiator ? 2 * s + 1 : 2 * s))
            if (now_ns() - start > 5000000000ULL) { ns[0] = 0; return; }
        if (!initiator) put<MODE>(out, 2 * s + 1);
    }
    ns[0] = now_ns() - t0;
}

/* Steps from the bare flag towards halox's flagged-word round trip (ipc_pingpong_ll.cuh), one
 * feature at a time, to see which one costs: F_LINE16 a 16-byte line of two tagged words (one
 * st/ld.volatile.v2.u64) instead of one 8-byte flag; F_WARP a 32-thread block, thread 0 polls, the
 * block meets at __syncthreads_and; F_LDG the payload read with __ldg before each store; F_TIMER
 * clock64 per round trip stored to global memory (the initiator's samples). */
enum { F_LINE16 = 1, F_WARP = 2, F_LDG = 4, F_TIMER = 8 };
template <int F> __global__ void stepwise(u64 *mine, u64 *peer, int initiator, u64 s0, int warm, int n, u64 *ns,
                                          const uint2 *payload, long long *samples)
{
    const bool lead = threadIdx.x == 0;
    const u64 start = now_ns();
    u64 t0 = 0;
    int good = 1;
    for (int r = 1; r <= warm + n && good; r++) {
        if (lead && r == warm + 1) t0 = now_ns();
        const long long c0 = (F & F_TIMER) ? clock64() : 0;
        const u64 s = s0 + (u64)r;
        u64 *dst = peer + 32 * (s & 1);
        const u64 *src = mine + 32 * (s & 1);
        for (int side = 0; side < 2; side++) {
            if (lead && (side == 0) == (initiator != 0)) { /* send */
                u64 x = s << 32, y = s << 32;
                if (F & F_LDG) {
                    const uint2 v = __ldg(payload);
                    x |= v.x, y |= v.y;
                }
                if (F & F_LINE16) asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(dst), "l"(x), "l"(y) : "memory");
                else asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(dst), "l"(x) : "memory");
            }
            if (side == 0) { /* wait */
                if (lead)
                    for (;;) {
                        u64 x, y;
                        if (F & F_LINE16) asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(x), "=l"(y) : "l"(src) : "memory");
                        else {
                            asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(x) : "l"(src) : "memory");
                            y = x;
                        }
                        if ((x >> 32) == (s & 0xffffffffULL) && (y >> 32) == (s & 0xffffffffULL)) break;
                        if (now_ns() - start > 5000000000ULL) { good = 0; break; }
                    }
                if (F & F_WARP) good = __syncthreads_and(good);
            }
        }
        if ((F & F_TIMER) && lead && r > warm) samples[(r - warm - 1) & 1023] = clock64() - c0;
    }
    if (lead) ns[0] = good ? now_ns() - t0 : 0;
}

template <int F> static double run_step(u64 *flag[2], u64 *ns[2], u64 &s0, int warm, int n, const uint2 *pay[2], long long *smp[2])
{
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMemset(flag[g], 0, 512));
        CK(cudaDeviceSynchronize());
    }
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        stepwise<F><<<1, (F & F_WARP) ? 32 : 1>>>(flag[g], flag[1 - g], g == 0, s0, warm, n, ns[g], pay[g], smp[g]);
        CK(cudaGetLastError());
    }
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaDeviceSynchronize());
    }
    u64 t = 0;
    CK(cudaMemcpy(&t, ns[0], sizeof t, cudaMemcpyDeviceToHost));
    if (!t) { fprintf(stderr, "raw_flag_pingpong: stepwise %d timed out after 5 s\n", F); exit(1); }
    return (double)t / 1e3 / (2.0 * n);
}

template <int MODE> static double run(u64 *flag[2], u64 *ns[2], u64 &s0, int warm, int n)
{
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        pingpong<MODE><<<1, 1>>>(flag[g], flag[1 - g], g == 0, s0, warm, n, ns[g]);
        CK(cudaGetLastError());
    }
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaDeviceSynchronize());
    }
    s0 += (u64)(warm + n);
    u64 t = 0;
    CK(cudaMemcpy(&t, ns[0], sizeof t, cudaMemcpyDeviceToHost));
    if (!t) { fprintf(stderr, "raw_flag_pingpong: mode %d timed out after 5 s\n", MODE); exit(1); }
    return (double)t / 1e3 / (2.0 * n); /* us per half round trip */
}

int main()
{
    int count = 0, ok01 = 0, ok10 = 0;
    CK(cudaGetDeviceCount(&count));
    if (count < 2) { fprintf(stderr, "raw_flag_pingpong: needs 2 GPUs, found %d\n", count); return 2; }
    CK(cudaDeviceCanAccessPeer(&ok01, 0, 1));
    CK(cudaDeviceCanAccessPeer(&ok10, 1, 0));
    if (!ok01 || !ok10) { fprintf(stderr, "raw_flag_pingpong: GPUs 0 and 1 have no peer access\n"); return 2; }
    u64 *flag[2], *ns[2];
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaDeviceEnablePeerAccess(1 - g, 0));
        CK(cudaMalloc(&flag[g], 512));
        CK(cudaMemset(flag[g], 0, 512));
        CK(cudaMalloc(&ns[g], sizeof(u64)));
    }
    const char *names[4] = {"volatile store to peer, volatile poll of own flag",
                            "release.sys store to peer, acquire.sys poll of own flag",
                            "relaxed.sys store to peer, relaxed.sys poll of own flag",
                            "volatile store to own flag, volatile poll of the peer's (remote loads)"};
    u64 s0 = 0;
    const int reps = 7, warm = 2000, n = 20000;
    printf("raw flag ping-pong, GPU 0 <-> GPU 1, one thread each: half round trip, us (median of %d x %d)\n", reps, n);
    for (int mode = 0; mode < 4; mode++) {
        double t[reps];
        for (int k = 0; k < reps; k++)
            t[k] = mode == 0 ? run<0>(flag, ns, s0, warm, n) : mode == 1 ? run<1>(flag, ns, s0, warm, n)
                 : mode == 2 ? run<2>(flag, ns, s0, warm, n) : run<3>(flag, ns, s0, warm, n);
        std::sort(t, t + reps);
        printf("  mode %d  %.3f  (min %.3f, max %.3f)  %s\n", mode, t[reps / 2], t[0], t[reps - 1], names[mode]);
    }
    uint2 *pay[2];
    long long *smp[2];
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMalloc(&pay[g], 64));
        CK(cudaMemset(pay[g], 0, 64));
        CK(cudaMalloc(&smp[g], 1024 * sizeof(long long)));
    }
    const uint2 *cpay[2] = {pay[0], pay[1]};
    printf("steps towards halox's flagged-word round trip (+: feature on): half round trip, us (median of %d x %d)\n", reps, n);
    const int combos[] = {0, F_LINE16, F_WARP, F_LDG, F_TIMER, F_LINE16 | F_WARP, F_LINE16 | F_WARP | F_LDG,
                          F_LINE16 | F_WARP | F_LDG | F_TIMER};
    for (int c : combos) {
        double t[reps];
        for (int k = 0; k < reps; k++) {
            s0 = 0; /* flags are zeroed before each launch */
            switch (c) {
#define STEP(f) case f: t[k] = run_step<f>(flag, ns, s0, warm, n, cpay, smp); break;
                STEP(0) STEP(1) STEP(2) STEP(4) STEP(8) STEP(3) STEP(7) STEP(15)
#undef STEP
            }
        }
        std::sort(t, t + reps);
        printf("  %s%s%s%s%s  %.3f  (min %.3f, max %.3f)\n", c ? "" : "flag8 ", c & F_LINE16 ? "+line16 " : "",
               c & F_WARP ? "+warp " : "", c & F_LDG ? "+ldg " : "", c & F_TIMER ? "+timer " : "", t[reps / 2], t[0],
               t[reps - 1]);
    }
    return 0;
}
