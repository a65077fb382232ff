/* halox mg: the hierarchy (one layout, exchange and set of fields per level, on the public API),
 * the problem's set-up, the Chebyshev coefficients and the error norms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

static double *D(const hx_field *f) { return mg_data(f); }
static int min3(const int v[3]) { return v[0] < v[1] ? (v[0] < v[2] ? v[0] : v[2]) : (v[1] < v[2] ? v[1] : v[2]); }

int mg_kfail(mg_solver *s, const char *what)
{
    snprintf(s->err, sizeof s->err, "mg (rank %d): %s: %s", s->rank, what, s->kc.err);
    return HX_ERR_RUNTIME;
}

/* Waits for the kernels, then asks each level's exchange whether a device wait gave up (transport
 * ipc-put's kernels report only once they have finished). */
int mg_sync(mg_solver *s)
{
    int st = mg_seg_close(s); /* an open stretch of an F-cycle's graph runs first (mg_graphs.c) */
    if (st != HX_OK) return st;
    if (s->k->sync(&s->kc)) return mg_kfail(s, "waiting for the kernels");
    for (int l = 0; l < s->nlev; l++)
        if (s->lev[l].xch && hx_exchange_check(s->lev[l].xch) != HX_OK) {
            snprintf(s->err, sizeof s->err, "mg (rank %d): level %d: %s", s->rank, l, hx_context_error(s->ctx));
            return HX_ERR_RUNTIME;
        }
    return HX_OK;
}

/* Collective: 1 when any rank failed; s->err holds this rank's message, or names another rank's. */
int mg_fail_agreed(mg_solver *s, int bad, const char *msg)
{
    int any = 0;
    if (MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, s->comm) != MPI_SUCCESS) any = 1;
    if (any && !bad) snprintf(s->err, sizeof s->err, "mg: set-up failed on another rank");
    else if (any) snprintf(s->err, sizeof s->err, "%s", msg);
    return any;
}

/* The Chebyshev polynomial of degree s->cheby_degree for the interval [lmax / ratio, lmax] of
 * D^-1 A: step k's direction is d_k = c1[k] d_(k-1) + c2[k] D^-1 r_k (Saad, Iterative Methods,
 * algorithm 12.1, with the Jacobi preconditioner). Computed once on the host, so every backend
 * and rank uses the same coefficients. */
static void cheby_coefficients(mg_solver *s)
{
    const double lmax = s->lambda_max, lmin = lmax / s->cheby_ratio;
    const double theta = 0.5 * (lmax + lmin), delta = 0.5 * (lmax - lmin), sigma = theta / delta;
    double rho = 1.0 / sigma;
    s->cheby_c1[0] = 0;
    s->cheby_c2[0] = 1.0 / theta;
    for (int k = 1; k < s->cheby_degree && k < MG_MAX_DEGREE; k++) {
        const double rn = 1.0 / (2.0 * sigma - rho);
        s->cheby_c1[k] = rn * rho;
        s->cheby_c2[k] = 2.0 * rn / delta;
        rho = rn;
    }
}

static int alloc_fields(mg_level *L, hx_field *const *f, int n)
{
    for (int i = 0; i < n; i++)
        if (hx_field_alloc(L->layout, f[i]) != HX_OK) return 1;
    return 0;
}

