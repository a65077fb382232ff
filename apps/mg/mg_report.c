/* (About 410 lines: the field table is the report; splitting it would split one table.)
 * `halox mg`'s report: one field table (key = CSV column = JSON key) drives CSV and JSON; the
 * table format prints the same results for people. A field belongs to the run (JSON "config"),
 * to one solve size (JSON "solves"[]) or to one level of a solve (JSON "levels"[] inside it); a CSV
 * row is one level of one solve, with the run's and the solve's fields repeated. The CSV columns
 * of the first version keep their positions; later fields are appended. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mg_app.h"

#define MG_REPORT_SCHEMA 1

typedef enum { MF_INT, MF_REAL, MF_STR, MF_HEX, MF_LIST, MF_OPS } mf_type;
typedef enum { MS_RUN, MS_SOLVE, MS_LEVEL } mf_scope;

typedef struct {
    const mg_report *r;
    const mg_result *res; /* the solve */
    int l;                /* the level (absolute index) */
} mf_at;

typedef struct {
    long long i;
    double x;
    const char *s;
    unsigned long long u;
    char buf[64];
} mf_val;

typedef struct {
    const char *key;
    mf_type type;
    mf_scope scope;
    const char *fmt; /* MF_REAL (MF_LIST: each item) */
    void (*get)(const mf_at *at, mf_val *v);
} mf_field;

static double order_at(const mf_at *at)
{
    const int i = (int)(at->res - at->r->res);
    if (i + 1 >= at->r->nres || at->res->err_l2 <= 0) return NAN;
    return log2(at->r->res[i + 1].err_l2 / at->res->err_l2);
}
/* level l is solved on a CPU (rank 0's, or each rank's with --coarse-solve all; the first such level also on the
 * ranks before it: the gather) */
static int on_rank0(const mg_solver *s, int l)
{
    const int cpu = s->agg2 ? s->agg2 : s->agg;
    return cpu > 0 && l >= cpu;
}
/* ranks that share level l's work: every rank, the eighth of the two-step agglomeration, or 1 (a
 * CPU level: rank 0 alone, or every rank the same whole level with --coarse-solve all) */
static int level_ranks(const mg_report *r, int l)
{
    const mg_solver *s = r->s;
    int sub[3];
    mg_fewer_grid(r->pgrid, sub);
    return on_rank0(s, l) ? 1 : s->agg2 && l >= s->agg ? sub[0] * sub[1] * sub[2] : r->nranks;
}
static double fine_cells(const mg_result *q) { return (double)q->shape[0] * q->shape[1] * q->shape[2]; }
static int is_cube(const int n[3]) { return n[0] == n[1] && n[1] == n[2]; }
static int min3(const int v[3]) { return v[0] < v[1] ? (v[0] < v[2] ? v[0] : v[2]) : (v[1] < v[2] ? v[1] : v[2]); }

