/* CUDA IPC: packed faces go straight into the neighbour's receive buffer with peer copies over
 * NVLink/PCIe; no byte passes through the host. Neighbours on another node, and the links that
 * the exchange's host_fallback names, are served instead by host-staged MPI, like transport mpi,
 * message by message (the routes: ipc_routes.c). This file holds the host path and the set-up
 * that ipc-put (ipc_put_host.c) shares; the device path is in ipc_device.c.
 *
 * IPC set-up: every rank exports its receive buffers and two interprocess events per phase
 * ("sent", "unpacked") and gathers everyone's handles over MPI; each rank opens those of its IPC
 * neighbours. The offset of a message in the neighbour's buffer is traded with the neighbour at
 * set-up (hx_transport_trade_offsets), so hand-made plans work too.
 *
 * One exchange, host path:
 *   post  MPI messages first: copy their slices of the send buffer to pinned host memory, sync the
 *         stream (MPI reads host memory at once), post MPI_Irecv/MPI_Isend; then IPC: record
 *         "unpacked" (everything before, the last unpack included, is done when it fires), trade
 *         a zero-byte token with each IPC neighbour, make the stream wait for the neighbour's
 *         "unpacked" (its buffer is free), copy into it, record "sent";
 *   wait  one deadline-bound wait for the MPI messages and each IPC neighbour's "sent" token,
 *         then copy the MPI slices back into the receive buffer and make the stream wait on the
 *         neighbours' "sent" events, all before the unpack.
 * The tokens only order event records and waits: IPC data and completion travel GPU to GPU.
 * MPI and IPC messages of a phase use disjoint slices of the same packed buffers. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "transport/ipc_priv.h"
#include "wait.h"

#define TAG_UNPACKED 9100
#define TAG_SENT 9200

#define CUDA_TRY(call)                                                                                  \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            snprintf(t->err, sizeof t->err, "%s: %s", #call, cudaGetErrorString(e_));                  \
            return -1;                                                                                  \
        }                                                                                               \
    } while (0)

int hx_ipc_on_gpus(const hx_backend *bk, const char *what, char *why, size_t n)
{
    if (bk->host_accessible || bk->device < 0) {
        snprintf(why, n, "%s: use it with the cuda backend, or transport mpi", what);
        return 0;
    }
    return 1;
}

static int ipc_available(const hx_backend *bk, char *why, size_t n)
{
    return hx_ipc_on_gpus(bk, "transport ipc copies between GPUs", why, n);
}

#define all_ok hx_transport_all_ok

/* The rank's index of the distinct neighbour q in phase p, adding it when new. */
static int peer_slot(hx_ipc_phase *ph, int q)
{
    for (int i = 0; i < ph->npeers; i++)
        if (ph->peer[i] == q) return i;
    ph->peer[ph->npeers] = q;
    return ph->npeers++;
}

