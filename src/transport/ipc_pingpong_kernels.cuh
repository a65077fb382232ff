/* The device-initiated ping-pong (ipc_pingpong.h): its kernels and the memory-ordering argument
 * they rest on; ipc_pingpong.cu, which includes this once, has their host set-up and launches,
 * ipc_pingpong_ll.cuh the small-message protocol.
 *
 * Each rank of the pair owns a receive area, [flag (u64, alone in the first 256 bytes) | LL area
 * (two parities of 2 x min(PPK_LL_MAX, max_bytes) bytes) | payload (max_bytes)], mapped by the
 * peer through CUDA IPC, and a send buffer in its own memory. One launch per size runs, in
 * sequence numbers s = seq0 + 1, seq0 + 2, ... (they only grow, so nothing is reset between sizes
 * or launches):
 *   handshake (s = seq0 + 1, no payload): a's block 0 sets b's flag, b answers; both kernels are
 *     then known to run, so no round trip pays for the other's launch;
 *   round trip r (s = seq0 + 1 + r): a sends B bytes marked s; b waits until it has them all,
 *     busy-waits T on the GPU, sends B bytes back marked s; a waits, busy-waits T, and its
 *     block 0's thread 0 takes the time of the round trip (send + T + reply + T).
 *
 * Two protocols mark a message with s:
 *   small (B <= PPK_LL_MAX = 64 KiB, one block): flagged 8-byte words, (4 payload bytes | s << 32)
 *     in one volatile store each, into the LL area's parity s & 1; the receiver's threads poll
 *     their own words until each carries s (the polls read the whole message), then meet at a
 *     barrier. No fence and no flag: the message crosses NVLink once, where the other protocol
 *     sends the payload, waits in a system fence for it to land, then sends the flag. The price is
 *     twice the bytes, which one block pays in bandwidth towards 64 KiB; the limit is the one-block
 *     limit, PPK_SMALL (ll_bytes 0 at set-up runs the other protocol for every size, ll_bytes N
 *     lowers the limit to N bytes). Why a word carrying s holds
 *     s's payload, why none carries s by chance, why two parities suffice: ipc_pingpong_ll.cuh.
 *   large (and every size with ll_bytes 0): the payload, then fence and release flag:
 *
 * Sending (large): every thread of the grid copies its grid-stride share with 16-byte loads and
 * stores (8-byte and byte tails), then
 *   one block:  __syncthreads(); thread 0: __threadfence_system(); st.release.sys flag = s.
 *     bar.sync orders the other threads' payload stores before thread 0's fence (CTA-scope
 *     synchronisation is part of causality order); fence.sc.sys is cumulative, so they are
 *     visible at system scope before the release store, itself a release at system scope.
 *   several blocks: each block does the same, then thread 0 does atomicAdd on a local arrival
 *     counter (it only grows: send number k of this launch ends when it reaches
 *     arrive_base + k * gridDim.x). The block whose add returns that value - 1 is the last: its
 *     own __threadfence_system() after the add pairs with every earlier block's fence before its
 *     add (fence - RMW chain - fence: each earlier fence synchronises with it), so all blocks'
 *     payload stores happen before its st.release.sys of the flag. No block can arrive for send
 *     k + 1 before every block arrived for send k: each first waits for the answer to send k,
 *     which needs all of send k.
 * Receiving (large): thread 0 of every block polls the block's own flag with ld.acquire.sys; the
 * release store it reads from makes the whole message visible to it, and bar.sync to its block.
 * (Nothing here reads the payload; the acquire still orders the next send after the received
 * message, so an area is never written before its owner has seen the previous message in it.)
 *
 * Every wait counts %globaltimer against HALOX_TIMEOUT (read every 64 spins, once a wait is not
 * short; in an LL wait every polling thread keeps its own): the first thread to give up writes
 * what it waited for into host-mapped memory and raises an abort flag that makes the others leave.
 * Block 0 also posts progress there (looked at every 256 round trips, posted every 50 ms at most),
 * for the host's own deadline.
 * Times: %globaltimer may tick only every microsecond on some GPUs, coarser than a round trip
 * needs, so each round trip is counted in SM cycles (clock64, block 0 stays on its SM) and
 * converted with the cycles per ns of %globaltimer over the whole timed loop (when it lasts 1 ms
 * or more; else the last rate known, from a calibration kernel at set-up at first); the
 * --compute-us busy-wait counts cycles at the last rate known before the launch.
 * Blocks: 1 up to 64 KiB (latency: one block signals with no counter), of 32 threads up to 256 B
 * in flagged words (a warp's barrier) and 256 threads above; above 64 KiB, one
 * per 32 KiB, at most two per SM and never more than fit at once (all blocks spin, so the launch
 * is cooperative: every block is resident). */
