/* The transport registry and the buffer set-up common to every transport. */
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "transport/wait.h"

extern const hx_transport_ops hx_transport_mpi, hx_transport_mpi_cuda, hx_transport_ipc, hx_transport_ipc_put, hx_transport_nccl,
    hx_transport_nvshmem;

/* What this build holds; optional ones are compiled only when found at configure time. */
static const hx_transport_ops *const registry[] = {
    &hx_transport_mpi,
#ifdef HALOX_HAVE_CUDA
    &hx_transport_mpi_cuda,
    &hx_transport_ipc,
    &hx_transport_ipc_put,
#endif
#ifdef HALOX_HAVE_NCCL
    &hx_transport_nccl,
#endif
#ifdef HALOX_HAVE_NVSHMEM
    &hx_transport_nvshmem,
#endif
};

/* Every model halox knows, built or not, so that asking for an absent one says why. */
const char *hx_transport_missing(const char *name)
{
    if (!strcmp(name, "mpi-cuda") || !strcmp(name, "ipc") || !strcmp(name, "ipc-put"))
        return "this halox was built without CUDA (no nvcc at configure time): install the CUDA toolkit and rebuild";
    if (!strcmp(name, "nccl"))
        return "this halox was built without NCCL (nccl.h/libnccl not found at configure time): set NCCL_HOME and rebuild";
    if (!strcmp(name, "nvshmem"))
        return "this halox was built without NVSHMEM (nvshmem.h/libnvshmem_host not found at configure time): set "
               "NVSHMEM_HOME, or let `make` install the nvidia-nvshmem-cu13 wheel, and rebuild";
    return NULL;
}

int hx_transport_count(void) { return (int)(sizeof registry / sizeof *registry); }
const hx_transport_ops *hx_transport_at(int i) { return registry[i]; }

