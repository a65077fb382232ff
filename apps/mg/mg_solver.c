/* halox mg: the multigrid kernels and cycles (CPU loops on host fields; halos through
 * hx_exchange_run on every level). Public API only: <halox/halox.h>.
 *
 * Storage: a field of level L is hx_field_alloc'd with ghost 1, so local index i = 0 is the
 * low ghost, 1..n the owned cells, n + 1 the high ghost on every axis; cell (i, j, k) is
 * data[i + sy * j + sz * k]. Global cell index of local i: off + i - 1; cell centre (g + 0.5) h.
 *
 * Every update is one fixed expression of values that do not depend on the decomposition (red-
 * black colours are global), so the fields are bit-identical at any rank count except where a
 * global reduction (a norm, CG's dot products) feeds a decision or a coefficient. */
#include "mg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const mg_op_names[MG_NOPS] = {"smooth", "residual", "restrict", "interpolate", "exchange", "bottom"};

#define IDX(L, i, j, k) ((long)(i) + (L)->sy * (long)(j) + (L)->sz * (long)(k))

static double *D(const hx_field *f) { return (double *)f->data; }

static void die(mg_solver *s, const char *what)
{
    fprintf(stderr, "halox: error (rank %d): mg: %s: %s\n", s->rank, what, hx_context_error(s->ctx));
    fflush(stderr);
    MPI_Abort(s->comm, HX_ERR_RUNTIME);
}

static void tick(mg_level *L, int op, double t0, long calls)
{
    L->tm.t[op] += MPI_Wtime() - t0;
    L->tm.n[op] += calls;
}

double mg_exact(double x, double y, double z)
{
    const double pi = 3.14159265358979323846;
    return sin(pi * x) * sin(pi * y) * sin(pi * z);
}

double mg_rhs(double x, double y, double z)
{
    const double pi = 3.14159265358979323846;
    return 3.0 * pi * pi * mg_exact(x, y, z);
}

static void zero(mg_level *L, hx_field *f) { memset(f->data, 0, sizeof(double) * (size_t)(L->sz * (L->n[2] + 2))); }

/* Homogeneous Dirichlet for cell-centred FV: the ghost beyond a boundary face is minus the cell
 * inside (the linear extrapolation is 0 on the face). Axis by axis over the whole extended range
 * of the other axes, so edge and corner ghosts at the boundary are set too (after the exchange
 * has filled those toward neighbour ranks). */
static void apply_bc(mg_level *L, hx_field *fld)
{
    double *a = D(fld);
    const int nx = L->n[0], ny = L->n[1], nz = L->n[2];
    for (int k = 0; k < nz + 2; k++)
        for (int j = 0; j < ny + 2; j++) {
            if (L->bnd_lo[0]) a[IDX(L, 0, j, k)] = -a[IDX(L, 1, j, k)];
            if (L->bnd_hi[0]) a[IDX(L, nx + 1, j, k)] = -a[IDX(L, nx, j, k)];
        }
    for (int k = 0; k < nz + 2; k++)
        for (int i = 0; i < nx + 2; i++) {
            if (L->bnd_lo[1]) a[IDX(L, i, 0, k)] = -a[IDX(L, i, 1, k)];
            if (L->bnd_hi[1]) a[IDX(L, i, ny + 1, k)] = -a[IDX(L, i, ny, k)];
        }
    for (int j = 0; j < ny + 2; j++)
        for (int i = 0; i < nx + 2; i++) {
            if (L->bnd_lo[2]) a[IDX(L, i, j, 0)] = -a[IDX(L, i, j, 1)];
            if (L->bnd_hi[2]) a[IDX(L, i, j, nz + 1)] = -a[IDX(L, i, j, nz)];
        }
}

static void exchange(mg_solver *s, mg_level *L, hx_field *fld)
{
    double t0 = MPI_Wtime();
    if (hx_exchange_run(L->xch, fld, NULL) != HX_OK) die(s, "exchange");
    apply_bc(L, fld);
    tick(L, MG_EXCHANGE, t0, 1);
}

