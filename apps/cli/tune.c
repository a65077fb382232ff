/* (About 500 lines: the search steps and the driver that runs them stay in one file, in the order
 * they run; the output is in tune_report.c.)
 *
 * `halox tune`: for one problem (halox run's problem options), search transport x pattern x depth
 * x fuse x overlap x graph x schedule without trying the whole grid, within a wall-time budget,
 * by running each candidate in-process with hx_run (every rank in lockstep) and reading
 * hx_last_run(). The search (docs/tune.md):
 *
 *   1. baseline: every transport at depth 1, pattern direct, overlap on;
 *   2. depth: per transport that ran, double the depth (1, 2, 4, 8, ...) while the time per sweep
 *      improves; stop early when the compute of a sweep already exceeds its exchange (pack +
 *      message + unpack) TUNE_PRUNE times over (a deeper halo cannot save much), or when the halo
 *      no longer fits the blocks (hx_config_check);
 *   3. refine the best two transports, greedily from each one's best: pattern staged, overlap off,
 *      fuse 2/4/8, each also without overlap (cuda; fuse x radius <= 8 in 2D, <= 4 in 3D), graph on
 *      (cuda; host-path transports and nccl), with a fused pass depth doubled again while it pays
 *      and then passes one sweep shorter and longer, schedule fused and persistent with fuse 1..8 (3D:
 *      fuse x radius <= 4; cuda; transports with a device path such as ipc);
 *   4. stop when the budget is spent: rank 0's clock, broadcast before each candidate so that every
 *      rank stops at the same one.
 *
 * Each run's report is suppressed (stdout to /dev/null around hx_run); a candidate's error line
 * is captured (stderr to a pipe) and becomes the note of a skipped candidate. */
#include "tune.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "halox/halox.h"
#include "run.h"
#include "tune_priv.h"

#define TUNE_MAX_TRANSPORTS 16
#define TUNE_PRUNE 20.0    /* compute / exchange per sweep above which deeper halos are not tried */
#define TUNE_VERIFY_CELLS (1L << 20) /* --verify by default only up to 1024x1024 cells */
#define TUNE_REPEAT 3      /* timed repeats per candidate unless --repeat is given */

typedef struct {
    int budget;
    char transport[256];
    int verify, verify_set;
} tune_opts;

#define F(member) HX_OPT_FIELD(tune_opts, member)
static const hx_option tune_options[] = {
    {.name = "budget", .type = HX_OPT_INT, .meta = "SECONDS", .lo = 1, .hi = 7 * 24 * 3600, .def = "60",
     .group = "search", .what = "a wall time in seconds (at least 1)",
     .help = "wall time for the search; the candidate that would overrun it is not started (the winner's --verify "
             "run comes after)",
     F(budget)},
    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME[,NAME]|all", .def = "all", .group = "search",
     .what = "transport names (see halox info)",
     .help = "transports to search (halox info lists those of this build); one that refuses the problem (a GPU "
             "transport on the cpu backend, ...) is skipped with a note",
     F(transport)},
    {.name = "verify", .type = HX_OPT_FLAG, .def_text = "on up to 1024x1024 cells", .group = "search",
     .help = "rerun the winner with --verify (bit-identical to the single-domain reference); --no-verify: never",
     F(verify), .seen_at = HX_OPT_AT(tune_opts, verify_set)},
};
#undef F

