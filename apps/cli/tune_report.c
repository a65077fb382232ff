/* `halox tune`'s output: the winner, the runner-up, their segments, why the winner wins, and the
 * halox run command line that reproduces it (the search is in tune.c). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tune_priv.h"

void tune_describe(const cand *c, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%s depth %d %s overlap %s", c->transport, c->depth, hx_pattern_name(c->pattern),
                     c->overlap ? "on" : "off");
    if (k < 0 || (size_t)k >= n) return;
    if (c->fuse > 1) k += snprintf(buf + k, n - (size_t)k, " fuse %d", c->fuse);
    if (k < 0 || (size_t)k >= n) return;
    if (c->graph) k += snprintf(buf + k, n - (size_t)k, " graph on");
    if (k < 0 || (size_t)k >= n) return;
    if (c->schedule != HX_SCHEDULE_CYCLE) snprintf(buf + k, n - (size_t)k, " schedule %s", schedule_name(c->schedule));
}

static void print_dims(char *buf, size_t n, const int *v, int dim)
{
    if (dim == 3) snprintf(buf, n, "%dx%dx%d", v[0], v[1], v[2]);
    else snprintf(buf, n, "%dx%d", v[0], v[1]);
}

/* The halox run command line that reproduces candidate c. */
void tune_command_line(const tuner *t, const cand *c, char *buf, size_t n)
{
    const hx_config *b = &t->base;
    char exe[2048] = "halox", sz[64];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) exe[len] = 0;
    else snprintf(exe, sizeof exe, "halox");
    print_dims(sz, sizeof sz, b->size, b->dim);
    int k = snprintf(buf, n, "mpirun -np %d %s run --size %s --stencil %s --dtype %s --boundary %s --iters %ld --backend %s",
                     t->nranks, exe, sz, hx_stencil_get(b->stencil)->name, hx_dtype_name(b->dtype),
                     hx_boundary_name(b->boundary), b->iters, hx_backend_name(b->backend));
#define ADD(...)                                                                   \
    do {                                                                           \
        if (k >= 0 && (size_t)k < n) k += snprintf(buf + k, n - (size_t)k, __VA_ARGS__); \
    } while (0)
    if (b->seed != 42) ADD(" --seed %llu", (unsigned long long)b->seed);
    if (b->grid[0]) {
        print_dims(sz, sizeof sz, b->grid, b->dim);
        ADD(" --grid %s", sz);
    }
    if (b->devices[0]) ADD(" --devices %s", b->devices);
    ADD(" --transport %s --depth %d --pattern %s --overlap=%s", c->transport, c->depth, hx_pattern_name(c->pattern),
        c->overlap ? "on" : "off");
    if (c->fuse > 1) ADD(" --fuse %d", c->fuse);
    if (c->graph) ADD(" --graph");
    if (c->schedule != HX_SCHEDULE_CYCLE) ADD(" --schedule %s", schedule_name(c->schedule));
    if (b->repeat > 1) ADD(" --repeat %d", b->repeat);
    if (b->warmup != 10) ADD(" --warmup %d", b->warmup);
    if (b->desync_barrier) ADD(" --desync-barrier");
    if (b->norm_every > 0) ADD(" --norm-every %ld", b->norm_every);
#undef ADD
}

/* "depth 8 (runner-up 4), pattern staged (runner-up direct)": what the winner changes. */
static void differences(const cand *w, const cand *r, char *buf, size_t n)
{
    int k = 0;
    buf[0] = 0;
#define ADD(...)                                                                                           \
    do {                                                                                                   \
        if (k >= 0 && (size_t)k < n) k += snprintf(buf + k, n - (size_t)k, "%s", k ? ", " : "");            \
        if (k >= 0 && (size_t)k < n) k += snprintf(buf + k, n - (size_t)k, __VA_ARGS__);                    \
    } while (0)
    if (strcmp(w->transport, r->transport)) ADD("transport %s (runner-up %s)", w->transport, r->transport);
    if (w->depth != r->depth) ADD("depth %d (runner-up %d)", w->depth, r->depth);
    if (w->pattern != r->pattern) ADD("pattern %s (runner-up %s)", hx_pattern_name(w->pattern), hx_pattern_name(r->pattern));
    if (w->overlap != r->overlap) ADD("overlap %s (runner-up %s)", w->overlap ? "on" : "off", r->overlap ? "on" : "off");
    if (w->fuse != r->fuse) ADD("fuse %d (runner-up %d)", w->fuse, r->fuse);
    if (w->graph != r->graph) ADD("graph %s (runner-up %s)", w->graph ? "on" : "off", r->graph ? "on" : "off");
    if (w->schedule != r->schedule)
        ADD("schedule %s (runner-up %s)", schedule_name(w->schedule), schedule_name(r->schedule));
#undef ADD
}