int hx_ipc_setup(hx_transport *t, char *err, size_t n)
{
    hx_backend *bk = t->bk;
    const hx_decomp *d = bk->decomp;
    hx_ipc_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, n, "out of host memory for the ipc transport"), -1;
    t->impl = s;
    int rank = d->rank, nranks = d->nranks, ok;
    if (hx_ipc_choose_routes(t, s, err, n)) return -1;

    cudaIpcMemHandle_t *mine = calloc(HX_MAX_PHASES, sizeof *mine);
    cudaIpcEventHandle_t *mine_ev = calloc(2 * HX_MAX_PHASES, sizeof *mine_ev);
    cudaIpcMemHandle_t *all = calloc((size_t)nranks * HX_MAX_PHASES, sizeof *all);
    cudaIpcEventHandle_t *all_ev = calloc((size_t)nranks * 2 * HX_MAX_PHASES, sizeof *all_ev);
    if (!mine || !mine_ev || !all || !all_ev) return snprintf(err, n, "out of host memory for IPC handles"), -1;
    int rc = -1;
    ok = 0;
    long (*roff)[HX_MAX_MSGS] = calloc(HX_MAX_PHASES, sizeof *roff);
    int (*ridx)[HX_MAX_MSGS] = calloc(HX_MAX_PHASES, sizeof *ridx);
    if (!roff || !ridx) {
        snprintf(err, n, "out of host memory for the ipc transport");
        goto out;
    }
    if (hx_fault_setup(rank)) {
        snprintf(err, n, "set-up failure injected by HALOX_FAULT_SETUP");
        goto out;
    }
    if (hx_transport_alloc_buffers(t, err, n)) goto out;
    for (int p = 0; p < t->plan->nphases; p++) {
        hx_ipc_phase *ph = &s->ph[p];
        cudaError_t e = cudaIpcGetMemHandle(&mine[p], t->recv_buf[p]);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ph->sent, cudaEventDisableTiming | cudaEventInterprocess);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ph->unpacked, cudaEventDisableTiming | cudaEventInterprocess);
        if (e == cudaSuccess) e = cudaIpcGetEventHandle(&mine_ev[2 * p], ph->sent);
        if (e == cudaSuccess) e = cudaIpcGetEventHandle(&mine_ev[2 * p + 1], ph->unpacked);
        if (e != cudaSuccess) {
            snprintf(err, n, "exporting IPC handles on GPU %d failed: %s", bk->device, cudaGetErrorString(e));
            goto out;
        }
        /* pinned mirrors for the MPI messages, laid out like the device buffers */
        size_t bytes = (size_t)t->plan->phase[p].cells * bk->elem;
        if (ph->nmpi) e = cudaMallocHost(&ph->host_send, bytes);
        if (ph->nmpi && e == cudaSuccess) e = cudaMallocHost(&ph->host_recv, bytes);
        if (e != cudaSuccess) {
            snprintf(err, n, "cannot allocate two %zu-byte pinned host buffers for the MPI messages: %s", bytes,
                     cudaGetErrorString(e));
            goto out;
        }
    }
    ok = 1;
out:
    if (!all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not set up transport ipc");
        goto done;
    }
    ok = hx_transport_trade_offsets(t, roff, ridx, err, n) == 0;
    if (!all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not trade its ipc buffer offsets");
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
        hx_ipc_phase *ph = &s->ph[p];
        void *base[HX_MAX_MSGS];
        for (int m = 0; m < t->plan->phase[p].nmsg; m++) {
            const hx_message *msg = &t->plan->phase[p].msg[m];
            if (ph->over_mpi[m]) continue; /* its bytes go through host memory and MPI */
            int q = msg->peer, before = ph->npeers, slot = peer_slot(ph, q);
            /* map each IPC neighbour's buffer and events once per phase */
            if (ph->npeers > before) {
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
            long off = roff[p][m];
            ph->remote_recv[m] = (char *)base[slot] + (size_t)off * bk->elem;
        }
    }
    ok = 1;
mapped:
    if (all_ok(t->comm, ok)) {
        unsigned char over[HX_MAX_PHASES][HX_MAX_MSGS];
        for (int p = 0; p < HX_MAX_PHASES; p++) memcpy(over[p], s->ph[p].over_mpi, sizeof over[p]);
        rc = hx_ipc_device_setup(t, (const unsigned char(*)[HX_MAX_MSGS])over, &s->dev, err, n);
    } else if (ok) {
        snprintf(err, n, "another rank could not map its neighbours' IPC buffers");
    }
done:
    free(roff);
    free(ridx);
    free(mine);
    free(mine_ev);
    free(all);
    free(all_ev);
    return rc;
}

/* Post zero-byte tokens with every IPC neighbour of the phase, ours out and theirs in, at
 * s->req[at...]. Returns how many requests, or -1. */
static int post_tokens(hx_transport *t, hx_ipc_state *s, const hx_ipc_phase *ph, int tag, const char *what, int at)
{
    int nreq = at;
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
    return nreq - at;
}