#ifndef HALOX_IPC_PINGPONG_KERNELS_CUH
#define HALOX_IPC_PINGPONG_KERNELS_CUH

#include "halox/kernels/detail/sync.cuh"

#define PPK_THREADS 256
#ifndef PPK_WATCH_EVERY
#define PPK_WATCH_EVERY 64 /* spins between two looks at the watchdog (abort flag, clock) */
#endif
#ifndef PPK_LL_PARITY_MIN
#define PPK_LL_PARITY_MIN 4096
#endif
#define PPK_FLAG_BYTES 256 /* the flag's line; the LL area starts here */
#define PPK_SMALL (64L << 10)
#define PPK_LL_MAX PPK_SMALL /* flagged words up to this size (one block; see ipc_pingpong_ll.cuh) */
#define PPK_PER_BLOCK (32L << 10)
enum { PPK_WAIT_MSG = 1, PPK_WAIT_REPLY = 2 };

typedef struct { /* host-mapped: the watchdog's report and block 0's progress */
    int state, what;
    long long round;
    double waited_s;
    unsigned long long progress;
} ppk_watch;

typedef struct {
    const char *src; /* this rank's send buffer */
    char *dst;       /* the peer's payload (mapped) */
    unsigned long long *remote_flag;
    const unsigned long long *my_flag;
    unsigned long long *ll_dst;        /* small messages: the peer's LL area (mapped), 2 parities */
    const unsigned long long *ll_mine; /* this rank's LL area */
    long long ll_parity;               /* words from parity 0 to parity 1 */
    unsigned long long *arrivals, arrive_base; /* local counter, several blocks only */
    int *abort_flag;
    unsigned long long *totals; /* a: globaltimer and clock64 at the start and end of the timed loop */
    long long *cycles;          /* a: per timed round trip */
    long long bytes, rounds, warmup, skip_from;
    unsigned long long seq0, timeout_ns, compute_cycles;
    int initiator;
    ppk_watch *watch;
} ppk_params;

/* Every 64th spin of a wait (t0: 0 until the wait is not short, then its start): false once the
 * wait must end, because another thread or block gave up or this one waited past the timeout (the
 * first to give up writes what it waited for). */
__device__ bool ppk_keep_waiting(const ppk_params &p, unsigned long long &t0, long long round)
{
    unsigned long long waited = 0;
    const int w = hx_watchdog(p.abort_flag, p.timeout_ns, t0, waited);
    if (w == HX_WATCH_WAIT) return true;
    if (w == HX_WATCH_EXPIRED && atomicCAS(p.abort_flag, 0, 1) == 0) { /* the first to give up reports */
        volatile ppk_watch *w = p.watch;
        w->what = p.initiator ? PPK_WAIT_REPLY : PPK_WAIT_MSG;
        w->round = round;
        w->waited_s = 1e-9 * (double)waited;
        __threadfence_system();
        w->state = 1;
        __threadfence_system();
    }
    return false;
}

/* Wait until this rank's flag reaches `want`; false (for the whole block) on timeout or abort.
 * `ok` is only ever 1, or 0 when thread 0 leaves too, so a thread that reads it late (two waits in
 * a row with no barrier between) can only leave early with thread 0. */
__device__ bool ppk_wait(const ppk_params &p, unsigned long long want, long long round)
{
    __shared__ int ok;
    if (threadIdx.x == 0) {
        int good = 1;
        unsigned long long t0 = 0;
        for (unsigned spin = 1; hx_load_acquire_sys(p.my_flag) < want; spin++)
            if (!(spin % PPK_WATCH_EVERY) && !ppk_keep_waiting(p, t0, round)) {
                good = 0;
                break;
            }
        ok = good;
    }
    __syncthreads();
    return ok != 0;
}

__device__ __forceinline__ void ppk_compute(const ppk_params &p)
{
    if (!p.compute_cycles) return;
    const long long end = clock64() + (long long)p.compute_cycles;
    while (clock64() < end) {
    }
}

