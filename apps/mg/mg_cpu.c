/* halox mg: the CPU kernels (OpenMP loops over host fields). Each loop body is one expression of
 * mg_cell.h, so these fields and the CUDA ones (mg_cuda.cu) agree bit for bit. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_cell.h"

#define IDX(g, i, j, k) ((long)(i) + (g)->sy * (long)(j) + (g)->sz * (long)(k))

typedef struct {
    double *part, *partmax; /* max_partials each */
    double marks[MG_MARKS];
} cpu_state;

static cpu_state *ST(mg_kctx *k) { return (cpu_state *)k->impl; }

static int cpu_init(mg_kctx *k, void *stream, long max_partials)
{
    k->stream = stream;
    k->max_partials = max_partials;
    k->err[0] = 0;
    cpu_state *s = calloc(1, sizeof *s);
    if (s) {
        s->part = malloc(sizeof(double) * (size_t)(max_partials > 0 ? max_partials : 1));
        s->partmax = malloc(sizeof(double) * (size_t)(max_partials > 0 ? max_partials : 1));
    }
    k->impl = s;
    if (!s || !s->part || !s->partmax) {
        snprintf(k->err, sizeof k->err, "out of host memory for the reduction buffers");
        return -1;
    }
    return 0;
}

static void cpu_fini(mg_kctx *k)
{
    cpu_state *s = ST(k);
    if (s) {
        free(s->part);
        free(s->partmax);
        free(s);
    }
    k->impl = NULL;
}

static int cpu_sync(mg_kctx *k) { return (void)k, 0; }
static int cpu_mark(mg_kctx *k, int slot) { return ST(k)->marks[slot] = MPI_Wtime(), 0; }
static int cpu_elapsed(mg_kctx *k, int a, int b, double *sec) { return *sec = ST(k)->marks[b] - ST(k)->marks[a], 0; }

static int cpu_zero(mg_kctx *k, const mg_geom *g, double *a)
{
    (void)k;
    memset(a - g->base, 0, sizeof(double) * (size_t)g->cells);
    return 0;
}

static int cpu_copy(mg_kctx *k, const mg_geom *g, double *dst, const double *src)
{
    (void)k;
    memcpy(dst - g->base, src - g->base, sizeof(double) * (size_t)g->cells);
    return 0;
}

static int cpu_bc(mg_kctx *k, const mg_geom *g, double *a)
{
    (void)k;
    const int nx = g->n[0], ny = g->n[1], nz = g->n[2];
    int lo[3], hi[3]; /* the other axes' range: the ring's box and one more */
    mg_box(g, g->ghost - 1, lo, hi);
    for (int kk = lo[2] - 1; kk <= hi[2] + 1; kk++)
        for (int j = lo[1] - 1; j <= hi[1] + 1; j++) {
            if (g->bnd_lo[0]) a[IDX(g, 0, j, kk)] = -a[IDX(g, 1, j, kk)];
            if (g->bnd_hi[0]) a[IDX(g, nx + 1, j, kk)] = -a[IDX(g, nx, j, kk)];
        }
    for (int kk = lo[2] - 1; kk <= hi[2] + 1; kk++)
        for (int i = lo[0] - 1; i <= hi[0] + 1; i++) {
            if (g->bnd_lo[1]) a[IDX(g, i, 0, kk)] = -a[IDX(g, i, 1, kk)];
            if (g->bnd_hi[1]) a[IDX(g, i, ny + 1, kk)] = -a[IDX(g, i, ny, kk)];
        }
    for (int j = lo[1] - 1; j <= hi[1] + 1; j++)
        for (int i = lo[0] - 1; i <= hi[0] + 1; i++) {
            if (g->bnd_lo[2]) a[IDX(g, i, j, 0)] = -a[IDX(g, i, j, 1)];
            if (g->bnd_hi[2]) a[IDX(g, i, j, nz + 1)] = -a[IDX(g, i, j, nz)];
        }
    return 0;
}

/* colour (gx + gy + gz) % 2 == c on global indices, over the box lo .. hi (inclusive) */
static void gsrb_box(const mg_geom *g, const mg_op *A, double *u, const double *f, int c, const int lo[3], const int hi[3])
{
    const long sy = g->sy, sz = g->sz;
#pragma omp parallel for schedule(static)
    for (int kk = lo[2]; kk <= hi[2]; kk++)
        for (int j = lo[1]; j <= hi[1]; j++) {
            const int i0 = lo[0] + ((g->off[0] + lo[0] - 1 + g->off[1] + j - 1 + g->off[2] + kk - 1 + c) & 1);
            for (int i = i0; i <= hi[0]; i += 2) {
                const long p = IDX(g, i, j, kk);
                mg_store_smoothed(g, u, p, i, j, kk, mg_gsrb_cell(A, u, f, p, sy, sz));
            }
        }
}

/* over mg_box */
static int cpu_gsrb(mg_kctx *k, const mg_geom *g, const mg_op *A, double *u, const double *f, int c, int ring)
{
    (void)k;
    int lo[3], hi[3];
    mg_box(g, ring, lo, hi);
    gsrb_box(g, A, u, f, c, lo, hi);
    return 0;
}