/* Copy the slices of the MPI messages between a packed device buffer and its pinned mirror, one
 * copy per run of adjacent slices (the plan lays messages out one after another). */
static int copy_mpi_slices(hx_transport *t, const hx_ipc_phase *ph, const hx_phase *plan, void *dst, const void *src,
                           enum cudaMemcpyKind kind, cudaStream_t st)
{
    size_t elem = t->bk->elem;
    for (int m = 0; m < plan->nmsg;) {
        if (!ph->over_mpi[m]) {
            m++;
            continue;
        }
        long lo = plan->msg[m].offset, hi = lo + plan->msg[m].count;
        for (m++; m < plan->nmsg && ph->over_mpi[m] && plan->msg[m].offset == hi; m++) hi += plan->msg[m].count;
        CUDA_TRY(cudaMemcpyAsync((char *)dst + (size_t)lo * elem, (const char *)src + (size_t)lo * elem,
                                 (size_t)(hi - lo) * elem, kind, st));
    }
    return 0;
}

/* The MPI half of post: stage the MPI messages to the host and post them (receives first). */
static int post_mpi(hx_transport *t, hx_ipc_state *s, hx_ipc_phase *ph, int phase, int stream, cudaStream_t st)
{
    const hx_phase *plan = &t->plan->phase[phase];
    int ev = hx_clock_start(t->clock, stream);
    if (copy_mpi_slices(t, ph, plan, ph->host_send, t->send_buf[phase], cudaMemcpyDeviceToHost, st)) return -1;
    if (hx_clock_stop(t->clock, stream, HX_SEG_PACK, ev)) return snprintf(t->err, sizeof t->err, "%s", t->bk->err), -1;
    /* MPI reads host_send as soon as it is posted, and the last exchange's copy out of host_recv
     * must be done before MPI writes it again */
    CUDA_TRY(cudaStreamSynchronize(st));
    double t0 = MPI_Wtime();
    if (hx_post_messages(t->comm, plan, t->bk->elem, ph->over_mpi, ph->host_send, ph->host_recv, s->req, s->rpeer,
                         s->what, &s->ndata, t->err, sizeof t->err))
        return -1;
    t->clock->acc->t[HX_SEG_MESSAGE] += MPI_Wtime() - t0;
    return 0;
}

static int ipc_post(hx_transport *t, int phase, int stream)
{
    hx_ipc_state *s = t->impl;
    hx_ipc_phase *ph = &s->ph[phase];
    const hx_phase *plan = &t->plan->phase[phase];
    hx_backend *bk = t->bk;
    cudaStream_t st = (cudaStream_t)bk->ops->native_stream(bk, stream);
    /* MPI first: the off-node messages, the slowest, leave first, and the stream sync they need
     * does not also wait for this phase's peer copies */
    s->ndata = 0;
    if (ph->nmpi && post_mpi(t, s, ph, phase, stream, st)) return -1;
    double t0 = MPI_Wtime();
    CUDA_TRY(cudaEventRecord(ph->unpacked, st));
    int ntok = post_tokens(t, s, ph, TAG_UNPACKED + phase, "the 'buffer free' token of", s->ndata);
    if (ntok < 0 || hx_wait_all(t->comm, ntok, s->req + s->ndata, s->rpeer + s->ndata, s->what + s->ndata, t->err,
                                sizeof t->err))
        return -1;
    for (int i = 0; i < ph->npeers; i++)
        if (ph->peer[i] != bk->decomp->rank) CUDA_TRY(cudaStreamWaitEvent(st, ph->peer_unpacked[i], 0));
    t->clock->acc->t[HX_SEG_MESSAGE] += MPI_Wtime() - t0;
    int ev = hx_clock_start(t->clock, stream);
    for (int m = 0; m < plan->nmsg; m++)
        if (!ph->over_mpi[m])
            CUDA_TRY(cudaMemcpyAsync(ph->remote_recv[m], (char *)t->send_buf[phase] + (size_t)plan->msg[m].offset * bk->elem,
                                     (size_t)plan->msg[m].count * bk->elem, cudaMemcpyDeviceToDevice, st));
    if (hx_clock_stop(t->clock, stream, HX_SEG_MESSAGE, ev)) return snprintf(t->err, sizeof t->err, "%s", bk->err), -1;
    CUDA_TRY(cudaEventRecord(ph->sent, st));
    return 0;
}

