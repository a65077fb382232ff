/* `halox tune`'s searches. Every candidate is one in-process hx_run of the same problem on every
 * rank (in lockstep), read back through hx_last_run(). A combination that halox run would refuse
 * (hx_config_check, a GPU-only option on the CPU, a kernel its schedule cannot run) is pruned before
 * anything starts; one the library refuses at set-up is kept as skipped, with the reason.
 *
 * Staged search, within the budget:
 *   1. every transport, schedule cycle, depth 1, pattern direct, overlap on;
 *   2. cuda: every transport with a device path, schedules persistent and fused (kernel auto) at
 *      depth 8, or the deepest of 4, 2, 1 the blocks allow;
 *   3. the best three (transport, schedule) pairs: cycle doubles the depth while it pays (stopping
 *      when compute is TUNE_PRUNE times the exchange); a device schedule tries every kernel it can
 *      run at depths 1, 4 and 16;
 *   4. the best two (transport, schedule, kernel) found: depth up and down the ladder
 *      1,2,4,8,12,16,24,32,48,64 while it pays, then fuse 2, 4, 8 and one sweep either side (with
 *      the depth climbed again after a fused win), then pattern, overlap and graph flipped.
 * The budget is rank 0's clock, broadcast before each candidate so every rank stops at the same one.
 *
 * Grid search: transport x schedule x kernel x depth (the ladder) x fuse (1..8), pattern direct,
 * overlap on, graph off, without a budget; a transport that refuses its baseline is left out, and so
 * is a schedule's kernel that the library refused three times before it ran once. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tune_priv.h"

#define TUNE_PRUNE 20.0 /* compute / exchange per sweep above which cycle's depth doubling stops */
#define TUNE_FAMILIES 3 /* (transport, schedule) pairs that step 3 explores */

static const int ladder[] = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64};
#define NLADDER ((int)(sizeof ladder / sizeof ladder[0]))

int tune_quiet_run(const hx_config *cfg, int rank, int nranks, char *note, size_t notelen)
{
    char buf[4096] = "";
    int pfd[2] = {-1, -1};
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
        dup2(devnull, 1);
        close(devnull);
    }
    if (pipe(pfd) == 0) {
        fcntl(pfd[0], F_SETFL, O_NONBLOCK);
        fcntl(pfd[1], F_SETFL, O_NONBLOCK); /* a full pipe drops text instead of blocking the run */
        dup2(pfd[1], 2);
        close(pfd[1]);
    }
    int code = hx_run(cfg, MPI_COMM_WORLD);
    fflush(stdout);
    fflush(stderr);
    if (saved_out >= 0) dup2(saved_out, 1), close(saved_out);
    if (saved_err >= 0) dup2(saved_err, 2), close(saved_err);
    if (pfd[0] >= 0) {
        ssize_t got = read(pfd[0], buf, sizeof buf - 1);
        buf[got > 0 ? got : 0] = 0;
        close(pfd[0]);
    }
    /* the line to report: "halox: error: X" or "halox: error (rank 1): X" -> X */
    char line[200] = "";
    const char *e = strstr(buf, "halox: error");
    if (e) {
        const char *colon = strstr(e + strlen("halox: error"), ": ");
        snprintf(line, sizeof line, "%s", colon ? colon + 2 : e);
    } else if (buf[0]) {
        snprintf(line, sizeof line, "%s", buf);
    }
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    int worst = code, mine = line[0] ? rank : nranks, first = nranks;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first < nranks) MPI_Bcast(line, (int)sizeof line, MPI_CHAR, first, MPI_COMM_WORLD);
    snprintf(note, notelen, "%s", line);
    return worst;
}

const cand *tune_best(const tuner *t, unsigned found, const cand *not)
{
    const cand *b = NULL;
    for (int i = 0; i < t->n; i++) {
        const cand *c = &t->c[i];
        if (c->ran && (c->found & found) && c != not && (!b || c->us < b->us)) b = c;
    }
    return b;
}

/* The kernel family that kernel_ran names ("passes-march" is passes), HX_KERNEL_AUTO when none. */
static hx_kernel family(const char *ran)
{
    if (!strcmp(ran, "resident")) return HX_KERNEL_RESIDENT;
    if (!strcmp(ran, "roles")) return HX_KERNEL_ROLES;
    if (!strncmp(ran, "passes", 6)) return HX_KERNEL_PASSES;
    return HX_KERNEL_AUTO;
}