/* level l: the global grid s->shape[l], cubes of width 1 / (its smallest extent) on the domain L */
static int make_level(mg_solver *s, int l, const double dom[3], const int pgrid[3], const char *transport,
                      hx_pattern pattern)
{
    mg_level *L = &s->lev[l];
    const int *n = s->shape[l];
    memset(L, 0, sizeof *L);
    L->index = l;
    hx_layout_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.dim = 3;
    for (int a = 0; a < 3; a++) {
        desc.global[a] = n[a];
        desc.pgrid[a] = pgrid[a];
    }
    /* s->ghosts layers, or as many as the smallest block has cells (an exchange reaches the
     * nearest neighbours only) */
    int gl = s->ghosts;
    for (int a = 0; a < 3; a++)
        if (n[a] / pgrid[a] < gl) gl = n[a] / pgrid[a];
    desc.halo = gl;
    desc.dtype = HX_DOUBLE;
    desc.boundary = HX_FIXED;
    int st = hx_layout_create(s->ctx, &desc, &L->layout);
    if (st != HX_OK) {
        snprintf(s->err, sizeof s->err, "mg level %d (%dx%dx%d): %s", l, n[0], n[1], n[2], hx_context_error(s->ctx));
        hx_layout_destroy(L->layout);
        L->layout = NULL;
        return st;
    }
    s->nlev = l + 1;
    st = hx_exchange_create(L->layout, transport, pattern, 0, &L->xch); /* every ghost layer */
    if (st != HX_OK) {
        snprintf(s->err, sizeof s->err, "mg level %d (%dx%dx%d): %s", l, n[0], n[1], n[2], hx_context_error(s->ctx));
        L->xch = NULL;
        return st;
    }
    const hx_decomp *d = hx_layout_decomp(L->layout);
    mg_geom *g = &L->g;
    for (int a = 0; a < 3; a++) {
        g->n[a] = d->local[a];
        g->off[a] = d->offset[a];
        int olo[3] = {0, 0, 0}, ohi[3] = {0, 0, 0};
        olo[a] = -1;
        ohi[a] = 1;
        g->bnd_lo[a] = d->neighbour[hx_dir_index(olo[0], olo[1], olo[2])] == HX_NO_RANK;
        g->bnd_hi[a] = d->neighbour[hx_dir_index(ohi[0], ohi[1], ohi[2])] == HX_NO_RANK;
    }
    const int nmin = min3(n);
    g->h = 1.0 / nmin;
    g->h2 = g->h * g->h;
    g->ih2 = (double)nmin * (double)nmin;
    for (int a = 0; a < 3; a++) {
        g->L[a] = dom[a];
        g->il2[a] = 1.0 / (dom[a] * dom[a]);
    }
    hx_field *const base[] = {&L->u, &L->f, &L->r};
    hx_field *const cheby[] = {&L->cd, &L->ct};
    hx_field *const helm[] = {&L->alpha, &L->bx, &L->by, &L->bz, &L->dinv};
    /* ct: the next iterate of Chebyshev, or of the fused GSRB sweeps */
    const int fused = mg_fuse_wanted(s, g->n);
    int bad = alloc_fields(L, base, 3) || (s->smoother == MG_SMOOTHER_CHEBY && alloc_fields(L, cheby, 2)) ||
              (fused && alloc_fields(L, cheby + 1, 1)) ||
              (s->pde.helm && alloc_fields(L, helm, 5));
    if (mg_fail_agreed(s, bad, "mg: out of memory for the fields")) return HX_ERR_RUNTIME;
    char msg[200] = "";
    bad = L->u.ghost != gl || L->f.pitch[0] != L->u.pitch[0] || L->r.pitch[1] != L->u.pitch[1];
    if (bad) snprintf(msg, sizeof msg, "mg: unexpected field geometry (ghost %d, asked %d)", L->u.ghost, gl);
    g->ghost = L->u.ghost;
    g->sy = L->u.pitch[0];
    g->sz = (long)L->u.pitch[0] * L->u.pitch[1];
    g->base = (long)(g->ghost - 1) * (1 + g->sy + g->sz);
    g->cells = g->sz * (g->n[2] + 2 * g->ghost);
    /* a rank's box at level l must be exactly its box at level l-1 halved */
    if (!bad && l > 0)
        for (int a = 0; a < 3; a++)
            if (2 * g->n[a] != s->lev[l - 1].g.n[a] || 2 * g->off[a] != s->lev[l - 1].g.off[a]) {
                bad = 1;
                snprintf(msg, sizeof msg, "mg: level %d's block on rank %d is not its level %d block halved", l, s->rank,
                         l - 1);
            }
    if (mg_fail_agreed(s, bad, msg)) return HX_ERR_INPUT;

    mg_op *A = &L->A;
    A->helm = s->pde.helm;
    A->ih2 = g->ih2;
    A->h2 = g->h2;
    A->dinv = g->h2 / 6.0;
    if (s->pde.helm) {
        A->a = s->pde.a;
        A->b_ih2 = s->pde.b * g->ih2;
        A->alpha = D(&L->alpha);
        A->bx = D(&L->bx);
        A->by = D(&L->by);
        A->bz = D(&L->bz);
        A->dinv_f = D(&L->dinv);
    }
    return HX_OK;
}

