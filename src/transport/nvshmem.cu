/* NVSHMEM on the stream: each message is one nvshmemx_putmem_signal_on_stream into the
 * neighbour's receive buffer on the symmetric heap, and each receive one
 * nvshmemx_signal_wait_until_on_stream; the host only enqueues. Host API only (no device
 * library): initialised with nvshmemx_hostlib_init_attr and a unique ID sent over MPI. The
 * kernel-initiated schedules store into neighbours through nvshmem_ptr (shmem_device_setup); built
 * with -DHALOX_NVSHMEM_DEVICE=ON, the pass kernel puts with the device API instead
 * (src/exec/persistent_shmem.cu) and NVSHMEM is initialised in full (init_nvshmem).
 *
 * NVSHMEM is initialised once per process, on first use, and finalised at exit: it cannot be
 * initialised again after a finalize, so every context of the process shares it.
 *
 * Signals count exchanges (value = exchange number, compared with >=), so nothing is reset.
 * Receive buffers alternate between two halves by exchange parity: a neighbour can be at most one
 * exchange ahead (its next put needs our data, which we send only after unpacking the previous
 * one), so it never writes into the half we are still unpacking. */
#include <cuda_runtime.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/node.h"
#include "transport/device_area.h"
#include "transport/transport.h"

typedef struct {
    char *area;                                  /* symmetric: the device path's flags and slots */
    hx_dev_table table;                          /* the device path's message table */
    int unmapped;                                /* messages whose peer nvshmem_ptr cannot reach */
    char *recv[2];                               /* symmetric, by parity */
    char *send;                                  /* symmetric */
    uint64_t *signal;                            /* symmetric: [phase][message] */
    long remote_offset[HX_MAX_PHASES][HX_MAX_MSGS]; /* bytes into the neighbour's receive half */
    int remote_slot[HX_MAX_PHASES][HX_MAX_MSGS];    /* the neighbour's message index (its signal) */
    uint64_t count[HX_MAX_PHASES];                /* exchanges done per phase */
    size_t half;                                  /* bytes per phase and parity */
} shmem_state;

static int initialised = 0;

/* Host API only: the host library's own initialisation. With the device API
 * (HALOX_HAVE_NVSHMEM_DEVICE), the full one, which also sets up the device library's state; it is
 * what nvshmemx_init_attr does, without that inline function's exit on failure (library code
 * returns its errors). */
static int init_nvshmem(nvshmemx_init_attr_t *attr)
{
#ifdef HALOX_HAVE_NVSHMEM_DEVICE
    int provided = 0;
    const nvshmemi_version_t version = {NVSHMEM_VENDOR_MAJOR_VERSION, NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION};
    nvshmemx_init_init_attr_ver_only((*attr));
    return nvshmemi_init_thread(NVSHMEM_THREAD_SERIALIZED, &provided, NVSHMEMX_INIT_WITH_UNIQUEID, attr, version);
#else
    return nvshmemx_hostlib_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, attr);
#endif
}

static void shutdown_nvshmem(void)
{
#ifdef HALOX_HAVE_NVSHMEM_DEVICE
    if (initialised) nvshmem_finalize();
#else
    if (initialised) nvshmemx_hostlib_finalize();
#endif
    initialised = 0;
}

static int shmem_available(const hx_backend *bk, char *why, size_t n)
{
    if (bk->host_accessible || bk->device < 0) {
        snprintf(why, n, "transport nvshmem puts into GPU memory: use it with the cuda backend, or transport mpi");
        return 0;
    }
    return 1;
}

/* The device path (kernel-initiated schedules), through the host API only: a symmetric area laid
 * out as the ipc transport's (device_area.h), zeroed, whose neighbours' parts kernels reach by
 * loads and stores through nvshmem_ptr. So the kernels run the ipc protocol unchanged
 * (device_table.h); where each message lands at its receiver is traded, as for ipc. After the
 * slots, each outgoing message's stage, for the device API's puts. Collective. */
