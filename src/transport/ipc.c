/* CUDA IPC: packed faces go straight into the neighbour's receive buffer with peer copies over
 * NVLink/PCIe; no byte passes through the host.
 *
 * Set-up: every rank exports its receive buffers and two interprocess events per phase ("sent",
 * "unpacked") and gathers everyone's handles over MPI; each rank opens those of its neighbours.
 * The offset of a message in the neighbour's buffer comes from the neighbour's own plan, which
 * every rank can compute (decomposition and plans are pure arithmetic).
 *
 * One exchange, host path:
 *   post  record "unpacked" (everything before, the last unpack included, is done when it fires),
 *         trade a zero-byte token with each neighbour, make the stream wait for the neighbour's
 *         "unpacked" (its buffer is free), copy into it, record "sent", send a second token;
 *   wait  take the neighbour's "sent" token and make the stream wait on its "sent" event.
 * The tokens only order event records and waits: data and completion travel GPU to GPU. All
 * neighbours must share this node (checked at set-up). */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "../core/check.h"
#include "halox/transport.h"
#include "wait.h"

#define TAG_UNPACKED 9100
#define TAG_SENT 9200

typedef struct {
    int npeers;                               /* distinct neighbours of the phase */
    int peer[HX_MAX_MSGS];
    void *remote_recv[HX_MAX_MSGS];           /* per message: where its bytes go */
    cudaEvent_t peer_sent[HX_MAX_MSGS];       /* per distinct neighbour */
    cudaEvent_t peer_unpacked[HX_MAX_MSGS];
    cudaEvent_t sent, unpacked;               /* this rank's, exported */
} ipc_phase;

typedef struct {
    ipc_phase ph[HX_MAX_PHASES];
    void *opened[1024];                       /* mapped buffers and events, to close at the end */
    int nopened;
    cudaEvent_t opened_ev[1024];
    int nopened_ev;
    MPI_Request req[2 * HX_MAX_MSGS];
    int rpeer[2 * HX_MAX_MSGS];
    const char *what[2 * HX_MAX_MSGS];
    char token_out, token_in[HX_MAX_MSGS];
} ipc_state;

#define CUDA_TRY(call)                                                                                  \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            snprintf(t->err, sizeof t->err, "%s: %s", #call, cudaGetErrorString(e_));                  \
            return -1;                                                                                  \
        }                                                                                               \
    } while (0)

static int ipc_available(const hx_backend *bk, char *why, size_t n)
{
    if (bk->host_accessible || bk->device < 0) {
        snprintf(why, n, "--transport ipc copies between GPUs: use it with --backend cuda, or --transport mpi");
        return 0;
    }
    return 1;
}

/* Collective: 1 when every rank is ok, so that no rank enters a collective the others skip. */
static int all_ok(MPI_Comm comm, int ok)
{
    int all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
    return all;
}

/* The rank's index of the distinct neighbour q in phase p, adding it when new. */
static int peer_slot(ipc_phase *ph, int q)
{
    for (int i = 0; i < ph->npeers; i++)
        if (ph->peer[i] == q) return i;
    ph->peer[ph->npeers] = q;
    return ph->npeers++;
}

/* Offset, in the buffer of rank q, of the message q receives from this rank with tag send_tag. */
static long remote_offset(const hx_decomp *me, const hx_plan *myplan, int q, int phase, int send_tag)
{
    hx_decomp dq;
    hx_plan pq;
    char err[256];
    int halo = me->ghost[0];
    if (hx_decomp_init(&dq, me->dim, me->global, me->pgrid, q, me->nranks, me->boundary, halo, err, sizeof err)) return -1;
    hx_plan_build(&pq, &dq, myplan->pattern);
    for (int k = 0; k < pq.phase[phase].nmsg; k++) {
        const hx_message *m = &pq.phase[phase].msg[k];
        if (m->peer == me->rank && m->recv_tag == send_tag) return m->offset;
    }
    return -1;
}

