/* `halox mg`: the solves at h, 2h and 4h and the timed F-cycles, one transport after another. The
 * options are mg_options.c, the checks before any computation mg_plan.c; the solver is mg_levels.c +
 * mg_cycles.c over the kernels of mg_cpu.c or mg_cuda.cu; the report is mg_report.c. All of it uses
 * halox's public API only. Run-time failures end the job here (MPI_Abort: other ranks may be blocked
 * in an exchange). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_app.h"
#include "options.h"
#include "run.h"

/* Helmholtz: a alpha u - b div(beta grad u) with these a and b (docs/multigrid.md) */
#define MG_HELM_A 1.0
#define MG_HELM_B 1.0
/* the Chebyshev interval [lambda_max / ratio, lambda_max] of D^-1 A */
#define MG_CHEBY_RATIO 4.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int mpi_ok(mg_solver *s, int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return HX_OK;
    snprintf(s->err, sizeof s->err, "mg: %s failed", what);
    return HX_ERR_RUNTIME;
}

/* Collective: the checksum of u on level `fine` (waits for the GPU) */
static int fine_checksum(mg_solver *s, int fine, uint64_t *sum)
{
    TRY(mg_sync(s));
    if (hx_field_checksum(s->lev[fine].layout, &s->lev[fine].u, sum) != HX_OK) {
        snprintf(s->err, sizeof s->err, "mg: checksum: %s", hx_context_error(s->ctx));
        return HX_ERR_RUNTIME;
    }
    return HX_OK;
}

/* HPGMG's solve (one F-cycle from u = 0, then V-cycles to the tolerance), then one warm-up and
 * c->repeat timed F-cycles (setting f untimed); t holds c->repeat doubles. */
static int run_size(mg_solver *s, const mg_config *c, double tol, int fine, mg_result *res, double *t)
{
    double fn = 0, rn = 0;
    memset(res, 0, sizeof *res);
    res->fine = fine;
    memcpy(res->shape, s->shape[fine], sizeof res->shape);
    TRY(mg_setup_problem(s, fine));
    TRY(mg_rhs_norm(s, fine, &fn));
    TRY(mg_fmg(s, fine));
    TRY(mg_residual_norm(s, fine, &rn));
    res->rel = res->fmg_first = rn / fn;
    while (res->rel >= tol && res->cycles < c->max_cycles) {
        double r2 = 0;
        TRY(mg_vcycle(s, fine));
        TRY(mg_residual_norm(s, fine, &r2));
        const double red = r2 / rn;
        if (res->cycles < MG_MAX_CYCLES_KEPT) res->red[res->cycles] = red;
        if (red > res->max_red) res->max_red = red;
        rn = r2;
        res->rel = rn / fn;
        res->cycles++;
    }
    res->converged = res->rel < tol;
    TRY(mg_error(s, fine, &res->err_l2, &res->err_max));
    TRY(fine_checksum(s, fine, &res->checksum));

    /* the warm-up and the timed solves without timing marks (on the GPU each costs host time
     * between kernels), then as many again with them for the per-level table; with --graph the
     * warm-up records the graphs that the timed solves replay */
    mg_timing_marks(s, 0);
    TRY(mg_setup_problem(s, fine));
    TRY(mg_fmg(s, fine));
    for (int r = 0; r < c->repeat; r++) {
        TRY(mg_setup_problem(s, fine));
        TRY(mg_sync(s));
        TRY(mpi_ok(s, MPI_Barrier(s->comm), "MPI_Barrier"));
        const double t0 = MPI_Wtime();
        TRY(mg_fmg(s, fine));
        TRY(mg_sync(s));
        double dt = MPI_Wtime() - t0, mx = 0;
        TRY(mpi_ok(s, MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, s->comm), "MPI_Allreduce of a time"));
        t[r] = mx;
    }
    /* every F-cycle starts from u = 0: the timed ones (replayed from graphs, with --graph) must
     * leave what the step-by-step ones below leave, bit for bit */
    uint64_t timed_sum = 0, eager_sum = 0;
    TRY(fine_checksum(s, fine, &timed_sum));
    mg_timing_marks(s, 1);
    TRY(mg_reset_timers(s));
    for (int r = 0; r < c->repeat; r++) {
        TRY(mg_setup_problem(s, fine));
        TRY(mg_fmg(s, fine));
    }
    TRY(mg_timers_flush(s));
    TRY(fine_checksum(s, fine, &eager_sum));
    if (timed_sum != eager_sum) {
        snprintf(s->err, sizeof s->err, "mg: the timed F-cycles%s left checksum 0x%016llx, the step-by-step ones "
                 "0x%016llx: a bug; rerun with --graph off and report it", mg_graphs_used(s) ? " (CUDA graphs)" : "",
                 (unsigned long long)timed_sum, (unsigned long long)eager_sum);
        return HX_ERR_RUNTIME;
    }
    res->fmg_checksum = timed_sum;
    res->bottom_iters = mg_bottom_iters(s);
    for (int l = fine; l < s->ntot; l++) {
        mg_timers tm;
        mg_level_timers(s, l, &tm);
        TRY(mpi_ok(s, MPI_Allreduce(tm.t, res->tm[l].t, MG_NTIMERS, MPI_DOUBLE, MPI_MAX, s->comm), "MPI_Allreduce"));
        TRY(mpi_ok(s, MPI_Allreduce(tm.n, res->tm[l].n, MG_NTIMERS, MPI_LONG, MPI_MAX, s->comm), "MPI_Allreduce"));
    }
    double dummy = 0, frn = 0;
    TRY(mg_error(s, fine, &res->fmg_err_l2, &dummy));
    TRY(mg_residual_norm(s, fine, &frn));
    res->fmg_rel = frn / fn;
    qsort(t, (size_t)c->repeat, sizeof *t, cmp_double);
    res->fmg_min = t[0];
    res->fmg_max = t[c->repeat - 1];
    res->fmg_med = c->repeat % 2 ? t[c->repeat / 2] : 0.5 * (t[c->repeat / 2 - 1] + t[c->repeat / 2]);
    return HX_OK;
}

