/* (About 530 lines: the kernels, their set-up and the memory-ordering argument they rest on read best together; the small-message kernel is in ipc_pingpong_ll.cuh.)
 *
 * The device-initiated ping-pong (ipc_pingpong.h): kernels and their host set-up.
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
 *     limit, PPK_SMALL, an estimate not yet measured: HALOX_PINGPONG_LL=0 runs the other protocol
 *     for comparison, HALOX_PINGPONG_LL=N lowers the limit to N bytes. Why a word carrying s holds
 *     s's payload, why none carries s by chance, why two parities suffice: ipc_pingpong_ll.cuh.
 *   large (and every size with HALOX_PINGPONG_LL=0): the payload, then fence and release flag:
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
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compute/backend.h" /* hx_timeout_seconds */
#include "transport/device_sync.cuh"
#include "transport/ipc_pingpong.h"

#define PPK_THREADS 256
#ifndef PPK_WATCH_EVERY /* a tuning knob (scripts/variant_build.sh) */
#define PPK_WATCH_EVERY 64 /* spins between two looks at the watchdog (abort flag, clock) */
#endif
#ifndef PPK_LL_PARITY_MIN /* a tuning knob (scripts/variant_build.sh) */
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

struct hx_ipc_pingpong {
    int initiator, rank, peer, device, peer_device, sms, per_sm;
    long max_bytes, max_iters;
    long ll_max;          /* the largest size sent in flagged words (0: none), the initiator's choice */
    size_t ll_parity;     /* bytes of one LL parity: 2 x min(PPK_LL_MAX, max_bytes), 16-byte lines */
    size_t payload_at;    /* where the large-message payload starts in the area */
    char *area, *send, *peer_area;
    unsigned char *ctrl; /* [0] arrivals, [128] abort flag, [256] totals */
    long long *cycles;
    ppk_watch *watch, *watch_dev;
    cudaStream_t stream;
    cudaEvent_t ev[2];
    double cycles_per_ns; /* the last rate known: the calibration, then each launch's timed loop */
    unsigned long long seq, arrivals;
};