static int ipc_setup(hx_transport *t, char *err, size_t n)
{
    hx_backend *bk = t->bk;
    const hx_decomp *d = bk->decomp;
    ipc_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, n, "out of host memory for the ipc transport"), -1;
    t->impl = s;
    int rank = d->rank, nranks = d->nranks;

    /* every neighbour must be on this node */
    MPI_Comm node;
    int leader = rank, *leaders = malloc(sizeof(int) * (size_t)nranks);
    HX_MPI_TRY(MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node), err, n);
    HX_MPI_TRY(MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node), err, n);
    MPI_Comm_free(&node);
    HX_MPI_TRY(MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, t->comm), err, n);
    int ok = 1;
    for (int p = 0; p < t->plan->nphases; p++)
        for (int m = 0; m < t->plan->phase[p].nmsg; m++) {
            int q = t->plan->phase[p].msg[m].peer;
            if (ok && leaders[q] != leader) {
                snprintf(err, n, "--transport ipc needs every neighbour on this node, but rank %d's neighbour %d is on "
                                 "another: use --transport mpi", rank, q);
                ok = 0;
            }
        }
    free(leaders);
    if (!all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not set up --transport ipc");
        return -1;
    }

    cudaIpcMemHandle_t *mine = calloc(HX_MAX_PHASES, sizeof *mine);
    cudaIpcEventHandle_t *mine_ev = calloc(2 * HX_MAX_PHASES, sizeof *mine_ev);
    cudaIpcMemHandle_t *all = calloc((size_t)nranks * HX_MAX_PHASES, sizeof *all);
    cudaIpcEventHandle_t *all_ev = calloc((size_t)nranks * 2 * HX_MAX_PHASES, sizeof *all_ev);
    if (!mine || !mine_ev || !all || !all_ev) return snprintf(err, n, "out of host memory for IPC handles"), -1;
    int rc = -1;
    ok = 0;
    if (hx_transport_alloc_buffers(t, err, n)) goto out;
    for (int p = 0; p < t->plan->nphases; p++) {
        ipc_phase *ph = &s->ph[p];
        cudaError_t e = cudaIpcGetMemHandle(&mine[p], t->recv_buf[p]);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ph->sent, cudaEventDisableTiming | cudaEventInterprocess);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ph->unpacked, cudaEventDisableTiming | cudaEventInterprocess);
        if (e == cudaSuccess) e = cudaIpcGetEventHandle(&mine_ev[2 * p], ph->sent);
        if (e == cudaSuccess) e = cudaIpcGetEventHandle(&mine_ev[2 * p + 1], ph->unpacked);
        if (e != cudaSuccess) {
            snprintf(err, n, "exporting IPC handles on GPU %d failed: %s", bk->device, cudaGetErrorString(e));
            goto out;
        }
    }
    ok = 1;
out:
    if (!all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not set up --transport ipc");
        goto done;
    }
    if (MPI_Allgather(mine, (int)(HX_MAX_PHASES * sizeof *mine), MPI_BYTE, all, (int)(HX_MAX_PHASES * sizeof *mine),
                      MPI_BYTE, t->comm) != MPI_SUCCESS ||
        MPI_Allgather(mine_ev, (int)(2 * HX_MAX_PHASES * sizeof *mine_ev), MPI_BYTE, all_ev,
                      (int)(2 * HX_MAX_PHASES * sizeof *mine_ev), MPI_BYTE, t->comm) != MPI_SUCCESS) {
        snprintf(err, n, "MPI_Allgather of IPC handles failed");
        goto done;
    }
    ok = 0;
    for (int p = 0; p < t->plan->nphases; p++) {
        ipc_phase *ph = &s->ph[p];
        void *base[HX_MAX_MSGS];
        for (int m = 0; m < t->plan->phase[p].nmsg; m++) {
            const hx_message *msg = &t->plan->phase[p].msg[m];
            int q = msg->peer, slot = peer_slot(ph, q);
            /* map each neighbour's buffer and events once per phase */
            int known = 0;
            for (int k = 0; k < m; k++)
                if (t->plan->phase[p].msg[k].peer == q) known = 1;
            if (!known) {
                if (q == rank) {
                    base[slot] = t->recv_buf[p];
                    ph->peer_sent[slot] = ph->sent;
                    ph->peer_unpacked[slot] = ph->unpacked;
                } else {
                    cudaError_t e = cudaIpcOpenMemHandle(&base[slot], all[(size_t)q * HX_MAX_PHASES + p],
                                                         cudaIpcMemLazyEnablePeerAccess);
                    if (e == cudaSuccess) s->opened[s->nopened++] = base[slot];
                    if (e == cudaSuccess) e = cudaIpcOpenEventHandle(&ph->peer_sent[slot], all_ev[((size_t)q * HX_MAX_PHASES + p) * 2]);
                    if (e == cudaSuccess) s->opened_ev[s->nopened_ev++] = ph->peer_sent[slot];
                    if (e == cudaSuccess) e = cudaIpcOpenEventHandle(&ph->peer_unpacked[slot], all_ev[((size_t)q * HX_MAX_PHASES + p) * 2 + 1]);
                    if (e == cudaSuccess) s->opened_ev[s->nopened_ev++] = ph->peer_unpacked[slot];
                    if (e != cudaSuccess) {
                        snprintf(err, n, "rank %d cannot map the IPC buffers of neighbour %d: %s", rank, q, cudaGetErrorString(e));
                        goto mapped;
                    }
                }
            }
            long off = remote_offset(d, t->plan, q, p, msg->send_tag);
            if (off < 0) {
                snprintf(err, n, "rank %d: no matching message at neighbour %d (plan mismatch)", rank, q);
                goto mapped;
            }
            ph->remote_recv[m] = (char *)base[slot] + (size_t)off * bk->elem;
        }
    }
    ok = 1;