/* One transport's solver: set up on ctx, the solves at h, 2h and 4h into r->res, the report (rank 0)
 * while the solver still exists, the hierarchy's shapes into cmp. HX_ERR_INPUT when the transport
 * cannot be set up here (every rank agrees; rank 0 said why, as a note for --transport all);
 * HX_ERR_VERIFY when a solve did not converge or a V-cycle reduced the residual by less than 10x. */
static int solve_with(mg_report *r, mg_result *res, hx_context *ctx, int nlev, const int agg[2], double *t, mg_compare *cmp)
{
    const mg_config *c = r->c;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mg_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "halox: error (rank %d): mg: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, HX_ERR_RUNTIME);
    }
    s->nu = c->nu;
    s->smoother = (mg_smoother_kind)c->smoother;
    s->cheby_degree = c->cheby_degree;
    s->cheby_ratio = MG_CHEBY_RATIO;
    s->pde.helm = c->problem;
    s->pde.a = MG_HELM_A;
    s->pde.b = MG_HELM_B;
    s->bottom = (mg_bottom_kind)c->bottom;
    s->bottom_sweeps = c->bottom_sweeps;
    s->bottom_tol = 1e-12;
    s->bottom_maxit = 1000;
    s->agg = agg[0];
    s->agg2 = agg[1];
    s->redundant = c->coarse_solve;
    s->graphs = c->graph;
    s->overlap = c->overlap;
    s->fuse_colours = (mg_fuse_kind)c->fuse_colours;
    s->ghosts = c->ghosts;
    int st = mg_create(s, ctx, c->shape, r->pgrid, nlev, c->transport, (hx_pattern)c->pattern);
    if (st != HX_OK) {
        if (rank == 0) {
            if (c->transports_all) fprintf(stderr, "halox: note: mg: --transport all: %s skipped: %s\n", c->transport, s->err);
            else fprintf(stderr, "halox: error: %s\n", s->err);
        }
        mg_destroy(s);
        free(s);
        return st == HX_ERR_INPUT || c->transports_all ? HX_ERR_INPUT : st;
    }
    r->res = res;
    r->nres = 3;
    int code = HX_OK;
    for (int i = 0; i < 3; i++) {
        st = run_size(s, c, r->tol, i, &res[i], t);
        if (st != HX_OK) {
            /* this rank's failure; the others may be waiting for it in an exchange */
            fprintf(stderr, "halox: error: %s\n", s->err);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, st);
        }
        if (!res[i].converged || res[i].max_red > 0.1) code = HX_ERR_VERIFY;
    }
    cmp->ntot = s->ntot;
    cmp->agg = s->agg;
    cmp->agg_cpu = s->agg2 ? s->agg2 : s->agg;
    cmp->repeat = c->repeat;
    cmp->graph[cmp->n] = mg_graphs_used(s);
    memcpy(cmp->shape, s->shape, sizeof cmp->shape);
    if (rank == 0) {
        if (r->part && c->format == MG_FORMAT_TABLE) fputc('\n', stdout);
        r->s = s;
        mg_report_print(stdout, r);
        r->s = NULL;
        for (int i = 0; i < 3; i++) {
            char sh[48];
            mg_shape_text(sh, sizeof sh, res[i].shape);
            if (!res[i].converged)
                fprintf(stderr, "halox: error: mg: %s did not reach --tol %g in %d V-cycles (||r||/||f|| %.3e)\n", sh,
                        r->tol, res[i].cycles, res[i].rel);
            else if (res[i].max_red > 0.1)
                fprintf(stderr, "halox: error: mg: %s: a V-cycle reduced the residual by only %.4f (> 0.1)\n", sh,
                        res[i].max_red);
        }
        fflush(stdout);
    }
    mg_destroy(s);
    free(s);
    return code;
}