static int cpu_gsrb_boxes(mg_kctx *k, const mg_geom *g, const mg_op *A, double *u, const double *f, int c, const mg_boxes *b)
{
    (void)k;
    for (int q = 0; q < b->n; q++) gsrb_box(g, A, u, f, c, b->lo[q], b->hi[q]);
    return 0;
}

static int cpu_residual(mg_kctx *k, const mg_geom *g, const mg_op *A, double *r, const double *u, const double *f)
{
    (void)k;
    const long sy = g->sy, sz = g->sz;
#pragma omp parallel for schedule(static)
    for (int kk = 1; kk <= g->n[2]; kk++)
        for (int j = 1; j <= g->n[1]; j++)
            for (int i = 1; i <= g->n[0]; i++) {
                const long p = IDX(g, i, j, kk);
                r[p] = f ? f[p] - mg_apply(A, u, p, sy, sz) : mg_apply(A, u, p, sy, sz);
            }
    return 0;
}

static int cpu_cheby(mg_kctx *k, const mg_geom *g, const mg_op *A, double *unew, double *d, const double *u,
                     const double *f, double c1, double c2, int first, int ring)
{
    (void)k;
    const long sy = g->sy, sz = g->sz;
    int lo[3], hi[3];
    mg_box(g, ring, lo, hi);
#pragma omp parallel for schedule(static)
    for (int kk = lo[2]; kk <= hi[2]; kk++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                const long p = IDX(g, i, j, kk);
                const double dn = mg_cheby_dir(A, u, f, d, p, sy, sz, c1, c2, first);
                d[p] = dn;
                mg_store_smoothed(g, unew, p, i, j, kk, u[p] + dn);
            }
    return 0;
}

static int cpu_restrict8(mg_kctx *k, const mg_geom *F, const double *r, const mg_geom *C, double *fc)
{
    (void)k;
#pragma omp parallel for schedule(static)
    for (int kk = 1; kk <= C->n[2]; kk++)
        for (int j = 1; j <= C->n[1]; j++)
            for (int i = 1; i <= C->n[0]; i++)
                fc[IDX(C, i, j, kk)] = mg_restrict_cell(r, IDX(F, 2 * i - 1, 2 * j - 1, 2 * kk - 1), F->sy, F->sz);
    return 0;
}

static int cpu_interp_pc(mg_kctx *k, const mg_geom *F, double *u, const mg_geom *C, const double *uc)
{
    (void)k;
#pragma omp parallel for schedule(static)
    for (int kk = 1; kk <= F->n[2]; kk++)
        for (int j = 1; j <= F->n[1]; j++)
            for (int i = 1; i <= F->n[0]; i++)
                u[IDX(F, i, j, kk)] += uc[IDX(C, (i + 1) / 2, (j + 1) / 2, (kk + 1) / 2)];
    return 0;
}

static int cpu_interp_linear(mg_kctx *k, const mg_geom *F, double *u, const mg_geom *C, const double *uc, int ring)
{
    (void)k;
    int lo[3], hi[3];
    mg_box(F, ring, lo, hi);
#pragma omp parallel for schedule(static)
    for (int kk = lo[2]; kk <= hi[2]; kk++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                const long di = (i & 1) ? -1 : 1, dj = (j & 1) ? -C->sy : C->sy, dk = (kk & 1) ? -C->sz : C->sz;
                u[IDX(F, i, j, kk)] =
                    mg_interp_linear_cell(uc, IDX(C, mg_parent(i), mg_parent(j), mg_parent(kk)), di, dj, dk);
            }
    return 0;
}

static int cpu_axpy2(mg_kctx *k, const mg_geom *g, double *u, double *r, const double *p, const double *q, double alpha)
{
    (void)k;
#pragma omp parallel for schedule(static)
    for (int kk = 1; kk <= g->n[2]; kk++)
        for (int j = 1; j <= g->n[1]; j++)
            for (int i = 1; i <= g->n[0]; i++) {
                const long c = IDX(g, i, j, kk);
                u[c] += alpha * p[c];
                r[c] -= alpha * q[c];
            }
    return 0;
}

static int cpu_xpby(mg_kctx *k, const mg_geom *g, double *p, const double *r, double beta)
{
    (void)k;
#pragma omp parallel for schedule(static)
    for (int kk = 1; kk <= g->n[2]; kk++)
        for (int j = 1; j <= g->n[1]; j++)
            for (int i = 1; i <= g->n[0]; i++) {
                const long c = IDX(g, i, j, kk);
                p[c] = r[c] + beta * p[c];
            }
    return 0;
}