#define GET(fn) static void fn(const mf_at *at, mf_val *v)
#define C (at->r->c)
#define R (at->res)
GET(g_size) { v->i = R->shape[0]; } /* the x extent (the cube's size) */
GET(g_ranks) { v->i = at->r->nranks; }
GET(g_grid)
{
    snprintf(v->buf, sizeof v->buf, "%dx%dx%d", at->r->pgrid[0], at->r->pgrid[1], at->r->pgrid[2]);
    v->s = v->buf;
}
GET(g_levels) { v->i = at->r->s->ntot - R->fine; }
GET(g_transport) { v->s = C->transport; }
GET(g_nu) { v->i = C->nu; }
GET(g_bottom) { v->s = hx_opt_choice_name(mg_bottoms, C->bottom); }
GET(g_cycles) { v->i = R->cycles; }
GET(g_converged) { v->i = R->converged; }
GET(g_max_red) { v->x = R->max_red; }
GET(g_reductions) { (void)at, (void)v; }
GET(g_rel) { v->x = R->rel; }
GET(g_err_l2) { v->x = R->err_l2; }
GET(g_err_max) { v->x = R->err_max; }
GET(g_order) { v->x = order_at(at); }
GET(g_checksum) { v->u = R->checksum; }
GET(g_fmg_med) { v->x = R->fmg_med; }
GET(g_fmg_min) { v->x = R->fmg_min; }
GET(g_fmg_max) { v->x = R->fmg_max; }
GET(g_repeats) { v->i = C->repeat; }
GET(g_dof) { v->x = fine_cells(R) / R->fmg_med; }
GET(g_fmg_err) { v->x = R->fmg_err_l2; }
GET(g_fmg_rel) { v->x = R->fmg_rel; }
GET(g_level) { v->i = at->l - R->fine; }
GET(g_level_size) { v->i = at->r->s->shape[at->l][0]; }
GET(g_ops) { (void)at, (void)v; }
GET(g_backend) { v->s = at->r->backend; }
GET(g_gpu) { v->s = at->r->gpu; }
GET(g_pattern) { v->s = hx_pattern_name((hx_pattern)C->pattern); }
GET(g_smoother) { v->s = hx_opt_choice_name(mg_smoothers, C->smoother); }
GET(g_degree) { v->i = C->cheby_degree; }
GET(g_problem) { v->s = hx_opt_choice_name(mg_problems, C->problem); }
GET(g_tol) { v->x = at->r->tol; }
GET(g_bottom_sweeps) { v->i = C->bottom_sweeps; }
GET(g_coarse) { v->i = at->r->s->shape[at->r->s->ntot - 1][0]; }
GET(g_fmg_first) { v->x = R->fmg_first; }
GET(g_bottom_iters) { v->i = R->bottom_iters; }
GET(g_version) { (void)at, v->s = HALOX_VERSION; }
GET(g_agglomerate) { v->i = C->agglomerate; }
GET(g_agg_size) { v->i = at->r->s->agg ? at->r->s->shape[at->r->s->agg][0] : 0; }
GET(g_rank0) { v->i = on_rank0(at->r->s, at->l); }
GET(g_agg_s) { v->x = R->tm[at->l].t[MG_AGGLOM]; }
GET(g_agg_calls) { v->i = R->tm[at->l].n[MG_AGGLOM]; }
GET(g_agglomerate_ranks) { v->i = C->agglomerate_ranks; }
GET(g_level_ranks) { v->i = level_ranks(at->r, at->l); }
GET(g_graph) { v->i = mg_graphs_used(at->r->s); }
GET(g_fmg_checksum) { v->u = R->fmg_checksum; }
GET(g_ghosts) { v->i = C->ghosts; }
GET(g_overlap) { v->i = C->overlap; }
GET(g_coarse_solve) { v->s = hx_opt_choice_name(mg_coarse_solves, C->coarse_solve); }
GET(g_shape)
{
    snprintf(v->buf, sizeof v->buf, "%dx%dx%d", R->shape[0], R->shape[1], R->shape[2]);
    v->s = v->buf;
}
#undef C
#undef R
#undef GET