int hx_mg_main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    mg_config c;
    char err[400] = "";
    memset(&c, 0, sizeof c);
    int rc = hx_opts_defaults(&mg_command, &c, err, sizeof err);
    if (rc == 0) rc = hx_opts_parse(&mg_command, &c, argc, argv, err, sizeof err);
    if (hx_cli_any_failed(MPI_COMM_WORLD, rc < 0, err)) return HX_ERR_INPUT;
    if (rc == 1) {
        if (rank == 0) hx_opts_usage(&mg_command, stdout);
        return HX_OK;
    }
    if (c.smoother == MG_SMOOTHER_CHEBY && !c.nu_seen) c.nu = 1;
    if (!c.ghosts_seen) { /* a level's pre-smoothing (nu sweeps of 2 colours, or of cheby-degree steps) and residual */
        const int steps = c.nu * (c.smoother == MG_SMOOTHER_CHEBY ? c.cheby_degree : 2);
        c.ghosts = steps + 1 < MG_MAX_GHOSTS ? steps + 1 : MG_MAX_GHOSTS;
    }
    int pgrid[3], nlev = 0, agg[2] = {0, 0};
    double tol = 0;
    if (hx_cli_any_failed(MPI_COMM_WORLD, mg_plan(&c, nranks, pgrid, &nlev, agg, &tol, err, sizeof err) != 0, err))
        return HX_ERR_INPUT;

    hx_context_options co = hx_context_defaults();
    hx_cli_log_options(&co);
    co.backend = (hx_backend_kind)c.backend;
    co.log = hx_log_to_file; /* the library's warnings, on stderr */
    co.log_user = stderr;
    co.log_level = HX_LOG_WARN;
    hx_context *ctx = NULL;
    int st = hx_context_create(MPI_COMM_WORLD, &co, &ctx);
    if (st != HX_OK) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
        hx_context_destroy(ctx);
        return st;
    }
    double *t = calloc((size_t)c.repeat, sizeof *t);
    mg_compare *cmp = calloc(1, sizeof *cmp);
    if (!t || !cmp) {
        fprintf(stderr, "halox: error (rank %d): mg: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, HX_ERR_RUNTIME);
    }
    for (int i = 0; i < c.ntransports; i++) /* collective: every rank resolves the same list */
        if (!strcmp(c.transports[i], "auto"))
            snprintf(c.transports[i], sizeof c.transports[i], "%s", hx_transport_auto(ctx, NULL, 0));
    int code = HX_OK;
    const int several = c.ntransports > 1;
    if (rank == 0 && several && c.format == MG_FORMAT_JSON) fputs("[\n", stdout);
    for (int i = 0; i < c.ntransports; i++) {
        mg_config ci = c; /* the report names this run's transport */
        snprintf(ci.transport, sizeof ci.transport, "%s", c.transports[i]);
        mg_result *res = cmp->res[cmp->n];
        mg_report rep = {.c = &ci, .nranks = nranks, .tol = tol,
                         .backend = hx_backend_name(hx_context_backend(ctx)), .gpu = hx_context_device_name(ctx),
                         .part = cmp->n, .parts = several ? c.ntransports : 1};
        memcpy(rep.pgrid, pgrid, sizeof rep.pgrid);
        st = solve_with(&rep, res, ctx, nlev, agg, t, cmp);
        if (st == HX_ERR_INPUT && c.transports_all) continue; /* all: what cannot run here is skipped, with a note */
        if (st != HX_OK && st != HX_ERR_VERIFY) {
            code = st;
            break;
        }
        if (st == HX_ERR_VERIFY) code = st;
        snprintf(cmp->name[cmp->n++], sizeof cmp->name[0], "%s", c.transports[i]);
    }
    if (rank == 0 && several && c.format == MG_FORMAT_JSON) fputs("\n]\n", stdout);
    if (rank == 0 && several && c.format == MG_FORMAT_TABLE) mg_compare_print(stdout, cmp);
    if (rank == 0) fflush(stdout);
    if (code == HX_OK || code == HX_ERR_VERIFY) {
        char e[400];
        if (mg_compare_check(cmp, e, sizeof e)) {
            if (rank == 0) fprintf(stderr, "halox: error: %s\n", e);
            code = HX_ERR_VERIFY;
        }
    }
    if (cmp->n == 0 && code == HX_OK && rank == 0) /* all, and none could run */
        fprintf(stderr, "halox: error: mg: --transport all: no transport of this build sets up here\n");
    if (cmp->n == 0 && code == HX_OK) code = HX_ERR_INPUT;
    free(cmp);
    free(t);
    hx_context_destroy(ctx);
    return code;
}