const hx_transport_ops *hx_transport_find(const char *name)
{
    for (int i = 0; i < hx_transport_count(); i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}

int hx_transport_create(hx_transport *t, const hx_transport_ops *ops, struct hx_context *ctx, hx_backend *bk,
                        const hx_plan *plan, const hx_exchange_options *opt, MPI_Comm comm, hx_clock *clock, char *err,
                        size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->ll_bytes = opt ? opt->ll_bytes : -1;
    t->host_fallback = opt ? opt->host_fallback : NULL;
    t->ops = ops;
    t->ctx = ctx;
    t->bk = bk;
    t->plan = plan;
    t->comm = comm;
    t->clock = clock;
    if (!ops->available(bk, err, errlen)) return -1;
    /* the schedules drive the host path, or else the stream path */
    if (!(ops->caps & (HX_PATH_HOST | HX_PATH_STREAM))) {
        snprintf(err, errlen, "transport %s has no host or stream path, which exchanges need", ops->name);
        return -1;
    }
    int rc = ops->setup(t, err, errlen);
    t->host_fallback = NULL; /* the caller's string: read during set-up only */
    return rc;
}

void hx_transport_destroy(hx_transport *t)
{
    if (t->ops && t->ops->destroy) t->ops->destroy(t);
    memset(t, 0, sizeof *t);
}

int hx_transport_alloc_buffers(hx_transport *t, char *err, size_t errlen)
{
    hx_backend *bk = t->bk;
    size_t bytes = (size_t)t->plan->max_phase_cells * bk->elem;
    for (int p = 0; p < t->plan->nphases; p++) {
        t->send_buf[p] = bk->ops->alloc(bk, bytes ? bytes : 1);
        t->recv_buf[p] = bk->ops->alloc(bk, bytes ? bytes : 1);
        if (!t->send_buf[p] || !t->recv_buf[p]) {
            snprintf(err, errlen, "cannot allocate two %zu-byte halo buffers per phase (%s): use a narrower halo", bytes, bk->err);
            return -1;
        }
    }
    return 0;
}

void hx_transport_free_buffers(hx_transport *t)
{
    for (int p = 0; p < HX_MAX_PHASES; p++) {
        if (t->send_buf[p]) t->bk->ops->free(t->bk, t->send_buf[p]);
        if (t->recv_buf[p]) t->bk->ops->free(t->bk, t->recv_buf[p]);
        t->send_buf[p] = t->recv_buf[p] = NULL;
    }
}

int hx_transport_all_ok(MPI_Comm comm, int ok)
{
    int all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
    return all;
}

#if HALOX_FAULT_INJECTION
int hx_fault_setup(int rank)
{
    const char *e = getenv("HALOX_FAULT_SETUP");
    return e && *e && atoi(e) == rank;
}

int hx_fault_share_gpu(void)
{
    const char *e = getenv("HALOX_SHARE_GPU");
    return e && atoi(e) == 1;
}

long hx_fault_skip_puts(int rank)
{
    const char *e = getenv("HALOX_FAULT_SKIP_PUTS");
    return e && *e && atoi(e) == rank ? 3 : 0;
}
#else
int hx_fault_setup(int rank)
{
    (void)rank;
    return 0;
}

int hx_fault_share_gpu(void) { return 0; }

long hx_fault_skip_puts(int rank)
{
    (void)rank;
    return 0;
}
#endif

/* Trade tags live above the plan's: a message with tag T is described with tag TRADE_TAG + T. */
#define TRADE_TAG 20000

int hx_transport_trade_offsets(hx_transport *t, long remote_offset[HX_MAX_PHASES][HX_MAX_MSGS],
                               int remote_index[HX_MAX_PHASES][HX_MAX_MSGS], char *err, size_t errlen)
{
    return hx_transport_trade(t, NULL, remote_offset, remote_index, NULL, err, errlen);
}

int hx_transport_trade(hx_transport *t, const long (*extra_mine)[HX_MAX_MSGS][2], long remote_offset[HX_MAX_PHASES][HX_MAX_MSGS],
                       int remote_index[HX_MAX_PHASES][HX_MAX_MSGS], long (*extra_theirs)[HX_MAX_MSGS][2], char *err,
                       size_t errlen)
{
    const hx_plan *plan = t->plan;
    enum { MAXR = 2 * HX_MAX_PHASES * HX_MAX_MSGS };
    MPI_Request req[MAXR];
    int peer[MAXR], n = 0;
    const char *what[MAXR];
    long mine[HX_MAX_PHASES][HX_MAX_MSGS][5], theirs[HX_MAX_PHASES][HX_MAX_MSGS][5];
    for (int p = 0; p < plan->nphases; p++)
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            const hx_message *msg = &plan->phase[p].msg[m];
            peer[n] = msg->peer;
            what[n] = "the buffer offsets of";
            HX_MPI_TRY(MPI_Irecv(theirs[p][m], 5, MPI_LONG, msg->peer, TRADE_TAG + msg->send_tag, t->comm, &req[n++]), err, errlen);
        }
    for (int p = 0; p < plan->nphases; p++)
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            const hx_message *msg = &plan->phase[p].msg[m];
            mine[p][m][0] = msg->offset;
            mine[p][m][1] = m;
            mine[p][m][2] = msg->count;
            mine[p][m][3] = extra_mine ? extra_mine[p][m][0] : 0;
            mine[p][m][4] = extra_mine ? extra_mine[p][m][1] : 0;
            peer[n] = msg->peer;
            what[n] = "its buffer offsets to be taken by";
            HX_MPI_TRY(MPI_Isend(mine[p][m], 5, MPI_LONG, msg->peer, TRADE_TAG + msg->recv_tag, t->comm, &req[n++]), err, errlen);
        }
    if (hx_wait_all(t->comm, n, req, peer, what, err, errlen)) return -1;
    for (int p = 0; p < plan->nphases; p++)
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            if (theirs[p][m][2] != plan->phase[p].msg[m].count) {
                snprintf(err, errlen, "rank %d sends %ld cells to rank %d, which expects %ld (tag %d): the plans do not match",
                         t->bk->decomp->rank, plan->phase[p].msg[m].count, plan->phase[p].msg[m].peer, theirs[p][m][2],
                         plan->phase[p].msg[m].send_tag);
                return -1;
            }
            remote_offset[p][m] = theirs[p][m][0];
            if (extra_theirs) extra_theirs[p][m][0] = theirs[p][m][3], extra_theirs[p][m][1] = theirs[p][m][4];
            remote_index[p][m] = (int)theirs[p][m][1];
        }
    return 0;
}