static const mf_field fields[] = {
    {"size", MF_INT, MS_SOLVE, NULL, g_size},
    {"ranks", MF_INT, MS_RUN, NULL, g_ranks},
    {"grid", MF_STR, MS_RUN, NULL, g_grid},
    {"levels", MF_INT, MS_SOLVE, NULL, g_levels},
    {"transport", MF_STR, MS_RUN, NULL, g_transport},
    {"nu", MF_INT, MS_RUN, NULL, g_nu},
    {"bottom", MF_STR, MS_RUN, NULL, g_bottom},
    {"cycles", MF_INT, MS_SOLVE, NULL, g_cycles},
    {"converged", MF_INT, MS_SOLVE, NULL, g_converged},
    {"max_reduction", MF_REAL, MS_SOLVE, "%.6f", g_max_red},
    {"reductions", MF_LIST, MS_SOLVE, "%.4f", g_reductions},
    {"rel_residual", MF_REAL, MS_SOLVE, "%.6e", g_rel},
    {"error_l2", MF_REAL, MS_SOLVE, "%.17g", g_err_l2},
    {"error_max", MF_REAL, MS_SOLVE, "%.17g", g_err_max},
    {"order_l2", MF_REAL, MS_SOLVE, "%.6f", g_order},
    {"checksum", MF_HEX, MS_SOLVE, NULL, g_checksum},
    {"fmg_median_s", MF_REAL, MS_SOLVE, "%.6f", g_fmg_med},
    {"fmg_min_s", MF_REAL, MS_SOLVE, "%.6f", g_fmg_min},
    {"fmg_max_s", MF_REAL, MS_SOLVE, "%.6f", g_fmg_max},
    {"repeats", MF_INT, MS_RUN, NULL, g_repeats},
    {"dof_per_s", MF_REAL, MS_SOLVE, "%.6g", g_dof},
    {"fmg_error_l2", MF_REAL, MS_SOLVE, "%.17g", g_fmg_err},
    {"fmg_rel_residual", MF_REAL, MS_SOLVE, "%.6e", g_fmg_rel},
    {"level", MF_INT, MS_LEVEL, NULL, g_level},
    {"level_size", MF_INT, MS_LEVEL, NULL, g_level_size},
    {"ops", MF_OPS, MS_LEVEL, NULL, g_ops}, /* <op>_s, <op>_calls for each of mg_op_names */
    /* appended after the first version's columns */
    {"backend", MF_STR, MS_RUN, NULL, g_backend},
    {"gpu", MF_STR, MS_RUN, NULL, g_gpu},
    {"pattern", MF_STR, MS_RUN, NULL, g_pattern},
    {"smoother", MF_STR, MS_RUN, NULL, g_smoother},
    {"cheby_degree", MF_INT, MS_RUN, NULL, g_degree},
    {"problem", MF_STR, MS_RUN, NULL, g_problem},
    {"tol", MF_REAL, MS_RUN, "%.6g", g_tol},
    {"bottom_sweeps", MF_INT, MS_RUN, NULL, g_bottom_sweeps},
    {"coarsest", MF_INT, MS_RUN, NULL, g_coarse},
    {"fcycle_rel_residual", MF_REAL, MS_SOLVE, "%.6e", g_fmg_first},
    {"bottom_iters", MF_INT, MS_SOLVE, NULL, g_bottom_iters},
    {"halox_version", MF_STR, MS_RUN, NULL, g_version},
    {"agglomerate", MF_INT, MS_RUN, NULL, g_agglomerate},           /* the option (cells; 0: off) */
    {"agglomerate_size", MF_INT, MS_RUN, NULL, g_agg_size},         /* first level on rank 0 (cells per axis; 0: none) */
    {"rank0", MF_INT, MS_LEVEL, NULL, g_rank0},                     /* 1: this level is solved on the CPU (rank 0's, or every rank's with --coarse-solve all) */
    {"agglomerate_s", MF_REAL, MS_LEVEL, "%.6f", g_agg_s},          /* rank 0's gather and scatter */
    {"agglomerate_calls", MF_INT, MS_LEVEL, NULL, g_agg_calls},
    {"agglomerate_ranks", MF_INT, MS_RUN, NULL, g_agglomerate_ranks}, /* the option (cells; 0: off) */
    {"level_ranks", MF_INT, MS_LEVEL, NULL, g_level_ranks},         /* ranks that smooth this level */
    {"fmg_checksum", MF_HEX, MS_SOLVE, NULL, g_fmg_checksum},       /* u after the timed F-cycles */
    {"graph", MF_INT, MS_RUN, NULL, g_graph},                       /* 1: timed F-cycles replayed from CUDA graphs */
    {"ghosts", MF_INT, MS_RUN, NULL, g_ghosts},                     /* --ghosts: layers (an exchange serves that many GSRB colours) */
    {"overlap", MF_INT, MS_RUN, NULL, g_overlap},                   /* --overlap: GSRB colours split around their exchange */
    {"coarse_solve", MF_STR, MS_RUN, NULL, g_coarse_solve},         /* --coarse-solve: all (every rank) or root */
    {"shape", MF_STR, MS_SOLVE, NULL, g_shape},                     /* the solve's global grid NXxNYxNZ (the last column: scripts read it as $NF) */
};
enum { NF = (int)(sizeof fields / sizeof fields[0]) };

