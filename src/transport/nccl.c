/* NCCL send/recv on the compute stream: the stream-ordered model. MPI only bootstraps the NCCL
 * communicator; each exchange phase is one ncclGroupStart / ncclSend... ncclRecv... / ncclGroupEnd
 * enqueued on the stream after the pack and before the unpack, so the host enqueues sweep after
 * sweep and never waits for a message.
 *
 * NCCL pairs the sends and receives between two ranks in the order they are posted. A rank may
 * exchange several messages with one neighbour (one or two ranks on a periodic axis), so sends go
 * out in the order of their direction and receives are posted in the order of the direction the
 * neighbour sent them in (the opposite one): both sides then agree.
 *
 * The device path (schedules fused and persistent) is nccl_device.cu's symmetric window, made on
 * demand by device_prepare: most exchanges never need it, and its registration is collective. */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/node.h"
#include "core/objects.h"
#ifdef HALOX_HAVE_NCCL_DEVICE
#include "transport/nccl_device.h"
#endif
#include "transport/transport.h"

typedef struct {
    ncclComm_t comm; /* the context's, shared by all its nccl exchanges */
    int order_send[HX_MAX_PHASES][HX_MAX_MSGS]; /* message indices in posting order */
    int order_recv[HX_MAX_PHASES][HX_MAX_MSGS];
#ifdef HALOX_HAVE_NCCL_DEVICE
    hx_nccl_device *dev; /* the device path, once prepared */
    int dev_tried;       /* prepared once, with the same outcome on every rank */
    char dev_err[256];   /* why it failed */
#endif
} nccl_state;

#define NCCL_TRY(call, err, n)                                                                  \
    do {                                                                                        \
        ncclResult_t r_ = (call);                                                               \
        if (r_ != ncclSuccess) {                                                                \
            snprintf((err), (n), "%s: %s", #call, ncclGetErrorString(r_));                      \
            return -1;                                                                          \
        }                                                                                       \
    } while (0)

static int nccl_available(const hx_backend *bk, char *why, size_t n)
{
    if (bk->host_accessible || bk->device < 0) {
        snprintf(why, n, "transport nccl moves device buffers on a CUDA stream: use it with the cuda backend, or transport mpi");
        return 0;
    }
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) {
        snprintf(why, n, "the NCCL library cannot be loaded: check LD_LIBRARY_PATH or rebuild with NCCL_HOME");
        return 0;
    }
    /* the host API is stable within a major version; a different major is refused */
    if (v / 10000 != NCCL_VERSION_CODE / 10000) {
        snprintf(why, n, "NCCL at run time is %d but halox was built with %d: rebuild against the NCCL you run with", v,
                 NCCL_VERSION_CODE);
        return 0;
    }
    return 1;
}

static int by_key(const hx_phase *ph, int *order, int opposite)
{
    int n = ph->nmsg;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++) /* insertion sort by (peer, key) */
        for (int j = i; j > 0; j--) {
            const hx_message *a = &ph->msg[order[j - 1]], *b = &ph->msg[order[j]];
            int ka = opposite ? hx_dir_opposite(a->dir) : a->dir, kb = opposite ? hx_dir_opposite(b->dir) : b->dir;
            if (a->peer < b->peer || (a->peer == b->peer && ka <= kb)) break;
            int t = order[j - 1];
            order[j - 1] = order[j];
            order[j] = t;
        }
    return 0;
}