static int ipc_wait(hx_transport *t, int phase, int stream)
{
    hx_ipc_state *s = t->impl;
    hx_ipc_phase *ph = &s->ph[phase];
    hx_backend *bk = t->bk;
    cudaStream_t st = (cudaStream_t)bk->ops->native_stream(bk, stream);
    double t0 = MPI_Wtime();
    /* one deadline for the MPI messages and the IPC tokens, so a silent neighbour is named */
    int ntok = post_tokens(t, s, ph, TAG_SENT + phase, "the 'data sent' token of", s->ndata);
    if (ntok < 0 || hx_wait_all(t->comm, s->ndata + ntok, s->req, s->rpeer, s->what, t->err, sizeof t->err)) return -1;
    s->ndata = 0;
    t->clock->acc->t[HX_SEG_MESSAGE] += MPI_Wtime() - t0;
    if (ph->nmpi) {
        int ev = hx_clock_start(t->clock, stream);
        if (copy_mpi_slices(t, ph, &t->plan->phase[phase], t->recv_buf[phase], ph->host_recv, cudaMemcpyHostToDevice, st))
            return -1;
        if (hx_clock_stop(t->clock, stream, HX_SEG_UNPACK, ev)) return snprintf(t->err, sizeof t->err, "%s", bk->err), -1;
    }
    for (int i = 0; i < ph->npeers; i++)
        if (ph->peer[i] != bk->decomp->rank) CUDA_TRY(cudaStreamWaitEvent(st, ph->peer_sent[i], 0));
    return 0;
}

void hx_ipc_destroy(hx_transport *t)
{
    hx_ipc_state *s = t->impl;
    if (s) {
        cudaDeviceSynchronize();
        for (int i = 0; i < s->nopened; i++) cudaIpcCloseMemHandle(s->opened[i]);
        for (int i = 0; i < s->nopened_ev; i++) cudaEventDestroy(s->opened_ev[i]);
        for (int p = 0; p < HX_MAX_PHASES; p++) {
            if (s->ph[p].sent) cudaEventDestroy(s->ph[p].sent);
            if (s->ph[p].unpacked) cudaEventDestroy(s->ph[p].unpacked);
            if (s->ph[p].host_send) cudaFreeHost(s->ph[p].host_send);
            if (s->ph[p].host_recv) cudaFreeHost(s->ph[p].host_recv);
        }
    }
    /* neighbours may still read our events and buffers until every rank is done */
    MPI_Barrier(t->comm);
    if (s) hx_ipc_put_destroy(s->kern);
    if (s) hx_ipc_device_destroy(s->dev);
    hx_transport_free_buffers(t);
    free(s);
    t->impl = NULL;
}

static int ipc_device_table(hx_transport *t, hx_dev_table *table)
{
    hx_ipc_state *s = t->impl;
    return hx_ipc_device_table(s ? s->dev : NULL, table, t->err, sizeof t->err);
}

const hx_transport_ops hx_transport_ipc = {
    .name = "ipc",
    .summary = "CUDA IPC: peer copies into the neighbour's buffer, interprocess events, zero-byte MPI tokens",
    .caps = HX_PATH_HOST | HX_PATH_DEVICE,
    .available = ipc_available,
    .setup = hx_ipc_setup,
    .post = ipc_post,
    .wait = ipc_wait,
    .device_table = ipc_device_table,
    .destroy = hx_ipc_destroy,
};
