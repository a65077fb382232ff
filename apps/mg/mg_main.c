/* `halox mg`: options (the CLI's option table engine), checks, the runs at h, 2h and 4h, and the
 * report (table or CSV). The solver itself is mg_solver.c; both use the public API only. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"
#include "options.h"
#include "run.h"

typedef enum { MG_FORMAT_TABLE = 0, MG_FORMAT_CSV = 1 } mg_format;

typedef struct {
    int size;
    int grid[3];
    int grid_n;
    int coarse;
    int nu;
    int bottom;
    int bottom_sweeps;
    char tol[32];
    int max_cycles;
    int repeat;
    int backend;
    char transport[64];
    int pattern;
    int format;
} mg_config;

static const hx_opt_choice bottoms[] = {{"cg", MG_BOTTOM_CG}, {"smooth", MG_BOTTOM_SMOOTH}, {NULL, 0}};
static const hx_opt_choice backends[] = {
    {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {"auto", HX_BACKEND_AUTO}, {NULL, 0}};
static const hx_opt_choice patterns[] = {{"staged", HX_STAGED}, {"direct", HX_DIRECT}, {NULL, 0}};
static const hx_opt_choice formats[] = {{"table", MG_FORMAT_TABLE}, {"csv", MG_FORMAT_CSV}, {NULL, 0}};

#define F(member) HX_OPT_FIELD(mg_config, member)
#define AT(member) HX_OPT_AT(mg_config, member)
static const hx_option mg_options[] = {
    {.name = "size", .type = HX_OPT_INT, .meta = "N", .lo = 4, .hi = 1 << 14, .def = "64", .group = "problem",
     .what = "the global grid (cells per axis)",
     .help = "N^3 cells on the unit cube (h = 1/N); the solves run at N, N/2 and N/4", F(size)},
    {.name = "coarse", .type = HX_OPT_INT, .meta = "C", .lo = 1, .hi = 1 << 14, .def = "2", .group = "problem",
     .what = "the coarsest global grid",
     .help = "stop coarsening before the global grid drops below C cells per axis (coarsening also stops "
             "before a rank's block drops below 2 cells or stops halving evenly)",
     F(coarse)},
    {.name = "nu", .type = HX_OPT_INT, .meta = "S", .lo = 1, .hi = 64, .def = "2", .group = "solver",
     .what = "a number of red-black sweeps",
     .help = "red-black Gauss-Seidel sweeps before and after each coarse-grid correction", F(nu)},
    {.name = "bottom", .type = HX_OPT_CHOICE, .choices = bottoms, .def = "cg", .group = "solver",
     .help = "coarsest-level solver: conjugate gradients to a relative residual of 1e-12, or "
             "--bottom-sweeps red-black sweeps (no global reduction)",
     F(bottom)},
    {.name = "bottom-sweeps", .type = HX_OPT_INT, .meta = "S", .lo = 1, .hi = 100000, .def = "50",
     .group = "solver", .what = "a number of red-black sweeps", .help = "sweeps of --bottom smooth",
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
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = backends, .def = "cpu",
     .group = "decomposition and exchange",
     .help = "where the fields live: cpu (auto is cpu too: mg's GPU kernels are not built yet)", F(backend)},
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
     .help = "report format: table, or csv (one row per solve size and level)", F(format)},
};
#undef F
#undef AT

static const hx_command mg_command = {
    .name = "mg",
    .synopsis = "mpirun -np N halox mg [options]",
    .about = "Geometric multigrid (HPGMG-FV style) for -lap(u) = f on the unit cube, cell-centred finite "
             "volumes, homogeneous Dirichlet boundaries, manufactured u = sin(pi x) sin(pi y) sin(pi z). One "
             "halox layout and exchange per level. Solves at N, N/2 and N/4 with V-cycles to --tol (residual "
             "reduction per cycle, error and observed order) and times full-multigrid F-cycles (DOF/s).",
    .opts = mg_options,
    .nopts = (int)(sizeof mg_options / sizeof mg_options[0]),
    .notes = "Exit codes: 0 success, 2 bad input (one line naming the fix), 3 run-time failure, 4 the V-cycles "
             "did not reach --tol or a cycle reduced the residual by less than 10x.",
};

/* The checks that need the rank count: process grid, alignment of every level, level count. */
static int plan_levels(const mg_config *c, int nranks, int pgrid[3], int *nlev, double *tol, char *err, size_t n)
{
    char *end = NULL;
    *tol = strtod(c->tol, &end);
    if (!end || *end || !(*tol > 0) || !(*tol < 1)) {
        snprintf(err, n, "--tol %s: give a relative residual norm between 0 and 1, e.g. 1e-10", c->tol);
        return -1;
    }
    if (c->backend == HX_BACKEND_CUDA) {
        snprintf(err, n, "mg: GPU kernels for mg are not built yet: use --backend cpu");
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
    int L = 1;
    while (L < MG_MAX_LEVELS) {
        int ok = (c->size >> L) >= c->coarse;
        for (int a = 0; a < 3; a++) ok = ok && b[a] % 2 == 0 && b[a] / 2 >= 2;
        if (!ok) break;
        for (int a = 0; a < 3; a++) b[a] /= 2;
        L++;
    }
    if (L < 3) {
        snprintf(err, n, "--size %d over grid %dx%dx%d%s gives %d level%s: mg solves at h, 2h and 4h, so it needs 3 "
                 "levels whose blocks halve exactly down to at least 2 cells: use a --size that is a multiple of %d "
                 "(and --coarse at most N/4)", c->size, pgrid[0], pgrid[1], pgrid[2], c->coarse > 2 ? " and --coarse" : "",
                 L, L == 1 ? "" : "s", 8 * pmax);
        return -1;
    }
    *nlev = L;
    return 0;
}

typedef struct {
    int fine;             /* level index of the fine grid */
    int N;
    int cycles;
    double red[64];       /* residual reduction of each V-cycle (first 64) */
    double max_red;
    double rel;           /* final ||r|| / ||f|| */
    double fmg_first;     /* ||r|| / ||f|| after the F-cycle that starts the solve */
    int converged;
    double err_l2, err_max;
    uint64_t checksum;
    double fmg_med, fmg_min, fmg_max;
    double fmg_err_l2, fmg_rel;
    long bottom_iters;
    mg_timers tm[MG_MAX_LEVELS]; /* timed FMG solves, summed; max over ranks */
} mg_result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run_size(mg_solver *s, const mg_config *c, double tol, int fine, mg_result *res)
{
    memset(res, 0, sizeof *res);
    res->fine = fine;
    res->N = s->lev[fine].N;
    /* HPGMG's solve: one F-cycle from u = 0, then V-cycles to the tolerance */
    mg_setup_problem(s, fine);
    double fn = mg_rhs_norm(s, fine);
    mg_fmg(s, fine);
    double rn = mg_residual_norm(s, fine);
    res->rel = res->fmg_first = rn / fn;
    while (res->rel >= tol && res->cycles < c->max_cycles) {
        mg_vcycle(s, fine);
        double r2 = mg_residual_norm(s, fine);
        double red = r2 / rn;
        if (res->cycles < 64) res->red[res->cycles] = red;
        if (red > res->max_red) res->max_red = red;
        rn = r2;
        res->rel = rn / fn;
        res->cycles++;
    }
    res->converged = res->rel < tol;
    mg_error(s, fine, &res->err_l2, &res->err_max);
    if (hx_field_checksum(s->lev[fine].layout, &s->lev[fine].u, &res->checksum) != HX_OK) res->checksum = 0;

    /* FMG: one warm-up, then --repeat timed solves (set-up of f untimed) */
    mg_setup_problem(s, fine);
    mg_fmg(s, fine);
    mg_reset_timers(s);
    double *t = calloc((size_t)c->repeat, sizeof *t);
    for (int r = 0; r < c->repeat; r++) {
        mg_setup_problem(s, fine);
        MPI_Barrier(s->comm);
        double t0 = MPI_Wtime();
        mg_fmg(s, fine);
        double dt = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, s->comm);
        t[r] = mx;
    }
    res->bottom_iters = s->bottom_iters;
    for (int l = fine; l < s->nlev; l++) {
        MPI_Allreduce(s->lev[l].tm.t, res->tm[l].t, MG_NOPS, MPI_DOUBLE, MPI_MAX, s->comm);
        MPI_Allreduce(s->lev[l].tm.n, res->tm[l].n, MG_NOPS, MPI_LONG, MPI_MAX, s->comm);
    }
    res->fmg_err_l2 = 0;
    double dummy;
    mg_error(s, fine, &res->fmg_err_l2, &dummy);
    res->fmg_rel = mg_residual_norm(s, fine) / fn;
    qsort(t, (size_t)c->repeat, sizeof *t, cmp_double);
    res->fmg_min = t[0];
    res->fmg_max = t[c->repeat - 1];
    res->fmg_med = c->repeat % 2 ? t[c->repeat / 2] : 0.5 * (t[c->repeat / 2 - 1] + t[c->repeat / 2]);
    free(t);
}