static int nccl_enqueue(hx_transport *t, int phase, int stream)
{
    nccl_state *s = t->impl;
    hx_backend *bk = t->bk;
    const hx_phase *ph = &t->plan->phase[phase];
    cudaStream_t st = (cudaStream_t)bk->ops->native_stream(bk, stream);
    if (ph->nmsg == 0) return 0;
    NCCL_TRY(ncclGroupStart(), t->err, sizeof t->err);
    for (int i = 0; i < ph->nmsg; i++) {
        const hx_message *m = &ph->msg[s->order_send[phase][i]];
        NCCL_TRY(ncclSend((char *)t->send_buf[phase] + (size_t)m->offset * bk->elem, (size_t)m->count * bk->elem, ncclChar,
                          m->peer, s->comm, st),
                 t->err, sizeof t->err);
    }
    for (int i = 0; i < ph->nmsg; i++) {
        const hx_message *m = &ph->msg[s->order_recv[phase][i]];
        NCCL_TRY(ncclRecv((char *)t->recv_buf[phase] + (size_t)m->offset * bk->elem, (size_t)m->count * bk->elem, ncclChar,
                          m->peer, s->comm, st),
                 t->err, sizeof t->err);
    }
    NCCL_TRY(ncclGroupEnd(), t->err, sizeof t->err);
    return 0;
}

/* NCCL refuses two ranks of one communicator on one GPU; say so in our words, on every rank. */
static int one_gpu_per_rank(hx_transport *t, char *err, size_t n)
{
    int nranks = t->bk->decomp->nranks, rc = 0;
    int *leader = malloc(sizeof(int) * (size_t)nranks), *dev = malloc(sizeof(int) * (size_t)nranks);
    if (!leader || !dev) {
        free(leader);
        free(dev);
        return snprintf(err, n, "out of host memory for the nccl transport"), -1;
    }
    if (hx_node_leaders(t->comm, leader) ||
        MPI_Allgather(&t->bk->device, 1, MPI_INT, dev, 1, MPI_INT, t->comm) != MPI_SUCCESS) {
        snprintf(err, n, "nccl set-up: gathering the GPU of every rank failed");
        rc = -1;
    }
    for (int a = 0; a < nranks && rc == 0; a++)
        for (int b = a + 1; b < nranks && rc == 0; b++)
            if (leader[a] == leader[b] && dev[a] == dev[b]) {
                snprintf(err, n, "transport nccl needs one GPU per rank, but ranks %d and %d share GPU %d: run at most "
                         "as many ranks per node as GPUs, or use transport ipc or mpi", a, b, dev[a]);
                rc = -1;
            }
    free(leader);
    free(dev);
    return rc;
}

static void release_comm(void *comm) { ncclCommDestroy((ncclComm_t)comm); }

/* The context's communicator, made on first use. Its initialisation is collective, so ranks agree
 * before it (a rank that failed earlier would leave the others waiting in it) and after. */
static int shared_comm(hx_transport *t, ncclComm_t *comm, char *err, size_t n)
{
    int rank = t->bk->decomp->rank, ok = 1;
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (hx_fault_setup(rank)) ok = 0, snprintf(err, n, "set-up failure injected by HALOX_FAULT_SETUP");
    if (ok && rank == 0 && ncclGetUniqueId(&id) != ncclSuccess) ok = 0, snprintf(err, n, "ncclGetUniqueId failed");
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not set up NCCL");
        return -1;
    }
    HX_MPI_TRY(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, t->comm), err, n);
    ncclResult_t r = ncclCommInitRank(comm, t->bk->decomp->nranks, id, rank);
    ok = r == ncclSuccess;
    if (!ok) snprintf(err, n, "ncclCommInitRank: %s", ncclGetErrorString(r));
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) {
            ncclCommDestroy(*comm);
            snprintf(err, n, "ncclCommInitRank failed on another rank");
        }
        return -1;
    }
    hx_context_set_shared(t->ctx, HX_SHARED_NCCL_COMM, *comm, release_comm);
    return 0;
}