static double allsum(mg_solver *s, double v)
{
    double g;
    MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_SUM, s->comm);
    return g;
}

/* the 7-point neighbours of p, in one fixed order */
static inline double nb7(const double *a, long p, long sy, long sz)
{
    return ((a[p - 1] + a[p + 1]) + (a[p - sy] + a[p + sy])) + (a[p - sz] + a[p + sz]);
}

/* One red-black Gauss-Seidel sweep pair, `sweeps` times: colour (gx + gy + gz) % 2 == c, an
 * exchange before each colour. */
static void smooth(mg_solver *s, mg_level *L, int sweeps)
{
    double *u = D(&L->u);
    const double *f = D(&L->f);
    const long sy = L->sy, sz = L->sz;
    const double h2 = L->h2;
    for (int it = 0; it < sweeps; it++)
        for (int c = 0; c < 2; c++) {
            exchange(s, L, &L->u);
            double t0 = MPI_Wtime();
#pragma omp parallel for schedule(static)
            for (int k = 1; k <= L->n[2]; k++)
                for (int j = 1; j <= L->n[1]; j++) {
                    int i0 = 1 + ((L->off[0] + L->off[1] + j - 1 + L->off[2] + k - 1 + c) & 1);
                    for (int i = i0; i <= L->n[0]; i += 2) {
                        long p = IDX(L, i, j, k);
                        u[p] = (nb7(u, p, sy, sz) + h2 * f[p]) * (1.0 / 6.0);
                    }
                }
            tick(L, MG_SMOOTH, t0, c);
        }
}

/* r = f - A u, A u = (6 u - neighbours) / h^2 */
static void residual(mg_solver *s, mg_level *L)
{
    exchange(s, L, &L->u);
    double t0 = MPI_Wtime();
    const double *u = D(&L->u), *f = D(&L->f);
    double *r = D(&L->r);
    const long sy = L->sy, sz = L->sz;
    const double ih2 = L->inv_h2;
#pragma omp parallel for schedule(static)
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++) {
                long p = IDX(L, i, j, k);
                r[p] = f[p] - (6.0 * u[p] - nb7(u, p, sy, sz)) * ih2;
            }
    tick(L, MG_RESIDUAL, t0, 1);
}

static double local_dot(mg_level *L, const hx_field *a_, const hx_field *b_)
{
    const double *a = D(a_), *b = D(b_);
    double sum = 0;
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++) {
                long p = IDX(L, i, j, k);
                sum += a[p] * b[p];
            }
    return sum;
}

double mg_residual_norm(mg_solver *s, int l)
{
    mg_level *L = &s->lev[l];
    residual(s, L);
    return sqrt(allsum(s, local_dot(L, &L->r, &L->r)));
}

double mg_rhs_norm(mg_solver *s, int l)
{
    mg_level *L = &s->lev[l];
    return sqrt(allsum(s, local_dot(L, &L->f, &L->f)));
}

/* f of level l+1 = the average of the 8 children of each coarse cell in r of level l */
static void restrict_residual(mg_level *F, mg_level *C)
{
    double t0 = MPI_Wtime();
    const double *r = D(&F->r);
    double *f = D(&C->f);
#pragma omp parallel for schedule(static)
    for (int k = 1; k <= C->n[2]; k++)
        for (int j = 1; j <= C->n[1]; j++)
            for (int i = 1; i <= C->n[0]; i++) {
                long p = IDX(F, 2 * i - 1, 2 * j - 1, 2 * k - 1);
                double a = (r[p] + r[p + 1]) + (r[p + F->sy] + r[p + F->sy + 1]);
                double b = (r[p + F->sz] + r[p + F->sz + 1]) + (r[p + F->sz + F->sy] + r[p + F->sz + F->sy + 1]);
                f[IDX(C, i, j, k)] = (a + b) * 0.125;
            }
    tick(C, MG_RESTRICT, t0, 1);
}

