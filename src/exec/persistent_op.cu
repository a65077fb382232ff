/* The pass kernel for a user operator (persistent_op.cuh) and its set-up: every block resident
 * (a cooperative launch), the operator's terms in the kernel's parameters. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exec/persistent_op.h"
#include "exec/persistent_op.cuh"

enum { HX_OP_THREADS = 256 };

template <typename T, bool C> __global__ void __launch_bounds__(HX_OP_THREADS) hx_persistent_op_kernel(hx_op_pparams<T> q)
{
    hx_persistent_op_body<T, C>(q);
}

/* The parameters with the operator filled (offsets in the field's cells); p is filled at each launch */
template <typename T> static void *op_params(const hx_sim *s, int radius)
{
    hx_op_pparams<T> *q = (hx_op_pparams<T> *)calloc(1, sizeof *q);
    if (!q) return NULL;
    const hx_decomp *d = s->d;
    const long sy = d->alloc[0], sz = d->dim == 3 ? (long)d->alloc[0] * d->alloc[1] : 0;
    if (op_dev_fill(q->o, s->bk->op, s->bk->coef, sy, sz, sy, sz)) {
        free(q);
        return NULL;
    }
    q->radius = radius;
    return q;
}

int hx_op_setup_passes(hx_sim *s, int sms)
{
    hx_device_run *r = s->device_run;
    const hx_operator *op = s->bk->op;
    const hx_kernel k = s->opt.kernel;
    if (k == HX_KERNEL_RESIDENT || k == HX_KERNEL_ROLES)
        return snprintf(s->err, sizeof s->err, "kernel %s serves halox's built-in stencils: use kernel passes for operator %s",
                        hx_kernel_name(k), op->name), HX_DEVICE_REFUSED;
    const bool dbl = s->bk->dtype == HX_DOUBLE, coef = op_has_coef(op);
    const int radius = hx_backend_radius(s->bk);
    r->opq = dbl ? op_params<double>(s, radius) : op_params<float>(s, radius);
    if (!r->opq)
        return snprintf(s->err, sizeof s->err, "operator %s: out of host memory, or the field's planes are too large for int offsets",
                        op->name), -1;
    r->kernel = dbl ? (coef ? (void *)hx_persistent_op_kernel<double, true> : (void *)hx_persistent_op_kernel<double, false>)
                    : (coef ? (void *)hx_persistent_op_kernel<float, true> : (void *)hx_persistent_op_kernel<float, false>);
    r->threads = HX_OP_THREADS;
    r->smem = 0;
    r->levels = 1;
    int per_sm = 0;
    HX_DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, r->kernel, r->threads, 0));
    if (per_sm < 1) return snprintf(s->err, sizeof s->err, "the operator pass kernel does not fit on an SM of GPU %d", s->bk->device), -1;
    r->grid = per_sm * sms;
    if (s->opt.profile) {
        HX_DEV_TRY(cudaMalloc((void **)&r->prof, (size_t)r->grid * 4 * sizeof(unsigned long long)));
        HX_DEV_TRY(cudaMemset(r->prof, 0, (size_t)r->grid * 4 * sizeof(unsigned long long)));
    }
    if (s->d->rank == 0)
        hx_logf(s->bk->log, HX_LOG_INFO, "%s schedule: operator %s pass kernel, %d blocks of %d threads (%d per SM), sweeps one a pass",
                hx_schedule_name(s->opt.schedule), op->name, r->grid, r->threads, per_sm);
    return 0;
}
