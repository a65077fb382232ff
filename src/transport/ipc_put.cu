/* Host side of transport ipc-put (ipc_put.h): device state and the launches of a phase's put
 * and get (ipc_put.cuh). Nothing here waits for the GPU: an exchange is two launches a phase on
 * the caller's stream. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/backend.h"
#include "transport/ipc_put.cuh"
#include "transport/ipc_put.h"
#include "transport/device_watch.h"
#include "transport/fault.h"

/* Threads of a block: the put and get kernels keep blocks small, because a get block spins on an
 * SM while the interior sweep may want it (overlap); putget runs alone, at most one block per SM,
 * so a phase too large for one 256-thread block per SM grows its blocks up to IK_PUTGET_THREADS
 * (wider blocks measured faster there: docs/performance.md), while small phases (multigrid's
 * coarse levels) keep 256 on more SMs (putget_shape). Ranks sharing a GPU keep 256, see
 * hx_ipc_put_create. */
#ifndef IK_THREADS
#define IK_THREADS 256
#endif
#ifndef IK_PUTGET_THREADS
#define IK_PUTGET_THREADS 1024
#endif
#ifndef IK_PUTGET_MIN /* putget's narrowest block */
#define IK_PUTGET_MIN IK_THREADS
#endif

struct hx_ipc_put {
    hx_dev_table host;            /* the table, to size the launches */
    hx_dev_table *table;          /* its device copy */
    unsigned long long *seq;      /* device: exchanges begun */
    unsigned *ticket;             /* device: put blocks done */
    hx_dev_watch w;               /* the get kernels' watchdog memory and abort flag */
    int rank, blocks_max, sms, any, putget_threads;
    int first_phase;              /* the first phase with messages: its put numbers the exchange */
    unsigned ll_mask[HX_MAX_PHASES]; /* per phase: the messages sent as flagged words */
    unsigned self_mask[HX_MAX_PHASES]; /* per phase: the messages to this rank itself */
#if HX_IK_SELF_DIRECT
    unsigned direct_mask[HX_MAX_PHASES]; /* per phase: those copied straight into the ghosts */
    signed char self_to[HX_MAX_PHASES][HX_MAX_MSGS];
#endif
    size_t elem;
    long long skip_from;
};

int hx_ipc_put_create(const hx_dev_table *table, int rank, size_t elem, const long *ll_bytes, hx_ipc_put **out, char *err, size_t n)
{
    hx_ipc_put *k = (hx_ipc_put *)calloc(1, sizeof *k);
    *out = k;
    if (!k) return snprintf(err, n, "out of host memory for the ipc-put state"), -1;
    k->host = *table;
    k->rank = rank;
    k->elem = elem;
    k->first_phase = hx_ik_first_phase(table);
    k->any = k->first_phase >= 0;
    for (int p = 0; p < table->nphases; p++) {
        k->ll_mask[p] = hx_ik_ll_mask(table, p, elem, ll_bytes[p]);
        k->self_mask[p] = hx_ik_self_mask(table, p, rank);
#if HX_IK_SELF_DIRECT
        k->direct_mask[p] = hx_ik_direct_mask(table, p, rank, k->self_to[p]);
        k->ll_mask[p] &= ~k->direct_mask[p];
#endif
    }
    k->skip_from = hx_fault_skip_puts(rank); /* test builds: this rank stops putting */
    int dev = 0, sms = 0;
    HX_CUDA_TRY(cudaGetDevice(&dev));
    HX_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    k->blocks_max = 2 * sms;
    k->sms = sms;
    /* ranks let share a GPU (test builds): every rank's putget blocks must fit at once, since each
     * spins for the others' flags, so they stay small */
    k->putget_threads = hx_fault_share_gpu() ? IK_THREADS : IK_PUTGET_THREADS;
    HX_CUDA_TRY(cudaMalloc((void **)&k->table, sizeof *table));
    HX_CUDA_TRY(cudaMemcpy(k->table, table, sizeof *table, cudaMemcpyHostToDevice));
    HX_CUDA_TRY(cudaMalloc((void **)&k->seq, sizeof *k->seq));
    HX_CUDA_TRY(cudaMalloc((void **)&k->ticket, sizeof *k->ticket));
    HX_CUDA_TRY(cudaMemset(k->seq, 0, sizeof *k->seq));
    HX_CUDA_TRY(cudaMemset(k->ticket, 0, sizeof *k->ticket));
    return hx_dev_watch_alloc(&k->w, 0, err, n); /* synchronizes: the zeroing above ran on the legacy stream */
}

void hx_ipc_put_destroy(hx_ipc_put *k)
{
    if (!k) return;
    cudaFree(k->table);
    cudaFree(k->seq);
    cudaFree(k->ticket);
    hx_dev_watch_free(&k->w);
    free(k);
}

