/* `halox mg`: what the command (mg_main.c) hands to its report (mg_report.c). */
#ifndef HALOX_MG_APP_H
#define HALOX_MG_APP_H

#include <stdint.h>
#include <stdio.h>

#include "mg.h"
#include "options.h"

/* --problem, --smoother and --bottom's names (mg_options.c), which the report prints too */
extern const hx_opt_choice mg_problems[], mg_smoothers[], mg_bottoms[], mg_coarse_solves[], mg_fuses[];
/* `halox mg`'s option table (mg_options.c) */
extern const hx_command mg_command;

typedef enum { MG_FORMAT_TABLE = 0, MG_FORMAT_CSV = 1, MG_FORMAT_JSON = 2 } mg_format;

#define MG_MAX_TRANSPORTS 8 /* --transport A,B,...: solved one after the other in one job */

typedef struct {
    char size[32];        /* --size as given: N or NXxNYxNZ (mg_plan parses it) */
    int size_seen;
    int size_per_rank;    /* --size-per-rank N (0: not given) */
    int shape[3];         /* the global grid (mg_plan) */
    int grid[3];
    int grid_n;
    int coarse;
    long agglomerate;     /* cells: levels at or below it go to rank 0 (0: off); mg_plan sets it when not given */
    int agglomerate_seen; /* --agglomerate given; else automatic (MG_AUTO_AGGLOMERATE where the grid allows) */
    long agglomerate_ranks; /* cells: a first step, levels at or below it on an eighth of the ranks (0: off) */
    int coarse_solve;     /* --coarse-solve: 1 every rank solves the CPU's levels (all), 0 rank 0 alone (root) */
    int nu;
    int nu_seen;
    int smoother;
    int ghosts;           /* --ghosts: ghost layers of the fields (an exchange serves that many smoother steps) */
    int ghosts_seen;
    int cheby_degree;
    int problem;
    int bottom;
    int bottom_sweeps;
    char tol[32];
    int max_cycles;
    int repeat;
    int backend;
    char transport[64];   /* --transport as given: NAME, NAME,NAME,... or all */
    int pattern;
    int format;
    int schedule;         /* --schedule: cycle only (mg_plan says why) */
    int graph;            /* --graph: F-cycles replayed from CUDA graphs where they can be */
    int overlap;          /* --overlap: GSRB colours split around their exchange */
    int fuse_colours;     /* --fuse-colours: both GSRB colours of a sweep in one pass (CUDA; mg_fuse_kind) */
    int ntransports;      /* --transport split by mg_plan (all: every transport of this build) */
    char transports[MG_MAX_TRANSPORTS][24];
    int transports_all;   /* --transport all: transports that cannot be set up here are skipped */
} mg_config;

#define MG_MAX_CYCLES_KEPT 64
/* --agglomerate when not given: levels of at most 16^3 cells on rank 0's CPU, where they cost less
 * than as GPU kernel launches; larger ones cost more there than the GPUs save (docs/performance.md). */
#define MG_AUTO_AGGLOMERATE 4096

typedef struct {
    int fine;             /* level index of the fine grid */
    int shape[3];         /* its global grid */
    int cycles;
    double red[MG_MAX_CYCLES_KEPT]; /* residual reduction of each V-cycle (the first 64) */
    double max_red;
    double rel;           /* final ||r|| / ||f|| */
    double fmg_first;     /* ||r|| / ||f|| after the F-cycle that starts the solve */
    int converged;
    double err_l2, err_max;
    uint64_t checksum;
    uint64_t fmg_checksum; /* u after the timed F-cycles (equal to the step-by-step ones', checked) */
    double fmg_med, fmg_min, fmg_max;
    double fmg_err_l2, fmg_rel;
    long bottom_iters;
    mg_timers tm[MG_MAX_LEVELS]; /* timed FMG solves, summed; max over ranks (rank 0 alone below agg) */
} mg_result;

typedef struct {
    const mg_config *c;
    const mg_solver *s;
    int pgrid[3];
    int nranks;
    double tol;
    const char *backend;  /* "cpu" or "cuda" */
    const char *gpu;      /* rank 0's GPU, NULL on the CPU */
    const mg_result *res;
    int nres;
    int part, parts;      /* the reports printed before this one, of how many transports asked for (CSV: one
                             header; JSON: with parts > 1 an array, opened and closed by the caller) */
} mg_report;

/* Rank 0: the report in c->format (table, CSV or JSON, from one field table). */
void mg_report_print(FILE *out, const mg_report *r);
/* the table format (mg_report_table.c) */
void mg_report_table(FILE *out, const mg_report *r);
/* 1 when level l is solved on a CPU (rank 0's, or each rank's with --coarse-solve all; the first
 * such level also on the ranks before it: the gather) */
int mg_level_on_cpu(const mg_solver *s, int l);
/* ranks that share level l's work: every rank, the eighth of the two-step agglomeration, or 1 (a
 * CPU level: rank 0 alone, or every rank the same whole level with --coarse-solve all) */
int mg_level_ranks(const mg_report *r, int l);

/* mg_compare.c: several transports of one job side by side, per level of the fine solve: exchange
 * time, its share of the level's work, the gain over the first transport; F-cycle times; whether
 * the solutions are bit-identical. Rank 0, table format. */
typedef struct {
    int n;                                   /* transports that ran */
    int graph[MG_MAX_TRANSPORTS];            /* 1: its timed F-cycles were replayed from CUDA graphs */
    char name[MG_MAX_TRANSPORTS][24];
    mg_result res[MG_MAX_TRANSPORTS][3];     /* each one's solves at h, 2h, 4h */
    int ntot, agg, agg_cpu, repeat;           /* agg_cpu: the first level on rank 0's CPU (0: none) */
    int shape[MG_MAX_LEVELS][3];             /* the global grid of every level */
} mg_compare;
void mg_compare_print(FILE *out, const mg_compare *m);
/* 0 when every transport's solutions equal the first's bit for bit; else -1 with a line in err */
int mg_compare_check(const mg_compare *m, char *err, size_t n);

/* mg_plan.c, on every rank before any computation: parse --size (or --size-per-rank) into
 * c->shape, choose or check the process grid, count the levels (*nlev), find the agglomeration
 * levels (agg[0]: the first level off the job's ranks, 0 = none; agg[1]: with
 * --agglomerate-ranks, the first level on rank 0's CPU, levels agg[0] .. agg[1]-1 running on an
 * eighth of the ranks; else 0) and parse --tol. Returns 0, or -1 with a one-line message in err. */
int mg_plan(mg_config *c, int nranks, int pgrid[3], int *nlev, int agg[2], double *tol, char *err, size_t n);
/* "64^3" for a cubic grid, else "64x32x32" */
const char *mg_shape_text(char *buf, size_t n, const int shape[3]);

#endif