/* Why halox run would refuse c, in err; 0 when it would run it. The same on every rank. */
static int refused(const tuner *t, const cand *c, char *err, size_t n)
{
    hx_config cfg = t->base;
    apply(&cfg, c);
    const unsigned paths = hx_transport_paths(c->transport);
    if (hx_config_check(&cfg, t->nranks, err, n)) return -1;
    if (!t->cuda && hx_config_gpu_only(&cfg, err, n)) return -1;
    if (c->schedule != HX_SCHEDULE_CYCLE && !(paths & HX_PATH_DEVICE))
        return snprintf(err, n, "--schedule %s needs a transport with a device path", hx_schedule_name(c->schedule)), -1;
    if (c->graph && !(paths & (HX_PATH_HOST | HX_PATH_REPLAY)))
        return snprintf(err, n, "--graph: %s has no host or replayable path", c->transport), -1;
    if (c->fuse > c->depth) return snprintf(err, n, "--fuse %d > --depth %d: passes end at each exchange", c->fuse, c->depth), -1;
    switch (c->kernel) {
    case HX_KERNEL_AUTO: break;
    case HX_KERNEL_RESIDENT:
        if (c->schedule != HX_SCHEDULE_PERSISTENT || c->pattern != HX_DIRECT || c->fuse > 1)
            return snprintf(err, n, "--kernel resident: schedule persistent, pattern direct, fuse 1"), -1;
        break;
    case HX_KERNEL_PASSES:
        if (c->schedule == HX_SCHEDULE_CYCLE) return snprintf(err, n, "--kernel passes: a device schedule"), -1;
        break;
    case HX_KERNEL_ROLES:
        if (c->schedule != HX_SCHEDULE_FUSED || c->depth != 1 || c->pattern != HX_DIRECT || c->fuse > 1)
            return snprintf(err, n, "--kernel roles: schedule fused, depth 1, pattern direct, fuse 1"), -1;
        break;
    }
    if (c->schedule == HX_SCHEDULE_CYCLE && c->kernel != HX_KERNEL_AUTO)
        return snprintf(err, n, "--kernel applies to the device schedules"), -1;
    if (t->base.dim == 3 && c->schedule == HX_SCHEDULE_PERSISTENT && c->kernel != HX_KERNEL_RESIDENT &&
        c->depth > c->fuse + 15)
        return snprintf(err, n, "3D persistent passes: depth <= fuse + 15"), -1;
    return 0;
}

static cand *find(tuner *t, const cand *want)
{
    for (int i = 0; i < t->n; i++)
        if (same(&t->c[i], want)) return &t->c[i];
    return NULL;
}

/* A candidate that ran what want would run: auto ran the kernel want names, or auto ran the
 * resident kernel (where fuse does not apply) at fuse 1. */
static cand *alias_of(tuner *t, const cand *want)
{
    cand a = *want;
    a.kernel = HX_KERNEL_AUTO;
    if (want->kernel != HX_KERNEL_AUTO) {
        cand *r = find(t, &a);
        return r && r->ran && family(r->kernel_ran) == want->kernel ? r : NULL;
    }
    if (want->fuse > 1) {
        a.fuse = 1;
        cand *r = find(t, &a);
        return r && r->ran && family(r->kernel_ran) == HX_KERNEL_RESIDENT ? r : NULL;
    }
    return NULL;
}

/* Try one candidate: the stored one when it was tried (or run) before; NULL when halox run would
 * refuse it or the budget is spent (then t->stopped is set). Collective. */
static const cand *try_cand(tuner *t, const cand *want)
{
    cand *c = find(t, want);
    if (!c && (c = alias_of(t, want))) t->aliased[t->stage]++;
    if (c) {
        c->found |= t->stage;
        return c;
    }
    char err[320];
    if (refused(t, want, err, sizeof err)) {
        t->pruned[t->stage]++;
        if (t->rank == 0 && !t->quiet && hx_cli_verbosity() >= HX_LOG_INFO) {
            char what[200];
            tune_describe(want, what, sizeof what);
            fprintf(stderr, "tune:       %-64s pruned: %s\n", what, err);
        }
        return NULL;
    }
    if (t->stopped) return NULL;
    int stop = t->n >= TUNE_MAX_CANDS;
    if (t->rank == 0 && t->stage == TUNE_STAGED && tune_best(t, TUNE_STAGED | TUNE_GRID, NULL))
        stop |= MPI_Wtime() - t->t0 + t->last_wall > t->budget;
    MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (stop) {
        t->stopped = 1;
        return NULL;
    }
    c = &t->c[t->n++];
    *c = *want;
    c->found = t->stage;
    c->ran = 0;
    c->note[0] = c->kernel_ran[0] = 0;
    hx_config cfg = t->base;
    apply(&cfg, c);
    double w0 = MPI_Wtime();
    int code = tune_quiet_run(&cfg, t->rank, t->nranks, c->note, sizeof c->note);
    if (code == HX_OK) {
        const hx_run_result *r = hx_last_run();
        c->ran = 1;
        c->us = r->us_per_sweep;
        memcpy(c->seg, r->us_segment, sizeof c->seg);
        c->timed = r->segments_timed;
        snprintf(c->kernel_ran, sizeof c->kernel_ran, "%s", r->kernel_ran);
        t->last_wall = MPI_Wtime() - w0;
    } else if (!c->note[0]) {
        snprintf(c->note, sizeof c->note, "refused (exit %d)", code);
    }
    tune_progress(t, c, c->ran && tune_best(t, t->stage, NULL) == c);
    return c;
}