int hx_ipc_put_check(hx_ipc_put *k, char *err, size_t n)
{
    const volatile hx_watch *w = k->w.host;
    if (!w->state) return 0;
    return snprintf(err, n, "rank %d waited %.1f s on the device for the halo of rank %d (phase %d, exchange %lld) and gave up: "
                            "that neighbour never put it", w->rank, w->waited_s, w->peer, w->phase, w->exchange), -1;
}

/* __grid_constant__: the kernels index the argument's message copy (hx_ik_args.msg) without first
 * copying the argument to local memory */
template <typename T> __global__ void __launch_bounds__(IK_THREADS) ik_put(const __grid_constant__ hx_ik_args a) { hx_ik_put<T>(a); }
template <typename T> __global__ void __launch_bounds__(IK_THREADS) ik_get(const __grid_constant__ hx_ik_args a) { hx_ik_get<T>(a); }
template <typename T> __global__ void __launch_bounds__(IK_PUTGET_THREADS) ik_putget(const __grid_constant__ hx_ik_args a)
{
    hx_ik_putget<T>(a);
}

/* Blocks of `threads` for a phase: enough for HX_BATCH cells a thread, at most two per SM. */
static int blocks_for(const hx_ipc_put *k, int phase, int threads)
{
    long cells = 0;
    for (int m = 0; m < k->host.nmsg[phase]; m++) cells += k->host.msg[phase][m].count;
    const long per_block = (long)threads * HX_BATCH, b = (cells + per_block - 1) / per_block;
    return b < 1 ? 1 : b > k->blocks_max ? k->blocks_max : (int)b;
}

/* putget's grid: at most one block per SM (hx_ik_putget); blocks of IK_PUTGET_MIN threads while
 * that covers the phase at HX_BATCH cells a thread, else blocks twice as wide, and so on up to
 * k->putget_threads. */
static void putget_shape(const hx_ipc_put *k, int phase, int *blocks, int *threads)
{
    int t = IK_PUTGET_MIN < k->putget_threads ? IK_PUTGET_MIN : k->putget_threads, b = blocks_for(k, phase, t);
    while (b > k->sms && t * 2 <= k->putget_threads) {
        t *= 2;
        b = blocks_for(k, phase, t);
    }
    *threads = t;
    *blocks = b > k->sms ? k->sms : b;
}

int hx_ipc_put_launch(hx_ipc_put *k, hx_ik_kind kind, int phase, void *stream, void *field, long sy, long sz, char *err,
                      size_t n)
{
    if (hx_ipc_put_check(k, err, n)) return -1;
    if (!k->any || k->host.nmsg[phase] == 0) return 0; /* nothing to launch (hx_ik_first_phase) */
    hx_ik_args a;
    memset(&a, 0, sizeof a);
    a.p.field[0] = field;
    a.p.sy = sy;
    a.p.sz = sz;
    a.p.table = k->table;
    a.p.timeout_ns = (unsigned long long)(hx_timeout_seconds() * 1e9);
    a.p.watch = k->w.dev;
    a.p.abort_flag = k->w.abort_flag;
    a.p.rank = k->rank;
    a.p.skip_from = k->skip_from;
    a.phase = phase;
    a.first = kind != HX_IK_GET && phase == k->first_phase;
    a.seq = k->seq;
    a.ticket = k->ticket;
    a.ll_mask = k->ll_mask[phase];
    a.self_mask = k->self_mask[phase];
#if HX_IK_SELF_DIRECT
    a.direct_mask = k->direct_mask[phase];
    memcpy(a.self_to, k->self_to[phase], sizeof a.self_to);
#endif
    a.plain = hx_ik_plain(&k->host, phase, HX_IK_NOFLAG(a));
    hx_ik_args_phase(&a, &k->host, phase);
    int threads = IK_THREADS, blocks;
    if (kind == HX_IK_PUTGET) putget_shape(k, phase, &blocks, &threads);
    else blocks = blocks_for(k, phase, threads);
    const dim3 grid((unsigned)blocks), block((unsigned)threads);
    cudaStream_t st = (cudaStream_t)stream;
    if (k->elem == 8) {
        if (kind == HX_IK_PUT) ik_put<double><<<grid, block, 0, st>>>(a);
        else if (kind == HX_IK_GET) ik_get<double><<<grid, block, 0, st>>>(a);
        else ik_putget<double><<<grid, block, 0, st>>>(a);
    } else {
        if (kind == HX_IK_PUT) ik_put<float><<<grid, block, 0, st>>>(a);
        else if (kind == HX_IK_GET) ik_get<float><<<grid, block, 0, st>>>(a);
        else ik_putget<float><<<grid, block, 0, st>>>(a);
    }
    HX_CUDA_TRY(cudaGetLastError());
    return 0;
}