static double order(const mg_result *r, int i, int nres)
{
    if (i + 1 >= nres || r[i].err_l2 <= 0) return NAN;
    return log2(r[i + 1].err_l2 / r[i].err_l2);
}

static void print_table(const mg_solver *s, const mg_config *c, const int pgrid[3], int nranks, double tol,
                        const mg_result *res, int nres)
{
    printf("halox mg: -lap(u) = f on the unit cube, cell-centred finite volumes, homogeneous Dirichlet,\n"
           "          u = sin(pi x) sin(pi y) sin(pi z), double precision\n");
    printf("  %d^3 cells, %d rank%s (grid %dx%dx%d), %d levels:", c->size, nranks, nranks == 1 ? "" : "s", pgrid[0],
           pgrid[1], pgrid[2], s->nlev);
    for (int l = 0; l < s->nlev; l++) printf(" %d^3", s->lev[l].N);
    printf("\n  backend cpu, transport %s, pattern %s\n", c->transport, hx_pattern_name((hx_pattern)c->pattern));
    printf("  V-cycle: %d+%d red-black Gauss-Seidel sweeps, piecewise-constant restriction and interpolation; "
           "bottom %s",
           c->nu, c->nu, c->bottom == MG_BOTTOM_CG ? "CG (relative residual 1e-12)" : "red-black sweeps");
    if (c->bottom == MG_BOTTOM_SMOOTH) printf(" (%d)", c->bottom_sweeps);
    printf("\n  FMG (F-cycle): trilinear interpolation, one V-cycle per level; %d timed solves after 1 warm-up\n",
           c->repeat);
    for (int i = 0; i < nres; i++) {
        const mg_result *r = &res[i];
        printf("\nsolve %d^3 (%dh): one F-cycle, then V-cycles to ||r||/||f|| < %.3g\n", r->N, 1 << i, tol);
        printf("  %5s %14s %10s\n", "cycle", "||r||/||f||", "reduction");
        double rel = r->fmg_first;
        printf("  %5s %14.3e %10.4f   (the F-cycle from u = 0)\n", "FMG", rel, rel);
        for (int k = 0; k < r->cycles && k < 64; k++) {
            rel *= r->red[k];
            printf("  %5d %14.3e %10.4f\n", k + 1, rel, r->red[k]);
        }
        printf("  %s after %d V-cycles, max reduction %.4f; error vs exact: L2 %.6e  max %.6e; checksum 0x%016llx\n",
               r->converged ? "converged" : "NOT converged", r->cycles, r->max_red, r->err_l2, r->err_max,
               (unsigned long long)r->checksum);
        printf("  FMG: %.6f s median (min %.6f, max %.6f) over %d, %.4g DOF/s; error L2 %.6e (%.2fx the converged), "
               "||r||/||f|| %.3e\n",
               r->fmg_med, r->fmg_min, r->fmg_max, c->repeat, pow((double)r->N, 3) / r->fmg_med, r->fmg_err_l2,
               r->fmg_err_l2 / r->err_l2, r->fmg_rel);
        printf("  %-6s %8s", "level", "cells");
        for (int op = 0; op < MG_NOPS; op++) printf(" %20s", mg_op_names[op]);
        printf("\n  %-6s %8s", "", "");
        for (int op = 0; op < MG_NOPS; op++) printf(" %20s", "s / calls");
        printf("\n");
        mg_timers tot;
        memset(&tot, 0, sizeof tot);
        for (int l = r->fine; l < s->nlev; l++) {
            printf("  %-6d %6d^3", l - r->fine, s->lev[l].N);
            for (int op = 0; op < MG_NOPS; op++) {
                printf(" %11.6f / %6ld", r->tm[l].t[op], r->tm[l].n[op]);
                tot.t[op] += r->tm[l].t[op];
                tot.n[op] += r->tm[l].n[op];
            }
            printf("\n");
        }
        printf("  %-6s %8s", "total", "");
        for (int op = 0; op < MG_NOPS; op++) printf(" %11.6f / %6ld", tot.t[op], tot.n[op]);
        printf("\n  (summed over the %d timed solves, max over ranks; bottom includes its own exchanges%s; "
               "CG iterations %ld)\n",
               c->repeat, c->bottom == MG_BOTTOM_SMOOTH ? " and sweeps" : "", r->bottom_iters);
    }
    printf("\n%-8s %14s %14s %10s %10s %8s %10s %12s %14s\n", "size", "error L2", "error max", "order L2", "order max",
           "cycles", "max red.", "FMG s", "DOF/s");
    for (int i = 0; i < nres; i++) {
        const mg_result *r = &res[i];
        double om = i + 1 < nres ? log2(res[i + 1].err_max / r->err_max) : NAN;
        char nb[32];
        snprintf(nb, sizeof nb, "%d^3", r->N);
        printf("%-8s %14.6e %14.6e %10.4f %10.4f %8d %10.4f %12.6f %14.4g\n", nb, r->err_l2, r->err_max,
               order(res, i, nres), om, r->cycles, r->max_red, r->fmg_med, pow((double)r->N, 3) / r->fmg_med);
    }
    printf("(order: log2(e_2h / e_h) from the next coarser solve; expected about 2)\n");
}