static int shmem_device_setup(hx_transport *t, shmem_state *s, char *err, size_t n)
{
    const hx_plan *plan = t->plan;
    const size_t elem = t->bk->elem;
    long extra[HX_MAX_PHASES][HX_MAX_MSGS][2], theirs[HX_MAX_PHASES][HX_MAX_MSGS][2], roff[HX_MAX_PHASES][HX_MAX_MSGS];
    int ridx[HX_MAX_PHASES][HX_MAX_MSGS];
    long bytes = (long)hx_dev_area_layout(plan, elem, extra), most = 0, stage[HX_MAX_PHASES][HX_MAX_MSGS];
    /* then each outgoing message's stage, for the device API's puts (local: no trade) */
    for (int p = 0; p < plan->nphases; p++)
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            stage[p][m] = bytes;
            bytes += (long)((plan->phase[p].msg[m].count * elem + 15) / 16 * 16);
        }
    HX_MPI_TRY(MPI_Allreduce(&bytes, &most, 1, MPI_LONG, MPI_MAX, t->comm), err, n);
    s->area = (char *)nvshmem_malloc((size_t)most); /* symmetric: one size on every PE */
    int ok = s->area != NULL;
    if (ok) ok = cudaMemset(s->area, 0, (size_t)most) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (!ok) snprintf(err, n, "allocating the %ld-byte nvshmem device area failed: raise NVSHMEM_SYMMETRIC_SIZE", most);
        else snprintf(err, n, "another rank could not allocate its nvshmem device area");
        return -1;
    }
    ok = hx_transport_trade(t, (const long(*)[HX_MAX_MSGS][2])extra, roff, ridx, theirs, err, n) == 0;
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not trade its nvshmem device slots");
        return -1;
    }
    s->table.nphases = plan->nphases;
    for (int p = 0; p < plan->nphases; p++) {
        s->table.nmsg[p] = plan->phase[p].nmsg;
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            const hx_message *msg = &plan->phase[p].msg[m];
            hx_dev_msg *dm = &s->table.msg[p][m];
            hx_dev_msg_own(dm, msg, s->area, extra[p][m], elem);
            /* for the device API: symmetric addresses (the same offsets in every PE's area) */
            dm->stage = s->area + stage[p][m];
            dm->put_dst[0] = s->area + theirs[p][m][0];
            dm->put_dst[1] = dm->put_dst[0] + HX_DEV_SLOT_BYTES(msg->count, elem);
            dm->put_sig = (unsigned long long *)s->area + theirs[p][m][1];
            char *base = (char *)nvshmem_ptr(s->area, msg->peer); /* NULL: not reachable by loads and stores */
            if (!base) {
                s->unmapped++;
                continue;
            }
            hx_dev_msg_peer(dm, msg, base, theirs[p][m], elem);
        }
    }
    return 0;
}

static int shmem_setup(hx_transport *t, char *err, size_t n)
{
    hx_backend *bk = t->bk;
    const hx_decomp *d = bk->decomp;
    shmem_state *s = (shmem_state *)calloc(1, sizeof *s);
    if (!s) return snprintf(err, n, "out of host memory for the nvshmem transport"), -1;
    t->impl = s;

    /* one PE per GPU: NVSHMEM does not share a device between PEs */
    MPI_Comm node;
    int node_size = 1, ndev = 0, ok = 1;
    HX_MPI_TRY(MPI_Comm_split_type(t->comm, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &node), err, n);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess) ndev = 0;
    if (node_size > ndev) {
        snprintf(err, n, "transport nvshmem needs one GPU per rank, but %d ranks share %d GPUs on this node: "
                         "run fewer ranks or use transport nccl", node_size, ndev);
        ok = 0;
    }
    /* NVSHMEM ends the process when its initialisation finds no transport to a peer: refuse first */
    if (ok && hx_nvshmem_remote_check(node_size < d->nranks, getenv("NVSHMEM_DISABLE_P2P"), getenv("NVSHMEM_REMOTE_TRANSPORT"),
                                      hx_ib_device_count(), err, n) != 0)
        ok = 0;
    if (ok && hx_fault_setup(d->rank)) {
        snprintf(err, n, "set-up failure injected by HALOX_FAULT_SETUP");
        ok = 0;
    }
    /* NVSHMEM's initialisation is collective: no rank enters it unless all do */
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not set up transport nvshmem");
        return -1;
    }
    if (!initialised) {
        nvshmemx_uniqueid_t id;
        memset(&id, 0, sizeof id);
        if (d->rank == 0 && nvshmemx_get_uniqueid(&id) != 0) return snprintf(err, n, "nvshmemx_get_uniqueid failed"), -1;
        HX_MPI_TRY(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, t->comm), err, n);
        nvshmemx_init_attr_t attr;
        memset(&attr, 0, sizeof attr);
        if (nvshmemx_set_attr_uniqueid_args(d->rank, d->nranks, &id, &attr) != 0)
            return snprintf(err, n, "nvshmemx_set_attr_uniqueid_args failed"), -1;
        ok = init_nvshmem(&attr) == 0;
        if (!hx_transport_all_ok(t->comm, ok)) {
            if (!ok) snprintf(err, n, "NVSHMEM initialisation failed (check LD_LIBRARY_PATH holds NVSHMEM's bootstrap plugins)");
            else snprintf(err, n, "NVSHMEM initialisation failed on another rank");
            return -1;
        }
        initialised = 1;
        atexit(shutdown_nvshmem);
    }
    if (nvshmem_my_pe() != d->rank)
        return snprintf(err, n, "NVSHMEM PE %d is not MPI rank %d", nvshmem_my_pe(), d->rank), -1;

    /* symmetric allocations must have one size on every PE */
    long cells = t->plan->max_phase_cells, most = 0;
    HX_MPI_TRY(MPI_Allreduce(&cells, &most, 1, MPI_LONG, MPI_MAX, t->comm), err, n);
    size_t half = (size_t)(most > 0 ? most : 1) * bk->elem;
    half = (half + 255) / 256 * 256;
    s->half = half;
    s->recv[0] = (char *)nvshmem_malloc(2 * half * HX_MAX_PHASES);
    s->send = (char *)nvshmem_malloc(half * HX_MAX_PHASES);
    s->signal = (uint64_t *)nvshmem_calloc(HX_MAX_PHASES * HX_MAX_MSGS, sizeof(uint64_t));
    ok = s->recv[0] && s->send && s->signal;
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (!ok) snprintf(err, n, "nvshmem_malloc of %zu bytes failed: raise NVSHMEM_SYMMETRIC_SIZE", 3 * half * HX_MAX_PHASES);
        else snprintf(err, n, "nvshmem_malloc failed on another rank");
        return -1;
    }
    s->recv[1] = s->recv[0] + half * HX_MAX_PHASES;
    long off[HX_MAX_PHASES][HX_MAX_MSGS];
    ok = hx_transport_trade_offsets(t, off, s->remote_slot, err, n) == 0;
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not trade its nvshmem buffer offsets");
        return -1;
    }
    for (int p = 0; p < t->plan->nphases; p++) {
        t->send_buf[p] = s->send + half * p;
        t->recv_buf[p] = s->recv[0] + half * p;
        for (int m = 0; m < t->plan->phase[p].nmsg; m++) s->remote_offset[p][m] = (long)(half * p) + off[p][m] * (long)bk->elem;
    }
    if (shmem_device_setup(t, s, err, n)) return -1;
    nvshmem_barrier_all();
    return 0;
}