mapped:
    if (all_ok(t->comm, ok)) rc = 0;
    else if (ok) snprintf(err, n, "another rank could not map its neighbours' IPC buffers");
done:
    free(mine);
    free(mine_ev);
    free(all);
    free(all_ev);
    return rc;
}

/* Zero-byte tokens with every distinct neighbour of the phase: send ours, receive theirs. */
static int trade_tokens(hx_transport *t, ipc_state *s, ipc_phase *ph, int tag, const char *what)
{
    int nreq = 0;
    for (int i = 0; i < ph->npeers; i++) {
        s->rpeer[nreq] = ph->peer[i];
        s->what[nreq] = what;
        HX_MPI_TRY(MPI_Irecv(&s->token_in[i], 0, MPI_BYTE, ph->peer[i], tag, t->comm, &s->req[nreq++]), t->err, sizeof t->err);
    }
    for (int i = 0; i < ph->npeers; i++) {
        s->rpeer[nreq] = ph->peer[i];
        s->what[nreq] = "a token to be taken by";
        HX_MPI_TRY(MPI_Isend(&s->token_out, 0, MPI_BYTE, ph->peer[i], tag, t->comm, &s->req[nreq++]), t->err, sizeof t->err);
    }
    return hx_wait_all(t->comm, nreq, s->req, s->rpeer, s->what, t->err, sizeof t->err);
}

static int ipc_post(hx_transport *t, int phase, int stream)
{
    ipc_state *s = t->impl;
    ipc_phase *ph = &s->ph[phase];
    const hx_phase *plan = &t->plan->phase[phase];
    hx_backend *bk = t->bk;
    cudaStream_t st = (cudaStream_t)bk->ops->native_stream(bk, stream);
    double t0 = MPI_Wtime();
    CUDA_TRY(cudaEventRecord(ph->unpacked, st));
    if (trade_tokens(t, s, ph, TAG_UNPACKED + phase, "the 'buffer free' token of")) return -1;
    for (int i = 0; i < ph->npeers; i++)
        if (ph->peer[i] != bk->decomp->rank) CUDA_TRY(cudaStreamWaitEvent(st, ph->peer_unpacked[i], 0));
    t->clock->acc->t[HX_SEG_MESSAGE] += MPI_Wtime() - t0;
    int ev = hx_clock_start(t->clock, stream);
    for (int m = 0; m < plan->nmsg; m++)
        CUDA_TRY(cudaMemcpyAsync(ph->remote_recv[m], (char *)t->send_buf[phase] + (size_t)plan->msg[m].offset * bk->elem,
                                 (size_t)plan->msg[m].count * bk->elem, cudaMemcpyDeviceToDevice, st));
    if (hx_clock_stop(t->clock, stream, HX_SEG_MESSAGE, ev)) return snprintf(t->err, sizeof t->err, "%s", bk->err), -1;
    CUDA_TRY(cudaEventRecord(ph->sent, st));
    return 0;
}

static int ipc_wait(hx_transport *t, int phase, int stream)
{
    ipc_state *s = t->impl;
    ipc_phase *ph = &s->ph[phase];
    hx_backend *bk = t->bk;
    cudaStream_t st = (cudaStream_t)bk->ops->native_stream(bk, stream);
    double t0 = MPI_Wtime();
    if (trade_tokens(t, s, ph, TAG_SENT + phase, "the 'data sent' token of")) return -1;
    for (int i = 0; i < ph->npeers; i++)
        if (ph->peer[i] != bk->decomp->rank) CUDA_TRY(cudaStreamWaitEvent(st, ph->peer_sent[i], 0));
    t->clock->acc->t[HX_SEG_MESSAGE] += MPI_Wtime() - t0;
    return 0;
}

static void ipc_destroy(hx_transport *t)
{
    ipc_state *s = t->impl;
    if (s) {
        cudaDeviceSynchronize();
        for (int i = 0; i < s->nopened; i++) cudaIpcCloseMemHandle(s->opened[i]);
        for (int i = 0; i < s->nopened_ev; i++) cudaEventDestroy(s->opened_ev[i]);
        for (int p = 0; p < HX_MAX_PHASES; p++) {
            if (s->ph[p].sent) cudaEventDestroy(s->ph[p].sent);
            if (s->ph[p].unpacked) cudaEventDestroy(s->ph[p].unpacked);
        }
    }
    /* neighbours may still read our events and buffers until every rank is done */
    MPI_Barrier(t->comm);
    hx_transport_free_buffers(t);
    free(s);
    t->impl = NULL;
}

const hx_transport_ops hx_transport_ipc = {
    .name = "ipc",
    .summary = "CUDA IPC: peer copies into the neighbour's buffer, interprocess events, zero-byte MPI tokens",
    .caps = HX_PATH_HOST,
    .available = ipc_available,
    .setup = ipc_setup,
    .post = ipc_post,
    .wait = ipc_wait,
    .destroy = ipc_destroy,
};
