/* MPI transports, host path only: the CPU drives and waits for every exchange.
 *   mpi       host-staged, the classic model: packed buffers are copied to pinned host memory
 *             (unless the backend's memory is host memory already), sent, and copied back;
 *   mpi-cuda  device buffers handed straight to a CUDA-aware MPI; refused when the MPI library
 *             is not CUDA-aware (checked at configure time and at run time). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "transport/transport.h"
#include "wait.h"
#ifdef HALOX_HAVE_MPI_EXT
#include <mpi-ext.h>
#endif

typedef struct {
    int staged;                     /* copy through pinned host memory */
    void *host_send[HX_MAX_PHASES]; /* == send_buf when no staging is needed */
    void *host_recv[HX_MAX_PHASES];
    MPI_Request req[2 * HX_MAX_MSGS];
    int peer[2 * HX_MAX_MSGS];
    const char *what[2 * HX_MAX_MSGS];
    int nreq;
} mpi_state;

/* 1 when the MPI library accepts device pointers: compiled with the support and reporting it now. */
static int mpi_cuda_aware(char *why, size_t n)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    if (MPIX_Query_cuda_support()) return 1;
    snprintf(why, n, "the MPI library was built CUDA-aware but reports no CUDA support at run time "
                     "(check its CUDA settings, e.g. OMPI_MCA_opal_cuda_support): use transport mpi");
    return 0;
#else
    snprintf(why, n, "the MPI library is not CUDA-aware (MPIX_CUDA_AWARE_SUPPORT is 0 or absent at build time): "
                     "use transport mpi (host-staged), or rebuild against a CUDA-aware MPI");
    return 0;
#endif
}

static int mpi_available(const hx_backend *bk, char *why, size_t n)
{
    (void)bk;
    (void)why;
    (void)n;
    return 1;
}

static int mpi_cuda_available(const hx_backend *bk, char *why, size_t n)
{
    if (bk->host_accessible) {
        snprintf(why, n, "transport mpi-cuda moves device buffers: use it with the cuda backend, or transport mpi");
        return 0;
    }
    return mpi_cuda_aware(why, n);
}

static int setup(hx_transport *t, int staged, char *err, size_t n)
{
    hx_backend *bk = t->bk;
    mpi_state *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, n, "out of host memory for the mpi transport"), -1;
    t->impl = s;
    s->staged = staged;
    size_t bytes = (size_t)t->plan->max_phase_cells * bk->elem;
    for (int p = 0; p < t->plan->nphases; p++)
        for (int m = 0; m < t->plan->phase[p].nmsg; m++)
            if ((size_t)t->plan->phase[p].msg[m].count * bk->elem > INT_MAX)
                return snprintf(err, n, "a halo message exceeds 2 GiB: use a narrower halo or more ranks"), -1;
    if (hx_fault_setup(bk->decomp->rank)) return snprintf(err, n, "set-up failure injected by HALOX_FAULT_SETUP"), -1;
    if (hx_transport_alloc_buffers(t, err, n)) return -1;
    for (int p = 0; p < t->plan->nphases; p++) {
        if (!staged) {
            s->host_send[p] = t->send_buf[p];
            s->host_recv[p] = t->recv_buf[p];
        } else {
            s->host_send[p] = bk->ops->alloc_host(bk, bytes ? bytes : 1);
            s->host_recv[p] = bk->ops->alloc_host(bk, bytes ? bytes : 1);
        }
        if (!s->host_send[p] || !s->host_recv[p])
            return snprintf(err, n, "cannot allocate %zu-byte pinned host buffers (%s): use a narrower halo", bytes, bk->err), -1;
    }
    return 0;
}

static int mpi_setup(hx_transport *t, char *err, size_t n) { return setup(t, !t->bk->host_accessible, err, n); }
static int mpi_cuda_setup(hx_transport *t, char *err, size_t n) { return setup(t, 0, err, n); }

static int mpi_post(hx_transport *t, int phase, int stream)
{
    mpi_state *s = t->impl;
    hx_backend *bk = t->bk;
    const hx_phase *ph = &t->plan->phase[phase];
    size_t bytes = (size_t)ph->cells * bk->elem;
    if (s->staged && bytes) {
        int ev = hx_clock_start(t->clock, stream);
        if (bk->ops->to_host(bk, stream, s->host_send[phase], t->send_buf[phase], bytes)) goto backend_failed;
        if (hx_clock_stop(t->clock, stream, HX_SEG_PACK, ev)) goto backend_failed;
    }
    /* MPI reads the buffer as soon as it is posted: the pack (and staging copy) must be done */
    if (bk->async && bytes && bk->ops->sync(bk, stream)) goto backend_failed;
    double t0 = MPI_Wtime();
    s->nreq = 0;
    if (hx_post_messages(t->comm, ph, bk->elem, NULL, s->host_send[phase], s->host_recv[phase], s->req, s->peer,
                         s->what, &s->nreq, t->err, sizeof t->err))
        return -1;
    t->clock->acc->t[HX_SEG_MESSAGE] += MPI_Wtime() - t0;
    return 0;
backend_failed:
    snprintf(t->err, sizeof t->err, "%s", bk->err);
    return -1;
}

static int mpi_wait(hx_transport *t, int phase, int stream)
{
    mpi_state *s = t->impl;
    hx_backend *bk = t->bk;
    double t0 = MPI_Wtime();
    if (hx_wait_all(t->comm, s->nreq, s->req, s->peer, s->what, t->err, sizeof t->err)) return -1;
    t->clock->acc->t[HX_SEG_MESSAGE] += MPI_Wtime() - t0;
    s->nreq = 0;
    size_t bytes = (size_t)t->plan->phase[phase].cells * bk->elem;
    if (s->staged && bytes) {
        int ev = hx_clock_start(t->clock, stream);
        if (bk->ops->to_device(bk, stream, t->recv_buf[phase], s->host_recv[phase], bytes) ||
            hx_clock_stop(t->clock, stream, HX_SEG_UNPACK, ev)) {
            snprintf(t->err, sizeof t->err, "%s", bk->err);
            return -1;
        }
    }
    return 0;
}

static void mpi_destroy(hx_transport *t)
{
    mpi_state *s = t->impl;
    hx_backend *bk = t->bk;
    for (int p = 0; p < HX_MAX_PHASES; p++) {
        if (s && s->staged) {
            if (s->host_send[p]) bk->ops->free_host(bk, s->host_send[p]);
            if (s->host_recv[p]) bk->ops->free_host(bk, s->host_recv[p]);
        }
    }
    hx_transport_free_buffers(t);
    free(s);
    t->impl = NULL;
}

const hx_transport_ops hx_transport_mpi = {
    .name = "mpi",
    .summary = "host-staged MPI: device pack, copy to pinned host memory, MPI_Isend/Irecv, copy back",
    .caps = HX_PATH_HOST,
    .available = mpi_available,
    .setup = mpi_setup,
    .post = mpi_post,
    .wait = mpi_wait,
    .destroy = mpi_destroy,
};

const hx_transport_ops hx_transport_mpi_cuda = {
    .name = "mpi-cuda",
    .summary = "CUDA-aware MPI: device buffers straight to MPI_Isend/Irecv",
    .caps = HX_PATH_HOST,
    .available = mpi_cuda_available,
    .setup = mpi_cuda_setup,
    .post = mpi_post,
    .wait = mpi_wait,
    .destroy = mpi_destroy,
};