static cand make(const char *transport, hx_schedule s, hx_kernel k, int depth)
{
    cand c;
    memset(&c, 0, sizeof c);
    snprintf(c.transport, sizeof c.transport, "%s", transport);
    c.schedule = s;
    c.kernel = k;
    c.depth = depth;
    c.fuse = 1;
    c.pattern = HX_DIRECT;
    c.overlap = 1;
    return c;
}

static int better(const cand *r, const cand *than) { return r && r->ran && r->us < than->us * (1 - TUNE_IMPROVE); }

/* Step 3 for cycle: double the depth while it pays. */
static void cycle_depths(tuner *t, cand cur)
{
    while (!t->stopped && cur.depth <= (1 << 19)) {
        if (cur.timed && exchange_us(&cur) > 0 && compute_us(&cur) > TUNE_PRUNE * exchange_us(&cur)) {
            if (t->rank == 0 && !t->quiet)
                fprintf(stderr, "tune:       %s: depth %d: compute %.2f us/sweep is over %.0fx the exchange %.2f: "
                                "no deeper halo\n", cur.transport, cur.depth, compute_us(&cur), TUNE_PRUNE, exchange_us(&cur));
            return;
        }
        cand next = cur;
        next.depth = cur.depth * 2;
        const cand *r = try_cand(t, &next);
        if (!better(r, &cur)) return;
        cur = *r;
    }
}

/* Step 4: along the depth ladder from base, up while it pays, else down. */
static void climb_depth(tuner *t, cand *base)
{
    int i = 0;
    while (i + 1 < NLADDER && ladder[i + 1] <= base->depth) i++;
    for (int dir = 1; dir >= -1; dir -= 2) {
        int moved = 0, flat = 0;
        for (int j = i + dir; j >= 0 && j < NLADDER && !t->stopped; j += dir) {
            cand c = *base;
            c.depth = ladder[j];
            const cand *r = try_cand(t, &c);
            if (better(r, base)) {
                *base = *r;
                moved = 1, flat = 0;
                continue;
            }
            /* one flat step is looked past: with deep fused passes the gain of a deeper halo comes
             * in steps smaller than the noise between neighbouring depths */
            if (!r || !r->ran || ++flat > 1) break;
        }
        if (moved) return;
    }
}

/* Step 4: fuse 2, 4, 8 (cycle: each also without overlap, whose first sweep leaves the pass), then
 * one sweep either side of the best. Returns 1 when the fuse changed. */
static int climb_fuse(tuner *t, cand *base)
{
    const int was = base->fuse;
    for (int f = 2; f <= 8 && !t->stopped; f *= 2) {
        cand c = *base;
        c.fuse = f;
        const cand *r = try_cand(t, &c);
        if (better(r, base)) *base = *r;
        if (c.schedule == HX_SCHEDULE_CYCLE && c.overlap) {
            c.overlap = 0;
            r = try_cand(t, &c);
            if (better(r, base)) *base = *r;
        }
    }
    if (base->fuse > 1)
        for (int d = -1; d <= 1 && !t->stopped; d += 2) {
            cand c = *base;
            c.fuse = base->fuse + d;
            const cand *r = try_cand(t, &c);
            if (better(r, base)) *base = *r;
        }
    return base->fuse != was;
}

static void refine(tuner *t, cand base)
{
    /* a replayed cycle changes which depth and fuse win (launch gaps vanish): settle it first */
    if (t->cuda && base.schedule == HX_SCHEDULE_CYCLE) {
        cand g = base;
        g.graph = !base.graph;
        const cand *r = try_cand(t, &g);
        if (better(r, &base)) base = *r;
    }
    climb_depth(t, &base);
    if (t->cuda && family(base.kernel_ran) != HX_KERNEL_RESIDENT && climb_fuse(t, &base)) climb_depth(t, &base);
    cand v = base;
    v.pattern = base.pattern == HX_DIRECT ? HX_STAGED : HX_DIRECT;
    const cand *r = try_cand(t, &v);
    if (better(r, &base)) base = *r;
    v = base;
    v.overlap = !base.overlap;
    r = try_cand(t, &v);
    if (better(r, &base)) base = *r;
    if (t->cuda && base.schedule == HX_SCHEDULE_CYCLE) {
        v = base;
        v.graph = !base.graph;
        try_cand(t, &v);
    }
}

