/* The device path of --transport nccl, over NCCL 2.28's device API: the device area that ipc and
 * nvshmem lay out (device_area.h: a flag per incoming message, two receive slots per message) is
 * allocated with ncclMemAlloc and registered as a symmetric window in the context's communicator.
 * NCCL then maps the windows of every rank of this rank's LSA team (load/store accessible: the
 * GPUs of a node with peer access) into one flat range of this GPU's address space, and the device
 * function ncclGetPeerPointer gives where a neighbour's area lies in it. The kernels store there
 * and run the ipc protocol unchanged (device_table.h); where each message lands at its receiver is
 * traded, as for ipc.
 *
 * ncclGetPeerPointer reads NCCL's window structure (ncclWindow_vidmem), whose layout changed within
 * 2.28 (2.28.7 added fields): the path is offered only when the library at run time is the release
 * whose headers this file was compiled with. */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <nccl_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/device_area.h"
#include "transport/nccl_device.h"

enum { HX_NCCL_MAX_PEERS = HX_MAX_PHASES * HX_MAX_MSGS };

struct hx_nccl_device {
    ncclComm_t comm;
    ncclWindow_t win;             /* NULL until registered */
    char *area;                   /* ncclMemAlloc'd, this rank's part of the window */
    hx_dev_table table;
    int unreachable;              /* messages to ranks outside this rank's LSA team */
    int unreachable_rank;         /* one of those ranks, for the message */
};

/* Ranks whose parts a kernel asks NCCL for; passed by value, as a launch argument. */
struct hx_nccl_peers {
    int n;
    int rank[HX_NCCL_MAX_PEERS];
};

/* One thread: where each rank's part of the window lies in this GPU's flat LSA mapping. The window
 * structure lives in device memory, so only a kernel can read it. */
static __global__ void hx_nccl_peer_parts(ncclWindow_t win, hx_nccl_peers q, char **out)
{
    for (int i = 0; i < q.n; i++) out[i] = (char *)ncclGetPeerPointer(win, 0, q.rank[i]);
}

static void version_text(int v, char *s, size_t n) { snprintf(s, n, "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100); }

int hx_nccl_device_usable(char *why, size_t n)
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return snprintf(why, n, "ncclGetVersion failed: the NCCL library cannot be used"), 0;
    if (v == NCCL_VERSION_CODE) return 1;
    char built[32], run[32];
    version_text(NCCL_VERSION_CODE, built, sizeof built);
    version_text(v, run, sizeof run);
    snprintf(why, n, "halox was built with NCCL %s and its nccl device path reads NCCL's window structure, which changes between "
             "releases, but NCCL %s was loaded: put NCCL %s's libnccl.so.2 first on LD_LIBRARY_PATH, or use transport ipc", built, run,
             built);
    return 0;
}

/* A window in device memory is NCCL's symmetric one. Where the communicator has no symmetric
 * memory (GPUs of a node without peer access, NCCL_WIN_ENABLE=0, NCCL_CUMEM_ENABLE=0),
 * registration succeeds but returns a host handle of a local registration: never hand it to a kernel. */
static int device_window(ncclWindow_t win)
{
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (!win) return 0;
    if (cudaPointerGetAttributes(&a, win) != cudaSuccess) {
        cudaGetLastError(); /* not a CUDA pointer: clear the error */
        return 0;
    }
    return a.type == cudaMemoryTypeDevice;
}

/* Local: NCCL's deregistration only drops this rank's mappings (2.28), and the memory is freed
 * once no other rank maps it either. */
static void release(hx_nccl_device *dv)
{
    if (!dv) return;
    if (dv->win) ncclCommWindowDeregister(dv->comm, dv->win);
    if (dv->area) ncclMemFree(dv->area);
    free(dv);
}

/* The part of rank q found by the kernel, or NULL where q is not in the list. */
static char *part_of(const hx_nccl_peers *q, char *const *part, int rank)
{
    for (int i = 0; i < q->n; i++)
        if (q->rank[i] == rank) return part[i];
    return NULL;
}

/* The distinct neighbours that NCCL maps (this rank's LSA team, itself left out: its own messages
 * use its area directly, as ipc's do); others are counted as unreachable. */
static void find_peers(hx_nccl_device *dv, const hx_plan *plan, int self, hx_nccl_peers *q)
{
    ncclTeam_t lsa = ncclTeamLsa(dv->comm), world = ncclTeamWorld(dv->comm);
    q->n = 0;
    for (int p = 0; p < plan->nphases; p++)
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            int r = plan->phase[p].msg[m].peer, known = 0;
            if (r == self) continue;
            if (!ncclTeamRankIsMember(lsa, world, r)) {
                dv->unreachable++;
                dv->unreachable_rank = r;
                continue;
            }
            for (int i = 0; i < q->n; i++) known |= q->rank[i] == r;
            if (!known) q->rank[q->n++] = r;
        }
}