static void print_csv(const mg_solver *s, const mg_config *c, const int pgrid[3], int nranks, const mg_result *res,
                      int nres)
{
    printf("size,ranks,grid,levels,transport,nu,bottom,cycles,converged,max_reduction,reductions,rel_residual,"
           "error_l2,error_max,order_l2,checksum,fmg_median_s,fmg_min_s,fmg_max_s,repeats,dof_per_s,fmg_error_l2,"
           "fmg_rel_residual,level,level_size");
    for (int op = 0; op < MG_NOPS; op++) printf(",%s_s,%s_calls", mg_op_names[op], mg_op_names[op]);
    printf("\n");
    for (int i = 0; i < nres; i++) {
        const mg_result *r = &res[i];
        char reds[64 * 12] = "";
        for (int k = 0; k < r->cycles && k < 64; k++)
            snprintf(reds + strlen(reds), sizeof reds - strlen(reds), "%s%.4f", k ? ";" : "", r->red[k]);
        for (int l = r->fine; l < s->nlev; l++) {
            printf("%d,%d,%dx%dx%d,%d,%s,%d,%s,%d,%d,%.6f,%s,%.6e,%.17g,%.17g,%.6f,0x%016llx,%.6f,%.6f,%.6f,%d,%.6g,"
                   "%.17g,%.6e,%d,%d",
                   r->N, nranks, pgrid[0], pgrid[1], pgrid[2], s->nlev - r->fine, c->transport, c->nu,
                   c->bottom == MG_BOTTOM_CG ? "cg" : "smooth", r->cycles, r->converged, r->max_red, reds, r->rel,
                   r->err_l2, r->err_max, order(res, i, nres), (unsigned long long)r->checksum, r->fmg_med,
                   r->fmg_min, r->fmg_max, c->repeat, pow((double)r->N, 3) / r->fmg_med, r->fmg_err_l2, r->fmg_rel,
                   l - r->fine, s->lev[l].N);
            for (int op = 0; op < MG_NOPS; op++) printf(",%.6f,%ld", r->tm[l].t[op], r->tm[l].n[op]);
            printf("\n");
        }
    }
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
    int pgrid[3], nlev = 0;
    double tol = 0;
    if (hx_cli_any_failed(MPI_COMM_WORLD, plan_levels(&c, nranks, pgrid, &nlev, &tol, err, sizeof err) != 0, err)) return HX_ERR_INPUT;

    hx_context_options co = hx_context_defaults();
    co.backend = HX_BACKEND_CPU;
    hx_context *ctx = NULL;
    int st = hx_context_create(MPI_COMM_WORLD, &co, &ctx);
    if (st != HX_OK) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
        hx_context_destroy(ctx);
        return st;
    }
    mg_solver *s = calloc(1, sizeof *s);
    s->nu = c.nu;
    s->bottom = (mg_bottom_kind)c.bottom;
    s->bottom_sweeps = c.bottom_sweeps;
    s->bottom_tol = 1e-12;
    s->bottom_maxit = 1000;
    st = mg_create(s, ctx, c.size, pgrid, nlev, c.transport, (hx_pattern)c.pattern, err, sizeof err);
    if (st != HX_OK) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", err);
        mg_destroy(s);
        free(s);
        hx_context_destroy(ctx);
        return st;
    }
    mg_result res[3];
    int nres = 3, code = HX_OK;
    for (int i = 0; i < nres; i++) {
        run_size(s, &c, tol, i, &res[i]);
        if (!res[i].converged || res[i].max_red > 0.1) code = HX_ERR_VERIFY;
    }
    if (rank == 0) {
        if (c.format == MG_FORMAT_CSV) print_csv(s, &c, pgrid, nranks, res, nres);
        else print_table(s, &c, pgrid, nranks, tol, res, nres);
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
    hx_context_destroy(ctx);
    return code;
}
