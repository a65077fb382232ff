/* Private to `halox tune` (tune.c searches, tune_report.c prints): a candidate and the search state. */
#ifndef HALOX_TUNE_PRIV_H
#define HALOX_TUNE_PRIV_H

#include <string.h>

#include "halox/halox.h"
#include "run.h"

#define TUNE_MAX_CANDS 512
#define TUNE_IMPROVE 0.02 /* a candidate must be 2% faster to count as better */

typedef struct {
    char transport[32];
    int depth;
    hx_pattern pattern;
    int overlap, fuse, graph;
    hx_schedule schedule;
    int ran;      /* 1 ran, 0 skipped */
    double us;    /* time per sweep */
    double seg[HX_NUM_SEGS];
    int timed;    /* segments timed apart */
    char note[200];
} cand;

typedef struct {
    int rank, nranks;
    hx_config base; /* the problem */
    cand c[TUNE_MAX_CANDS];
    int n;
    double t0, last_wall, budget;
    int stopped; /* the budget ran out */
    int quiet;
} tuner;

static inline const char *schedule_name(hx_schedule s) { return hx_schedule_name(s); }

/* "ipc depth 8 direct overlap on fuse 4": one line naming candidate c. */
void tune_describe(const cand *c, char *buf, size_t n);

static inline void apply(hx_config *cfg, const cand *c)
{
    snprintf(cfg->transport, sizeof cfg->transport, "%s", c->transport);
    cfg->depth = c->depth;
    cfg->pattern = c->pattern;
    cfg->overlap = c->overlap;
    cfg->fuse = c->fuse;
    cfg->graph = c->graph;
    cfg->schedule = c->schedule;
}

static inline int same(const cand *a, const cand *b)
{
    return !strcmp(a->transport, b->transport) && a->depth == b->depth && a->pattern == b->pattern &&
           a->overlap == b->overlap && a->fuse == b->fuse && a->graph == b->graph && a->schedule == b->schedule;
}

static inline double exchange_us(const cand *c) { return c->seg[HX_SEG_PACK] + c->seg[HX_SEG_MESSAGE] + c->seg[HX_SEG_UNPACK]; }
static inline double compute_us(const cand *c) { return c->seg[HX_SEG_INNER] + c->seg[HX_SEG_OUTER] + c->seg[HX_SEG_COMPUTE]; }

/* The halox run command line that reproduces candidate c. */
void tune_command_line(const tuner *t, const cand *c, char *buf, size_t n);
/* The winner w, the runner-up r (or NULL), and why w wins, on rank 0's stdout. */
void tune_report(const tuner *t, const cand *w, const cand *r, double spent, int ran, int skipped);

#endif
