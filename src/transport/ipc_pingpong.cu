/* The device-initiated ping-pong (ipc_pingpong.h): host set-up, launches and the watchdog's
 * report. The kernels and their memory-ordering argument are in ipc_pingpong_kernels.cuh. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compute/backend.h" /* hx_timeout_seconds */
#include "transport/fault.h"
#include "transport/ipc_pingpong.h"
#include "transport/ipc_pingpong_kernels.cuh"

struct hx_ipc_pingpong {
    int initiator, rank, peer, device, peer_device, sms, per_sm;
    long max_bytes, max_iters;
    long ll_max;          /* the largest size sent in flagged words (0: none), the initiator's choice */
    int ll_threads;       /* threads of the flagged-word kernel, 0: automatic */
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
    /* parities at least PPK_LL_PARITY_MIN apart: closer ones (small max_bytes) measured slower
     * (docs/performance.md) */
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

/* The largest size sent in flagged words for ll_bytes: -1 PPK_LL_MAX, 0 none, N min(N, PPK_LL_MAX). */
static long ll_choice(long ll_bytes)
{
    return ll_bytes < 0 ? PPK_LL_MAX : ll_bytes < PPK_LL_MAX ? ll_bytes : PPK_LL_MAX;
}

/* Threads of the flagged-word kernel: `forced` when set (a multiple of 32 up to PPK_THREADS), else
 * one warp while a message has at most 32 lines (256 bytes), so that its barrier is a warp's and no
 * idle warp waits at it, and PPK_THREADS above. */
static int ll_threads(int forced, long bytes)
{
    if (forced) return forced;
    return (bytes + 7) / 8 <= 32 ? 32 : PPK_THREADS;
}

int hx_ipc_pingpong_setup(MPI_Comm comm, int a, int b, int device, long max_bytes, long max_iters, long ll_bytes, int ll_threads,
                          hx_ipc_pingpong **out, char *err, size_t n)
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
    if (ll_bytes < -1 || ll_threads < 0 || ll_threads > PPK_THREADS || ll_threads % 32) {
        ok = 0;
        snprintf(err, n, "ipc-kernel: ll_bytes %ld and ll_threads %d: give ll_bytes -1 (automatic), 0 (never) or a byte count, "
                 "and ll_threads 0 (automatic) or a multiple of 32 up to %d", ll_bytes, ll_threads, PPK_THREADS);
    }
    if (ok && (rank == a || rank == b)) {
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
            pp->ll_threads = ll_threads;
            me.ll_max = ll_choice(ll_bytes);
            char why[256] = "";
            if (hx_fault_setup(rank)) snprintf(why, sizeof why, "set-up failure injected by HALOX_FAULT_SETUP");
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
    p.skip_from = hx_fault_skip_puts(pp->rank); /* test builds: this rank stops sending */
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
    const int threads = ll ? ll_threads(pp->ll_threads, bytes) : PPK_THREADS;
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