int hx_nccl_device_setup(hx_transport *t, ncclComm_t comm, hx_nccl_device **out, char *err, size_t n)
{
    const hx_plan *plan = t->plan;
    const hx_decomp *d = t->bk->decomp;
    const size_t elem = t->bk->elem;
    hx_nccl_device *dv = (hx_nccl_device *)calloc(1, sizeof *dv);
    long(*mine)[HX_MAX_MSGS][2] = (long(*)[HX_MAX_MSGS][2])calloc(HX_MAX_PHASES, sizeof *mine);
    long(*theirs)[HX_MAX_MSGS][2] = (long(*)[HX_MAX_MSGS][2])calloc(HX_MAX_PHASES, sizeof *theirs);
    long roff[HX_MAX_PHASES][HX_MAX_MSGS];
    int ridx[HX_MAX_PHASES][HX_MAX_MSGS];
    hx_nccl_peers peers;
    char *part[HX_NCCL_MAX_PEERS], **part_dev = NULL;
    unsigned long long bytes = 0, most = 0;
    int ok = dv && mine && theirs, rc = -1, nrank = -1, nsize = 0;
    ncclResult_t r = ncclSuccess;
    cudaError_t e = cudaSuccess;
    *out = NULL;
    peers.n = 0;
    if (!ok) snprintf(err, n, "out of host memory for the nccl device path");
    if (ok) dv->comm = comm, ok = hx_nccl_device_usable(err, n);
    /* the plan's peers are ranks of the exchange; the window's are NCCL's */
    if (ok && (ncclCommUserRank(comm, &nrank) != ncclSuccess || ncclCommCount(comm, &nsize) != ncclSuccess || nrank != d->rank ||
               nsize != d->nranks))
        ok = 0, snprintf(err, n, "the NCCL communicator numbers this rank %d of %d, the exchange %d of %d: the nccl device path "
                         "needs one numbering", nrank, nsize, d->rank, d->nranks);
    /* every step below is collective: no rank enters one that another rank skips */
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank cannot take the nccl device path");
        goto fail;
    }
    /* one size on every rank (a symmetric registration), in whole units of the window alignment */
    bytes = hx_dev_area_layout(plan, elem, mine);
    bytes = (bytes + NCCL_WIN_REQUIRED_ALIGNMENT - 1) / NCCL_WIN_REQUIRED_ALIGNMENT * NCCL_WIN_REQUIRED_ALIGNMENT;
    if (MPI_Allreduce(&bytes, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, t->comm) != MPI_SUCCESS) {
        snprintf(err, n, "MPI_Allreduce of the nccl device area sizes failed");
        goto fail;
    }
    r = ncclMemAlloc((void **)&dv->area, (size_t)most);
    if (r != ncclSuccess) {
        ok = 0, dv->area = NULL;
        snprintf(err, n, "ncclMemAlloc of the %llu-byte nccl device area: %s", most, ncclGetErrorString(r));
    }
    /* zeroed: no stale word carries a valid exchange number */
    if (ok && ((e = cudaMemset(dv->area, 0, (size_t)most)) != cudaSuccess || (e = cudaDeviceSynchronize()) != cudaSuccess))
        ok = 0, snprintf(err, n, "zeroing the nccl device area: %s", cudaGetErrorString(e));
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not allocate its nccl device area");
        goto fail;
    }
    r = ncclCommWindowRegister(comm, dv->area, (size_t)most, &dv->win, NCCL_WIN_COLL_SYMMETRIC);
    if (r != ncclSuccess) {
        ok = 0, dv->win = NULL;
        snprintf(err, n, "ncclCommWindowRegister of the nccl device area: %s (%s)", ncclGetErrorString(r), ncclGetLastError(comm));
    } else if (!device_window(dv->win)) {
        ok = 0;
        snprintf(err, n, "NCCL gave no symmetric memory window (its communicator has none where the GPUs of a node lack peer access, "
                 "or with NCCL_WIN_ENABLE=0 or NCCL_CUMEM_ENABLE=0): use transport ipc");
    }
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not register its nccl device area");
        goto fail;
    }
    if (hx_transport_trade(t, (const long(*)[HX_MAX_MSGS][2])mine, roff, ridx, theirs, err, n)) ok = 0;
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not trade its nccl device slots");
        goto fail;
    }
    find_peers(dv, plan, d->rank, &peers);
    if (peers.n > 0) {
        e = cudaMalloc((void **)&part_dev, sizeof(char *) * (size_t)peers.n);
        if (e == cudaSuccess) {
            hx_nccl_peer_parts<<<1, 1>>>(dv->win, peers, part_dev);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess) e = cudaMemcpy(part, part_dev, sizeof(char *) * (size_t)peers.n, cudaMemcpyDeviceToHost);
        if (part_dev) cudaFree(part_dev);
        if (e != cudaSuccess) ok = 0, snprintf(err, n, "reading the neighbours' parts of the nccl window: %s", cudaGetErrorString(e));
        for (int i = 0; ok && i < peers.n; i++)
            if (!part[i]) ok = 0, snprintf(err, n, "NCCL gave no address for the part of rank %d in its window", peers.rank[i]);
    }
    dv->table.nphases = plan->nphases;
    for (int p = 0; ok && p < plan->nphases; p++) {
        dv->table.nmsg[p] = plan->phase[p].nmsg;
        for (int m = 0; m < plan->phase[p].nmsg; m++) {
            const hx_message *msg = &plan->phase[p].msg[m];
            hx_dev_msg *dm = &dv->table.msg[p][m];
            hx_dev_msg_own(dm, msg, dv->area, mine[p][m], elem);
            char *base = msg->peer == d->rank ? dv->area : part_of(&peers, part, msg->peer);
            if (!base) continue; /* outside the LSA team (counted): the table refuses kernels */
            hx_dev_msg_peer(dm, msg, base, theirs[p][m], elem);
        }
    }
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not find its neighbours' parts of the nccl device area");
        goto fail;
    }
    *out = dv;
    dv = NULL;
    rc = 0;
fail:
    release(dv);
    free(mine);
    free(theirs);
    return rc;
}

int hx_nccl_device_table(const hx_nccl_device *dv, hx_dev_table *table, char *err, size_t n)
{
    if (!dv) return snprintf(err, n, "the nccl device path was not set up"), -1;
    if (dv->unreachable)
        return snprintf(err, n, "%d halo message%s of this rank go%s to ranks that NCCL cannot reach by loads and stores (rank %d: "
                        "another node, or outside this rank's LSA team), which kernels cannot put: use the cycle schedule for "
                        "ranks on several nodes", dv->unreachable, dv->unreachable > 1 ? "s" : "", dv->unreachable > 1 ? "" : "es",
                        dv->unreachable_rank), -1;
    *table = dv->table;
    return 0;
}

void hx_nccl_device_destroy(hx_nccl_device *dv) { release(dv); }