const hx_command hx_tune_command = {
    .name = "tune",
    .synopsis = "mpirun -np N halox tune [halox run problem options] [--budget SECONDS] [--transport LIST]",
    .about = "Searches the exchange settings of one problem (transport, depth, pattern, overlap, fuse, graph, "
             "schedule) within a time budget, without trying every combination, and prints the winner, the "
             "runner-up, their segment times side by side, why the winner wins and the halox run command that "
             "reproduces it. Every candidate runs in this job with the same problem.",
    .opts = tune_options,
    .nopts = (int)(sizeof tune_options / sizeof tune_options[0]),
    .notes =
        "Problem and measurement options are halox run's (halox run --help): --size, --stencil, --dtype, --iters, "
        "--boundary, --seed, --grid, --backend, --devices, --repeat (3 here unless given), --warmup, "
        "--desync-barrier, --norm-every, --quiet (no progress lines). The searched ones (--depth, --pattern, "
        "--overlap, --fuse, --graph, --schedule) and --output, --format are refused. "
        "Search: (1) every transport at depth 1, pattern direct, overlap on; (2) per transport, depth 2, 4, 8, ... "
        "while the time per sweep improves by 2%, stopping when compute per sweep is over 20 times pack + message + "
        "unpack (a deeper halo cannot win much) or the halo is wider than a block; (3) the best two transports, "
        "greedily from their best: pattern staged, overlap off, fuse 2, 4 and 8, each also without overlap "
        "(cuda; fuse x radius <= 8 in 2D, "
        "<= 4 in 3D), graph on (cuda; host transports and nccl), after a fused winner its depth doubled while it pays "
        "and passes one sweep shorter and longer, schedule fused and persistent with fuse 1 to 8 "
        "(3D: fuse x radius <= 4; cuda; device-path transports: ipc); "
        "(4) the candidate that would overrun --budget is not started. Progress: one line per candidate on stderr. "
        "Exit codes: 0 success, 2 bad input, 3 no candidate could run, 4 the winner's --verify found a difference.",
};



/* Run cfg with rank 0's report thrown away and every rank's stderr captured; the first error
 * line of the lowest rank that wrote one comes back in note (on every rank). */
