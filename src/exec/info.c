/* `halox info`: what this build holds and what this machine offers. */
#include <string.h>

#include "halox/halox.h"
#ifdef HALOX_HAVE_NCCL
#include <nccl.h>
#endif

#ifndef HALOX_HAVE_CUDA
void hx_cuda_print_info(FILE *out)
{
    fprintf(out, "cuda       not built (no nvcc at configure time, or -DHALOX_CUDA=OFF)\n");
}
#endif

void hx_print_info(FILE *out, MPI_Comm comm)
{
    int rank, size, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Get_library_version(lib, &len);
    if (rank != 0) return;
    char *nl = strchr(lib, '\n');
    if (nl) *nl = 0;
    fprintf(out, "halox %s\n", HALOX_VERSION);
    fprintf(out, "mpi        %s (%d rank%s in this job)\n", lib, size, size == 1 ? "" : "s");
    hx_cuda_print_info(out);
    fprintf(out, "backends   cpu%s\n", hx_cuda_built() ? ", cuda" : "");
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
    fprintf(out, "transports (control paths in brackets)\n");
    for (int i = 0; i < hx_transport_count(); i++) {
        const hx_transport_ops *t = hx_transport_at(i);
        char why[256] = "";
        int ok = t->available(&gpu, why, sizeof why);
        fprintf(out, "  %-10s %s [%s%s%s]%s%s\n", t->name, t->summary, t->caps & HX_PATH_HOST ? "host" : "",
                t->caps & HX_PATH_STREAM ? "stream" : "", t->caps & HX_PATH_DEVICE ? " device" : "",
                ok || strcmp(t->name, "mpi") == 0 ? "" : "\n             not usable here: ", ok || !strcmp(t->name, "mpi") ? "" : why);
    }
    fprintf(out, "  (ipc needs every neighbour on one node; ranks on other nodes are refused, not yet routed over mpi)\n");
    fprintf(out, "stencils  ");
    for (int i = 0; i < HX_NUM_STENCILS; i++) {
        const hx_stencil_info *s = hx_stencil_get((hx_stencil_id)i);
        fprintf(out, " %s (%dD, r=%d)%s", s->name, s->dim, s->radius, i + 1 < HX_NUM_STENCILS ? "," : "\n");
    }
}
