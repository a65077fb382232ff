/* `halox mg`: options (the CLI's option-table engine), checks, the solves at h, 2h and 4h and the
 * timed F-cycles. The solver is mg_levels.c + mg_cycles.c over the kernels of mg_cpu.c or
 * mg_cuda.cu; the report is mg_report.c. All of it uses halox's public API only. Run-time
 * failures end the job here (MPI_Abort: other ranks may be blocked in an exchange). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_app.h"
#include "options.h"
#include "run.h"

static const hx_opt_choice bottoms[] = {{"cg", MG_BOTTOM_CG}, {"smooth", MG_BOTTOM_SMOOTH}, {NULL, 0}};
static const hx_opt_choice smoothers[] = {{"gsrb", MG_SMOOTHER_GSRB}, {"cheby", MG_SMOOTHER_CHEBY}, {NULL, 0}};
static const hx_opt_choice problems[] = {{"poisson", 0}, {"helmholtz", 1}, {NULL, 0}};
static const hx_opt_choice backends[] = {
    {"auto", HX_BACKEND_AUTO}, {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {NULL, 0}};
static const hx_opt_choice patterns[] = {{"staged", HX_STAGED}, {"direct", HX_DIRECT}, {NULL, 0}};
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
    {.name = "size", .type = HX_OPT_INT, .meta = "N", .lo = 4, .hi = 1 << 14, .def = "64", .group = "problem",
     .what = "the global grid (cells per axis)",
     .help = "N^3 cells on the unit cube (h = 1/N); the solves run at N, N/2 and N/4", F(size)},
    {.name = "problem", .type = HX_OPT_CHOICE, .choices = problems, .def = "poisson", .group = "problem",
     .help = "-lap(u) = f, or the Helmholtz form a alpha u - b div(beta grad u) = f with a = b = 1, "
             "alpha = 1 + xyz in cells, beta = 1 + sin(2 pi x) sin(2 pi y) sin(2 pi z) / 4 on faces",
     F(problem)},
    {.name = "coarse", .type = HX_OPT_INT, .meta = "C", .lo = 1, .hi = 1 << 14, .def = "2", .group = "problem",
     .what = "the coarsest global grid",
     .help = "stop coarsening before the global grid drops below C cells per axis (coarsening also stops "
             "before a rank's block drops below 2 cells or stops halving evenly)",
     F(coarse)},
    {.name = "agglomerate", .type = HX_OPT_INT, .meta = "CELLS", .lo = 0, .hi = 2147483647, .def = "0",
     .group = "problem", .what = "a global cell count (0: off)",
     .help = "with more than one rank, the first level of at most CELLS cells (and every coarser one) is solved on "
             "rank 0 alone, on the CPU: its right-hand side is gathered there and the correction scattered back; "
             "the hierarchy is then the one-rank hierarchy (down to --coarse) at every rank count. 0: off (every "
             "level on every rank)",
     F(agglomerate)},
    {.name = "smoother", .type = HX_OPT_CHOICE, .choices = smoothers, .def = "gsrb", .group = "solver",
     .help = "red-black Gauss-Seidel, or Chebyshev polynomials of the Jacobi-preconditioned operator", F(smoother)},
    {.name = "cheby-degree", .type = HX_OPT_INT, .meta = "K", .lo = 1, .hi = MG_MAX_DEGREE, .def = "4",
     .group = "solver", .what = "a Chebyshev degree",
     .help = "steps (exchanges and operator applications) of one Chebyshev smoothing", F(cheby_degree)},
    {.name = "nu", .type = HX_OPT_INT, .meta = "S", .lo = 1, .hi = 64, .def = "2", .def_text = "2 (gsrb), 1 (cheby)",
     .group = "solver", .what = "a number of smoother applications",
     .help = "smoother applications (red-black sweeps, or Chebyshev polynomials) before and after each "
             "coarse-grid correction",
     F(nu), .seen_at = AT(nu_seen)},
    {.name = "bottom", .type = HX_OPT_CHOICE, .choices = bottoms, .def = "cg", .group = "solver",
     .help = "coarsest-level solver: conjugate gradients to a relative residual of 1e-12, or "
             "--bottom-sweeps smoother applications (no global reduction)",
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
     .def_text = "the most cubic blocks for the rank count", .group = "decomposition and exchange",
     .what = "the process grid", .help = "process grid, the same on every level; must multiply to the rank count",
     F(grid), .count_at = AT(grid_n)},
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = backends, .def = "auto",
     .group = "decomposition and exchange",
     .help = "where the fields live and the kernels run: cpu (OpenMP loops) or cuda (one GPU per rank); auto: "
             "cuda when every rank sees a GPU",
     F(backend)},
    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME", .def = "mpi", .group = "decomposition and exchange",
     .what = "a transport name (see halox info)", .help = "communication model of every level's exchange",
     F(transport)},
    {.name = "pattern", .type = HX_OPT_CHOICE, .choices = patterns, .def = "staged",
     .group = "decomposition and exchange",
     .help = "faces axis by axis with corners forwarded, or all 26 neighbours at once", F(pattern)},
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
             "coefficients) on the unit cube, cell-centred finite volumes, homogeneous Dirichlet boundaries, "
             "manufactured u = sin(pi x) sin(pi y) sin(pi z). One halox layout and exchange per level; CPU loops "
             "or CUDA kernels. Solves at N, N/2 and N/4 with V-cycles to --tol (residual reduction per cycle, "
             "error and observed order) and times full-multigrid F-cycles (DOF/s).",
    .opts = mg_options,
    .nopts = (int)(sizeof mg_options / sizeof mg_options[0]),
    .notes = "Exit codes: 0 success, 2 bad input (one line naming the fix), 3 run-time failure, 4 the V-cycles "
             "did not reach --tol or a cycle reduced the residual by less than 10x.",
};

static long long cube(int n) { return (long long)n * n * n; }

/* Levels of a hierarchy from N^3 whose blocks start at b[3] and halve exactly, each at least 2
 * cells per axis, and whose global grid stays at least `coarse` cells per axis. */
