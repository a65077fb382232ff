/* hx_print_info (`halox info`): what this build holds and what this machine offers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "core/objects.h"
#ifdef HALOX_HAVE_NCCL
#include <nccl.h>
#endif


/* Append the ranks whose leader is `leader` to buf as ranges, e.g. "0-3,8". */
static void append_ranks(char *buf, size_t n, const int *leaders, int size, int leader)
{
    for (int r = 0; r < size; r++) {
        if (leaders[r] != leader) continue;
        int last = r;
        while (last + 1 < size && leaders[last + 1] == leader) last++;
        size_t used = strlen(buf);
        if (last > r) snprintf(buf + used, n - used, "%s%d-%d", buf[0] ? "," : "", r, last);
        else snprintf(buf + used, n - used, "%s%d", buf[0] ? "," : "", r);
        r = last;
    }
}

/* Collective: which ranks share a node (the ipc transport's routes follow it), printed by rank 0
 * as one line, e.g. "nodes      2: gpu01 ranks 0-3; gpu02 ranks 4-7". */
static void print_nodes(FILE *out, MPI_Comm comm, int rank, int size)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0, *leaders = malloc(sizeof(int) * (size_t)size);
    char *names = rank == 0 ? malloc((size_t)size * MPI_MAX_PROCESSOR_NAME) : NULL;
    int ok = leaders && (rank != 0 || names);
    MPI_Get_processor_name(name, &len);
    if (!ok || hx_node_leaders(comm, leaders) ||
        MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm) != MPI_SUCCESS) {
        if (rank == 0) fprintf(out, "nodes      unknown (MPI_Comm_split_type or MPI_Gather failed)\n");
        free(leaders);
        free(names);
        return;
    }
    if (rank == 0) {
        int nnodes = 0, shown = 0;
        for (int r = 0; r < size; r++) nnodes += leaders[r] == r;
        fprintf(out, "nodes      %d:", nnodes);
        for (int r = 0; r < size; r++) {
            if (leaders[r] != r) continue;
            if (shown++ == 8) {
                fprintf(out, " ... (%d more)", nnodes - 8);
                break;
            }
            char ranks[256] = "";
            append_ranks(ranks, sizeof ranks, leaders, size, r);
            fprintf(out, "%s %s ranks %s", shown > 1 ? ";" : "", names + (size_t)r * MPI_MAX_PROCESSOR_NAME, ranks);
        }
        fprintf(out, "\n");
    }
    free(leaders);
    free(names);
}

/* Collective: what transport "auto" would pick for this job with the automatic backend and
 * devices (cuda when every rank sees a GPU; node-local rank modulo the GPU count), and why. */
static const char *auto_pick(MPI_Comm comm, char *why, size_t n)
{
    int ndev = hx_cuda_built() ? hx_cuda_device_count() : 0, node_rank = 0, node_size = 1, device = -1, all = 0;
    int mine = ndev > 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) all = 0;
    if (all && hx_node_rank(comm, &node_rank, &node_size) == 0) device = node_rank % ndev;
    return hx_transport_pick(comm, all ? HX_BACKEND_CUDA : HX_BACKEND_CPU, device, why, n);
}

void hx_print_info(FILE *out, MPI_Comm comm)
{
    int rank, size, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], why[320] = "";
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Get_library_version(lib, &len);
    const char *picked = auto_pick(comm, why, sizeof why);
    if (rank != 0) {
        if (size > 1) print_nodes(out, comm, rank, size);
        return;
    }
    char *nl = strchr(lib, '\n');
    if (nl) *nl = 0;
    fprintf(out, "halox %s\n", HALOX_VERSION);
    fprintf(out, "mpi        %s (%d rank%s in this job)\n", lib, size, size == 1 ? "" : "s");
    if (size > 1) print_nodes(out, comm, rank, size);
    hx_cuda_print_info(out);
    fprintf(out, "backends   cpu%s\n", hx_cuda_built() ? ", cuda" : "");
#if HALOX_FAULT_INJECTION
    fprintf(out, "faults     injection compiled in (a test build: it reads the tests' fault knobs)\n");
#endif
#ifdef HALOX_HAVE_NCCL
    int nv = 0;
    ncclGetVersion(&nv);
    fprintf(out, "nccl       built with %d, running %d\n", NCCL_VERSION_CODE, nv);
#else
    fprintf(out, "nccl       not built (nccl.h/libnccl not found at configure time; set NCCL_HOME)\n");
#endif
    /* availability as a GPU rank of this machine would see it */
    hx_decomp d;
    memset(&d, 0, sizeof d);
    hx_backend gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.decomp = &d;
    gpu.device = hx_cuda_device_count() > 0 ? 0 : -1;
    fprintf(out, "transports (control paths in brackets; a graph captures the sweeps after a host exchange)\n");
    for (int i = 0; i < hx_transport_count(); i++) {
        const hx_transport_ops *t = hx_transport_at(i);
        char why[320] = "";
        int ok = t->available(&gpu, why, sizeof why);
        fprintf(out, "  %-10s %s [%s%s%s%s]%s%s\n", t->name, t->summary, t->caps & HX_PATH_HOST ? "host" : "",
                t->caps & HX_PATH_STREAM ? "stream" : "", t->caps & HX_PATH_DEVICE ? " device" : "",
                t->caps & HX_CAP_REPLAY ? ", whole cycle in a graph" : "",
                ok || strcmp(t->name, "mpi") == 0 ? "" : "\n             not usable here: ", ok || !strcmp(t->name, "mpi") ? "" : why);
        if (ok && (t->caps & HX_PATH_DEVICE) && t->device_available && !t->device_available(why, sizeof why))
            fprintf(out, "             device path not usable here: %s\n", why);
    }
    if (hx_transport_find("ipc"))
        fprintf(out, "  (ipc: peer copies within a node, host-staged MPI between nodes and for the ranks of host_fallback)\n");
    fprintf(out, "auto       transport auto picks %s for this job: %s\n", picked, why);
    fprintf(out, "stencils  ");
    for (int i = 0; i < HX_NUM_STENCILS; i++) {
        const hx_stencil_info *s = hx_stencil_get((hx_stencil_id)i);
        fprintf(out, " %s (%dD, r=%d)%s", s->name, s->dim, s->radius, i + 1 < HX_NUM_STENCILS ? "," : "\n");
    }
}