static int quiet_run(const hx_config *cfg, int rank, int nranks, char *note, size_t notelen)
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
    /* the line to report: "halox: error: X" -> X */
    char line[200] = "";
    const char *e = strstr(buf, "halox: error");
    if (e) { /* "halox: error: X" or "halox: error (rank 1): X" */
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

static void progress(const tuner *t, const cand *c, int best)
{
    if (t->rank != 0 || t->quiet) return;
    char what[160];
    tune_describe(c, what, sizeof what);
    if (c->ran && c->timed)
        fprintf(stderr, "tune: [%3d] %-48s %11.2f us/sweep  (exchange %.2f, compute %.2f)%s\n", t->n, what, c->us,
                exchange_us(c), compute_us(c), best ? "  best so far" : "");
    else if (c->ran)
        fprintf(stderr, "tune: [%3d] %-48s %11.2f us/sweep  (segments not timed apart)%s\n", t->n, what, c->us,
                best ? "  best so far" : "");
    else fprintf(stderr, "tune: [%3d] %-48s skipped: %s\n", t->n, what, c->note);
    fflush(stderr);
}

static const cand *best_of(const tuner *t, const char *transport)
{
    const cand *b = NULL;
    for (int i = 0; i < t->n; i++)
        if (t->c[i].ran && (!transport || !strcmp(t->c[i].transport, transport)) && (!b || t->c[i].us < b->us)) b = &t->c[i];
    return b;
}

/* Try one candidate: returns it (a stored one if it was tried before), or NULL when the budget
 * is spent (then t->stopped is set). Collective. */
static const cand *try_cand(tuner *t, const cand *want)
{
    for (int i = 0; i < t->n; i++)
        if (same(&t->c[i], want)) return &t->c[i];
    if (t->stopped) return NULL;
    int stop = 0;
    if (t->rank == 0) {
        double spent = MPI_Wtime() - t->t0;
        int any_ran = best_of(t, NULL) != NULL;
        stop = t->n >= TUNE_MAX_CANDS || (any_ran && spent + t->last_wall > t->budget);
    }
    MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (stop) {
        t->stopped = 1;
        return NULL;
    }
    cand *c = &t->c[t->n++];
    *c = *want;
    c->ran = 0;
    c->note[0] = 0;
    hx_config cfg = t->base;
    apply(&cfg, c);
    char err[320];
    if (hx_config_check(&cfg, t->nranks, err, sizeof err)) { /* the same on every rank */
        snprintf(c->note, sizeof c->note, "%s", err);
        progress(t, c, 0);
        return c;
    }
    double w0 = MPI_Wtime();
    int code = quiet_run(&cfg, t->rank, t->nranks, c->note, sizeof c->note);
    double wall = MPI_Wtime() - w0;
    if (code == HX_OK) {
        const hx_run_result *r = hx_last_run();
        c->ran = 1;
        c->us = r->us_per_sweep;
        memcpy(c->seg, r->us_segment, sizeof c->seg);
        c->timed = r->segments_timed;
        t->last_wall = wall;
    } else if (!c->note[0]) {
        snprintf(c->note, sizeof c->note, "refused (exit %d)", code);
    }
    const cand *b = best_of(t, NULL);
    progress(t, c, c->ran && b == c);
    return c;
}

static cand make(const char *transport, int depth)
{
    cand c;
    memset(&c, 0, sizeof c);
    snprintf(c.transport, sizeof c.transport, "%s", transport);
    c.depth = depth;
    c.pattern = HX_DIRECT;
    c.overlap = 1;
    c.fuse = 1;
    c.graph = 0;
    c.schedule = HX_SCHEDULE_CYCLE;
    return c;
}

/* Step 2: depth doubling for one transport, from its baseline. */
static void search_depth(tuner *t, const char *tr)
{
    const cand *cur = best_of(t, tr);
    while (cur && !t->stopped) {
        if (cur->timed && exchange_us(cur) > 0 && compute_us(cur) > TUNE_PRUNE * exchange_us(cur)) {
            if (t->rank == 0 && !t->quiet)
                fprintf(stderr, "tune:       %s: depth %d: compute %.2f us/sweep is over %.0fx the exchange %.2f: "
                                "no deeper halo\n", tr, cur->depth, compute_us(cur), TUNE_PRUNE, exchange_us(cur));
            return;
        }
        if (cur->depth > (1 << 19)) return;
        cand next = *cur;
        next.depth = cur->depth * 2;
        const cand *r = try_cand(t, &next);
        if (!r || !r->ran || r->us >= cur->us * (1 - TUNE_IMPROVE)) return;
        cur = r;
    }
}

/* Step 3: greedy refinement of one transport from its best. */
static void refine(tuner *t, const char *tr, int cuda, int dim, int radius)
{
    const cand *b = best_of(t, tr);
    if (!b) return;
    cand base = *b;
    unsigned paths = hx_transport_paths(tr);
    cand v[2];
#define ADOPT_FROM(c)                                                                 \
    do {                                                                              \
        const cand *r_ = try_cand(t, &(c));                                           \
        if (!r_) return;                                                              \
        if (r_->ran && r_->us < base.us * (1 - TUNE_IMPROVE)) base = *r_;             \
    } while (0)
    v[0] = base;
    v[0].pattern = base.pattern == HX_DIRECT ? HX_STAGED : HX_DIRECT;
    ADOPT_FROM(v[0]);
    v[1] = base;
    v[1].overlap = !base.overlap;
    ADOPT_FROM(v[1]);
    if (cuda)
        for (int f = 2; f <= 8; f *= 2) {
            if (f * radius > (dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX)) break;
            cand c = base;
            c.fuse = f;
            c.schedule = HX_SCHEDULE_CYCLE;
            ADOPT_FROM(c);
            /* overlap splits the first sweep of a cycle out of its fused pass, so fusing may win
             * only without it (3D 512x256x256, depth 4, fuse 4, one H100: 53 us a sweep off, 85 on) */
            if (c.overlap) {
                c.overlap = 0;
                ADOPT_FROM(c);
            }
        }
    if (cuda && (paths & (HX_PATH_HOST | HX_PATH_REPLAY))) { /* host path: the sweeps after the exchange */
        cand c = base;
        c.graph = 1;
        c.schedule = HX_SCHEDULE_CYCLE;
        ADOPT_FROM(c);
    }
    /* A fused pass pays for a deeper halo that single sweeps did not (step 2 stopped there): 3D
     * 256x128x128, ipc-put, fuse 4, graphs, one H200: depth 4 12.5 us a sweep, depth 8 10.7 */
    while (base.fuse > 1 && base.depth <= (1 << 19) && !t->stopped) {
        cand c = base;
        c.depth = base.depth * 2;
        const cand *r = try_cand(t, &c);
        if (!r || !r->ran || r->us >= base.us * (1 - TUNE_IMPROVE)) break;
        base = *r;
    }
    /* at the deeper halo, the passes one sweep shorter or longer: the powers of two above miss them
     * (4096^2 on 4 x H200, ipc-put, graphs: depth 64 fuse 4 6.19 us a sweep, fuse 3 5.89; session 19) */
    if (cuda && base.fuse > 1) {
        const cand at = base;
        for (int d = -1; d <= 1; d += 2) {
            cand c = at;
            c.fuse = at.fuse + d;
            if (c.fuse < 2 || c.fuse * radius > (dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX)) continue;
            ADOPT_FROM(c);
        }
    }
    if (cuda && (paths & HX_PATH_DEVICE)) {
        const hx_schedule sched[2] = {HX_SCHEDULE_PERSISTENT, HX_SCHEDULE_FUSED};
        for (int s = 0; s < 2; s++)
            for (int f = 1; f <= 8; f *= 2) {
                if (f > 1 && f * radius > (dim == 3 ? HX_FUSE_MAX_3D : 8)) break;
                cand c = base;
                c.schedule = sched[s];
                c.graph = 0;
                c.fuse = f;
                ADOPT_FROM(c);
            }
    }
#undef ADOPT_FROM
}

/* Which of the searched options the user gave (they are refused), and tune's own arguments
 * split from halox run's. */
static int split_args(int argc, char **argv, char **own, int *nown, char **run, int *nrun, int *help, int *repeat_given,
                      char *err, size_t errlen)
{
    static const char *const searched[] = {"depth", "pattern", "overlap", "fuse", "graph", "schedule"};
    *nown = *nrun = *help = *repeat_given = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = 1;
            continue;
        }
        if (strncmp(a, "--", 2)) {
            run[(*nrun)++] = argv[i]; /* hx_config_parse names the mistake */
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const hx_option *o = hx_opts_find(&hx_tune_command, name, len);
        if (!o && len > 3 && !strncmp(name, "no-", 3)) {
            o = hx_opts_find(&hx_tune_command, name + 3, len - 3);
            if (o && o->type != HX_OPT_FLAG) o = NULL;
        }
        if (o) {
            own[(*nown)++] = argv[i];
            if (!eq && o->type != HX_OPT_FLAG && strncmp(name, "no-", 3) && i + 1 < argc) own[(*nown)++] = argv[++i];
            continue;
        }
        const hx_option *r = hx_opts_find(&hx_run_command, name, len);
        if (!r && len > 3 && !strncmp(name, "no-", 3)) r = hx_opts_find(&hx_run_command, name + 3, len - 3);
        if (r) {
            for (size_t k = 0; k < sizeof searched / sizeof searched[0]; k++)
                if (!strcmp(r->name, searched[k])) {
                    snprintf(err, errlen, "--%s is what halox tune searches: leave it out (halox run times one value)",
                             r->name);
                    return -1;
                }
            if (!strcmp(r->name, "output") || !strcmp(r->name, "format")) {
                snprintf(err, errlen, "--%s is not a halox tune option: give it to the halox run command that tune prints",
                         r->name);
                return -1;
            }
            if (!strcmp(r->name, "repeat")) *repeat_given = 1;
        }
        run[(*nrun)++] = argv[i];
        if (r && !eq && r->type != HX_OPT_FLAG && i + 1 < argc) run[(*nrun)++] = argv[++i];
    }
    return 0;
}

