/* halox mg: smoothers, residual, transfers, bottom solver, V- and F-cycles, written once over
 * the kernel table (mg_kernels.h) and hx_exchange_run on every level. Public API only.
 *
 * Every update is one fixed expression of values that do not depend on the decomposition (red-
 * black colours are global, Chebyshev steps are Jacobi-like), so the fields are bit-identical at
 * any rank count and on either backend, except where a global reduction (a norm, CG's dot
 * products) feeds a decision or a coefficient: its sum over the ranks depends on the rank count.
 *
 * Timing: each operation is enclosed by two marks (mg_span_begin, mg_span_end: mg_timing.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"
#include "mg_cell.h" /* mg_split_boxes */

/* a kernel call: on failure, its message */
#define K(call, what)                              \
    do {                                           \
        if (call) return mg_kfail(s, what);        \
    } while (0)
/* a level operation's GPU work: issued now, captured into a graph, or left to the graph that
 * replays it (mg_graphs.c) */
#define G(call, what)                              \
    do {                                           \
        int issue_;                                \
        TRY(mg_seg_issue(s, &issue_));             \
        if (issue_ && (call)) return mg_kfail(s, what); \
    } while (0)

static double *D(const hx_field *f) { return mg_data(f); }

/* ---- level operations */

static int exchange_failed(mg_solver *s, const mg_level *L)
{
    snprintf(s->err, sizeof s->err, "mg: exchange on level %d: %s", L->index, hx_context_error(s->ctx));
    return HX_ERR_RUNTIME;
}

/* ghosts from the neighbours, then (bc) the boundary condition on the domain faces */
static int exchange_bc(mg_solver *s, mg_level *L, hx_field *fld, int bc)
{
    int a, issue;
    TRY(mg_span_begin(s, &a));
    TRY(mg_seg_issue(s, &issue));
    if (issue && hx_exchange_run(L->xch, fld, NULL) != HX_OK) return exchange_failed(s, L);
    if (bc) G(s->k->bc(&s->kc, &L->g, D(fld)), "boundary condition");
    return mg_span_end(s, L, MG_EXCHANGE, a, 1);
}

/* u's ghosts, all layers, and the boundary condition: fresh again */
static int exchange_u(mg_solver *s, mg_level *L)
{
    TRY(exchange_bc(s, L, &L->u, 1));
    L->fresh = L->g.ghost;
    return HX_OK;
}

int mg_exchange(mg_solver *s, mg_level *L, hx_field *fld) { return exchange_bc(s, L, fld, 1); }

/* the rings' f, where the smoothers update rings (has_ring) and f was written since its last
 * exchange (restricted into this level, or handed over by the agglomeration): the finest level's f,
 * set with its ring, is never exchanged: it would be an F-cycle's largest message */
static int exchange_f(mg_solver *s, mg_level *L)
{
    if (L->f_fresh) return HX_OK;
    TRY(exchange_bc(s, L, &L->f, 0));
    L->f_fresh = 1;
    return HX_OK;
}

/* a smoother colour or operator needs `need` fresh layers of u's ghosts */
static int need_u(mg_solver *s, mg_level *L, int need)
{
    return L->fresh >= need ? HX_OK : exchange_u(s, L);
}

static int allsum(mg_solver *s, double v, double *out)
{
    if (MPI_Allreduce(&v, out, 1, MPI_DOUBLE, MPI_SUM, s->comm) != MPI_SUCCESS) {
        snprintf(s->err, sizeof s->err, "mg: MPI_Allreduce failed");
        return HX_ERR_RUNTIME;
    }
    return HX_OK;
}

/* this rank's a . b, then the sum over the ranks */
static int global_dot(mg_solver *s, mg_level *L, const hx_field *a, const hx_field *b, double *out)
{
    double mine = 0;
    TRY(mg_seg_close(s)); /* the dot waits for the GPU */
    K(s->k->dot(&s->kc, &L->g, D(a), D(b), &mine), "dot product");
    return allsum(s, mine, out);
}

/* 1 when a side of this rank's block faces another rank (not only the domain's faces) */
static int faces_rank(const mg_level *L)
{
    int any = 0;
    for (int a = 0; a < 3; a++) any |= !L->g.bnd_lo[a] | !L->g.bnd_hi[a];
    return any;
}

/* deep ghosts let the smoothers update rings of ghost cells facing other ranks (mg_box), which needs f there */
static int has_ring(const mg_level *L) { return L->g.ghost > 1 && faces_rank(L); }

/* A colour c that needs an exchange of u, split around it (--overlap): the inner cells while the
 * halos travel, the shell after (mg_split_boxes). *done 0, nothing run, where no exchange is due,
 * no side faces another rank, or the inner cells are under half the block (a split then costs a
 * launch more than it hides): the caller runs the colour whole. */