/* the f of level l+1 restricted from the f of level l (FMG's right-hand sides) */
static void restrict_rhs(mg_level *F, mg_level *C)
{
    hx_field keep = F->r;
    F->r = F->f;
    restrict_residual(F, C);
    F->r = keep;
}

/* u of fine level += u of its parent (piecewise constant); reads no ghost */
static void interpolate_pc(mg_level *F, mg_level *C)
{
    double t0 = MPI_Wtime();
    double *u = D(&F->u);
    const double *uc = D(&C->u);
#pragma omp parallel for schedule(static)
    for (int k = 1; k <= F->n[2]; k++)
        for (int j = 1; j <= F->n[1]; j++)
            for (int i = 1; i <= F->n[0]; i++)
                u[IDX(F, i, j, k)] += uc[IDX(C, (i + 1) / 2, (j + 1) / 2, (k + 1) / 2)];
    tick(F, MG_INTERP, t0, 1);
}

/* u of fine level = trilinear interpolation of the coarse u (cell-centred weights 3/4, 1/4 per
 * axis toward the child's side); the coarse ghosts (edges and corners too) must be valid. */
static void interpolate_linear(mg_level *F, mg_level *C)
{
    double t0 = MPI_Wtime();
    double *u = D(&F->u);
    const double *uc = D(&C->u);
    static const double w[2] = {0.75, 0.25};
#pragma omp parallel for schedule(static)
    for (int k = 1; k <= F->n[2]; k++)
        for (int j = 1; j <= F->n[1]; j++)
            for (int i = 1; i <= F->n[0]; i++) {
                const int I = (i + 1) / 2, J = (j + 1) / 2, K = (k + 1) / 2;
                const int di = (i & 1) ? -1 : 1, dj = (j & 1) ? -1 : 1, dk = (k & 1) ? -1 : 1;
                double v = 0;
                for (int c = 0; c < 2; c++)
                    for (int b = 0; b < 2; b++) {
                        const long p = IDX(C, I, J + b * dj, K + c * dk);
                        v += w[c] * w[b] * (w[0] * uc[p] + w[1] * uc[p + di]);
                    }
                u[IDX(F, i, j, k)] = v;
            }
    tick(F, MG_INTERP, t0, 1);
}

/* Bottom solve of A u = f on the coarsest level: unpreconditioned CG from the current u, or
 * red-black sweeps. */
static void bottom(mg_solver *s, mg_level *L)
{
    double t0 = MPI_Wtime();
    if (s->bottom == MG_BOTTOM_SMOOTH) {
        smooth(s, L, s->bottom_sweeps);
        tick(L, MG_BOTTOM, t0, 1);
        return;
    }
    residual(s, L);
    double *u = D(&L->u), *r = D(&L->r), *p = D(&L->p), *q = D(&L->q);
    const long sy = L->sy, sz = L->sz;
    const double ih2 = L->inv_h2;
    memcpy(p, r, sizeof(double) * (size_t)(L->sz * (L->n[2] + 2)));
    double rr = allsum(s, local_dot(L, &L->r, &L->r)), rr0 = rr;
    for (int it = 0; it < s->bottom_maxit && rr > 0 && sqrt(rr) > s->bottom_tol * sqrt(rr0); it++) {
        exchange(s, L, &L->p);
        for (int k = 1; k <= L->n[2]; k++)
            for (int j = 1; j <= L->n[1]; j++)
                for (int i = 1; i <= L->n[0]; i++) {
                    long c = IDX(L, i, j, k);
                    q[c] = (6.0 * p[c] - nb7(p, c, sy, sz)) * ih2;
                }
        double alpha = rr / allsum(s, local_dot(L, &L->p, &L->q));
        double rrn = 0;
        for (int k = 1; k <= L->n[2]; k++)
            for (int j = 1; j <= L->n[1]; j++)
                for (int i = 1; i <= L->n[0]; i++) {
                    long c = IDX(L, i, j, k);
                    u[c] += alpha * p[c];
                    r[c] -= alpha * q[c];
                    rrn += r[c] * r[c];
                }
        rrn = allsum(s, rrn);
        double beta = rrn / rr;
        for (int k = 1; k <= L->n[2]; k++)
            for (int j = 1; j <= L->n[1]; j++)
                for (int i = 1; i <= L->n[0]; i++) {
                    long c = IDX(L, i, j, k);
                    p[c] = r[c] + beta * p[c];
                }
        rr = rrn;
        s->bottom_iters++;
    }
    tick(L, MG_BOTTOM, t0, 1);
}

