/* `halox pingpong --transport ipc-kernel,memcpy-peer`: the device-initiated ping-pong and its
 * copy-engine reference, measured between the GPUs of a pair on one node (docs/pingpong.md).
 * Below the public API: they drive the library's private src/transport/ipc_pingpong.h (kernels
 * and CUDA IPC set-up), the way apps/cli/roofline.c drives src/compute/backend.h. Built without
 * CUDA, both are reported as not built. */
#include <stdio.h>
#include <string.h>

#include "pingpong_priv.h"
#ifdef HALOX_HAVE_CUDA
#include "transport/ipc_pingpong.h"
#endif

int hx_pp_is_device_model(const char *name) { return !strcmp(name, "ipc-kernel") || !strcmp(name, "memcpy-peer"); }

const char *hx_pp_device_names(void)
{
#ifdef HALOX_HAVE_CUDA
    return ", ipc-kernel, memcpy-peer";
#else
    return "";
#endif
}

/* Why this run cannot measure the model at all (same answer on every rank), or NULL. */
static const char *refusal(hx_context *ctx)
{
#ifndef HALOX_HAVE_CUDA
    (void)ctx;
    return "not built: this halox was built without CUDA (no nvcc at configure time, or -DHALOX_CUDA=OFF)";
#else
    if (hx_context_backend(ctx) != HX_BACKEND_CUDA)
        return "needs the cuda backend (GPU memory, one GPU per rank of the pair): this run uses the cpu backend";
    return NULL;
#endif
}

void hx_pp_device_model(hx_context *ctx, const pp_config *c, const char *name, int (*pairs)[2], int npairs,
                        double *samples, pp_row *rows, int *nrows, char *skipped, size_t nskipped)
{
    int rank = hx_context_rank(ctx);
    const char *why = refusal(ctx);
    if (why) {
        if (rank == 0) hx_pp_skip(skipped, nskipped, name, why);
        return;
    }
#ifdef HALOX_HAVE_CUDA
    MPI_Comm comm = hx_context_comm(ctx);
    const int memcpy_peer = !strcmp(name, "memcpy-peer");
    const long maxiter = c->iters > c->large_iters ? c->iters : c->large_iters;
    char err[512];
    for (int p = 0; p < npairs; p++) {
        const int a = pairs[p][0], b = pairs[p][1];
        hx_ipc_pingpong *pp = NULL;
        if (hx_ipc_pingpong_setup(comm, a, b, hx_context_device(ctx), c->max_bytes, maxiter, c->ll_bytes, c->ll_threads, &pp, err,
                                  sizeof err)) {
            /* agreed by every rank, same message: skip this pair */
            if (rank == 0) {
                char why2[600];
                snprintf(why2, sizeof why2, "pair %d-%d: %s", a, b, err);
                hx_pp_skip(skipped, nskipped, name, why2);
            }
            hx_ipc_pingpong_destroy(comm, pp);
            continue;
        }
        /* memcpy-peer: the largest size only, one-way copies (no busy-wait in them) */
        for (long bytes = memcpy_peer ? c->max_bytes : c->min_bytes; bytes <= c->max_bytes; bytes *= 2) {
            long iters = bytes > PP_LARGE_BYTES && c->large_iters < c->iters ? c->large_iters : c->iters;
            pp_row row;
            memset(&row, 0, sizeof row);
            row.transport = name;
            row.backend = hx_backend_name(hx_context_backend(ctx));
            row.rank_a = a, row.rank_b = b;
            row.bytes = bytes;
            row.iters = iters;
            row.warmup = c->warmup;
            row.compute_us = memcpy_peer ? 0 : c->compute_us;
            row.ll_bytes = c->ll_bytes;
            row.ll_threads = c->ll_threads;
            MPI_Barrier(comm);
            int st = memcpy_peer ? hx_ipc_pingpong_memcpy(pp, bytes, c->warmup, iters, samples, err, sizeof err)
                                 : hx_ipc_pingpong_run(pp, bytes, c->warmup, iters, c->compute_us, samples, err, sizeof err);
            if (st) hx_pp_die(comm, rank, err);
            if (rank == a) hx_pp_stats(&row, samples, iters, row.compute_us);
            hx_pp_collect(comm, &row, rows, nrows, c->quiet);
        }
        hx_ipc_pingpong_destroy(comm, pp);
    }
#else
    (void)c, (void)pairs, (void)npairs, (void)samples, (void)rows, (void)nrows;
#endif
}
