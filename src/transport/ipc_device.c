/* The device path of --transport ipc: one device area per exchange holding a flag per incoming
 * message and two receive slots per message (one per exchange parity), exported with CUDA IPC
 * and mapped by every IPC neighbour. Kernels store halos straight into a neighbour's slot,
 * fence, and set its flag (device_table.h gives the protocol).
 *
 * The area's layout is device_area.h's (shared with nvshmem's device path); a slot holds twice the
 * message's bytes because the resident kernel sends each 4-byte word with its exchange number
 * beside it (an 8-byte store that needs no fence; resident_kernel.cuh). The whole area starts
 * zeroed, so no stale word carries a valid exchange number. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "transport/device_area.h"
#include "transport/ipc_device.h"

struct hx_ipc_device {
    char *area;
    hx_dev_table table;
    int over_mpi;                       /* messages that cross nodes: no device path for them */
    void *opened[HX_MAX_PHASES * HX_MAX_MSGS];
    int opened_rank[HX_MAX_PHASES * HX_MAX_MSGS], nopened;
};

/* The mapped area of rank q (opened once per neighbour). */
static char *peer_area(hx_ipc_device *dv, const cudaIpcMemHandle_t *all, int q, char *err, size_t n)
{
    for (int i = 0; i < dv->nopened; i++)
        if (dv->opened_rank[i] == q) return dv->opened[i];
    void *p = NULL;
    cudaError_t e = cudaIpcOpenMemHandle(&p, all[q], cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) return snprintf(err, n, "cannot map the device area of rank %d: %s", q, cudaGetErrorString(e)), NULL;
    dv->opened[dv->nopened] = p;
    dv->opened_rank[dv->nopened++] = q;
    return p;
}

int hx_ipc_device_setup(hx_transport *t, const unsigned char (*over_mpi)[HX_MAX_MSGS], hx_ipc_device **out, char *err, size_t n)
{
    const hx_plan *plan = t->plan;
    const hx_decomp *d = t->bk->decomp;
    size_t elem = t->bk->elem, bytes = 0;
    hx_ipc_device *dv = calloc(1, sizeof *dv);
    cudaIpcMemHandle_t mine, *all = calloc((size_t)d->nranks, sizeof *all);
    long (*extra)[HX_MAX_MSGS][2] = calloc(HX_MAX_PHASES, sizeof *extra), (*theirs)[HX_MAX_MSGS][2] = calloc(HX_MAX_PHASES, sizeof *theirs);
    long roff[HX_MAX_PHASES][HX_MAX_MSGS];
    int ridx[HX_MAX_PHASES][HX_MAX_MSGS], ok = dv && all && extra && theirs, rc = -1;
    *out = dv;
    if (!ok) snprintf(err, n, "out of host memory for the ipc device path");
    /* where each incoming message lands here: its parity-0 slot (bytes into the area) and flag */
    if (ok) bytes = hx_dev_area_layout(plan, elem, extra);
    for (int p = 0; ok && p < plan->nphases; p++)
        for (int m = 0; m < plan->phase[p].nmsg; m++) dv->over_mpi += over_mpi[p][m];
    cudaError_t e = cudaSuccess;
    if (ok) e = cudaMalloc((void **)&dv->area, bytes);
    if (ok && e == cudaSuccess) e = cudaMemset(dv->area, 0, bytes);
    if (ok && e == cudaSuccess) e = cudaDeviceSynchronize();
    if (ok && e == cudaSuccess) e = cudaIpcGetMemHandle(&mine, dv->area);
    if (ok && e != cudaSuccess) ok = 0, snprintf(err, n, "allocating the %zu-byte ipc device area: %s", bytes, cudaGetErrorString(e));
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not allocate its ipc device area");
        goto out;
    }
    if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, t->comm) != MPI_SUCCESS) {
        snprintf(err, n, "MPI_Allgather of the ipc device areas failed");
        goto out;
    }
    ok = hx_transport_trade(t, (const long(*)[HX_MAX_MSGS][2])extra, roff, ridx, theirs, err, n) == 0;
    dv->table.nphases = plan->nphases;
    for (int p = 0; ok && p < plan->nphases; p++) {
        dv->table.nmsg[p] = plan->phase[p].nmsg;
        for (int m = 0; ok && m < plan->phase[p].nmsg; m++) {
            const hx_message *msg = &plan->phase[p].msg[m];
            hx_dev_msg *dm = &dv->table.msg[p][m];
            hx_dev_msg_own(dm, msg, dv->area, extra[p][m], elem);
            if (over_mpi[p][m]) continue; /* left out: the table refuses kernels while any is over MPI */
            char *base = msg->peer == d->rank ? dv->area : peer_area(dv, all, msg->peer, err, n);
            if (!base) {
                ok = 0;
                break;
            }
            hx_dev_msg_peer(dm, msg, base, theirs[p][m], elem);
        }
    }
    if (hx_transport_all_ok(t->comm, ok)) rc = 0;
    else if (ok) snprintf(err, n, "another rank could not map its neighbours' ipc device areas");
out:
    free(all);
    free(extra);
    free(theirs);
    return rc;
}

int hx_ipc_device_table(const hx_ipc_device *dv, hx_dev_table *table, char *err, size_t n)
{
    if (!dv) return snprintf(err, n, "the ipc device path was not set up"), -1;
    if (dv->over_mpi)
        return snprintf(err, n, "%d halo message%s of this rank go%s through host-staged MPI (to another node, or host_fallback), "
                                "which kernels cannot put: use the cycle schedule for ranks on several nodes", dv->over_mpi,
                        dv->over_mpi > 1 ? "s" : "", dv->over_mpi > 1 ? "" : "es"), -1;
    *table = dv->table;
    return 0;
}

void hx_ipc_device_destroy(hx_ipc_device *dv)
{
    if (!dv) return;
    for (int i = 0; i < dv->nopened; i++) cudaIpcCloseMemHandle(dv->opened[i]);
    if (dv->area) cudaFree(dv->area);
    free(dv);
}