void mg_vcycle(mg_solver *s, int l)
{
    mg_level *L = &s->lev[l];
    if (l == s->nlev - 1) {
        bottom(s, L);
        return;
    }
    mg_level *C = &s->lev[l + 1];
    smooth(s, L, s->nu);
    residual(s, L);
    restrict_residual(L, C);
    zero(C, &C->u);
    mg_vcycle(s, l + 1);
    interpolate_pc(L, C);
    smooth(s, L, s->nu);
}

void mg_fmg(mg_solver *s, int l0)
{
    for (int l = l0; l < s->nlev - 1; l++) restrict_rhs(&s->lev[l], &s->lev[l + 1]);
    mg_level *B = &s->lev[s->nlev - 1];
    zero(B, &B->u);
    bottom(s, B);
    for (int l = s->nlev - 2; l >= l0; l--) {
        mg_level *C = &s->lev[l + 1];
        exchange(s, C, &C->u);
        interpolate_linear(&s->lev[l], C);
        mg_vcycle(s, l);
    }
}

void mg_setup_problem(mg_solver *s, int l)
{
    mg_level *L = &s->lev[l];
    double *f = D(&L->f);
    zero(L, &L->u);
    zero(L, &L->f);
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++)
                f[IDX(L, i, j, k)] = mg_rhs((L->off[0] + i - 0.5) * L->h, (L->off[1] + j - 0.5) * L->h,
                                            (L->off[2] + k - 0.5) * L->h);
}

void mg_error(mg_solver *s, int l, double *l2, double *linf)
{
    mg_level *L = &s->lev[l];
    const double *u = D(&L->u);
    double sum = 0, mx = 0;
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++) {
                double e = u[IDX(L, i, j, k)] - mg_exact((L->off[0] + i - 0.5) * L->h, (L->off[1] + j - 0.5) * L->h,
                                                         (L->off[2] + k - 0.5) * L->h);
                sum += e * e;
                if (fabs(e) > mx) mx = fabs(e);
            }
    sum = allsum(s, sum);
    MPI_Allreduce(&mx, linf, 1, MPI_DOUBLE, MPI_MAX, s->comm);
    *l2 = sqrt(sum * L->h * L->h * L->h);
}

void mg_reset_timers(mg_solver *s)
{
    for (int l = 0; l < s->nlev; l++) memset(&s->lev[l].tm, 0, sizeof s->lev[l].tm);
    s->bottom_iters = 0;
}

static int fail_agreed(mg_solver *s, int bad, const char *msg, char *err, size_t errlen)
{
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, s->comm);
    if (any && !bad) snprintf(err, errlen, "mg: set-up failed on another rank");
    else if (any) snprintf(err, errlen, "%s", msg);
    return any;
}

