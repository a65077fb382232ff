/* Private to `halox tune`: tune.c parses and drives, tune_search.c searches, tune_report.c prints. */
#ifndef HALOX_TUNE_PRIV_H
#define HALOX_TUNE_PRIV_H

#include <string.h>

#include "halox/halox.h"
#include "run.h"

#define TUNE_MAX_CANDS 4096
#define TUNE_IMPROVE 0.02 /* a candidate must be 2% faster to count as better */

/* Which search asked for a candidate (both, when the grid meets one the staged search ran). */
enum { TUNE_STAGED = 1u, TUNE_GRID = 2u };

typedef struct {
    char transport[32];
    hx_schedule schedule;
    hx_kernel kernel;
    int depth, fuse;
    hx_pattern pattern;
    int overlap, graph;
    unsigned found;      /* TUNE_STAGED | TUNE_GRID */
    int ran;             /* 1 ran, 0 refused at set-up */
    double us;           /* median time per sweep of the slowest rank */
    double seg[HX_NUM_SEGS];
    int timed;           /* segments timed apart */
    char kernel_ran[32]; /* device schedules: the kernel family that ran */
    char note[200];      /* why it was refused */
} cand;

typedef struct {
    int rank, nranks;
    hx_config base;      /* the problem */
    int cuda, radius;    /* the backend resolved; the stencil's radius */
    cand c[TUNE_MAX_CANDS];
    int n;
    unsigned stage;      /* the search running now (TUNE_STAGED or TUNE_GRID) */
    double t0, last_wall;
    double budget;       /* seconds for the staged search (the grid has none) */
    int stopped;         /* the budget ran out */
    int quiet;
    int pruned[3];       /* per search (index = stage): combinations left out as halox run would refuse them */
    int aliased[3];      /* explicit kernels that auto already ran */
    double spent[3];     /* seconds per search */
    char **run_args;     /* the problem options as given, for the printed command line */
    int nrun_args, repeat_given;
} tuner;

/* The staged search (schedule x kernel at a few depths, then depth and fuse around the best) within
 * t->budget, and the full grid (transport x schedule x kernel x depth x fuse) without a budget.
 * transports: the names to search. Collective. */
void tune_staged(tuner *t, char *const *transports, int ntr);
void tune_grid(tuner *t, char *const *transports, int ntr);

/* The fastest candidate that ran and that the searches in `found` asked for, or NULL;
 * the second fastest when `not` is given. */
const cand *tune_best(const tuner *t, unsigned found, const cand *not);

/* Run cfg with rank 0's report thrown away and every rank's stderr captured; the first error line
 * of the lowest rank that wrote one comes back in note on every rank. Returns the worst exit code. */
int tune_quiet_run(const hx_config *cfg, int rank, int nranks, char *note, size_t notelen);

static inline void apply(hx_config *cfg, const cand *c)
{
    snprintf(cfg->transport, sizeof cfg->transport, "%s", c->transport);
    cfg->schedule = c->schedule;
    cfg->kernel = c->kernel;
    cfg->depth = c->depth;
    cfg->fuse = c->fuse;
    cfg->pattern = c->pattern;
    cfg->overlap = c->overlap;
    cfg->graph = c->graph;
}

static inline int same(const cand *a, const cand *b)
{
    return !strcmp(a->transport, b->transport) && a->schedule == b->schedule && a->kernel == b->kernel &&
           a->depth == b->depth && a->fuse == b->fuse && a->pattern == b->pattern && a->overlap == b->overlap &&
           a->graph == b->graph;
}

static inline double exchange_us(const cand *c) { return c->seg[HX_SEG_PACK] + c->seg[HX_SEG_MESSAGE] + c->seg[HX_SEG_UNPACK]; }
static inline double compute_us(const cand *c) { return c->seg[HX_SEG_INNER] + c->seg[HX_SEG_OUTER] + c->seg[HX_SEG_COMPUTE]; }

/* "ipc depth 16 direct overlap on schedule persistent kernel resident": one line naming c. */
void tune_describe(const cand *c, char *buf, size_t n);
/* One progress line on rank 0's stderr (not under --quiet). */
void tune_progress(const tuner *t, const cand *c, int best);
/* The halox run command line that reproduces c: the problem options as given, then every searched one. */
void tune_command_line(const tuner *t, const cand *c, char *buf, size_t n);
/* The winner w, the runner-up r (or NULL), and why w wins, on rank 0's stdout. */
void tune_report(const tuner *t, const cand *w, const cand *r, unsigned found, int ran, int skipped);
/* The staged winner beside the grid's best, with the ratio of their times. */
void tune_compare(const tuner *t, const cand *staged, const cand *grid);
/* Every candidate as CSV, or JSON when path ends in .json ("-": stdout). Returns 0 or -1. */
int tune_write_candidates(const tuner *t, const char *path);

#endif
