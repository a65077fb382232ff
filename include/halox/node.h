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

#ifdef __cplusplus
}
#endif
#endif