static int shmem_device_table(hx_transport *t, hx_dev_table *table)
{
    const shmem_state *s = (const shmem_state *)t->impl;
    if (!s || !s->area) return snprintf(t->err, sizeof t->err, "the nvshmem device path was not set up"), -1;
    if (s->unmapped)
        return snprintf(t->err, sizeof t->err, "%d halo message%s of this rank go to PEs that nvshmem_ptr cannot map (another "
                        "node): kernels cannot store into them; use the cycle schedule there", s->unmapped,
                        s->unmapped > 1 ? "s" : ""), -1;
    *table = s->table;
    return 0;
}

static int shmem_enqueue(hx_transport *t, int phase, int stream)
{
    shmem_state *s = (shmem_state *)t->impl;
    hx_backend *bk = t->bk;
    const hx_phase *ph = &t->plan->phase[phase];
    cudaStream_t st = (cudaStream_t)bk->ops->native_stream(bk, stream);
    const uint64_t e = ++s->count[phase];
    char *dest = s->recv[e % 2];
    for (int m = 0; m < ph->nmsg; m++) {
        const hx_message *msg = &ph->msg[m];
        nvshmemx_putmem_signal_on_stream(dest + s->remote_offset[phase][m],
                                         (char *)t->send_buf[phase] + (size_t)msg->offset * bk->elem,
                                         (size_t)msg->count * bk->elem,
                                         &s->signal[phase * HX_MAX_MSGS + s->remote_slot[phase][m]], e, NVSHMEM_SIGNAL_SET,
                                         msg->peer, st);
    }
    for (int m = 0; m < ph->nmsg; m++)
        nvshmemx_signal_wait_until_on_stream(&s->signal[phase * HX_MAX_MSGS + m], NVSHMEM_CMP_GE, e, st);
    /* the unpack that follows reads this exchange's half */
    t->recv_buf[phase] = dest + s->half * phase;
    cudaError_t ce = cudaGetLastError();
    if (ce != cudaSuccess) return snprintf(t->err, sizeof t->err, "NVSHMEM on-stream calls: %s", cudaGetErrorString(ce)), -1;
    return 0;
}

static void shmem_destroy(hx_transport *t)
{
    shmem_state *s = (shmem_state *)t->impl;
    if (s && initialised) {
        cudaDeviceSynchronize();
        nvshmem_barrier_all();
        if (s->recv[0]) nvshmem_free(s->recv[0]);
        if (s->send) nvshmem_free(s->send);
        if (s->signal) nvshmem_free(s->signal);
        if (s->area) nvshmem_free(s->area);
    }
    free(s);
    t->impl = NULL;
}

static hx_transport_ops make_ops(void)
{
    hx_transport_ops o;
    memset(&o, 0, sizeof o);
    o.name = "nvshmem";
#ifdef HALOX_HAVE_NVSHMEM_DEVICE
    o.summary = "NVSHMEM put+signal and signal-wait enqueued on the compute stream; the pass kernel puts with the device "
                "API (nvshmemx_putmem_signal_block), other kernels store through nvshmem_ptr";
#else
    o.summary = "NVSHMEM put+signal and signal-wait enqueued on the compute stream (host API); kernels store through "
                "nvshmem_ptr";
#endif
    o.caps = HX_PATH_STREAM | HX_PATH_DEVICE;
    o.available = shmem_available;
    o.setup = shmem_setup;
    o.enqueue = shmem_enqueue;
    o.destroy = shmem_destroy;
    o.device_table = shmem_device_table;
    return o;
}
extern "C" const hx_transport_ops hx_transport_nvshmem = make_ops();
