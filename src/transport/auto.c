/* Transport "auto": the rules of halox/exchange.h, applied to facts every rank agrees on (one
 * node or several, a GPU per rank, peer access between the job's GPUs, a CUDA-aware MPI), so
 * that every rank picks the same transport. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HALOX_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "core/node.h"
#include "core/objects.h"

/* Local: 1 when this rank's GPU has peer access to the GPU of every other rank of its node (the
 * same GPU counts as reachable); dev and leader have one slot per rank. */
static int peers_reachable(const int *leader, const int *dev, int rank, int nranks)
{
#ifdef HALOX_HAVE_CUDA
    for (int r = 0; r < nranks; r++) {
        if (r == rank || leader[r] != leader[rank] || dev[r] == dev[rank]) continue;
        int can = 0;
        if (cudaDeviceCanAccessPeer(&can, dev[rank], dev[r]) != cudaSuccess || !can) return 0;
    }
    return 1;
#else
    (void)leader, (void)dev, (void)rank, (void)nranks;
    return 0;
#endif
}

/* Local: 1 when transport `name` is built and usable by a rank on `device`. */
static int usable(const char *name, int device)
{
    const hx_transport_ops *o = hx_transport_find(name);
    if (!o) return 0;
    hx_decomp d;
    memset(&d, 0, sizeof d);
    hx_backend gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.decomp = &d;
    gpu.device = device;
    char why[320];
    return o->available(&gpu, why, sizeof why);
}

const char *hx_transport_pick(MPI_Comm comm, hx_backend_kind kind, int device, char *why, size_t n)
{
    char none[8];
    if (!why) why = none, n = sizeof none;
    if (kind != HX_BACKEND_CUDA || !hx_transport_find("ipc")) {
        snprintf(why, n, "cpu backend: fields live in host memory");
        return "mpi";
    }
    int rank = 0, nranks = 0;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &nranks) != MPI_SUCCESS) {
        snprintf(why, n, "MPI_Comm_rank or MPI_Comm_size failed: host-staged MPI asks the least");
        return "mpi";
    }
    int *leader = malloc(sizeof(int) * (size_t)nranks), *dev = malloc(sizeof(int) * (size_t)nranks);
    /* facts, each local then agreed: [0] every rank on one node, [1] a GPU per rank (within each
     * node), [2] peer access between the GPUs of each node, [3] a CUDA-aware MPI */
    int mine[4] = {0, 0, 0, 0}, all[4] = {0, 0, 0, 0}, ok = leader && dev;
    ok = ok && hx_node_leaders(comm, leader) == 0 && MPI_Allgather(&device, 1, MPI_INT, dev, 1, MPI_INT, comm) == MPI_SUCCESS;
    if (ok) {
        mine[0] = leader[rank] == leader[0];
        mine[1] = 1;
        for (int r = 0; r < nranks; r++)
            if (r != rank && leader[r] == leader[rank] && dev[r] == device) mine[1] = 0;
        mine[2] = peers_reachable(leader, dev, rank, nranks);
        mine[3] = usable("mpi-cuda", device);
    }
    free(leader);
    free(dev);
    if (!hx_transport_all_ok(comm, ok) || MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        snprintf(why, n, "could not learn which ranks share a node and GPU: host-staged MPI asks the least");
        return "mpi";
    }
    const int one_node = all[0], own_gpu = all[1], peer = all[2], aware = all[3];
    if (one_node && own_gpu && peer && hx_transport_find("ipc-put")) {
        snprintf(why, n, "cuda backend, every rank on one node with a GPU of its own and peer access between them");
        return "ipc-put";
    }
    if (one_node) {
        snprintf(why, n, "cuda backend, every rank on one node, but %s", !own_gpu ? "ranks share a GPU" : "a pair of GPUs lacks peer access");
        return "ipc";
    }
    if (own_gpu && hx_transport_find("nccl")) {
        snprintf(why, n, "cuda backend, ranks on several nodes, each with a GPU of its own");
        return "nccl";
    }
    if (aware) {
        snprintf(why, n, "cuda backend, ranks on several nodes, %s, and the MPI library is CUDA-aware",
                 own_gpu ? "no NCCL in this build" : "ranks share a GPU");
        return "mpi-cuda";
    }
    snprintf(why, n, "cuda backend, ranks on several nodes, %s, MPI not CUDA-aware: peer copies within a node, host-staged MPI between",
             own_gpu ? "no NCCL in this build" : "ranks share a GPU");
    return "ipc";
}

const char *hx_transport_auto(hx_context *ctx, char *why, size_t n)
{
    return hx_transport_pick(ctx->comm, ctx->kind, ctx->device, why, n);
}