/* Every CUDA and MPI call: a failure returns -1 with its one-line reason in err. */
#define CK(call)                                                                                          \
    do {                                                                                                  \
        cudaError_t e_ = (call);                                                                          \
        if (e_ != cudaSuccess) return snprintf(err, n, "%s: %s", #call, cudaGetErrorString(e_)), -1;     \
    } while (0)
#define MPI_CK(call) do { if ((call) != MPI_SUCCESS) return snprintf(err, n, "%s failed", #call), -1; } while (0)

typedef struct { /* what the peer needs to know, traded once */
    int ok, node, device;
    long ll_max;
    char uuid[16];
    cudaIpcMemHandle_t handle;
} ppk_card;

static int local_setup(hx_ipc_pingpong *pp, ppk_card *me, char *err, size_t n)
{
    CK(cudaSetDevice(pp->device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, pp->device));
    memcpy(me->uuid, prop.uuid.bytes, sizeof me->uuid);
    pp->sms = prop.multiProcessorCount;
    int coop = 0;
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, pp->device));
    if (!coop) return snprintf(err, n, "GPU %d cannot launch cooperative kernels", pp->device), -1;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pp->per_sm, ppk_kernel<false>, PPK_THREADS, 0));
    if (pp->per_sm < 1) return snprintf(err, n, "the ipc-kernel kernel does not fit on an SM of GPU %d", pp->device), -1;
    CK(cudaStreamCreateWithFlags(&pp->stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&pp->ev[0]));
    CK(cudaEventCreate(&pp->ev[1]));
    /* area: [flag | LL parity 0 | LL parity 1 | payload]; the send buffer padded to 16 bytes (the
     * LL sender reads whole 8-byte words) */
    const size_t ll = (size_t)(pp->max_bytes < PPK_LL_MAX ? pp->max_bytes : PPK_LL_MAX);
    pp->ll_parity = 2 * ((ll + 15) / 16 * 16);
    /* parities at least PPK_LL_PARITY_MIN apart: with --max-bytes 64 they were 128 B apart and an
     * 8-byte half round trip took 1.01 us on 2 x H200, against 0.91 with 64 KiB (session 8) */
    if (pp->ll_parity < PPK_LL_PARITY_MIN) pp->ll_parity = PPK_LL_PARITY_MIN;
    pp->payload_at = (PPK_FLAG_BYTES + 2 * pp->ll_parity + 255) / 256 * 256;
    const size_t send_bytes = ((size_t)pp->max_bytes + 15) / 16 * 16;
    CK(cudaMalloc((void **)&pp->area, pp->payload_at + (size_t)pp->max_bytes));
    CK(cudaMalloc((void **)&pp->send, send_bytes));
    CK(cudaMalloc((void **)&pp->ctrl, 512));
    CK(cudaMalloc((void **)&pp->cycles, sizeof(long long) * (size_t)pp->max_iters));
    CK(cudaHostAlloc((void **)&pp->watch, sizeof(ppk_watch), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&pp->watch_dev, pp->watch, 0));
    memset(pp->watch, 0, sizeof *pp->watch);
    CK(cudaMemsetAsync(pp->area, 0, pp->payload_at, pp->stream)); /* flag and LL words: sequence 0, never awaited */
    CK(cudaMemsetAsync(pp->send, 0xa5, send_bytes, pp->stream));
    CK(cudaMemsetAsync(pp->ctrl, 0, 512, pp->stream));
    ppk_calibrate<<<1, 1, 0, pp->stream>>>((unsigned long long *)(pp->ctrl + 256));
    CK(cudaGetLastError());
    unsigned long long cal[2];
    CK(cudaMemcpyAsync(cal, pp->ctrl + 256, sizeof cal, cudaMemcpyDeviceToHost, pp->stream));
    CK(cudaStreamSynchronize(pp->stream));
    pp->cycles_per_ns = cal[0] ? (double)cal[1] / (double)cal[0] : 0;
    if (!(pp->cycles_per_ns > 0)) return snprintf(err, n, "GPU %d: the clock calibration read no time", pp->device), -1;
    CK(cudaIpcGetMemHandle(&me->handle, pp->area));
    return 0;
}

static int open_peer(hx_ipc_pingpong *pp, const ppk_card *me, const ppk_card *them, int a, int b, char *err, size_t n)
{
    if (me->node != them->node)
        return snprintf(err, n, "ranks %d and %d are on different nodes: ipc-kernel needs both on one node (CUDA IPC)", a, b), -1;
    if (!memcmp(me->uuid, them->uuid, sizeof me->uuid))
        return snprintf(err, n, "ranks %d and %d share one GPU: ipc-kernel needs a GPU per rank (--devices, or a GPU more)",
                        a, b), -1;
    void *p = NULL;
    cudaError_t e = cudaIpcOpenMemHandle(&p, them->handle, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess)
        return snprintf(err, n, "rank %d cannot map the receive area of rank %d (GPU %d to GPU %d; no peer access?): %s",
                        pp->rank, pp->peer, pp->device, them->device, cudaGetErrorString(e)), -1;
    pp->peer_area = (char *)p;
    cudaPointerAttributes at;
    CK(cudaPointerGetAttributes(&at, pp->peer_area));
    pp->peer_device = at.device;
    return 0;
}

/* HALOX_PINGPONG_LL: unset, empty or 1: flagged words up to PPK_LL_MAX; 0: never (the fence and
 * flag for every size); N > 1: up to min(N, PPK_LL_MAX) bytes. */
static long ll_choice(void)
{
    const char *v = getenv("HALOX_PINGPONG_LL");
    const long x = v && *v ? atol(v) : 1;
    return x == 1 ? PPK_LL_MAX : x <= 0 ? 0 : x < PPK_LL_MAX ? x : PPK_LL_MAX;
}