/* one field's value as CSV (json 0) or JSON (json 1) text */
static void put_value(FILE *out, const mf_field *f, const mf_at *at, int json)
{
    mf_val v;
    memset(&v, 0, sizeof v);
    f->get(at, &v);
    switch (f->type) {
    case MF_INT: fprintf(out, "%lld", v.i); break;
    case MF_REAL:
        if (isfinite(v.x)) fprintf(out, f->fmt, v.x);
        else fputs(json ? "null" : "nan", out);
        break;
    case MF_STR:
        if (!v.s) fputs(json ? "null" : "-", out);
        else if (json) fprintf(out, "\"%s\"", v.s); /* names only: no quote or backslash to escape */
        else fputs(v.s, out);
        break;
    case MF_HEX: fprintf(out, json ? "\"0x%016llx\"" : "0x%016llx", v.u); break;
    case MF_LIST: {
        const int n = at->res->cycles < MG_MAX_CYCLES_KEPT ? at->res->cycles : MG_MAX_CYCLES_KEPT;
        if (json) fputc('[', out);
        for (int k = 0; k < n; k++) {
            if (k) fputs(json ? ", " : ";", out);
            fprintf(out, f->fmt, at->res->red[k]);
        }
        if (json) fputc(']', out);
        break;
    }
    case MF_OPS: break;
    }
}

static void put_ops(FILE *out, const mf_at *at, int json, int first)
{
    const mg_timers *tm = &at->res->tm[at->l];
    for (int op = 0; op < MG_NOPS; op++) {
        if (json)
            fprintf(out, "%s\"%s_s\": %.6f, \"%s_calls\": %ld", first && !op ? "" : ", ", mg_op_names[op], tm->t[op],
                    mg_op_names[op], tm->n[op]);
        else fprintf(out, "%s%.6f,%ld", first && !op ? "" : ",", tm->t[op], tm->n[op]);
    }
}

static void print_csv(FILE *out, const mg_report *r)
{
    for (int k = 0; k < NF && r->part == 0; k++) {
        if (fields[k].type == MF_OPS)
            for (int op = 0; op < MG_NOPS; op++) fprintf(out, ",%s_s,%s_calls", mg_op_names[op], mg_op_names[op]);
        else fprintf(out, "%s%s", k ? "," : "", fields[k].key);
    }
    if (r->part == 0) fputc('\n', out);
    for (int i = 0; i < r->nres; i++)
        for (int l = r->res[i].fine; l < r->s->ntot; l++) {
            const mf_at at = {r, &r->res[i], l};
            for (int k = 0; k < NF; k++) {
                if (fields[k].type == MF_OPS) {
                    put_ops(out, &at, 0, k == 0);
                    continue;
                }
                if (k) fputc(',', out);
                put_value(out, &fields[k], &at, 0);
            }
            fputc('\n', out);
        }
}

/* the fields of one scope as JSON members */
static void json_members(FILE *out, const mf_at *at, mf_scope scope, const char *indent)
{
    int first = 1;
    for (int k = 0; k < NF; k++) {
        if (fields[k].scope != scope) continue;
        if (fields[k].type == MF_OPS) {
            fputs(first ? "" : ",", out);
            fprintf(out, "\n%s", indent);
            put_ops(out, at, 1, 1);
        } else {
            fprintf(out, "%s\n%s\"%s\": ", first ? "" : ",", indent, fields[k].key);
            put_value(out, &fields[k], at, 1);
        }
        first = 0;
    }
}