/* The best candidate of each (transport, schedule [, kernel family]) pair, fastest first. */
static int leaders(const tuner *t, int by_kernel, const cand **out, int max)
{
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        const cand *c = &t->c[i];
        if (!c->ran || !(c->found & TUNE_STAGED)) continue;
        int k = 0;
        while (k < n && !(!strcmp(out[k]->transport, c->transport) && out[k]->schedule == c->schedule &&
                          (!by_kernel || family(out[k]->kernel_ran) == family(c->kernel_ran))))
            k++;
        if (k == n && n < 64) out[n++] = c;
        else if (k < n && c->us < out[k]->us) out[k] = c;
    }
    for (int i = 1; i < n; i++) /* insertion sort by time */
        for (int j = i; j > 0 && out[j]->us < out[j - 1]->us; j--) {
            const cand *x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return n < max ? n : max;
}

void tune_staged(tuner *t, char *const *list, int ntr)
{
    static const hx_kernel kernels[] = {HX_KERNEL_AUTO, HX_KERNEL_RESIDENT, HX_KERNEL_PASSES, HX_KERNEL_ROLES};
    static const int probe_depths[] = {1, 4, 16};
    const double t0 = MPI_Wtime();
    t->stage = TUNE_STAGED;
    for (int i = 0; i < ntr && !t->stopped; i++) {
        cand c = make(list[i], HX_SCHEDULE_CYCLE, HX_KERNEL_AUTO, 1);
        try_cand(t, &c);
    }
    for (int i = 0; i < ntr && t->cuda && !t->stopped; i++) {
        if (!(hx_transport_paths(list[i]) & HX_PATH_DEVICE)) continue;
        const hx_schedule s[2] = {HX_SCHEDULE_PERSISTENT, HX_SCHEDULE_FUSED};
        for (int k = 0; k < 2; k++)
            for (int d = 8; d >= 1 && !t->stopped; d /= 2) { /* the deepest the blocks allow */
                cand c = make(list[i], s[k], HX_KERNEL_AUTO, d);
                char err[320];
                if (refused(t, &c, err, sizeof err)) continue;
                try_cand(t, &c);
                break;
            }
    }
    const cand *top[64];
    int n = leaders(t, 0, top, TUNE_FAMILIES);
    cand fam[TUNE_FAMILIES];
    for (int f = 0; f < n; f++) fam[f] = *top[f]; /* copies: try_cand moves nothing, but stays safe */
    for (int f = 0; f < n && !t->stopped; f++) {
        if (fam[f].schedule == HX_SCHEDULE_CYCLE) {
            cycle_depths(t, fam[f]);
            continue;
        }
        for (int k = 0; k < 4; k++)
            for (int d = 0; d < 3 && !t->stopped; d++) {
                cand c = make(fam[f].transport, fam[f].schedule, kernels[k], probe_depths[d]);
                try_cand(t, &c);
            }
    }
    n = leaders(t, 1, top, 3);
    for (int f = 0; f < n; f++) fam[f] = *top[f];
    for (int f = 0; f < n && !t->stopped; f++) refine(t, fam[f]);
    t->spent[TUNE_STAGED] = MPI_Wtime() - t0;
}

void tune_grid(tuner *t, char *const *list, int ntr)
{
    static const hx_schedule sched[] = {HX_SCHEDULE_CYCLE, HX_SCHEDULE_FUSED, HX_SCHEDULE_PERSISTENT};
    static const hx_kernel kernels[] = {HX_KERNEL_AUTO, HX_KERNEL_RESIDENT, HX_KERNEL_PASSES, HX_KERNEL_ROLES};
    const double t0 = MPI_Wtime();
    t->stage = TUNE_GRID;
    t->stopped = 0; /* the budget is the staged search's */
    for (int i = 0; i < ntr; i++) {
        cand base = make(list[i], HX_SCHEDULE_CYCLE, HX_KERNEL_AUTO, 1);
        const cand *b = try_cand(t, &base);
        if (b && !b->ran) continue; /* the transport refuses the problem */
        for (int s = 0; s < 3; s++)
            for (int k = 0; k < 4; k++) {
                int ran = 0, refusals = 0; /* a kernel refused 3 times before any ran: not here */
                /* the cycle schedule also replayed from graphs on GPUs: it is part of its space */
                const int graphs = sched[s] == HX_SCHEDULE_CYCLE && t->cuda ? 2 : 1;
                for (int d = 0; d < NLADDER && (ran || refusals < 3); d++)
                    for (int f = 1; f <= 8 && !t->stopped && (ran || refusals < 3); f++)
                        for (int g = 0; g < graphs; g++) {
                            cand c = make(list[i], sched[s], kernels[k], ladder[d]);
                            c.fuse = f;
                            c.graph = g;
                            const cand *r = try_cand(t, &c);
                            if (r) ran |= r->ran, refusals += !r->ran;
                        }
            }
    }
    t->spent[TUNE_GRID] = MPI_Wtime() - t0;
}