int hx_tune_main(int argc, char **argv)
{
    static tuner t; /* large: not on the stack */
    memset(&t, 0, sizeof t);
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.nranks);
    char err[400] = "";
    char **own = calloc((size_t)argc + 1, sizeof *own), **run = calloc((size_t)argc + 1, sizeof *run);
    if (!own || !run) {
        free(own), free(run);
        if (t.rank == 0) fprintf(stderr, "halox: error: out of host memory\n");
        return HX_ERR_RUNTIME;
    }
    int nown, nrun, help, repeat_given;
    tune_opts o;
    memset(&o, 0, sizeof o);
    hx_config *cfg = &t.base;
    hx_config_defaults(cfg);
    int rc = split_args(argc, argv, own, &nown, run, &nrun, &help, &repeat_given, err, sizeof err);
    if (rc == 0 && help) {
        free(own), free(run);
        if (t.rank == 0) hx_opts_usage(&hx_tune_command, stdout);
        return HX_OK;
    }
    if (rc == 0) rc = hx_opts_defaults(&hx_tune_command, &o, err, sizeof err);
    if (rc == 0) rc = hx_opts_parse(&hx_tune_command, &o, nown, own, err, sizeof err);
    if (rc == 0) rc = hx_config_parse(cfg, nrun, run, err, sizeof err);
    free(own), free(run);
    if (rc == 1) { /* --help inside a value position: treat as help */
        if (t.rank == 0) hx_opts_usage(&hx_tune_command, stdout);
        return HX_OK;
    }
    /* the transports to search */
    char names[256], *save = NULL, *list[TUNE_MAX_TRANSPORTS];
    int ntr = 0;
    if (rc == 0) {
        snprintf(names, sizeof names, "%s", strcmp(o.transport, "all") ? o.transport : hx_transport_names());
        for (char *s = strtok_r(names, ", ", &save); s && ntr < TUNE_MAX_TRANSPORTS; s = strtok_r(NULL, ", ", &save)) {
            if (!hx_transport_paths(s)) {
                const char *why = hx_transport_absent_reason(s);
                if (why) snprintf(err, sizeof err, "--transport %s: %s (this build has %s)", s, why, hx_transport_names());
                else snprintf(err, sizeof err, "unknown --transport '%s': this build has %s (see halox info)", s, hx_transport_names());
                rc = -1;
                break;
            }
            int dup = 0;
            for (int k = 0; k < ntr; k++) dup |= !strcmp(list[k], s);
            if (!dup) list[ntr++] = s;
        }
        if (rc == 0 && ntr == 0) snprintf(err, sizeof err, "--transport names no transport: give halox info's names, or all"), rc = -1;
    }
    if (rc == 0) {
        if (!repeat_given) cfg->repeat = TUNE_REPEAT;
        cfg->verify = 0;
        cfg->output[0] = 0;
        cfg->format = HX_FORMAT_CSV;
        cfg->no_header = 1;
        t.quiet = cfg->quiet;
        cfg->quiet = 1;
        cand c1 = make(list[0], 1);
        hx_config probe = *cfg;
        apply(&probe, &c1);
        if (hx_config_check(&probe, t.nranks, err, sizeof err)) rc = -1;
        else if (cfg->backend == HX_BACKEND_CUDA && !hx_backend_built(HX_BACKEND_CUDA))
            snprintf(err, sizeof err, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use --backend cpu"), rc = -1;
    }
    /* the backend, resolved as the context does (auto: cuda when every rank sees a GPU) */
    int gpus = hx_backend_built(HX_BACKEND_CUDA) ? hx_gpu_count() : 0, min_gpus = 0;
    MPI_Allreduce(&gpus, &min_gpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc == 0 && cfg->backend == HX_BACKEND_CUDA && min_gpus == 0)
        snprintf(err, sizeof err, "no CUDA GPU is visible to every rank: use --backend cpu, or check CUDA_VISIBLE_DEVICES"), rc = -1;
    if (rc != 0) {
        if (t.rank == 0) fprintf(stderr, "halox: error: %s\n", err);
        return HX_ERR_INPUT;
    }
    if (cfg->backend == HX_BACKEND_AUTO) cfg->backend = min_gpus > 0 ? HX_BACKEND_CUDA : HX_BACKEND_CPU;
    int cuda = cfg->backend == HX_BACKEND_CUDA;
    /* here, not from the candidates' runs, whose stderr is captured */
    if (cuda) hx_cli_note_one_core(MPI_COMM_WORLD, o.transport);
    int radius = hx_stencil_get(cfg->stencil)->radius;

    t.budget = o.budget;
    t.t0 = MPI_Wtime();
    MPI_Bcast(&t.t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    /* 1. baselines */
    for (int i = 0; i < ntr && !t.stopped; i++) {
        cand c = make(list[i], 1);
        try_cand(&t, &c);
    }
    /* 2. depth per transport */
    for (int i = 0; i < ntr && !t.stopped; i++) search_depth(&t, list[i]);
    /* 3. the best two transports */
    const char *top[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        const cand *b = NULL;
        for (int i = 0; i < ntr; i++) {
            if (k == 1 && top[0] && !strcmp(top[0], list[i])) continue;
            const cand *x = best_of(&t, list[i]);
            if (x && (!b || x->us < b->us)) b = x, top[k] = list[i];
        }
    }
    for (int k = 0; k < 2 && !t.stopped; k++)
        if (top[k]) refine(&t, top[k], cuda, cfg->dim, radius);
    double spent = MPI_Wtime() - t.t0;

    /* winner and runner-up */
    const cand *w = best_of(&t, NULL), *r = NULL;
    int ran = 0;
    for (int i = 0; i < t.n; i++) {
        ran += t.c[i].ran;
        if (t.c[i].ran && &t.c[i] != w && (!r || t.c[i].us < r->us)) r = &t.c[i];
    }
    if (!w) {
        if (t.rank == 0) {
            fprintf(stderr, "halox: error: no candidate could run (%s): check halox info and the problem options\n",
                    t.n ? t.c[0].note : "budget spent");
        }
        return HX_ERR_RUNTIME;
    }
    /* The ranks agree on which one won: rank 0's view (timings are all-reduced, so they agree
     * anyway; this keeps a floating-point tie from splitting them). */
    int wi = (int)(w - t.c), ri = r ? (int)(r - t.c) : -1;
    int idx[2] = {wi, ri};
    MPI_Bcast(idx, 2, MPI_INT, 0, MPI_COMM_WORLD);
    w = &t.c[idx[0]];
    r = idx[1] >= 0 ? &t.c[idx[1]] : NULL;

    /* verify the winner */
    long cells = (long)cfg->size[0] * cfg->size[1] * (cfg->dim == 3 ? cfg->size[2] : 1);
    int do_verify = o.verify_set ? o.verify : cells <= TUNE_VERIFY_CELLS;
    int code = HX_OK, verified = 0;
    char vnote[200] = "";
    if (do_verify) {
        hx_config v = *cfg;
        apply(&v, w);
        v.verify = 1;
        v.repeat = 1;
        int c = quiet_run(&v, t.rank, t.nranks, vnote, sizeof vnote);
        verified = c == HX_OK ? hx_last_run()->verified : c == HX_ERR_VERIFY ? -1 : 0;
        if (c == HX_ERR_VERIFY) code = HX_ERR_VERIFY;
    }
    if (t.rank == 0) {
        tune_report(&t, w, r, spent, ran, t.n - ran);
        if (!do_verify)
            printf("verify: not verified (%s): add --verify to the command below\n",
                   o.verify_set ? "--no-verify" : "over 1024x1024 cells, the reference run is slow; tune --verify forces it");
        else if (verified > 0) printf("verify: bit-identical to the single-domain reference\n");
        else if (verified < 0) printf("verify: DIFFERS from the single-domain reference: report this as a bug\n");
        else printf("verify: could not run (%s)\n", vnote[0] ? vnote : "failed");
        char cmd[4096];
        tune_command_line(&t, w, cmd, sizeof cmd);
        printf("command: %s\n", cmd);
        fflush(stdout);
    }
    return code;
}
