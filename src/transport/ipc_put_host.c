/* Transport ipc-put: the set-up and device areas of ipc (ipc.c); each exchange phase is two
 * kernels on the caller's stream (ipc_put.cuh): a put that packs straight into the neighbours'
 * slots and signals, a get that waits on the device and unpacks. No host step per exchange, so a
 * graph can replay it. It needs every neighbour on this node and a GPU of its own (its kernels
 * spin for each other). */
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "transport/ipc_priv.h"

static int ipc_put_available(const hx_backend *bk, char *why, size_t n)
{
    return hx_ipc_on_gpus(bk, "transport ipc-put runs kernels on GPUs", why, n);
}

/* ll_bytes -1: phases whose messages are all of at most this many bytes go as flagged words (one
 * crossing of the link and no fence; twice the bytes, which pays up to tens of KiB: the figures
 * are in docs/performance.md). */
#define IPC_PUT_LL_DEFAULT 65536L

static int ipc_put_setup(hx_transport *t, char *err, size_t n)
{
    if (hx_ipc_setup(t, err, n)) return -1;
    hx_ipc_state *s = t->impl;
    const hx_decomp *d = t->bk->decomp;
    int nmpi = 0, other = -1, ok = 1;
    for (int p = 0; p < t->plan->nphases; p++) nmpi += s->ph[p].nmpi;
    /* phases whose messages are all of at most ll bytes as flagged words; the ranks must agree, or
     * a sender's words would meet a receiver waiting for a flag */
    long ll = t->ll_bytes < 0 ? IPC_PUT_LL_DEFAULT : t->ll_bytes, lo = 0, hi = 0;
    if (MPI_Allreduce(&ll, &lo, 1, MPI_LONG, MPI_MIN, t->comm) != MPI_SUCCESS ||
        MPI_Allreduce(&ll, &hi, 1, MPI_LONG, MPI_MAX, t->comm) != MPI_SUCCESS)
        ok = 0, snprintf(err, n, "MPI_Allreduce of ipc-put's ll_bytes failed");
    else if (lo != hi)
        ok = 0, snprintf(err, n, "ipc-put's ll_bytes differs between ranks (%ld to %ld): give every rank the same value", lo, hi);
    /* A phase goes as flagged words only where every message of it, on every rank, is small enough:
     * a phase with one plain message has its get wait for a flag anyway, and the small messages
     * then ride with it (measured slower as flagged words beside plain faces). The largest message
     * of each phase over all ranks, so that both ends of every message choose alike. */
    long biggest[HX_MAX_PHASES] = {0}, biggest_all[HX_MAX_PHASES] = {0}, ll_phase[HX_MAX_PHASES] = {0};
    for (int p = 0; p < t->plan->nphases; p++)
        for (int m = 0; m < t->plan->phase[p].nmsg; m++) {
            const long bytes = t->plan->phase[p].msg[m].count * (long)t->bk->elem;
            if (bytes > biggest[p]) biggest[p] = bytes;
        }
    if (MPI_Allreduce(biggest, biggest_all, HX_MAX_PHASES, MPI_LONG, MPI_MAX, t->comm) != MPI_SUCCESS)
        ok = 0, snprintf(err, n, "MPI_Allreduce of ipc-put's message sizes failed");
    for (int p = 0; p < HX_MAX_PHASES; p++) ll_phase[p] = biggest_all[p] <= ll ? ll : 0;
    const int shared = hx_node_shares_gpu(t->comm, t->bk->device, &other) && !hx_fault_share_gpu();
    hx_dev_table table;
    if (ok && nmpi)
        ok = 0, snprintf(err, n, "transport ipc-put: %d halo message%s of rank %d go%s through host-staged MPI (to another node, or "
                         "host_fallback); its kernels store only into GPUs of their node: use ipc or nccl", nmpi, nmpi > 1 ? "s" : "",
                         d->rank, nmpi > 1 ? "" : "es");
    else if (ok && shared) ok = 0, snprintf(err, n, "transport ipc-put: ranks %d and %d share GPU %d, and its kernels spin-wait for each "
                                      "other: give every rank a GPU of its own, or use ipc or nccl", d->rank, other, t->bk->device);
    else if (ok && (hx_ipc_device_table(s->dev, &table, err, n) ||
                    hx_ipc_put_create(&table, d->rank, t->bk->elem, ll_phase, &s->kern, err, n)))
        ok = 0;
    if (hx_transport_all_ok(t->comm, ok)) return 0;
    if (ok) snprintf(err, n, "another rank could not set up transport ipc-put");
    return -1;
}

/* One of ipc-put's kernels for the field at `field`, its pitches from the bound decomposition. */
static int ipc_put_enqueue(hx_transport *t, int phase, int stream, void *field, hx_ik_kind kind)
{
    hx_ipc_state *s = t->impl;
    const hx_decomp *d = t->bk->decomp;
    return hx_ipc_put_launch(s->kern, kind, phase, t->bk->ops->native_stream(t->bk, stream), field, d->alloc[0],
                             (long)d->alloc[0] * d->alloc[1], t->err, sizeof t->err);
}
static int ipc_put_put(hx_transport *t, int phase, int stream, void *field)
{
    return ipc_put_enqueue(t, phase, stream, field, HX_IK_PUT);
}
static int ipc_put_get(hx_transport *t, int phase, int stream, void *field)
{
    return ipc_put_enqueue(t, phase, stream, field, HX_IK_GET);
}
static int ipc_put_putget(hx_transport *t, int phase, int stream, void *field)
{
    return ipc_put_enqueue(t, phase, stream, field, HX_IK_PUTGET);
}

static int ipc_put_check(hx_transport *t)
{
    hx_ipc_state *s = t->impl;
    return hx_ipc_put_check(s->kern, t->err, sizeof t->err);
}

const hx_transport_ops hx_transport_ipc_put = {
    .name = "ipc-put",
    .summary = "CUDA IPC, kernel-initiated: kernels on the stream pack into the neighbour's memory, signal, wait and unpack",
    .caps = HX_PATH_STREAM | HX_CAP_REPLAY,
    .available = ipc_put_available,
    .setup = ipc_put_setup,
    .put = ipc_put_put,
    .get = ipc_put_get,
    .putget = ipc_put_putget,
    .check = ipc_put_check,
    .destroy = hx_ipc_destroy,
};