static int gsrb_split(mg_solver *s, mg_level *L, int c, int *done)
{
    mg_boxes inner, shell;
    int a, issue;
    *done = 0;
    if (!s->overlap || !faces_rank(L) || L->fresh >= 1 ||
        2 * mg_split_boxes(&L->g, L->g.ghost - 1, &inner, &shell) < (long)L->g.n[0] * L->g.n[1] * L->g.n[2])
        return HX_OK;
    TRY(mg_span_begin(s, &a));
    TRY(mg_seg_issue(s, &issue));
    if (issue && hx_exchange_start(L->xch, &L->u, NULL) != HX_OK) return exchange_failed(s, L);
    TRY(mg_span_end(s, L, MG_EXCHANGE, a, 1));
    TRY(mg_span_begin(s, &a));
    G(s->k->gsrb_boxes(&s->kc, &L->g, &L->A, D(&L->u), D(&L->f), c, &inner), "smoothing");
    TRY(mg_span_end(s, L, MG_SMOOTH, a, 0));
    TRY(mg_span_begin(s, &a));
    TRY(mg_seg_issue(s, &issue));
    if (issue && hx_exchange_finish(L->xch, &L->u, NULL) != HX_OK) return exchange_failed(s, L);
    G(s->k->bc(&s->kc, &L->g, D(&L->u)), "boundary condition");
    TRY(mg_span_end(s, L, MG_EXCHANGE, a, 0));
    TRY(mg_span_begin(s, &a));
    G(s->k->gsrb_boxes(&s->kc, &L->g, &L->A, D(&L->u), D(&L->f), c, &shell), "smoothing");
    L->fresh = L->g.ghost - 1;
    *done = 1;
    return mg_span_end(s, L, MG_SMOOTH, a, c);
}

/* Both colours of a sweep in one pass (the backend's gsrb2, --fuse-colours), from u into ct, then
 * the two swapped: the coefficients are read once a sweep instead of once a colour. Where the
 * level keeps at least two ghost layers, and not where --overlap splits the colours. */
static int fused_ok(const mg_solver *s, const mg_level *L)
{
    return mg_fuse_wanted(s, L->g.n) && L->ct.data && L->g.ghost >= 2 && !(s->overlap && faces_rank(L));
}

static int gsrb_fused(mg_solver *s, mg_level *L)
{
    int a;
    TRY(need_u(s, L, 2));
    TRY(mg_span_begin(s, &a));
    G(s->k->gsrb2(&s->kc, &L->g, &L->A, D(&L->ct), D(&L->u), D(&L->f), L->fresh - 1), "smoothing");
    hx_field t = L->u;
    L->u = L->ct;
    L->ct = t;
    L->fresh -= 2;
    return mg_span_end(s, L, MG_SMOOTH, a, 1);
}

/* Red-black Gauss-Seidel: `sweeps` times colour 0 then colour 1 ((gx + gy + gz) % 2 on global
 * indices). Each colour needs one fresh ghost layer of u, and leaves one fewer: it updates the
 * owned cells and, when more are fresh, fresh - 1 ghost layers on the sides facing other ranks
 * (mg_box), which the neighbours update alike from the same values (they read f there: f's ghosts
 * come once per V-cycle visit). With G ghost layers one exchange serves G colours (and the
 * residual after them when one layer is left); G = 1 is an exchange before each colour. The
 * domain faces' ghosts follow their cells (mg_store_smoothed). `even`: fuse only an even number of
 * sweeps, so that u ends where it started (a V-cycle's pre- and post-smoothing swap it as often;
 * the bottom smoother has no partner), which CUDA graphs need (mg_graphs.c). */
static int gsrb(mg_solver *s, mg_level *L, int sweeps, int even)
{
    const int fused = fused_ok(s, L) ? (even ? sweeps & ~1 : sweeps) : 0;
    for (int it = 0; it < sweeps; it++) {
        if (it < fused) {
            TRY(gsrb_fused(s, L));
            continue;
        }
        for (int c = 0; c < 2; c++) {
            int a, done;
            TRY(gsrb_split(s, L, c, &done));
            if (done) continue;
            TRY(need_u(s, L, 1));
            TRY(mg_span_begin(s, &a));
            G(s->k->gsrb(&s->kc, &L->g, &L->A, D(&L->u), D(&L->f), c, L->fresh - 1), "smoothing");
            L->fresh--;
            TRY(mg_span_end(s, L, MG_SMOOTH, a, c));
        }
    }
    return HX_OK;
}

