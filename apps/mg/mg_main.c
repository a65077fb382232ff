/* (About 430 lines: most of it is the option table, one entry and its help per option.)
 * `halox mg`: options (the CLI's option-table engine), the solves at h, 2h and 4h and the timed
 * F-cycles; the checks before any computation are mg_plan.c. The solver is mg_levels.c +
 * mg_cycles.c over the kernels of mg_cpu.c or mg_cuda.cu; the report is mg_report.c. All of it
 * uses halox's public API only. Run-time failures end the job here (MPI_Abort: other ranks may be
 * blocked in an exchange). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_app.h"
#include "options.h"
#include "run.h"

/* the names the report prints too (mg_report.c) */
const hx_opt_choice mg_bottoms[] = {
    {"auto", MG_BOTTOM_AUTO}, {"direct", MG_BOTTOM_DIRECT}, {"cg", MG_BOTTOM_CG}, {"smooth", MG_BOTTOM_SMOOTH}, {NULL, 0}};
const hx_opt_choice mg_coarse_solves[] = {{"all", 1}, {"root", 0}, {NULL, 0}};
const hx_opt_choice mg_smoothers[] = {{"gsrb", MG_SMOOTHER_GSRB}, {"cheby", MG_SMOOTHER_CHEBY}, {NULL, 0}};
const hx_opt_choice mg_problems[] = {{"poisson", 0}, {"helmholtz", 1}, {NULL, 0}};
static const hx_opt_choice backends[] = {
    {"auto", HX_BACKEND_AUTO}, {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {NULL, 0}};
static const hx_opt_choice patterns[] = {{"staged", HX_STAGED}, {"direct", HX_DIRECT}, {NULL, 0}};
static const hx_opt_choice schedules[] = {
    {"cycle", HX_SCHEDULE_CYCLE}, {"fused", HX_SCHEDULE_FUSED}, {"persistent", HX_SCHEDULE_PERSISTENT}, {NULL, 0}};
static const hx_opt_choice formats[] = {
    {"table", MG_FORMAT_TABLE}, {"csv", MG_FORMAT_CSV}, {"json", MG_FORMAT_JSON}, {NULL, 0}};

/* Helmholtz: a alpha u - b div(beta grad u) with these a and b (docs/multigrid.md) */
#define MG_HELM_A 1.0
#define MG_HELM_B 1.0
/* the Chebyshev interval [lambda_max / ratio, lambda_max] of D^-1 A */
#define MG_CHEBY_RATIO 4.0

#define F(member) HX_OPT_FIELD(mg_config, member)
#define AT(member) HX_OPT_AT(mg_config, member)
static const hx_option mg_options[] = {
    {.name = "size", .type = HX_OPT_STRING, .meta = "N|NXxNYxNZ", .def = "64", .group = "problem",
     .what = "the global grid",
     .help = "the global grid, each number from 4 to 16384: N^3 cells on the unit cube (h = 1/N), or NX x NY x NZ "
             "cubic cells of width h = 1/min(NX, NY, NZ) on [0, NX h] x [0, NY h] x [0, NZ h]; the solves run at "
             "the grid, its half and its quarter (the report's size is NX, its shape NXxNYxNZ)",
     F(size), .seen_at = AT(size_seen)},
    {.name = "size-per-rank", .type = HX_OPT_INT, .meta = "N", .lo = 4, .hi = 1 << 14, .def_text = "off",
     .group = "problem", .what = "cells per axis of each rank's block",
     .help = "weak scaling: N^3 cells per rank, the global grid N times the process grid per axis (--grid, or the "
             "most cubic grid for the rank count); instead of --size",
     F(size_per_rank)},
    {.name = "problem", .type = HX_OPT_CHOICE, .choices = mg_problems, .def = "poisson", .group = "problem",
     .help = "-lap(u) = f, or the Helmholtz form a alpha u - b div(beta grad u) = f with a = b = 1, "
             "alpha = 1 + xyz in cells, beta = 1 + sin(2 pi x) sin(2 pi y) sin(2 pi z) / 4 on faces (x, y, z "
             "normalised to [0, 1] on a non-cubic grid)",
     F(problem)},
    {.name = "coarse", .type = HX_OPT_INT, .meta = "C", .lo = 1, .hi = 1 << 14, .def = "2", .group = "problem",
     .what = "the coarsest global grid",
     .help = "stop coarsening before the global grid's smallest extent drops below C cells (coarsening also "
             "stops before a rank's block drops below 2 cells or stops halving evenly)",
     F(coarse)},
    {.name = "agglomerate", .type = HX_OPT_INT, .meta = "CELLS", .lo = 0, .hi = 2147483647, .def = "0",
     .def_text = "auto: 4096 where the grid allows, else 0", .group = "problem", .what = "a global cell count (0: off)",
     .help = "the first level of at most CELLS cells (and every coarser one) is solved on rank 0 alone, on the "
             "CPU: its right-hand side is gathered there and the correction scattered back; the hierarchy is then "
             "the one-rank hierarchy (down to --coarse) at every rank count. Also at one rank: small levels cost "
             "less on a CPU than as GPU kernel launches. 0: off (every level on every rank). Not given: 4096 (16^3) "
             "when the 4h grid is still above it and every rank's block halves down to it, else off; the same on "
             "every backend, so that CPU and GPU runs of the same options give the same bits",
     F(agglomerate), .seen_at = AT(agglomerate_seen)},
    {.name = "agglomerate-ranks", .type = HX_OPT_INT, .meta = "CELLS", .lo = 0, .hi = 2147483647, .def = "0",
     .group = "problem", .what = "a global cell count (0: off)",
     .help = "a first step before --agglomerate (which it must exceed), as in NVIDIA's HPGMG: from the first level "
             "of at most CELLS cells the levels run on an eighth of the ranks (the process grid halved along each "
             "even axis), on the job's backend and transport, until --agglomerate moves the coarser ones to rank 0's "
             "CPU. 0: off (one step)",
     F(agglomerate_ranks)},
    {.name = "coarse-solve", .type = HX_OPT_CHOICE, .choices = mg_coarse_solves, .def = "root", .group = "problem",
     .help = "who solves the levels --agglomerate moves to the CPU: root (rank 0 alone after MPI_Gatherv, then "
             "MPI_Scatterv, as HPGMG does; the faster on four GPUs) or all (every rank gathers the level's "
             "right-hand side with MPI_Allgatherv and solves the same coarse levels on its own CPU, so no "
             "correction is scattered back); the same bits either way",
     F(coarse_solve)},
    {.name = "smoother", .type = HX_OPT_CHOICE, .choices = mg_smoothers, .def = "gsrb", .group = "solver",
     .help = "red-black Gauss-Seidel, or Chebyshev polynomials of the Jacobi-preconditioned operator", F(smoother)},
    {.name = "ghosts", .type = HX_OPT_INT, .meta = "G", .lo = 1, .hi = MG_MAX_GHOSTS, .def = "5",
     .def_text = "2 nu + 1 (gsrb), nu x cheby-degree + 1 (cheby), at most 9", .group = "solver",
     .what = "a number of ghost layers",
     .help = "ghost layers of the fields (at most a level's block): one exchange of G layers serves G smoother "
             "steps (red-black colours or Chebyshev steps), each also updating the ghost layers facing other "
             "ranks that the next ones read, as those ranks do, so the fields are bit-identical to G = 1's (an "
             "exchange before each step); the default covers a level's pre-smoothing and residual; plus one "
             "exchange of f per V-cycle visit",
     F(ghosts), .seen_at = AT(ghosts_seen)},
    {.name = "cheby-degree", .type = HX_OPT_INT, .meta = "K", .lo = 1, .hi = MG_MAX_DEGREE, .def = "4",
     .group = "solver", .what = "a Chebyshev degree",
     .help = "steps (exchanges and operator applications) of one Chebyshev smoothing", F(cheby_degree)},
    {.name = "nu", .type = HX_OPT_INT, .meta = "S", .lo = 1, .hi = 64, .def = "2", .def_text = "2 (gsrb), 1 (cheby)",
     .group = "solver", .what = "a number of smoother applications",
     .help = "smoother applications (red-black sweeps, or Chebyshev polynomials) before and after each "
             "coarse-grid correction",
     F(nu), .seen_at = AT(nu_seen)},
    {.name = "bottom", .type = HX_OPT_CHOICE, .choices = mg_bottoms, .def = "auto", .group = "solver",
     .help = "coarsest-level solver: direct (the coarsest operator's Cholesky factor, made once; the coarsest level "
             "on one rank, as with agglomeration, and at most 1024 cells), conjugate gradients to a relative residual "
             "of 1e-12, or --bottom-sweeps smoother applications (no global reduction); auto: direct where it can, "
             "else cg",
     F(bottom)},
    {.name = "bottom-sweeps", .type = HX_OPT_INT, .meta = "S", .lo = 1, .hi = 100000, .def = "50",
     .group = "solver", .what = "a number of smoother applications", .help = "applications of --bottom smooth",
     F(bottom_sweeps)},
    {.name = "tol", .type = HX_OPT_STRING, .meta = "TOL", .def = "1e-10", .group = "solver",
     .what = "a relative residual norm", .help = "V-cycles until ||f - A u||_2 / ||f||_2 < TOL", F(tol)},
    {.name = "max-cycles", .type = HX_OPT_INT, .meta = "K", .lo = 1, .hi = 10000, .def = "50",
     .group = "solver", .what = "a number of V-cycles", .help = "give up after K V-cycles (exit 4)",
     F(max_cycles)},
    {.name = "grid", .type = HX_OPT_DIMS, .meta = "PXxPYxPZ", .lo = 1, .hi = 1 << 20,
     .def_text = "--size: the most cubic blocks for the rank count; --size-per-rank: the fewest neighbours a rank waits for, at most 4 ranks along an axis per rank along another (4 ranks: 4x1x1)",
     .group = "decomposition and exchange",
     .what = "the process grid", .help = "process grid, the same on every level; must multiply to the rank count",
     F(grid), .count_at = AT(grid_n)},
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = backends, .def = "auto",
     .group = "decomposition and exchange",
     .help = "where the fields live and the kernels run: cpu (OpenMP loops) or cuda (one GPU per rank); auto: "
             "cuda when every rank sees a GPU",
     F(backend)},
    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME[,NAME...]|all", .def = "mpi",
     .group = "decomposition and exchange", .what = "transport names (see halox info)",
     .help = "communication model of every level's exchange; with several (or all: every transport of this build "
             "that sets up here), the same solves run over each in turn in this one job, and a table compares their "
             "exchange time per level (the gain over the first) and checks that the solutions are bit-identical",
     F(transport)},
    {.name = "schedule", .type = HX_OPT_CHOICE, .choices = schedules, .def = "cycle",
     .group = "decomposition and exchange",
     .help = "who drives an exchange: cycle (the host calls hx_exchange_run between the smoother's kernels; the "
             "only schedule of a solver written on the exchange API; fused and persistent are halox run's)",
     F(schedule)},
    {.name = "pattern", .type = HX_OPT_CHOICE, .choices = patterns, .def = "staged",
     .group = "decomposition and exchange",
     .help = "faces axis by axis with corners forwarded, or all 26 neighbours at once", F(pattern)},
    {.name = "graph", .type = HX_OPT_FLAG, .def = "on", .group = "decomposition and exchange",
     .help = "time F-cycles replayed from CUDA graphs: the first records each stretch of GPU work between two "
             "host waits (kernels and exchanges), later ones launch it whole; only on the GPU, with a transport "
             "whose exchanges replay (ipc-put, nccl: halox info) and a smoother that leaves u where it was after an "
             "F-cycle (gsrb; Chebyshev of even degree); elsewhere, or off, every operation is launched on its own; "
             "the report's graph field says which ran, and the timed F-cycles are checked bit for bit against "
             "step-by-step ones",
     F(graph)},
    {.name = "overlap", .type = HX_OPT_FLAG, .def = "off", .group = "decomposition and exchange",
     .help = "split a GSRB colour that waits for an exchange of u: the cells that read no ghost and that no "
             "message sends are smoothed while the halos travel, the rest after (levels where those are at least "
             "half the block); bit-identical either way. Off until timed on several GPUs",
     F(overlap)},
    {.name = "repeat", .type = HX_OPT_INT, .meta = "R", .lo = 1, .hi = 100000, .def = "3",
     .group = "measurement and output", .what = "a number of timed solves",
     .help = "timed FMG solves per size after one warm-up solve; the figure of merit uses the median", F(repeat)},
    {.name = "format", .type = HX_OPT_CHOICE, .choices = formats, .def = "table", .group = "measurement and output",
     .help = "report format: table, csv (one row per solve size and level) or json (the same fields: run "
             "fields under config, one object per solve size with its levels)",
     F(format)},
};
#undef F
#undef AT

static const hx_command mg_command = {
    .name = "mg",
    .synopsis = "mpirun -np N halox mg [options]",
    .about = "Geometric multigrid (HPGMG-FV style) for -lap(u) = f (or a Helmholtz form with variable "
             "coefficients) on the unit cube (or a box of cubic cells: --size NXxNYxNZ), cell-centred finite "
             "volumes, homogeneous Dirichlet boundaries, manufactured u = sin(pi x/Lx) sin(pi y/Ly) sin(pi z/Lz). "
             "One halox layout and exchange per level; CPU loops or CUDA kernels. Solves at the grid, its half and "
             "its quarter with V-cycles to --tol (residual reduction per cycle, error and observed order) and times "
             "full-multigrid F-cycles (DOF/s).",
    .opts = mg_options,
    .nopts = (int)(sizeof mg_options / sizeof mg_options[0]),
    .notes = "Exit codes: 0 success, 2 bad input (one line naming the fix), 3 run-time failure, 4 the V-cycles "
             "did not reach --tol or a cycle reduced the residual by less than 10x.",
};

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
     * between kernels: 22% of a 256^3 solve on one H200), then as many again with them for the
     * per-level table; with --graph the warm-up records the graphs that the timed solves replay */
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
