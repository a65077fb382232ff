/* The small-message protocol of the device-initiated ping-pong (ipc_pingpong.cu, which includes
 * this after its ppk_params and ppk_keep_waiting): flagged 8-byte words, as in NCCL's LL
 * protocol and the resident kernel's hx_ll_put / hx_ll_poll (src/exec/resident_kernel.cuh).
 *
 * A message of B bytes (B <= PPK_LL_MAX) travels as ceil(B / 8) lines of 16 bytes: each line is
 * two 8-byte words, (payload word | s << 32), one per 4 payload bytes, with s the round trip's
 * sequence number (its low 32 bits), written into the peer's LL area of parity s & 1 with one
 * st.volatile.v2.u64 per line. The receiver's threads poll their own lines with ld.volatile.v2.u64
 * until both words of each carry s, then meet at a barrier: no fence, no flag, no counter.
 *
 * Why a word that carries s carries s's payload: an aligned 8-byte access is single-copy atomic
 * (PTX memory model; a vector access is a set of such element accesses, each whole), on the GPU
 * and over NVLink, so a word is seen either as its old value or as the new one, value and number
 * together. Every word is checked, because nothing orders the words against each other.
 * Why no word carries s by chance: s only grows (across sizes and launches, with the flags), the
 * area is zeroed at set-up (s >= 1) and the large-message payload lies elsewhere, so until 2^32
 * round trips (far beyond any run) a word holding s was written for s.
 * Why two parities suffice: message s + 2 goes into the buffer of message s. A side sends s + 2
 * only after receiving the peer's s + 1, which the peer sent after all its threads had read s
 * (their polls returned s in every word before the barrier that precedes the send). In this
 * strictly alternating ping-pong one buffer would do (the answer to s already follows the reads of
 * s); the second costs nothing and keeps the argument that of a symmetric exchange, where a side
 * sends s + 1 as soon as it has read s while the peer may still be reading s. */
#ifndef HALOX_IPC_PINGPONG_LL_CUH
#define HALOX_IPC_PINGPONG_LL_CUH

#ifndef PPK_LL_BATCH
#define PPK_LL_BATCH 8 /* lines in flight per thread while polling */
#endif

/* Send number k (1-based) of this launch as flagged words (one block; the grid-stride loop is the
 * block's). The payload is read 8 bytes at a time: the send buffer is padded to 16 bytes. */
__device__ void ppk_ll_send(const ppk_params &p, long long k, unsigned long long s)
{
    if (p.skip_from && k >= p.skip_from) return; /* fault injection: this rank goes silent */
    const unsigned long long tag = (unsigned long long)(unsigned)s << 32;
    unsigned long long *dst = p.ll_dst + (s & 1) * p.ll_parity;
    const uint2 *src = (const uint2 *)p.src;
    const int lines = (int)((p.bytes + 7) / 8), nth = (int)(gridDim.x * blockDim.x);
    for (int j = (int)(blockIdx.x * blockDim.x + threadIdx.x); j < lines; j += nth) {
        const uint2 v = __ldg(src + j);
        hx_ll_store2(dst + 2 * j, tag | v.x, tag | v.y);
    }
}

/* Poll this thread's share of message s's lines, BATCH at a time so that the loads overlap; 1 if
 * they all carry s, 0 on timeout or abort. Every thread that polls keeps the watchdog: abort flag
 * and clock every PPK_WATCH_EVERY spins, the clock only once the wait is not short. */
template <int BATCH> __device__ int ppk_ll_poll(const ppk_params &p, const unsigned long long *area, int lines, unsigned want,
                                                long long round)
{
    const int N = (int)blockDim.x;
    unsigned long long t0 = 0;
    unsigned spin = 0;
    for (int j0 = (int)threadIdx.x; j0 < lines; j0 += BATCH * N) {
        unsigned pending = 0;
#pragma unroll
        for (int u = 0; u < BATCH; u++)
            if (j0 + u * N < lines) pending |= 1u << u;
        while (pending) {
            unsigned long long x[BATCH], y[BATCH];
#pragma unroll
            for (int u = 0; u < BATCH; u++) /* all loads first, then the checks */
                if (pending >> u & 1) hx_ll_load2(area + 2 * (j0 + u * N), &x[u], &y[u]);
            unsigned still = 0;
#pragma unroll
            for (int u = 0; u < BATCH; u++)
                if ((pending >> u & 1) && ((unsigned)(x[u] >> 32) != want || (unsigned)(y[u] >> 32) != want))
                    still |= 1u << u;
            pending = still;
            if (!pending || ++spin % PPK_WATCH_EVERY) continue;
            if (!ppk_keep_waiting(p, t0, round)) return 0;
        }
    }
    return 1;
}

/* Wait until every line of message s is here; false for the whole block on timeout or abort.
 * At most one line per thread (every size on one warp, up to 256 B) polls one load at a time: the
 * batched loop's predicated loads and masks measured slower there (docs/performance.md). */
__device__ bool ppk_ll_wait(const ppk_params &p, unsigned long long s, long long round)
{
    const unsigned long long *area = p.ll_mine + (s & 1) * p.ll_parity;
    const int lines = (int)((p.bytes + 7) / 8);
    const int good = lines <= (int)blockDim.x ? ppk_ll_poll<1>(p, area, lines, (unsigned)s, round)
                                              : ppk_ll_poll<PPK_LL_BATCH>(p, area, lines, (unsigned)s, round);
    return __syncthreads_and(good) != 0;
}

#endif