/* Threads of the flagged-word kernel: one warp while a message has at most 32 lines (256 bytes),
 * so that its barrier is a warp's and no idle warp waits at it; PPK_THREADS above.
 * HALOX_PINGPONG_LL_THREADS=N (a multiple of 32 up to PPK_THREADS) forces N, to compare. */
static int ll_threads(long bytes)
{
    const char *v = getenv("HALOX_PINGPONG_LL_THREADS");
    const long x = v && *v ? atol(v) : 0;
    if (x >= 32 && x <= PPK_THREADS && x % 32 == 0) return (int)x;
    return (bytes + 7) / 8 <= 32 ? 32 : PPK_THREADS;
}

int hx_ipc_pingpong_setup(MPI_Comm comm, int a, int b, int device, long max_bytes, long max_iters, hx_ipc_pingpong **out,
                          char *err, size_t n)
{
    int rank, size, node = 0;
    *out = NULL;
    err[0] = 0;
    MPI_CK(MPI_Comm_rank(comm, &rank));
    MPI_CK(MPI_Comm_size(comm, &size));
    MPI_Comm local; /* the node: the first rank of each MPI_COMM_TYPE_SHARED group names it */
    MPI_CK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local));
    node = rank;
    int rc = MPI_Bcast(&node, 1, MPI_INT, 0, local);
    MPI_Comm_free(&local);
    MPI_CK(rc);
    int ok = 1;
    if (rank == a || rank == b) {
        hx_ipc_pingpong *pp = (hx_ipc_pingpong *)calloc(1, sizeof *pp);
        ppk_card me = {}, them = {};
        *out = pp;
        if (pp) {
            pp->initiator = rank == a;
            pp->rank = rank;
            pp->peer = rank == a ? b : a;
            pp->device = device;
            pp->max_bytes = max_bytes;
            pp->max_iters = max_iters;
            me.ll_max = ll_choice();
            char why[256] = "";
            const char *fault = getenv("HALOX_FAULT_SETUP"); /* the tests' injected failure */
            if (fault && *fault && atoi(fault) == rank) snprintf(why, sizeof why, "set-up failure injected by HALOX_FAULT_SETUP");
            else ok = local_setup(pp, &me, why, sizeof why) == 0;
            if (why[0]) ok = 0, snprintf(err, n, "rank %d (GPU %d): %s", rank, device, why);
        } else {
            ok = 0, snprintf(err, n, "out of host memory for the ipc-kernel set-up");
        }
        me.ok = ok, me.node = node, me.device = device;
        if (MPI_Sendrecv(&me, (int)sizeof me, MPI_BYTE, rank == a ? b : a, 91, &them, (int)sizeof them, MPI_BYTE,
                         rank == a ? b : a, 91, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            if (ok) snprintf(err, n, "MPI_Sendrecv of the ipc-kernel handles between ranks %d and %d failed", a, b);
            ok = 0;
        }
        if (ok && them.ok) ok = open_peer(pp, &me, &them, a, b, err, n) == 0;
        if (pp) pp->ll_max = rank == a ? me.ll_max : them.ll_max; /* both ranks must agree: a's */
    }
    /* agreement: the lowest failing rank's message goes to every rank */
    int mine = ok ? size : rank, first = size;
    MPI_CK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first == size) return 0;
    char msg[256];
    snprintf(msg, sizeof msg, "%s", err);
    MPI_CK(MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm));
    snprintf(err, n, "%s", msg);
    return -1;
}