static int count_levels(int N, int coarse, const int b0[3])
{
    int L = 1, b[3] = {b0[0], b0[1], b0[2]};
    while (L < MG_MAX_LEVELS) {
        int ok = (N >> L) >= coarse;
        for (int a = 0; a < 3; a++) ok = ok && b[a] % 2 == 0 && b[a] / 2 >= 2;
        if (!ok) break;
        for (int a = 0; a < 3; a++) b[a] /= 2;
        L++;
    }
    return L;
}

/* The checks that need the rank count: process grid, alignment of every level, level count, the
 * agglomeration level (*agg: 0 = none). */
static int plan_levels(const mg_config *c, int nranks, int pgrid[3], int *nlev, int *agg, double *tol, char *err,
                       size_t n)
{
    char *end = NULL;
    *tol = strtod(c->tol, &end);
    if (!end || *end || !(*tol > 0) || !(*tol < 1)) {
        snprintf(err, n, "--tol %s: give a relative residual norm between 0 and 1, e.g. 1e-10", c->tol);
        return -1;
    }
    if (c->backend == HX_BACKEND_CUDA && (!hx_backend_built(HX_BACKEND_CUDA) || !mg_cuda_kernels())) {
        snprintf(err, n, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use --backend cpu");
        return -1;
    }
    if (c->backend == HX_BACKEND_CUDA && hx_gpu_count() == 0) {
        snprintf(err, n, "no CUDA GPU is visible to this rank: use --backend cpu, or check CUDA_VISIBLE_DEVICES and the "
                 "driver");
        return -1;
    }
    const int global[3] = {c->size, c->size, c->size};
    if (c->grid_n) {
        if (c->grid_n != 3) {
            snprintf(err, n, "--grid needs three numbers (PXxPYxPZ): mg is 3D");
            return -1;
        }
        long prod = (long)c->grid[0] * c->grid[1] * c->grid[2];
        if (prod != nranks) {
            snprintf(err, n, "--grid %dx%dx%d has %ld ranks but the job has %d: pass a grid whose product is %d",
                     c->grid[0], c->grid[1], c->grid[2], prod, nranks, nranks);
            return -1;
        }
        memcpy(pgrid, c->grid, 3 * sizeof(int));
    } else if (hx_choose_grid(nranks, 3, global, 2, pgrid)) {
        snprintf(err, n, "no process grid of %d ranks leaves every block at least 2 cells wide: use a larger --size "
                 "or fewer ranks", nranks);
        return -1;
    }
    int b[3], pmax = 1;
    for (int a = 0; a < 3; a++) {
        if (c->size % pgrid[a]) {
            snprintf(err, n, "--size %d does not split evenly over %d ranks along %c (grid %dx%dx%d): every level's "
                     "blocks must halve exactly: use a multiple of %d", c->size, pgrid[a], "xyz"[a], pgrid[0],
                     pgrid[1], pgrid[2], 8 * pgrid[a]);
            return -1;
        }
        b[a] = c->size / pgrid[a];
        if (pgrid[a] > pmax) pmax = pgrid[a];
    }
    const int L = count_levels(c->size, c->coarse, b), one[3] = {c->size, c->size, c->size};
    if (L < 3) {
        snprintf(err, n, "--size %d over grid %dx%dx%d%s gives %d level%s: mg solves at h, 2h and 4h, so it needs 3 "
                 "levels whose blocks halve exactly down to at least 2 cells: use a --size that is a multiple of %d "
                 "(and --coarse at most N/4)", c->size, pgrid[0], pgrid[1], pgrid[2], c->coarse > 2 ? " and --coarse" : "",
                 L, L == 1 ? "" : "s", 8 * pmax);
        return -1;
    }
    *nlev = L;
    *agg = 0;
    if (!c->agglomerate) return 0;
    /* agglomeration: the one-rank hierarchy; the ranks keep levels 0 .. A, A the first of at most
     * c->agglomerate cells; none such: nothing to agglomerate */
    const int ntot = count_levels(c->size, c->coarse, one), reach = count_levels(c->size, 1, b) - 1;
    int A = 0;
    while (A < ntot && cube(c->size >> A) > c->agglomerate) A++;
    if (A == ntot) return 0;
    if (A < 3) {
        snprintf(err, n, "--agglomerate %ld: the %d^3 grid (%lld cells) is already at or below it, but mg solves at h, 2h "
                 "and 4h on every rank: give --agglomerate below %lld (the 4h grid's cells), or 0",
                 c->agglomerate, c->size >> A, cube(c->size >> A), cube(c->size >> 2));
        return -1;
    }
    if (nranks > 1 && A > reach) {
        if (reach < 3)
            snprintf(err, n, "--agglomerate %ld over grid %dx%dx%d: agglomeration needs the ranks' blocks to halve down "
                     "to the %d^3 grid (the first after h, 2h, 4h), at least 2 cells each: use a larger --size or fewer "
                     "ranks", c->agglomerate, pgrid[0], pgrid[1], pgrid[2], c->size >> 3);
        else
            snprintf(err, n, "--agglomerate %ld over grid %dx%dx%d: the first level at or below it, %d^3, leaves blocks "
                     "below 2 cells: give --agglomerate at least %lld (the %d^3 grid), or use fewer ranks",
                     c->agglomerate, pgrid[0], pgrid[1], pgrid[2], c->size >> A, cube(c->size >> reach),
                     c->size >> reach);
        return -1;
    }
    *nlev = ntot;
    *agg = nranks > 1 ? A : 0;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define TRY(x)                            \
    do {                                  \
        int st_ = (x);                    \
        if (st_ != HX_OK) return st_;     \
    } while (0)

static int mpi_ok(mg_solver *s, int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return HX_OK;
    snprintf(s->err, sizeof s->err, "mg: %s failed", what);
    return HX_ERR_RUNTIME;
}

/* HPGMG's solve (one F-cycle from u = 0, then V-cycles to the tolerance), then one warm-up and
 * c->repeat timed F-cycles (setting f untimed); t holds c->repeat doubles. */
static int run_size(mg_solver *s, const mg_config *c, double tol, int fine, mg_result *res, double *t)
{
    double fn = 0, rn = 0;
    memset(res, 0, sizeof *res);
    res->fine = fine;
    res->N = s->lev[fine].N;
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
    TRY(mg_sync(s));
    if (hx_field_checksum(s->lev[fine].layout, &s->lev[fine].u, &res->checksum) != HX_OK) {
        snprintf(s->err, sizeof s->err, "mg: checksum: %s", hx_context_error(s->ctx));
        return HX_ERR_RUNTIME;
    }

    TRY(mg_setup_problem(s, fine));
    TRY(mg_fmg(s, fine));
    TRY(mg_reset_timers(s));
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
    TRY(mg_timers_flush(s));
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
    int pgrid[3], nlev = 0, agg = 0;
    double tol = 0;
    if (hx_cli_any_failed(MPI_COMM_WORLD, plan_levels(&c, nranks, pgrid, &nlev, &agg, &tol, err, sizeof err) != 0, err))
        return HX_ERR_INPUT;

    hx_context_options co = hx_context_defaults();
    co.backend = (hx_backend_kind)c.backend;
    hx_context *ctx = NULL;
    int st = hx_context_create(MPI_COMM_WORLD, &co, &ctx);
    if (st != HX_OK) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
        hx_context_destroy(ctx);
        return st;
    }
    mg_solver *s = calloc(1, sizeof *s);
    double *t = calloc((size_t)c.repeat, sizeof *t);
    if (!s || !t) {
        fprintf(stderr, "halox: error (rank %d): mg: out of host memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, HX_ERR_RUNTIME);
    }
    s->nu = c.nu;
    s->smoother = (mg_smoother_kind)c.smoother;
    s->cheby_degree = c.cheby_degree;
    s->cheby_ratio = MG_CHEBY_RATIO;
    s->pde.helm = c.problem;
    s->pde.a = MG_HELM_A;
    s->pde.b = MG_HELM_B;
    s->bottom = (mg_bottom_kind)c.bottom;
    s->bottom_sweeps = c.bottom_sweeps;
    s->bottom_tol = 1e-12;
    s->bottom_maxit = 1000;
    s->agg = agg;
    st = mg_create(s, ctx, c.size, pgrid, nlev, c.transport, (hx_pattern)c.pattern);
    if (st != HX_OK) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", s->err);
        mg_destroy(s);
        free(s);
        free(t);
        hx_context_destroy(ctx);
        return st;
    }
    mg_result res[3];
    int nres = 3, code = HX_OK;
    for (int i = 0; i < nres; i++) {
        st = run_size(s, &c, tol, i, &res[i], t);
        if (st != HX_OK) {
            /* this rank's failure; the others may be waiting for it in an exchange */
            fprintf(stderr, "halox: error: %s\n", s->err);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, st);
        }
        if (!res[i].converged || res[i].max_red > 0.1) code = HX_ERR_VERIFY;
    }
    if (rank == 0) {
        mg_report rep = {.c = &c, .s = s, .nranks = nranks, .tol = tol, .res = res, .nres = nres,
                         .backend = hx_backend_name(hx_context_backend(ctx)), .gpu = hx_context_device_name(ctx)};
        memcpy(rep.pgrid, pgrid, sizeof rep.pgrid);
        mg_report_print(stdout, &rep);
        for (int i = 0; i < nres; i++) {
            if (!res[i].converged)
                fprintf(stderr, "halox: error: mg: %d^3 did not reach --tol %g in %d V-cycles (||r||/||f|| %.3e)\n",
                        res[i].N, tol, res[i].cycles, res[i].rel);
            else if (res[i].max_red > 0.1)
                fprintf(stderr, "halox: error: mg: %d^3: a V-cycle reduced the residual by only %.4f (> 0.1)\n",
                        res[i].N, res[i].max_red);
        }
        fflush(stdout);
    }
    mg_destroy(s);
    free(s);
    free(t);
    hx_context_destroy(ctx);
    return code;
}