/* The bottom solver of a solver that solves its coarsest level itself (no agglomeration): auto
 * becomes direct where mg_direct_possible, else CG; direct asked where it is not possible is an
 * error, agreed by the solver's ranks (all see the same rank count and coarsest grid). */
static int bottom_create(mg_solver *s)
{
    s->bottom_used = s->bottom;
    if (s->bottom != MG_BOTTOM_AUTO && s->bottom != MG_BOTTOM_DIRECT) return HX_OK;
    const int can = mg_direct_possible(s);
    char msg[400];
    const int *n = s->shape[s->nlev - 1];
    snprintf(msg, sizeof msg, "mg: --bottom direct needs the coarsest level (%dx%dx%d cells) on one rank and at most "
             "%d cells: use --bottom auto or cg, or --agglomerate", n[0], n[1], n[2], MG_DIRECT_MAX);
    if (mg_fail_agreed(s, !can && s->bottom == MG_BOTTOM_DIRECT, msg)) return HX_ERR_INPUT;
    s->bottom_used = can ? MG_BOTTOM_DIRECT : MG_BOTTOM_CG;
    if (!can) return HX_OK;
    const int st = mg_direct_setup(s);
    snprintf(msg, sizeof msg, "%s", s->err);
    return mg_fail_agreed(s, st != HX_OK, msg) ? HX_ERR_RUNTIME : HX_OK;
}

int mg_create(mg_solver *s, hx_context *ctx, const int shape[3], const int pgrid[3], int nlev,
              const char *transport, hx_pattern pattern)
{
    s->ctx = ctx;
    s->comm = hx_context_comm(ctx);
    s->rank = hx_context_rank(ctx);
    for (int a = 0; a < 3; a++) s->pgrid[a] = pgrid[a];
    s->nlev = 0;
    s->kc_ready = 0;
    s->nmarks = s->nspans = 0;
    s->gmode = MG_EAGER, s->gready = s->gseg = s->gopen = s->gsusp = s->gsegs = s->gl0 = 0;
    s->greplay = (hx_transport_paths(transport) & HX_PATH_REPLAY) != 0;
    s->err[0] = 0;
    memset(&s->ag, 0, sizeof s->ag);
    s->ntot = nlev;
    /* the domain: cubic cells, L = N_a / min N (1 on every axis of a cubic grid; the same on every
     * level and on rank 0's agglomerated levels, whose extents are these halved) */
    double dom[3];
    for (int a = 0; a < 3; a++) dom[a] = (double)shape[a] / min3(shape);
    for (int l = 0; l < nlev && l < MG_MAX_LEVELS; l++)
        for (int a = 0; a < 3; a++) s->shape[l][a] = shape[a] >> l;
#ifdef MG_FORCE_CUDA_KERNELS /* tests: the CUDA kernels compiled for the host (mg_cuda_emu.h) on host fields */
    s->k = mg_cuda_kernels();
#else
    s->k = hx_context_backend(ctx) == HX_BACKEND_CUDA ? mg_cuda_kernels() : &mg_cpu_kernels;
#endif
    if (mg_fail_agreed(s, s->k == NULL, "mg: this build has no CUDA kernels for mg")) return HX_ERR_INPUT;
    if (s->cheby_degree < 1 || s->cheby_degree > MG_MAX_DEGREE || !(s->cheby_ratio > 1)) {
        snprintf(s->err, sizeof s->err, "mg: Chebyshev degree %d or ratio %g out of range", s->cheby_degree,
                 s->cheby_ratio);
        return HX_ERR_INPUT;
    }
    if (s->ghosts < 1 || s->ghosts > MG_MAX_GHOSTS) {
        snprintf(s->err, sizeof s->err, "mg: %d ghost layers asked; 1 to %d are possible", s->ghosts, MG_MAX_GHOSTS);
        return HX_ERR_INPUT;
    }
    if (s->agg < 0 || s->agg >= nlev || (s->agg2 && (s->agg2 <= s->agg || s->agg2 >= nlev))) {
        snprintf(s->err, sizeof s->err, "mg: agglomeration levels %d, %d out of range (%d levels)", s->agg, s->agg2, nlev);
        return HX_ERR_INPUT;
    }
    /* with agglomeration, level agg is the last one of the ranks: f is restricted into it, gathered,
     * and the correction comes back into its u */
    const int nd = s->agg ? s->agg + 1 : nlev;
    for (int l = 0; l < nd; l++) {
        int st = make_level(s, l, dom, pgrid, transport, pattern);
        if (st != HX_OK) return st;
    }
    mg_level *B = &s->lev[nd - 1];
    hx_field *const cg[] = {&B->p, &B->q};
    if (mg_fail_agreed(s, !s->agg && alloc_fields(B, cg, 2), "mg: out of memory for the CG fields")) return HX_ERR_RUNTIME;

    /* the kernels' state; reductions need n[0] * n[2] columns of the finest level */
    int bad = s->k->init(&s->kc, hx_context_stream(ctx), (long)s->lev[0].g.n[0] * s->lev[0].g.n[2]) != 0;
    s->kc_ready = 1;
    char msg[400];
    snprintf(msg, sizeof msg, "mg (rank %d): kernels of backend %s: %s", s->rank, s->k->name, s->kc.err);
    if (mg_fail_agreed(s, bad, msg)) return HX_ERR_RUNTIME;

    /* Every row of D^-1 A has absolute row sum 2 (Gershgorin; the Dirichlet ghost = -inside adds
     * to the diagonal what it takes from the neighbours), for Poisson and Helmholtz alike, so its
     * eigenvalues lie in (0, 2]: the Chebyshev interval's upper end. */
    s->lambda_max = 2.0;
    cheby_coefficients(s);

    bad = 0;
    for (int l = 0; l < s->nlev && !bad && s->pde.helm; l++) {
        mg_level *L = &s->lev[l];
        bad = s->k->set_coefs(&s->kc, &L->g, &s->pde, D(&L->alpha), D(&L->bx), D(&L->by), D(&L->bz), D(&L->dinv));
    }
    if (!bad) bad = s->k->sync(&s->kc);
    snprintf(msg, sizeof msg, "mg (rank %d): setting the coefficients: %s", s->rank, s->kc.err);
    if (mg_fail_agreed(s, bad, msg)) return HX_ERR_RUNTIME;
    return s->agg ? mg_agglom_create(s, transport, pattern) : bottom_create(s);
}

