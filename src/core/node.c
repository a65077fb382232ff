/* Node-local rank, GPU choice, which ipc links cross nodes, and whether NVSHMEM can reach every peer. */
#include "core/node.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hx_node_rank(MPI_Comm comm, int *node_rank, int *node_size)
{
    MPI_Comm node;
    int rank;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return -1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS) return -1;
    int rc = MPI_Comm_rank(node, node_rank) != MPI_SUCCESS || MPI_Comm_size(node, node_size) != MPI_SUCCESS;
    MPI_Comm_free(&node);
    return rc ? -1 : 0;
}

int hx_pick_device(const char *list, int node_rank, int device_count, int *device, char *err, size_t errlen)
{
    if (device_count <= 0) {
        snprintf(err, errlen, "no CUDA GPU is visible to this rank: use the cpu backend, or check CUDA_VISIBLE_DEVICES and the driver");
        return -1;
    }
    if (!list || !*list) {
        *device = node_rank % device_count;
        return 0;
    }
    int ids[64], n = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int id = atoi(tok);
        if (n == 64) break;
        if (id < 0 || id >= device_count) {
            snprintf(err, errlen, "the device list names GPU %d but only %d GPU%s visible (0..%d): fix the list", id,
                     device_count, device_count == 1 ? " is" : "s are", device_count - 1);
            return -1;
        }
        ids[n++] = id;
    }
    if (n == 0) {
        snprintf(err, errlen, "the device list '%s' names no GPU: give a list such as 0,1", list);
        return -1;
    }
    *device = ids[node_rank % n];
    return 0;
}

int hx_node_leaders(MPI_Comm comm, int *leader)
{
    MPI_Comm node;
    int rank, mine;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return -1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS) return -1;
    int rc = MPI_Allreduce(&rank, &mine, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) return -1;
    return MPI_Allgather(&mine, 1, MPI_INT, leader, 1, MPI_INT, comm) == MPI_SUCCESS ? 0 : -1;
}

int hx_node_shares_gpu(MPI_Comm comm, int device, int *other)
{
    int n = 0, rank = 0, found = 0;
    if (MPI_Comm_size(comm, &n) != MPI_SUCCESS || MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return 0;
    int *leader = malloc(sizeof(int) * (size_t)n), *dev = malloc(sizeof(int) * (size_t)n);
    if (leader && dev && hx_node_leaders(comm, leader) == 0 &&
        MPI_Allgather(&device, 1, MPI_INT, dev, 1, MPI_INT, comm) == MPI_SUCCESS)
        for (int r = 0; r < n && !found && device >= 0; r++)
            if (r != rank && leader[r] == leader[rank] && dev[r] == device) found = 1, *other = r;
    free(leader);
    free(dev);
    return found;
}

int hx_ipc_fallback_parse(const char *spec, int nranks, unsigned char *off, char *err, size_t errlen)
{
    memset(off, 0, (size_t)nranks);
    if (!spec || !*spec || !strcmp(spec, "none")) return 0;
    if (!strcmp(spec, "all")) {
        memset(off, 1, (size_t)nranks);
        return 0;
    }
    for (const char *p = spec;;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p || r < 0 || r >= nranks || (*end && *end != ',')) {
            snprintf(err, errlen, "host fallback '%s': give all, none, or a comma list of ranks below %d such as 0,1",
                     spec, nranks);
            return -1;
        }
        off[r] = 1;
        if (!*end) return 0;
        p = end + 1;
    }
}

int hx_ipc_link_over_mpi(const int *leader, const unsigned char *off, int a, int b)
{
    return a != b && (leader[a] != leader[b] || off[a] || off[b]);
}

/* NVSHMEM's truth values: 1, y[es], t[rue], on (any case); anything else, and unset, is false */
static int env_true(const char *v)
{
    if (!v) return 0;
    return strchr("1yYtT", v[0]) != NULL || ((v[0] == 'o' || v[0] == 'O') && (v[1] == 'n' || v[1] == 'N'));
}

int hx_nvshmem_remote_check(int off_node, const char *disable_p2p, const char *remote, int ib_devices, char *err, size_t errlen)
{
    const int p2p_off = env_true(disable_p2p);
    if (!off_node && !p2p_off) return 0;
    const char *why = off_node ? "the job spans nodes" : "NVSHMEM_DISABLE_P2P is set";
    const char *name = remote && *remote ? remote : "ibrc";
    if (!strcmp(name, "none")) {
        snprintf(err, errlen, "transport nvshmem: %s, so peers need NVSHMEM's remote transport, but NVSHMEM_REMOTE_TRANSPORT is none: "
                 "set it to one this host has (ibrc, ibgda, ucx, libfabric), or use transport nccl or ipc", why);
        return -1;
    }
    if (!strncmp(name, "ib", 2) && ib_devices <= 0) {
        snprintf(err, errlen, "transport nvshmem: %s, so peers need NVSHMEM's remote transport (%s%s), which needs an InfiniBand "
                 "device, and this host has none (NVSHMEM would end the process): use transport nccl or ipc, or set "
                 "NVSHMEM_REMOTE_TRANSPORT to ucx or libfabric", why, name, remote && *remote ? "" : ", the default");
        return -1;
    }
    return 0;
}

int hx_ib_device_count(void)
{
    DIR *dir = opendir("/sys/class/infiniband");
    int count = 0;
    if (!dir) return 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        if (e->d_name[0] != '.') count++;
    closedir(dir);
    return count;
}