/* `apps` Chebyshev applications of degree s->cheby_degree: one Jacobi-preconditioned step per
 * degree, out of place (ct), then u and ct are swapped. Deep ghosts as in gsrb: each step needs one
 * fresh layer of u and updates the rings that are left, where the direction d must be known too:
 * a step after the first of an application updates no more rings than the step before it did. */
static int cheby(mg_solver *s, mg_level *L, int apps)
{
    for (int it = 0; it < apps; it++) {
        int dring = 0; /* ghost layers of d computed by the last step */
        for (int k = 0; k < s->cheby_degree; k++) {
            int a;
            TRY(need_u(s, L, 1));
            const int ring = k == 0 || L->fresh - 1 < dring ? L->fresh - 1 : dring;
            TRY(mg_span_begin(s, &a));
            G(s->k->cheby(&s->kc, &L->g, &L->A, D(&L->ct), D(&L->cd), D(&L->u), D(&L->f), s->cheby_c1[k],
                          s->cheby_c2[k], k == 0, ring),
              "Chebyshev smoothing");
            hx_field t = L->u;
            L->u = L->ct;
            L->ct = t;
            L->fresh = dring = ring;
            TRY(mg_span_end(s, L, MG_SMOOTH, a, k == s->cheby_degree - 1));
        }
    }
    return HX_OK;
}

static int smooth(mg_solver *s, mg_level *L, int n, int even)
{
    return s->smoother == MG_SMOOTHER_CHEBY ? cheby(s, L, n) : gsrb(s, L, n, even);
}

/* r = f - A u */
static int residual(mg_solver *s, mg_level *L)
{
    int a;
    TRY(need_u(s, L, 1));
    TRY(mg_span_begin(s, &a));
    G(s->k->residual(&s->kc, &L->g, &L->A, D(&L->r), D(&L->u), D(&L->f)), "residual");
    return mg_span_end(s, L, MG_RESIDUAL, a, 1);
}

int mg_residual_norm(mg_solver *s, int l, double *norm)
{
    mg_level *L = &s->lev[l];
    double rr = 0;
    L->fresh = 0; /* the caller may have changed u */
    TRY(residual(s, L));
    TRY(global_dot(s, L, &L->r, &L->r, &rr));
    *norm = sqrt(rr);
    return HX_OK;
}

int mg_rhs_norm(mg_solver *s, int l, double *norm)
{
    mg_level *L = &s->lev[l];
    double ff = 0;
    TRY(global_dot(s, L, &L->f, &L->f, &ff));
    *norm = sqrt(ff);
    return HX_OK;
}

/* f of C = the 8-child average of `from` (r, or f for FMG's right-hand sides) of F */
static int restrict_to(mg_solver *s, mg_level *F, const hx_field *from, mg_level *C)
{
    int a;
    TRY(mg_span_begin(s, &a));
    G(s->k->restrict8(&s->kc, &F->g, D(from), &C->g, D(&C->f)), "restriction");
    C->f_fresh = 0;
    return mg_span_end(s, C, MG_RESTRICT, a, 1);
}

/* u of F += u of its parent (piecewise constant); reads no ghost */
static int interpolate_pc(mg_solver *s, mg_level *F, mg_level *C)
{
    int a;
    TRY(mg_span_begin(s, &a));
    G(s->k->interp_pc(&s->kc, &F->g, D(&F->u), &C->g, D(&C->u)), "interpolation");
    F->fresh = 0;
    return mg_span_end(s, F, MG_INTERP, a, 1);
}

/* u of F = trilinear interpolation of u of C, whose ghosts (edges and corners too) are valid: on
 * F's owned cells and on as many of its ghost layers facing other ranks as C's exchanged layers
 * reach (layer k reads C's layers up to k / 2 + 1), then the boundary condition: those layers are
 * then up to date, as the neighbours compute the same cells from the same values, so the V-cycle
 * that follows needs no exchange of u before its first smoothing (one exchange a level an F-cycle
 * fewer) */
static int interpolate_linear(mg_solver *s, mg_level *F, mg_level *C)
{
    int a;
    TRY(exchange_u(s, C)); /* edge and corner ghosts too, which smoothing leaves stale */
    const int reach = 2 * C->fresh - 1, ring = F->g.ghost < reach ? F->g.ghost : reach;
    TRY(mg_span_begin(s, &a));
    G(s->k->interp_linear(&s->kc, &F->g, D(&F->u), &C->g, D(&C->u), ring), "linear interpolation");
    G(s->k->bc(&s->kc, &F->g, D(&F->u)), "boundary condition");
    F->fresh = ring;
    return mg_span_end(s, F, MG_INTERP, a, 1);
}

