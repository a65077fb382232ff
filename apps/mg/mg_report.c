/* `halox mg`'s report: one field table (key = CSV column = JSON key) drives CSV and JSON; the
 * table format (mg_report_table.c) prints the same results for people. A field belongs to the run
 * (JSON "config"), to one solve size (JSON "solves"[]) or to one level of a solve (JSON "levels"[]
 * inside it); a CSV row is one level of one solve, with the run's and the solve's fields repeated.
 * Columns keep their positions from version to version: new fields are appended. */
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
int mg_level_on_cpu(const mg_solver *s, int l)
{
    const int cpu = s->agg2 ? s->agg2 : s->agg;
    return cpu > 0 && l >= cpu;
}
int mg_level_ranks(const mg_report *r, int l)
{
    const mg_solver *s = r->s;
    int sub[3];
    mg_fewer_grid(r->pgrid, sub);
    return mg_level_on_cpu(s, l) ? 1 : s->agg2 && l >= s->agg ? sub[0] * sub[1] * sub[2] : r->nranks;
}
static double fine_cells(const mg_result *q) { return (double)q->shape[0] * q->shape[1] * q->shape[2]; }

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
GET(g_rank0) { v->i = mg_level_on_cpu(at->r->s, at->l); }
GET(g_agg_s) { v->x = R->tm[at->l].t[MG_AGGLOM]; }
GET(g_agg_calls) { v->i = R->tm[at->l].n[MG_AGGLOM]; }
GET(g_agglomerate_ranks) { v->i = C->agglomerate_ranks; }
GET(g_level_ranks) { v->i = mg_level_ranks(at->r, at->l); }
GET(g_graph) { v->i = mg_graphs_used(at->r->s); }
GET(g_fmg_checksum) { v->u = R->fmg_checksum; }
GET(g_ghosts) { v->i = C->ghosts; }
GET(g_overlap) { v->i = C->overlap; }
GET(g_fuse_colours) { v->s = hx_opt_choice_name(mg_fuses, C->fuse_colours); }
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
    /* appended in later versions */
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
    {"fuse_colours", MF_STR, MS_RUN, NULL, g_fuse_colours},         /* --fuse-colours: auto, on or off (GSRB colours in one pass, CUDA) */
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

void mg_report_print(FILE *out, const mg_report *r)
{
    if (r->c->format == MG_FORMAT_CSV) print_csv(out, r);
    else if (r->c->format == MG_FORMAT_JSON) print_json(out, r);
    else mg_report_table(out, r);
    fflush(out);
}