static void print_json(FILE *out, const mg_report *r)
{
    const mf_at run = {r, &r->res[0], 0};
    if (r->parts > 1 && r->part) fputs(",\n", out); /* several transports: mg_main opens and closes the array */
    fprintf(out, "{\n  \"bench\": \"mg\",\n  \"schema\": %d,\n  \"config\": {", MG_REPORT_SCHEMA);
    json_members(out, &run, MS_RUN, "    ");
    fputs("\n  },\n  \"solves\": [", out);
    for (int i = 0; i < r->nres; i++) {
        const mf_at sol = {r, &r->res[i], r->res[i].fine};
        fprintf(out, "%s\n    {", i ? "," : "");
        json_members(out, &sol, MS_SOLVE, "      ");
        fputs(",\n      \"levels\": [", out);
        for (int l = r->res[i].fine; l < r->s->ntot; l++) {
            const mf_at lev = {r, &r->res[i], l};
            fprintf(out, "%s\n        {", l > r->res[i].fine ? "," : "");
            json_members(out, &lev, MS_LEVEL, "          ");
            fputs("\n        }", out);
        }
        fputs("\n      ]\n    }", out);
    }
    fputs(r->parts > 1 ? "\n  ]\n}" : "\n  ]\n}\n", out);
}

static void print_table(FILE *out, const mg_report *r)
{
    const mg_config *c = r->c;
    const mg_solver *s = r->s;
    if (c->problem)
        fprintf(out, "halox mg: a alpha u - b div(beta grad u) = f (a = b = 1, alpha = 1 + xyz, beta = 1 + "
                     "sin(2 pi x) sin(2 pi y) sin(2 pi z) / 4 on faces)\n");
    else fprintf(out, "halox mg: -lap(u) = f\n");
    const int *n0 = s->shape[0];
    char sh[48];
    if (is_cube(n0))
        fprintf(out, "          on the unit cube, cell-centred finite volumes, homogeneous Dirichlet,\n"
                     "          u = sin(pi x) sin(pi y) sin(pi z), double precision\n");
    else /* a box of cubic cells (docs/multigrid.md) */
        fprintf(out, "          on [0, Lx] x [0, Ly] x [0, Lz] = [0, %g] x [0, %g] x [0, %g] (cubes of width h = 1/%d),\n"
                     "          cell-centred finite volumes, homogeneous Dirichlet,\n"
                     "          u = sin(pi x/Lx) sin(pi y/Ly) sin(pi z/Lz)%s, double precision\n",
                s->lev[0].g.L[0], s->lev[0].g.L[1], s->lev[0].g.L[2], min3(n0),
                c->problem ? " (alpha, beta: x, y, z as x/Lx, y/Ly, z/Lz)" : "");
    fprintf(out, "  %s cells, %d rank%s (grid %dx%dx%d), %d levels:", mg_shape_text(sh, sizeof sh, n0), r->nranks,
            r->nranks == 1 ? "" : "s", r->pgrid[0], r->pgrid[1], r->pgrid[2], s->ntot);
    for (int l = 0; l < s->ntot; l++)
        fprintf(out, " %s%s", mg_shape_text(sh, sizeof sh, s->shape[l]),
                on_rank0(s, l) ? "*" : s->agg2 && l >= s->agg ? "+" : "");
    if (s->agg2)
        fprintf(out, "\n  + on %d rank%s (--agglomerate-ranks %ld: f of %s gathered and handed to them, the correction "
                     "back)", level_ranks(r, s->agg), level_ranks(r, s->agg) == 1 ? "" : "s", c->agglomerate_ranks,
                mg_shape_text(sh, sizeof sh, s->shape[s->agg]));
    if (s->agg && s->redundant && !s->agg2)
        fprintf(out, "\n  * on the CPU, the same solve on every rank (--agglomerate %ld, --coarse-solve all: f of %s "
                     "gathered onto every rank, each takes its own block of the correction)",
                c->agglomerate, mg_shape_text(sh, sizeof sh, s->shape[s->agg]));
    else if (s->agg)
        fprintf(out, "\n  * on %s, on the CPU (--agglomerate %ld: f of %s gathered, its correction scattered)",
                s->agg2 && s->redundant ? "each of those ranks alone" : "rank 0 alone", c->agglomerate,
                mg_shape_text(sh, sizeof sh, s->shape[s->agg2 ? s->agg2 : s->agg]));
    fprintf(out, "\n  backend %s%s%s, transport %s, pattern %s\n", r->backend, r->gpu ? " " : "", r->gpu ? r->gpu : "",
            c->transport, hx_pattern_name((hx_pattern)c->pattern));
    if (c->smoother == MG_SMOOTHER_CHEBY)
        fprintf(out, "  V-cycle: %d+%d Chebyshev smoothings of degree %d (interval [%g/%g, %g] of D^-1 A)", c->nu, c->nu,
                c->cheby_degree, s->lambda_max, s->cheby_ratio, s->lambda_max);
    else
        fprintf(out, "  V-cycle: %d+%d red-black Gauss-Seidel sweeps (%s)", c->nu, c->nu,
                c->ghosts > 1 ? "deep ghosts: an exchange serves up to --ghosts colours" : "an exchange before each colour");
    fprintf(out, ", piecewise-constant restriction and interpolation; bottom %s",
            c->bottom == MG_BOTTOM_CG       ? "CG (relative residual 1e-12)"
            : c->bottom == MG_BOTTOM_DIRECT ? "direct (Cholesky)"
            : c->bottom == MG_BOTTOM_AUTO   ? "direct (Cholesky) on one rank, else CG"
                                            : "smoother");
    if (c->bottom == MG_BOTTOM_SMOOTH) fprintf(out, " (%d)", c->bottom_sweeps);
    fprintf(out, "\n  FMG (F-cycle): trilinear interpolation, one V-cycle per level; %d timed solves after 1 warm-up\n",
            c->repeat);
    for (int i = 0; i < r->nres; i++) {
        const mg_result *q = &r->res[i];
        fprintf(out, "\nsolve %s (%dh): one F-cycle, then V-cycles to ||r||/||f|| < %.3g\n",
                mg_shape_text(sh, sizeof sh, q->shape), 1 << i, r->tol);
        fprintf(out, "  %5s %14s %10s\n", "cycle", "||r||/||f||", "reduction");
        double rel = q->fmg_first;
        fprintf(out, "  %5s %14.3e %10.4f   (the F-cycle from u = 0)\n", "FMG", rel, rel);
        for (int k = 0; k < q->cycles && k < MG_MAX_CYCLES_KEPT; k++) {
            rel *= q->red[k];
            fprintf(out, "  %5d %14.3e %10.4f\n", k + 1, rel, q->red[k]);
        }
        fprintf(out, "  %s after %d V-cycles, max reduction %.4f; error vs exact: L2 %.6e  max %.6e; checksum 0x%016llx\n",
                q->converged ? "converged" : "NOT converged", q->cycles, q->max_red, q->err_l2, q->err_max,
                (unsigned long long)q->checksum);
        fprintf(out, "  FMG: %.6f s median (min %.6f, max %.6f) over %d, %.4g DOF/s; error L2 %.6e (%.2fx the converged), "
                     "||r||/||f|| %.3e\n",
                q->fmg_med, q->fmg_min, q->fmg_max, c->repeat, fine_cells(q) / q->fmg_med, q->fmg_err_l2,
                q->fmg_err_l2 / q->err_l2, q->fmg_rel);
        const int nops = s->agg ? MG_NTIMERS : MG_NOPS; /* the agglomerate column only when it is used */
        const int mw = s->agg2 ? 12 : s->agg ? 9 : 0; /* the "(CPU)" and "(N ranks)" marks */
        const int cw = (int)strlen(mg_shape_text(sh, sizeof sh, q->shape)) > 8 ? (int)strlen(sh) : 8;
        fprintf(out, "  %-6s %*s%*s", "level", cw, "cells", mw, "");
        for (int op = 0; op < nops; op++) fprintf(out, " %20s", mg_op_names[op]);
        fprintf(out, "\n  %-6s %*s%*s", "", cw, "", mw, "");
        for (int op = 0; op < nops; op++) fprintf(out, " %20s", "s / calls");
        fprintf(out, "\n");
        mg_timers tot;
        memset(&tot, 0, sizeof tot);
        for (int l = q->fine; l < s->ntot; l++) {
            char mark[24] = "";
            if (on_rank0(s, l)) snprintf(mark, sizeof mark, " (CPU)");
            else if (s->agg2 && l >= s->agg) snprintf(mark, sizeof mark, " (%d rank%s)", level_ranks(r, l), level_ranks(r, l) == 1 ? "" : "s");
            fprintf(out, "  %-6d %*s%*s", l - q->fine, cw, mg_shape_text(sh, sizeof sh, s->shape[l]), mw, mark);
            for (int op = 0; op < nops; op++) {
                fprintf(out, " %11.6f / %6ld", q->tm[l].t[op], q->tm[l].n[op]);
                tot.t[op] += q->tm[l].t[op];
                tot.n[op] += q->tm[l].n[op];
            }
            fprintf(out, "\n");
        }
        fprintf(out, "  %-6s %*s%*s", "total", cw, "", mw, "");
        for (int op = 0; op < nops; op++) fprintf(out, " %11.6f / %6ld", tot.t[op], tot.n[op]);
        fprintf(out, "\n  (summed over %d solves run after the timed ones, timed step by step; max over ranks; "
                     "bottom includes its own exchanges%s; "
                     "CG iterations %ld%s)\n",
                c->repeat, c->bottom == MG_BOTTOM_SMOOTH ? " and smoothing" : "", q->bottom_iters,
                s->agg2  ? "; (N ranks), (CPU): those ranks' time, the first such level also the finer ranks' "
                           "restriction and exchange into it; agglomerate: rank 0's gather and hand-back"
                : s->agg ? "; (CPU): one rank's CPU solve, the first such level also the ranks' restriction and "
                           "exchange into it; agglomerate: rank 0's gather and hand-back" : "");
    }
    const int sw = (int)strlen(mg_shape_text(sh, sizeof sh, n0)) > 8 ? (int)strlen(sh) : 8;
    fprintf(out, "\n%-*s %14s %14s %10s %10s %8s %10s %12s %14s\n", sw, "size", "error L2", "error max", "order L2",
            "order max", "cycles", "max red.", "FMG s", "DOF/s");
    for (int i = 0; i < r->nres; i++) {
        const mg_result *q = &r->res[i];
        const mf_at at = {r, q, q->fine};
        const double om = i + 1 < r->nres ? log2(r->res[i + 1].err_max / q->err_max) : NAN;
        fprintf(out, "%-*s %14.6e %14.6e %10.4f %10.4f %8d %10.4f %12.6f %14.4g\n", sw,
                mg_shape_text(sh, sizeof sh, q->shape), q->err_l2, q->err_max, order_at(&at), om, q->cycles, q->max_red,
                q->fmg_med, fine_cells(q) / q->fmg_med);
    }
    fprintf(out, "(order: log2(e_2h / e_h) from the next coarser solve; expected about 2)\n");
}

void mg_report_print(FILE *out, const mg_report *r)
{
    if (r->c->format == MG_FORMAT_CSV) print_csv(out, r);
    else if (r->c->format == MG_FORMAT_JSON) print_json(out, r);
    else print_table(out, r);
    fflush(out);
}