static int nccl_setup(hx_transport *t, char *err, size_t n)
{
    hx_backend *bk = t->bk;
    nccl_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, n, "out of host memory for the nccl transport"), -1;
    t->impl = s;
    int ok = hx_transport_alloc_buffers(t, err, n) == 0;
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not allocate its nccl halo buffers");
        return -1;
    }
    for (int p = 0; p < t->plan->nphases; p++) {
        by_key(&t->plan->phase[p], s->order_send[p], 0);
        by_key(&t->plan->phase[p], s->order_recv[p], 1);
    }
    if (one_gpu_per_rank(t, err, n)) return -1;
    s->comm = (ncclComm_t)hx_context_shared(t->ctx, HX_SHARED_NCCL_COMM);
    if (!s->comm && shared_comm(t, &s->comm, err, n)) return -1;
    /* the first send/recv between two ranks sets up their connection, which can take hundreds
     * of milliseconds: do one exchange of every phase now, outside any timing */
    for (int p = 0; p < t->plan->nphases; p++)
        if (nccl_enqueue(t, p, HX_STREAM_MAIN)) return snprintf(err, n, "%s", t->err), -1;
    if (bk->ops->sync(bk, HX_STREAM_MAIN)) return snprintf(err, n, "NCCL warm-up exchange: %s", bk->err), -1;
    return 0;
}

#ifdef HALOX_HAVE_NCCL_DEVICE
/* Collective: the first call sets the device path up (every rank gets the same outcome); later
 * calls return that outcome without another collective. */
static int nccl_device_prepare(hx_transport *t)
{
    nccl_state *s = t->impl;
    if (!s) return snprintf(t->err, sizeof t->err, "the nccl transport was not set up"), -1;
    if (!s->dev_tried) {
        s->dev_tried = 1;
        if (hx_nccl_device_setup(t, s->comm, &s->dev, s->dev_err, sizeof s->dev_err)) s->dev = NULL;
    }
    if (!s->dev) return snprintf(t->err, sizeof t->err, "%s", s->dev_err), -1;
    return 0; /* a neighbour out of reach: hx_sweeper_create asks nccl_device_table next */
}

static int nccl_device_table(hx_transport *t, hx_dev_table *table)
{
    nccl_state *s = t->impl;
    if (s && !s->dev && s->dev_tried) return snprintf(t->err, sizeof t->err, "%s", s->dev_err), -1;
    return hx_nccl_device_table(s ? s->dev : NULL, table, t->err, sizeof t->err);
}
#endif

static void nccl_destroy(hx_transport *t)
{
    nccl_state *s = t->impl;
#ifdef HALOX_HAVE_NCCL_DEVICE
    if (s && s->dev) { /* the same on every rank: prepared and agreed */
        cudaDeviceSynchronize();
        /* neighbours may still store into our area until every rank is done */
        MPI_Barrier(t->comm);
        hx_nccl_device_destroy(s->dev);
    }
#endif
    hx_transport_free_buffers(t);
    free(s);
    t->impl = NULL;
}

/* one table; the device path's entries only where nccl_device.cu is built (NCCL 2.28 headers) */
#ifdef HALOX_HAVE_NCCL_DEVICE
#define NCCL_SUMMARY_TAIL ", the host never waits for a message; kernels store through NCCL symmetric windows (device API)"
#define NCCL_CAPS_DEVICE HX_PATH_DEVICE
#else
#define NCCL_SUMMARY_TAIL "; the host never waits for a message"
#define NCCL_CAPS_DEVICE 0
#endif
const hx_transport_ops hx_transport_nccl = {
    .name = "nccl",
    .summary = "NCCL send/recv enqueued on the compute stream" NCCL_SUMMARY_TAIL,
    .caps = HX_PATH_STREAM | HX_CAP_REPLAY | NCCL_CAPS_DEVICE,
    .available = nccl_available,
    .setup = nccl_setup,
    .enqueue = nccl_enqueue,
#ifdef HALOX_HAVE_NCCL_DEVICE
    .device_available = hx_nccl_device_usable,
    .device_prepare = nccl_device_prepare,
    .device_table = nccl_device_table,
#endif
    .destroy = nccl_destroy,
};
