/* The transport registry and the buffer set-up common to every transport. */
#include "halox/transport.h"

#include <stdio.h>
#include <string.h>

extern const hx_transport_ops hx_transport_mpi, hx_transport_mpi_cuda, hx_transport_ipc, hx_transport_nccl,
    hx_transport_nvshmem;

/* What this build holds; optional ones are compiled only when found at configure time. */
static const hx_transport_ops *const registry[] = {
    &hx_transport_mpi,
#ifdef HALOX_HAVE_CUDA
    &hx_transport_mpi_cuda,
    &hx_transport_ipc,
#endif
#ifdef HALOX_HAVE_NCCL
    &hx_transport_nccl,
#endif
#ifdef HALOX_HAVE_NVSHMEM
    &hx_transport_nvshmem,
#endif
};

/* Every model halox knows, built or not, so that asking for an absent one says why. */
const char *hx_transport_missing(const char *name)
{
    if (!strcmp(name, "mpi-cuda") || !strcmp(name, "ipc"))
        return "this halox was built without CUDA (no nvcc at configure time): install the CUDA toolkit and rebuild";
    if (!strcmp(name, "nccl"))
        return "this halox was built without NCCL (nccl.h/libnccl not found at configure time): set NCCL_HOME and rebuild";
    if (!strcmp(name, "nvshmem"))
        return "this halox was built without NVSHMEM (nvshmem.h/libnvshmem_host not found at configure time): set "
               "NVSHMEM_HOME, or let `make` install the nvidia-nvshmem-cu13 wheel, and rebuild";
    return NULL;
}

int hx_transport_count(void) { return (int)(sizeof registry / sizeof *registry); }
const hx_transport_ops *hx_transport_at(int i) { return registry[i]; }

const hx_transport_ops *hx_transport_find(const char *name)
{
    for (int i = 0; i < hx_transport_count(); i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}

int hx_transport_create(hx_transport *t, const hx_transport_ops *ops, hx_backend *bk, const hx_plan *plan,
                        MPI_Comm comm, hx_clock *clock, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->ops = ops;
    t->bk = bk;
    t->plan = plan;
    t->comm = comm;
    t->clock = clock;
    if (!ops->available(bk, err, errlen)) return -1;
    /* the schedules drive the host path, or else the stream path */
    if (!(ops->caps & (HX_PATH_HOST | HX_PATH_STREAM))) {
        snprintf(err, errlen, "transport %s has no host or stream path, which the run schedules need", ops->name);
        return -1;
    }
    return ops->setup(t, err, errlen);
}

void hx_transport_destroy(hx_transport *t)
{
    if (t->ops && t->ops->destroy) t->ops->destroy(t);
    memset(t, 0, sizeof *t);
}

int hx_transport_alloc_buffers(hx_transport *t, char *err, size_t errlen)
{
    hx_backend *bk = t->bk;
    size_t bytes = (size_t)t->plan->max_phase_cells * bk->elem;
    for (int p = 0; p < t->plan->nphases; p++) {
        t->send_buf[p] = bk->ops->alloc(bk, bytes ? bytes : 1);
        t->recv_buf[p] = bk->ops->alloc(bk, bytes ? bytes : 1);
        if (!t->send_buf[p] || !t->recv_buf[p]) {
            snprintf(err, errlen, "cannot allocate two %zu-byte halo buffers per phase: use a smaller --depth", bytes);
            return -1;
        }
    }
    return 0;
}

void hx_transport_free_buffers(hx_transport *t)
{
    for (int p = 0; p < HX_MAX_PHASES; p++) {
        if (t->send_buf[p]) t->bk->ops->free(t->bk, t->send_buf[p]);
        if (t->recv_buf[p]) t->bk->ops->free(t->bk, t->recv_buf[p]);
        t->send_buf[p] = t->recv_buf[p] = NULL;
    }
}