void tune_report(const tuner *t, const cand *w, const cand *r, double spent, int ran, int skipped)
{
    const hx_config *b = &t->base;
    char sz[64], what[160];
    print_dims(sz, sizeof sz, b->size, b->dim);
    printf("halox tune\n");
    printf("  problem  size %s, stencil %s, dtype %s, boundary %s, iters %ld, ranks %d, backend %s, repeats %d\n", sz,
           hx_stencil_get(b->stencil)->name, hx_dtype_name(b->dtype), hx_boundary_name(b->boundary), b->iters,
           t->nranks, hx_backend_name(b->backend), b->repeat);
    printf("  search   %d candidates run, %d skipped, %.1f s of a %.0f s budget%s\n\n", ran, skipped, spent, t->budget,
           t->stopped ? " (budget spent: search cut short)" : "");
    tune_describe(w, what, sizeof what);
    printf("winner     %-52s %11.2f us/sweep\n", what, w->us);
    if (r) {
        tune_describe(r, what, sizeof what);
        printf("runner-up  %-52s %11.2f us/sweep  (%.2fx the winner's time)\n", what, r->us, w->us > 0 ? r->us / w->us : 0);
    } else {
        printf("runner-up  none: only one candidate ran\n");
    }
    printf("\n%-10s %14s %14s\n", "segment", "winner", r ? "runner-up" : "");
    printf("%-10s %14s %14s\n", "", "us/sweep", r ? "us/sweep" : "");
    for (int g = 0; g < HX_NUM_SEGS; g++) {
        char a[32], c[32];
        if (w->timed || g == HX_SEG_TOTAL) snprintf(a, sizeof a, "%.2f", w->seg[g]);
        else snprintf(a, sizeof a, "-");
        if (!r) {
            printf("%-10s %14s\n", hx_segment_names[g], a);
            continue;
        } else if (r->timed || g == HX_SEG_TOTAL) snprintf(c, sizeof c, "%.2f", r->seg[g]);
        else snprintf(c, sizeof c, "-");
        printf("%-10s %14s %14s\n", hx_segment_names[g], a, c);
    }
    printf("\n");
    /* why */
    if (!r) {
        printf("why: the only candidate that ran\n");
        return;
    }
    char diff[400];
    differences(w, r, diff, sizeof diff);
    double gain = r->us > 0 ? 100.0 * (r->us - w->us) / r->us : 0;
    if (w->timed && r->timed) {
        double ew = exchange_us(w), er = exchange_us(r), cw = compute_us(w), cr = compute_us(r);
        printf("why: %s %s exchange (pack+message+unpack) per sweep from %.2f to %.2f us while compute "
               "(inner+outer+compute) %s by %.2f us: %.1f%% less time per sweep%s\n",
               diff, ew <= er ? "cuts" : "raises", er, ew, cw >= cr ? "grows" : "shrinks", cw >= cr ? cw - cr : cr - cw,
               gain, gain < 100 * TUNE_IMPROVE ? " (within noise: a larger --repeat separates them)" : "");
    } else {
        printf("why: %s: %.2f vs %.2f us per sweep (%.1f%% less; segments are not timed apart in a whole-cycle graph "
               "or a device schedule)%s\n",
               diff, w->us, r->us, gain, gain < 100 * TUNE_IMPROVE ? " (within noise: a larger --repeat separates them)" : "");
    }
}

