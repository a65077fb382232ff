/* The pass kernel for a user operator (persistent_op.cuh) and its set-up: every block resident
 * (a cooperative launch), the operator's terms in the kernel's parameters. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exec/persistent_op.h"
#include "exec/persistent_op.cuh"

enum { HX_OP_THREADS = 256 };
static_assert(HX_OP_THREADS == op_shape<2, 1>::TX * op_shape<2, 1>::TY && HX_OP_THREADS == op_shape<3, 1>::TX * op_shape<3, 1>::TY,
              "a block is one tile's threads");

template <typename T, bool C, int DIM, int H>
__global__ void __launch_bounds__(HX_OP_THREADS, 2) hx_persistent_op_kernel(hx_op_pparams<T> q)
{
    hx_persistent_op_body<T, C, DIM, H>(q);
}

/* The kernel for passes of up to `fuse` sweeps with halo H = fuse x radius, its shared memory (one
 * tile buffer for single sweeps, two to ping-pong), and the tile form of the operator in q; NULL
 * where an offset overflows an int */
template <typename T, bool C, int DIM, int H> static void *op_kernel(hx_op_pparams<T> *q, const hx_sim *s, int fuse, size_t *smem)
{
    if (op_tile_fill<T, DIM, H>(q->ot, s->bk->op, s->bk->coef, q->alloc)) return NULL;
    *smem = op_tile_smem<T, DIM, H>(fuse);
    return (void *)hx_persistent_op_kernel<T, C, DIM, H>;
}

typedef void *(*op_kernel_fn)(void *q, const hx_sim *s, int fuse, size_t *smem);
template <typename T, bool C, int DIM, int H> static void *op_kernel_any(void *q, const hx_sim *s, int fuse, size_t *smem)
{
    return op_kernel<T, C, DIM, H>((hx_op_pparams<T> *)q, s, fuse, smem);
}

/* [dtype][C][dim - 2][H - 1]: H = fuse x radius, 1 .. 8 (2D), 1 .. 4 (3D) */
#define OP_H2(T, C) {op_kernel_any<T, C, 2, 1>, op_kernel_any<T, C, 2, 2>, op_kernel_any<T, C, 2, 3>, op_kernel_any<T, C, 2, 4>, \
                     op_kernel_any<T, C, 2, 5>, op_kernel_any<T, C, 2, 6>, op_kernel_any<T, C, 2, 7>, op_kernel_any<T, C, 2, 8>}
#define OP_H3(T, C) {op_kernel_any<T, C, 3, 1>, op_kernel_any<T, C, 3, 2>, op_kernel_any<T, C, 3, 3>, op_kernel_any<T, C, 3, 4>, \
                     NULL, NULL, NULL, NULL}
static_assert(HX_FUSE_MAX == 8 && HX_FUSE_MAX_3D == 4, "the table holds halos up to 8 (2D) and 4 (3D)");
static const op_kernel_fn op_kernels[2][2][2][HX_FUSE_MAX] = {
    {{OP_H2(float, false), OP_H3(float, false)}, {OP_H2(float, true), OP_H3(float, true)}},
    {{OP_H2(double, false), OP_H3(double, false)}, {OP_H2(double, true), OP_H3(double, true)}},
};
#undef OP_H2
#undef OP_H3

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
    q->alloc[0] = d->alloc[0];
    q->alloc[1] = d->alloc[1];
    q->alloc[2] = d->dim == 3 ? d->alloc[2] : 1;
    return q;
}

int hx_op_setup_passes(hx_sim *s, int sms)
{
    hx_device_run *r = s->device_run;
    const hx_operator *op = s->bk->op;
    const hx_decomp *d = s->d;
    const hx_kernel k = s->opt.kernel;
    if (k == HX_KERNEL_RESIDENT || k == HX_KERNEL_ROLES)
        return snprintf(s->err, sizeof s->err, "kernel %s serves halox's built-in stencils: use kernel passes for operator %s",
                        hx_kernel_name(k), op->name), HX_DEVICE_REFUSED;
    const int dslot = s->bk->dtype == HX_DOUBLE, coef = op_has_coef(op), radius = hx_backend_radius(s->bk);
    const int missing = op_missing_coef(op, s->bk->coef);
    if (missing >= 0)
        return snprintf(s->err, sizeof s->err, "operator %s reads coefficient field %d, but the sweeper was given none", op->name, missing),
               HX_DEVICE_REFUSED;
    const int fuse = s->opt.fuse > 1 ? s->opt.fuse : 1, H = fuse * radius;
    const op_kernel_fn pick = d->dim >= 2 && d->dim <= 3 && H >= 1 && H <= (d->dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX)
                                  ? op_kernels[dslot][coef][d->dim - 2][H - 1]
                                  : NULL;
    if (!pick)
        return snprintf(s->err, sizeof s->err, "operator %s: fused passes in %dD take fuse x radius up to %d (asked %d x %d)", op->name,
                        d->dim, d->dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX, fuse, radius), HX_DEVICE_REFUSED;
    r->opq = dslot ? op_params<double>(s, radius) : op_params<float>(s, radius);
    size_t smem = 0;
    r->kernel = r->opq ? pick(r->opq, s, fuse, &smem) : NULL;
    if (!r->kernel)
        return snprintf(s->err, sizeof s->err, "operator %s: out of host memory, or the field's planes are too large for int offsets",
                        op->name), -1;
    r->threads = HX_OP_THREADS;
    r->smem = smem;
    r->levels = fuse;
    HX_DEV_TRY(cudaFuncSetAttribute(r->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    int per_sm = 0;
    HX_DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, r->kernel, r->threads, smem));
    if (per_sm < 1)
        return snprintf(s->err, sizeof s->err, "the operator pass kernel does not fit on an SM of GPU %d (%zu bytes of shared memory)",
                        s->bk->device, smem), -1;
    r->grid = per_sm * sms;
    if (s->opt.profile) {
        HX_DEV_TRY(cudaMalloc((void **)&r->prof, (size_t)r->grid * 4 * sizeof(unsigned long long)));
        HX_DEV_TRY(cudaMemset(r->prof, 0, (size_t)r->grid * 4 * sizeof(unsigned long long)));
    }
    if (d->rank == 0)
        hx_logf(s->bk->log, HX_LOG_INFO, "%s schedule: operator %s pass kernel, %d blocks of %d threads (%d per SM), passes of %d sweeps, "
                "%zu B of shared memory", hx_schedule_name(s->opt.schedule), op->name, r->grid, r->threads, per_sm, fuse, smem);
    return 0;
}