int mg_create(mg_solver *s, hx_context *ctx, int N, const int pgrid[3], int nlev, const char *transport,
              hx_pattern pattern, char *err, size_t errlen)
{
    s->ctx = ctx;
    s->comm = hx_context_comm(ctx);
    s->rank = hx_context_rank(ctx);
    s->nlev = 0;
    for (int l = 0; l < nlev; l++) {
        mg_level *L = &s->lev[l];
        memset(L, 0, sizeof *L);
        hx_layout_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.dim = 3;
        L->N = N >> l;
        for (int a = 0; a < 3; a++) {
            desc.global[a] = L->N;
            desc.pgrid[a] = pgrid[a];
        }
        desc.halo = 1;
        desc.dtype = HX_DOUBLE;
        desc.boundary = HX_FIXED;
        int st = hx_layout_create(ctx, &desc, &L->layout);
        if (st != HX_OK) {
            snprintf(err, errlen, "mg level %d (%d^3): %s", l, L->N, hx_context_error(ctx));
            L->layout = NULL;
            return st;
        }
        s->nlev = l + 1;
        st = hx_exchange_create(L->layout, transport, pattern, 1, &L->xch);
        if (st != HX_OK) {
            snprintf(err, errlen, "mg level %d (%d^3): %s", l, L->N, hx_context_error(ctx));
            L->xch = NULL;
            return st;
        }
        L->d = hx_layout_decomp(L->layout);
        for (int a = 0; a < 3; a++) {
            L->n[a] = L->d->local[a];
            L->off[a] = L->d->offset[a];
            int olo[3] = {0, 0, 0}, ohi[3] = {0, 0, 0};
            olo[a] = -1;
            ohi[a] = 1;
            L->bnd_lo[a] = L->d->neighbour[hx_dir_index(olo[0], olo[1], olo[2])] == HX_NO_RANK;
            L->bnd_hi[a] = L->d->neighbour[hx_dir_index(ohi[0], ohi[1], ohi[2])] == HX_NO_RANK;
        }
        L->h = 1.0 / L->N;
        L->h2 = L->h * L->h;
        L->inv_h2 = (double)L->N * (double)L->N;
        int bad = hx_field_alloc(L->layout, &L->u) != HX_OK || hx_field_alloc(L->layout, &L->f) != HX_OK ||
                  hx_field_alloc(L->layout, &L->r) != HX_OK;
        if (fail_agreed(s, bad, "mg: out of memory for the fields", err, errlen)) return HX_ERR_RUNTIME;
        char msg[200] = "";
        bad = L->u.ghost != 1 || L->f.pitch[0] != L->u.pitch[0] || L->r.pitch[1] != L->u.pitch[1];
        if (bad) snprintf(msg, sizeof msg, "mg: unexpected field geometry (ghost %d)", L->u.ghost);
        L->sy = L->u.pitch[0];
        L->sz = (long)L->u.pitch[0] * L->u.pitch[1];
        /* a rank's box at level l must be exactly its box at level l-1 halved */
        if (!bad && l > 0)
            for (int a = 0; a < 3; a++)
                if (2 * L->n[a] != s->lev[l - 1].n[a] || 2 * L->off[a] != s->lev[l - 1].off[a]) {
                    bad = 1;
                    snprintf(msg, sizeof msg, "mg: level %d's block on rank %d is not its level %d block halved", l,
                             s->rank, l - 1);
                }
        if (fail_agreed(s, bad, msg, err, errlen)) return HX_ERR_INPUT;
    }
    mg_level *B = &s->lev[nlev - 1];
    int bad = hx_field_alloc(B->layout, &B->p) != HX_OK || hx_field_alloc(B->layout, &B->q) != HX_OK;
    B->has_cg = 1;
    if (fail_agreed(s, bad, "mg: out of memory for the CG fields", err, errlen)) return HX_ERR_RUNTIME;
    return HX_OK;
}

void mg_destroy(mg_solver *s)
{
    for (int l = s->nlev - 1; l >= 0; l--) {
        mg_level *L = &s->lev[l];
        if (L->has_cg) {
            if (L->p.data) hx_field_free(L->layout, &L->p);
            if (L->q.data) hx_field_free(L->layout, &L->q);
        }
        if (L->u.data) hx_field_free(L->layout, &L->u);
        if (L->f.data) hx_field_free(L->layout, &L->f);
        if (L->r.data) hx_field_free(L->layout, &L->r);
        hx_exchange_destroy(L->xch);
        hx_layout_destroy(L->layout);
    }
    s->nlev = 0;
}