void mg_destroy(mg_solver *s)
{
    mg_agglom_destroy(s);
    mg_direct_free(s);
    if (s->kc_ready) s->k->fini(&s->kc);
    s->kc_ready = 0;
    for (int l = s->nlev - 1; l >= 0; l--) {
        mg_level *L = &s->lev[l];
        hx_field *const all[] = {&L->u, &L->f, &L->r, &L->cd, &L->ct, &L->alpha, &L->bx, &L->by, &L->bz, &L->dinv,
                                 &L->p, &L->q};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            if (all[i]->data) hx_field_free(L->layout, all[i]);
        hx_exchange_destroy(L->xch);
        hx_layout_destroy(L->layout);
    }
    s->nlev = 0;
}

int mg_setup_problem(mg_solver *s, int l)
{
    mg_level *L = &s->lev[l];
    L->fresh = 0;
    if (s->k->zero(&s->kc, &L->g, D(&L->u)) || s->k->zero(&s->kc, &L->g, D(&L->f)) ||
        s->k->set_rhs(&s->kc, &L->g, &s->pde, D(&L->f)))
        return mg_kfail(s, "setting the right-hand side");
    L->f_fresh = 1; /* set_rhs sets the ring too */
    return HX_OK;
}

int mg_error(mg_solver *s, int l, double *l2, double *linf)
{
    mg_level *L = &s->lev[l];
    double sum = 0, mx = 0, gsum = 0;
    if (s->k->error(&s->kc, &L->g, D(&L->u), &sum, &mx)) return mg_kfail(s, "error norm");
    if (MPI_Allreduce(&sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, s->comm) != MPI_SUCCESS ||
        MPI_Allreduce(&mx, linf, 1, MPI_DOUBLE, MPI_MAX, s->comm) != MPI_SUCCESS) {
        snprintf(s->err, sizeof s->err, "mg: MPI_Allreduce of the error norms failed");
        return HX_ERR_RUNTIME;
    }
    *l2 = sqrt(gsum * L->g.h * L->g.h * L->g.h);
    return HX_OK;
}