/* column (i, k) sums over j in order, then the columns in order (mg_sum_partials) */
static int cpu_dot(mg_kctx *k, const mg_geom *g, const double *a, const double *b, double *sum)
{
    double *part = ST(k)->part;
    const int nx = g->n[0];
#pragma omp parallel for schedule(static)
    for (int kk = 1; kk <= g->n[2]; kk++) {
        double *col = part + (long)(kk - 1) * nx;
        for (int i = 0; i < nx; i++) col[i] = 0;
        for (int j = 1; j <= g->n[1]; j++)
            for (int i = 1; i <= nx; i++) {
                const long p = IDX(g, i, j, kk);
                col[i - 1] += a[p] * b[p];
            }
    }
    *sum = mg_sum_partials(part, (long)nx * g->n[2]);
    return 0;
}

static int cpu_set_rhs(mg_kctx *k, const mg_geom *g, const mg_pde *P, double *f)
{
    (void)k;
    int lo[3], hi[3];
    mg_box(g, g->ghost - 1, lo, hi);
#pragma omp parallel for schedule(static)
    for (int kk = lo[2]; kk <= hi[2]; kk++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++)
                f[IDX(g, i, j, kk)] = mg_rhs_at(P, g->il2, mg_centre(g, 0, i), mg_centre(g, 1, j), mg_centre(g, 2, kk));
    return 0;
}

static int cpu_set_coefs(mg_kctx *k, const mg_geom *g, const mg_pde *P, double *alpha, double *bx, double *by,
                         double *bz, double *dinv)
{
    (void)k;
    int lo[3], hi[3];
    mg_box(g, g->ghost - 1, lo, hi);
#pragma omp parallel for schedule(static)
    for (int kk = lo[2]; kk <= hi[2] + 1; kk++)
        for (int j = lo[1]; j <= hi[1] + 1; j++)
            for (int i = lo[0]; i <= hi[0] + 1; i++) {
                const long p = IDX(g, i, j, kk);
                const double xc = mg_centre(g, 0, i), yc = mg_centre(g, 1, j), zc = mg_centre(g, 2, kk);
                const double xf = mg_face(g, 0, i), yf = mg_face(g, 1, j), zf = mg_face(g, 2, kk);
                const int in_x = i <= hi[0], in_y = j <= hi[1], in_z = kk <= hi[2];
                if (in_x && in_y && in_z) alpha[p] = mg_alpha_at(xc, yc, zc);
                if (in_y && in_z) bx[p] = mg_beta_at(xf, yc, zc);
                if (in_x && in_z) by[p] = mg_beta_at(xc, yf, zc);
                if (in_x && in_y) bz[p] = mg_beta_at(xc, yc, zf);
            }
    mg_op A = {.helm = 1, .a = P->a, .b_ih2 = P->b * g->ih2, .alpha = alpha, .bx = bx, .by = by, .bz = bz};
#pragma omp parallel for schedule(static)
    for (int kk = lo[2]; kk <= hi[2]; kk++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                const long p = IDX(g, i, j, kk);
                dinv[p] = 1.0 / mg_diag(&A, p, g->sy, g->sz);
            }
    return 0;
}

static int cpu_error(mg_kctx *k, const mg_geom *g, const double *u, double *sum2, double *maxabs)
{
    double *part = ST(k)->part, *pmax = ST(k)->partmax;
    const int nx = g->n[0];
#pragma omp parallel for schedule(static)
    for (int kk = 1; kk <= g->n[2]; kk++) {
        double *col = part + (long)(kk - 1) * nx, *cmx = pmax + (long)(kk - 1) * nx;
        for (int i = 0; i < nx; i++) col[i] = cmx[i] = 0;
        for (int j = 1; j <= g->n[1]; j++)
            for (int i = 1; i <= nx; i++) {
                const double e =
                    u[IDX(g, i, j, kk)] - mg_exact_u(mg_centre(g, 0, i), mg_centre(g, 1, j), mg_centre(g, 2, kk));
                col[i - 1] += e * e;
                if (fabs(e) > cmx[i - 1]) cmx[i - 1] = fabs(e);
            }
    }
    const long n = (long)nx * g->n[2];
    *sum2 = mg_sum_partials(part, n);
    double mx = 0;
    for (long i = 0; i < n; i++)
        if (pmax[i] > mx) mx = pmax[i];
    *maxabs = mx;
    return 0;
}

const mg_kernels mg_cpu_kernels = {
    .name = "cpu",
    .init = cpu_init,
    .fini = cpu_fini,
    .sync = cpu_sync,
    .mark = cpu_mark,
    .elapsed = cpu_elapsed,
    .zero = cpu_zero,
    .copy = cpu_copy,
    .bc = cpu_bc,
    .gsrb = cpu_gsrb,
    .gsrb_boxes = cpu_gsrb_boxes,
    .residual = cpu_residual,
    .cheby = cpu_cheby,
    .restrict8 = cpu_restrict8,
    .interp_pc = cpu_interp_pc,
    .interp_linear = cpu_interp_linear,
    .axpy2 = cpu_axpy2,
    .xpby = cpu_xpby,
    .dot = cpu_dot,
    .set_rhs = cpu_set_rhs,
    .set_coefs = cpu_set_coefs,
    .error = cpu_error,
};

#ifndef HALOX_MG_CUDA
const mg_kernels *mg_cuda_kernels(void) { return NULL; }
#endif