/* Send number k (1-based) of this launch: copy, then signal s (see the comment at the top). */
__device__ void ppk_send(const ppk_params &p, long long k, unsigned long long s)
{
    if (p.skip_from && k >= p.skip_from) return; /* fault injection: this rank goes silent */
    const long long nth = (long long)gridDim.x * blockDim.x, tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long n16 = p.bytes / 16;
    const uint4 *s16 = (const uint4 *)p.src;
    uint4 *d16 = (uint4 *)p.dst;
    long long i = tid;
    for (; i + 3 * nth < n16; i += 4 * nth) { /* four loads in flight before the stores */
        const uint4 a = __ldg(s16 + i), b = __ldg(s16 + i + nth), c = __ldg(s16 + i + 2 * nth), d = __ldg(s16 + i + 3 * nth);
        d16[i] = a;
        d16[i + nth] = b;
        d16[i + 2 * nth] = c;
        d16[i + 3 * nth] = d;
    }
    for (; i < n16; i += nth) d16[i] = __ldg(s16 + i);
    for (long long j = n16 * 2 + tid; j < p.bytes / 8; j += nth)
        ((unsigned long long *)p.dst)[j] = ((const unsigned long long *)p.src)[j];
    for (long long j = p.bytes / 8 * 8 + tid; j < p.bytes; j += nth) p.dst[j] = p.src[j];
    __syncthreads();
    if (threadIdx.x != 0) return;
    __threadfence_system();
    if (gridDim.x > 1 && atomicAdd(p.arrivals, 1ULL) != p.arrive_base + (unsigned long long)k * gridDim.x - 1) return;
    if (gridDim.x > 1) __threadfence_system();
    hx_store_release_sys(p.remote_flag, s);
}

#include "transport/ipc_pingpong_ll.cuh"

/* LL: round trips in flagged words (sizes up to PPK_LL_MAX, one block); else payload, fence, flag.
 * The start handshake uses the flag either way. */
template <bool LL> __global__ void __launch_bounds__(PPK_THREADS) ppk_kernel(ppk_params p)
{
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0, timer = lead && p.initiator; /* both: clock rate; a: samples */
    unsigned long long last_post = lead ? hx_now_ns() : 0, s = p.seq0 + 1;
    if (p.initiator && lead) hx_store_release_sys(p.remote_flag, s); /* handshake */
    if (!ppk_wait(p, s, 0)) return;
    if (!p.initiator && lead) hx_store_release_sys(p.remote_flag, s);
    long long c0 = 0;
    for (long long r = 1; r <= p.rounds; r++) {
        s++;
        if (lead && r == p.warmup + 1) {
            p.totals[0] = hx_now_ns();
            p.totals[2] = (unsigned long long)clock64();
        }
        if (timer) c0 = clock64();
        if (p.initiator) LL ? ppk_ll_send(p, r, s) : ppk_send(p, r, s);
        if (!(LL ? ppk_ll_wait(p, s, r) : ppk_wait(p, s, r))) return;
        ppk_compute(p);
        if (!p.initiator) LL ? ppk_ll_send(p, r, s) : ppk_send(p, r, s);
        if (timer && r > p.warmup) p.cycles[r - p.warmup - 1] = clock64() - c0;
        if (lead && !(r & 255)) { /* the clock costs about as much as a poll: not every round trip */
            const unsigned long long t = hx_now_ns();
            if (t - last_post > 50000000ULL) { /* outside the timed interval, rarely */
                ((volatile ppk_watch *)p.watch)->progress = (unsigned long long)r;
                __threadfence_system();
                last_post = t;
            }
        }
    }
    if (lead) {
        p.totals[1] = hx_now_ns();
        p.totals[3] = (unsigned long long)clock64();
    }
}

/* SM cycles per %globaltimer interval: 20 ms to bring the clocks up, then 5 ms measured. */
__global__ void ppk_calibrate(unsigned long long *out)
{
    const unsigned long long start = hx_now_ns();
    while (hx_now_ns() - start < 20000000ULL) {
    }
    const unsigned long long g0 = hx_now_ns();
    const long long c0 = clock64();
    unsigned long long g;
    while ((g = hx_now_ns()) - g0 < 5000000ULL) {
    }
    out[0] = g - g0;
    out[1] = (unsigned long long)(clock64() - c0);
}

#endif