/* unpreconditioned CG from the current u to a relative residual of s->bottom_tol */
static int bottom_cg(mg_solver *s, mg_level *L)
{
    TRY(residual(s, L));
    K(s->k->copy(&s->kc, &L->g, D(&L->p), D(&L->r)), "CG copy");
    double rr = 0, rr0;
    TRY(global_dot(s, L, &L->r, &L->r, &rr));
    rr0 = rr;
    for (int it = 0; it < s->bottom_maxit && rr > 0 && sqrt(rr) > s->bottom_tol * sqrt(rr0); it++) {
        double pq = 0, rrn = 0;
        TRY(mg_exchange(s, L, &L->p));
        K(s->k->residual(&s->kc, &L->g, &L->A, D(&L->q), D(&L->p), NULL), "CG operator");
        TRY(global_dot(s, L, &L->p, &L->q, &pq));
        const double alpha = rr / pq;
        K(s->k->axpy2(&s->kc, &L->g, D(&L->u), D(&L->r), D(&L->p), D(&L->q), alpha), "CG update");
        L->fresh = 0;
        TRY(global_dot(s, L, &L->r, &L->r, &rrn));
        K(s->k->xpby(&s->kc, &L->g, D(&L->p), D(&L->r), rrn / rr), "CG direction");
        rr = rrn;
        s->bottom_iters++;
    }
    return HX_OK;
}

/* Bottom solve of A u = f on the coarsest level, timed on the host between two waits for the
 * backend (its own operations are timed by marks as usual). */
static int bottom(mg_solver *s, mg_level *L)
{
    TRY(mg_sync(s));
    const double t0 = MPI_Wtime();
    s->gsusp = 1; /* eager: CG's iterations depend on the data (mg_graphs.c) */
    if (s->bottom_used == MG_BOTTOM_SMOOTH && has_ring(L)) TRY(exchange_f(s, L));
    const int st = s->bottom_used == MG_BOTTOM_SMOOTH   ? smooth(s, L, s->bottom_sweeps, 1)
                   : s->bottom_used == MG_BOTTOM_DIRECT ? mg_direct_solve(s, L)
                                                        : bottom_cg(s, L);
    s->gsusp = 0;
    TRY(st);
    TRY(mg_sync(s));
    L->tm.t[MG_BOTTOM] += MPI_Wtime() - t0;
    L->tm.n[MG_BOTTOM]++;
    return HX_OK;
}

static int vcycle(mg_solver *s, int l)
{
    mg_level *L = &s->lev[l];
    if (s->agg && l == s->agg) return mg_agglom_cycle(s, 0);
    if (l == s->nlev - 1) return bottom(s, L);
    mg_level *C = &s->lev[l + 1];
    /* the rings' f: f changes only between V-cycles (restricted into a coarse level, or set) */
    if (has_ring(L)) TRY(exchange_f(s, L));
    TRY(smooth(s, L, s->nu, 0));
    TRY(residual(s, L));
    TRY(restrict_to(s, L, &L->r, C));
    TRY(mg_vcycle_correction(s, l + 1));
    TRY(interpolate_pc(s, L, C));
    return smooth(s, L, s->nu, 0);
}

/* u = 0, ghosts included: every ghost layer is then up to date without an exchange */
static int zero_u(mg_solver *s, mg_level *L)
{
    G(s->k->zero(&s->kc, &L->g, D(&L->u)), "zeroing");
    L->fresh = L->g.ghost;
    return HX_OK;
}

int mg_vcycle_correction(mg_solver *s, int l)
{
    TRY(zero_u(s, &s->lev[l]));
    return vcycle(s, l);
}

int mg_vcycle(mg_solver *s, int l)
{
    s->lev[l].fresh = 0; /* the caller may have changed u */
    return vcycle(s, l);
}

static int fmg(mg_solver *s, int l0)
{
    for (int l = 0; l < s->nlev; l++) s->lev[l].fresh = 0; /* the same state when a graph replays it */
    for (int l = l0; l < s->nlev - 1; l++) TRY(restrict_to(s, &s->lev[l], &s->lev[l].f, &s->lev[l + 1]));
    mg_level *B = &s->lev[s->nlev - 1];
    if (s->agg) TRY(mg_agglom_cycle(s, 1)); /* the F-cycle of the coarse levels, on rank 0 */
    else {
        TRY(zero_u(s, B));
        TRY(bottom(s, B));
    }
    for (int l = s->nlev - 2; l >= l0; l--) {
        TRY(interpolate_linear(s, &s->lev[l], &s->lev[l + 1]));
        TRY(vcycle(s, l)); /* u's ghosts as fresh as the interpolation left them */
    }
    return HX_OK;
}

int mg_fmg(mg_solver *s, int l0) { return mg_fmg_graphed(s, l0, fmg); }