/* Blocks for a message of `bytes` (see the comment at the top). */
static int pick_blocks(const hx_ipc_pingpong *pp, long bytes)
{
    if (bytes <= PPK_SMALL) return 1;
    long g = bytes / PPK_PER_BLOCK, cap = 2L * pp->sms;
    if (cap > (long)pp->per_sm * pp->sms) cap = (long)pp->per_sm * pp->sms;
    return (int)(g < cap ? g : cap);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

int hx_ipc_pingpong_run(hx_ipc_pingpong *pp, long bytes, long warmup, long iters, int compute_us, double *half_rtt_us,
                        char *err, size_t n)
{
    if (!pp) return 0;
    if (bytes < 1 || bytes > pp->max_bytes || iters < 1 || iters > pp->max_iters || warmup < 0 || compute_us < 0)
        return snprintf(err, n, "ipc-kernel: %ld B x %ld round trips is outside the set-up's %ld B x %ld", bytes, iters,
                        pp->max_bytes, pp->max_iters), -1;
    CK(cudaSetDevice(pp->device));
    const int blocks = pick_blocks(pp, bytes), ll = bytes <= pp->ll_max; /* ll: one block (PPK_LL_MAX <= PPK_SMALL) */
    ppk_params p;
    memset(&p, 0, sizeof p);
    p.src = pp->send;
    p.dst = pp->peer_area + pp->payload_at;
    p.remote_flag = (unsigned long long *)pp->peer_area;
    p.my_flag = (const unsigned long long *)pp->area;
    p.ll_dst = (unsigned long long *)(pp->peer_area + PPK_FLAG_BYTES);
    p.ll_mine = (const unsigned long long *)(pp->area + PPK_FLAG_BYTES);
    p.ll_parity = (long long)(pp->ll_parity / 8);
    p.arrivals = (unsigned long long *)pp->ctrl;
    p.abort_flag = (int *)(pp->ctrl + 128);
    p.totals = (unsigned long long *)(pp->ctrl + 256);
    p.cycles = pp->cycles;
    p.bytes = bytes;
    p.rounds = warmup + iters;
    p.warmup = warmup;
    const char *fault = getenv("HALOX_FAULT_SKIP_PUTS"); /* this rank stops sending from round trip 3 */
    p.skip_from = fault && *fault && atoi(fault) == pp->rank ? 3 : 0;
    p.seq0 = pp->seq;
    p.timeout_ns = (unsigned long long)(hx_timeout_seconds() * 1e9);
    p.compute_cycles = (unsigned long long)(compute_us * 1e3 * pp->cycles_per_ns + 0.5);
    p.initiator = pp->initiator;
    p.watch = pp->watch_dev;
    p.arrive_base = pp->arrivals;
    pp->seq += (unsigned long long)p.rounds + 1; /* the same count on both ranks */
    if (blocks > 1) pp->arrivals += (unsigned long long)p.rounds * (unsigned long long)blocks;
    volatile ppk_watch *w = pp->watch;
    w->state = 0, w->progress = 0;
    CK(cudaMemsetAsync(pp->ctrl + 128, 0, sizeof(int), pp->stream));
    void *args[] = {&p};
    const void *kernel = ll ? (const void *)ppk_kernel<true> : (const void *)ppk_kernel<false>;
    const int threads = ll ? ll_threads(bytes) : PPK_THREADS;
    CK(cudaLaunchCooperativeKernel(kernel, dim3((unsigned)blocks), dim3((unsigned)threads), args, 0, pp->stream));
    /* the device watchdog ends every wait; this deadline only catches a kernel that stops posting */
    const double limit = hx_timeout_seconds() + 10;
    unsigned long long last = 0;
    struct timespec t0, nap = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cudaError_t e;
    while ((e = cudaStreamQuery(pp->stream)) == cudaErrorNotReady) {
        if (w->progress != last) {
            last = w->progress;
            clock_gettime(CLOCK_MONOTONIC, &t0);
        } else if (seconds_since(&t0) > limit) {
            return snprintf(err, n, "rank %d: the ipc-kernel kernel (%ld B, with rank %d) made no progress for %.0f s and did not "
                                    "stop", pp->rank, bytes, pp->peer, limit), -1;
        }
        nanosleep(&nap, NULL);
    }
    if (e != cudaSuccess)
        return snprintf(err, n, "rank %d: the ipc-kernel kernel (%ld B) failed: %s", pp->rank, bytes, cudaGetErrorString(e)), -1;
    if (w->state) {
        char round[64];
        if (w->round) snprintf(round, sizeof round, "round trip %lld of %lld", w->round, (long long)p.rounds);
        else snprintf(round, sizeof round, "the start handshake");
        return snprintf(err, n, "rank %d waited %.1f s on the device for %s rank %d (ipc-kernel, %ld B, %s) and gave up: "
                                "that rank never sent it (raise HALOX_TIMEOUT if the run is just slow)", pp->rank, w->waited_s,
                        w->what == PPK_WAIT_REPLY ? "the answer of" : "the message of", pp->peer, bytes, round), -1;
    }
    /* SM cycles per ns over the timed loop when it lasted long enough for %globaltimer (else the
     * last known rate); the next launch's busy-wait counts cycles at this rate */
    unsigned long long tot[4];
    CK(cudaMemcpy(tot, pp->ctrl + 256, sizeof tot, cudaMemcpyDeviceToHost));
    if (tot[1] - tot[0] >= 1000000ULL && tot[3] > tot[2])
        pp->cycles_per_ns = (double)(tot[3] - tot[2]) / (double)(tot[1] - tot[0]);
    if (!pp->initiator) return 0;
    long long *cyc = (long long *)malloc(sizeof *cyc * (size_t)iters);
    if (!cyc) return snprintf(err, n, "out of host memory for the ipc-kernel timings"), -1;
    cudaError_t ce = cudaMemcpy(cyc, pp->cycles, sizeof *cyc * (size_t)iters, cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess) return free(cyc), snprintf(err, n, "copying the ipc-kernel timings: %s", cudaGetErrorString(ce)), -1;
    for (long i = 0; i < iters; i++) half_rtt_us[i] = 0.5e-3 * (double)cyc[i] / pp->cycles_per_ns;
    free(cyc);
    return 0;
}

int hx_ipc_pingpong_memcpy(hx_ipc_pingpong *pp, long bytes, long warmup, long iters, double *copy_us, char *err, size_t n)
{
    if (!pp || !pp->initiator) return 0;
    if (bytes < 1 || bytes > pp->max_bytes || iters < 1 || iters > pp->max_iters || warmup < 0)
        return snprintf(err, n, "memcpy-peer: %ld B x %ld copies is outside the set-up's %ld B x %ld", bytes, iters,
                        pp->max_bytes, pp->max_iters), -1;
    CK(cudaSetDevice(pp->device));
    for (long i = 0; i < warmup + iters; i++) {
        CK(cudaEventRecord(pp->ev[0], pp->stream));
        CK(cudaMemcpyPeerAsync(pp->peer_area + pp->payload_at, pp->peer_device, pp->send, pp->device, (size_t)bytes, pp->stream));
        CK(cudaEventRecord(pp->ev[1], pp->stream));
        CK(cudaEventSynchronize(pp->ev[1]));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, pp->ev[0], pp->ev[1]));
        if (i >= warmup) copy_us[i - warmup] = 1e3 * (double)ms;
    }
    return 0;
}

void hx_ipc_pingpong_destroy(MPI_Comm comm, hx_ipc_pingpong *pp)
{
    if (pp && pp->peer_area) cudaIpcCloseMemHandle(pp->peer_area);
    MPI_Barrier(comm); /* the peer has unmapped this rank's area before it goes */
    if (!pp) return;
    cudaFree(pp->area), cudaFree(pp->send), cudaFree(pp->ctrl), cudaFree(pp->cycles);
    if (pp->watch) cudaFreeHost(pp->watch);
    for (int i = 0; i < 2; i++)
        if (pp->ev[i]) cudaEventDestroy(pp->ev[i]);
    if (pp->stream) cudaStreamDestroy(pp->stream);
    free(pp);
}
