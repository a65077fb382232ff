/* Placement of ranks on nodes and GPUs. */
#ifndef HALOX_NODE_H
#define HALOX_NODE_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This rank's index among the ranks of its node, and their number (MPI_Comm_split_type). */
int hx_node_rank(MPI_Comm comm, int *node_rank, int *node_size);

/* The GPU for this rank: list[node_rank % len] when a --devices list is given, else
 * node_rank % device_count. Returns 0, or -1 with a message naming the fix. */
int hx_pick_device(const char *list, int node_rank, int device_count, int *device, char *err, size_t errlen);

/* Collective: for every rank of comm, the lowest rank on its node, a node id all ranks agree on
 * (leader has one slot per rank). Returns 0, or -1 when an MPI call fails. */
int hx_node_leaders(MPI_Comm comm, int *leader);

/* Collective: 1 when another rank of this rank's node uses the same GPU (device; -1: none), with
 * the lowest such rank in *other; 0 otherwise, and when an MPI call fails. Kernels that spin for
 * each other's data can starve when their processes share a GPU. */
int hx_node_shares_gpu(MPI_Comm comm, int device, int *other);

/* An exchange's host_fallback (halox/exchange.h): NULL, "" or "none" marks no rank, "all" every
 * rank, or a comma list of ranks such as "1,3" marks those; off has nranks slots.
 * Returns 0, or -1 with a one-line message naming the accepted values. */
int hx_ipc_fallback_parse(const char *spec, int nranks, unsigned char *off, char *err, size_t errlen);

/* 1 when the ipc link between ranks a and b goes over host-staged MPI: they are on different
 * nodes, or either is marked off; never a rank with itself (that copy stays on its GPU).
 * Symmetric in a and b, so both ends of every message choose the same route. */
int hx_ipc_link_over_mpi(const int *leader, const unsigned char *off, int a, int b);

/* Whether NVSHMEM can reach every peer of this job, asked before its initialisation, which exits the
 * process when it finds no transport for a peer (NVSHMEM 3.4: "Unable to initialize any
 * transports"). Peers need NVSHMEM's remote transport when the job spans nodes (off_node) or
 * NVSHMEM_DISABLE_P2P is true (disable_p2p: its value, NULL when unset); remote: the value of
 * NVSHMEM_REMOTE_TRANSPORT (NULL: NVSHMEM's default, ibrc); ib_devices: InfiniBand devices on this
 * host. Refused: no remote transport ("none"), or an InfiniBand one (ibrc, ibgda, ibdevx) without a
 * device. ucx and libfabric, which can run over Ethernet, are let through to NVSHMEM.
 * Returns 0, or -1 with a one-line message naming the fix. */
int hx_nvshmem_remote_check(int off_node, const char *disable_p2p, const char *remote, int ib_devices, char *err, size_t errlen);

/* InfiniBand devices of this host (/sys/class/infiniband), 0 where there is none or no such folder. */
int hx_ib_device_count(void);

#ifdef __cplusplus
}
#endif
#endif
