/* `halox tune`: its options, the split of its arguments from halox run's problem options, and the
 * driver: the staged search within --budget (tune_search.c), the full grid with --grid-search or
 * --compare-grid, the winner's --verify run and the report (tune_report.c). docs/tune.md. */
#include "tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halox/halox.h"
#include "run.h"
#include "tune_priv.h"

#define TUNE_MAX_TRANSPORTS 16
#define TUNE_VERIFY_CELLS (1L << 20) /* --verify by default only up to 1024x1024 cells */
#define TUNE_REPEAT 3                /* timed repeats per candidate unless --repeat is given */

typedef struct {
    int budget;
    char transport[256];
    int verify, verify_set;
    int grid, compare;
    char candidates[512];
} tune_opts;

#define F(member) HX_OPT_FIELD(tune_opts, member)
static const hx_option tune_options[] = {
    {.name = "budget", .type = HX_OPT_INT, .meta = "SECONDS", .lo = 1, .hi = 7 * 24 * 3600, .def = "60",
     .group = "search", .what = "a wall time in seconds (at least 1)",
     .help = "wall time for the staged search; the candidate that would overrun it is not started (the full grid and "
             "the winner's --verify run come after)",
     F(budget)},
    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME[,NAME]|all", .def = "all", .group = "search",
     .what = "transport names (see halox info)",
     .help = "transports to search (halox info lists those of this build); one that refuses the problem (a GPU "
             "transport on the cpu backend, ...) is skipped with a note",
     F(transport)},
    {.name = "grid-search", .type = HX_OPT_FLAG, .def = "off", .group = "search",
     .help = "instead of the staged search, run the full grid: transport x schedule x kernel x depth (1, 2, 4, 8, 12, "
             "16, 24, 32, 48, 64) x fuse (1..8), pattern direct, overlap on, graph off, every combination halox run "
             "accepts, without a budget",
     F(grid)},
    {.name = "compare-grid", .type = HX_OPT_FLAG, .def = "off", .group = "search",
     .help = "the staged search within --budget, then the full grid (reusing the runs they share), and both winners "
             "side by side with the ratio of their times; the last line is still the staged winner's command",
     F(compare)},
    {.name = "candidates", .type = HX_OPT_STRING, .meta = "FILE.csv|FILE.json|-", .group = "search",
     .what = "a file name",
     .help = "write every candidate (settings, the kernel that ran, time per sweep, exchange and compute, or why it "
             "was refused) as CSV, or JSON when the name ends in .json; - is stdout, before the report",
     F(candidates)},
    {.name = "verify", .type = HX_OPT_FLAG, .def_text = "on up to 1024x1024 cells", .group = "search",
     .help = "rerun the winner with --verify (bit-identical to the single-domain reference); --no-verify: never",
     F(verify), .seen_at = HX_OPT_AT(tune_opts, verify_set)},
};
#undef F

const hx_command hx_tune_command = {
    .name = "tune",
    .synopsis = "mpirun -np N halox tune [halox run problem options] [--budget SECONDS] [--transport LIST] "
                "[--grid-search|--compare-grid] [--candidates FILE]",
    .about = "Searches how to run one problem (transport, schedule, kernel, depth, fuse, pattern, overlap, graph) "
             "within a time budget, without trying every combination, and prints the winner, the runner-up, their "
             "segment times side by side, why the winner wins and, last, the halox run command that reproduces it. "
             "Every candidate runs in this job with the same problem; they are ranked by the median time per sweep "
             "of the slowest rank.",
    .opts = tune_options,
    .nopts = (int)(sizeof tune_options / sizeof tune_options[0]),
    .notes =
        "Problem and measurement options are halox run's (halox run --help): --size, --stencil, --dtype, --iters, "
        "--boundary, --seed, --grid, --backend, --devices, --repeat (3 here unless given), --warmup, "
        "--desync-barrier, --norm-every, and the launch-shape options. The searched ones (--depth, --pattern, "
        "--overlap, --fuse, --graph, --schedule, --kernel) and --output, --format are refused. A combination "
        "halox run would refuse (a halo wider than a block, a GPU option on the cpu backend, a kernel its schedule "
        "cannot run) is pruned; one the library refuses at set-up is skipped with its reason. "
        "Staged search: (1) every transport, schedule cycle, depth 1, pattern direct, overlap on; (2) on GPUs, every "
        "transport with a device path under schedules persistent and fused at depth 8; (3) the best three "
        "(transport, schedule) pairs: cycle doubles its depth while the time per sweep improves by 2% (stopping when "
        "compute is over 20 times pack + message + unpack), a device schedule tries each kernel it can run at "
        "depths 1, 4 and 16; (4) the best two: depth up or down the ladder 1, 2, 4, 8, 12, 16, 24, 32, 48, 64 while "
        "it pays, fuse 2, 4, 8 and one either side (GPUs), pattern, overlap and graph flipped. Progress: one line "
        "per candidate on stderr (--verbose: the pruned ones too). "
        "Exit codes: 0 success, 2 bad input, 3 no candidate could run, 4 the winner's --verify found a difference.",
};

/* Which of the searched options the user gave (they are refused), and tune's own arguments
 * split from halox run's. */
static int split_args(int argc, char **argv, char **own, int *nown, char **run, int *nrun, int *help, int *repeat_given,
                      char *err, size_t errlen)
{
    static const char *const searched[] = {"depth", "pattern", "overlap", "fuse", "graph", "schedule", "kernel"};
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

/* The transports to search, from --transport, into list (pointing into names). Returns the count,
 * or -1 with err. */
static int transports(const char *given, char *names, size_t n, char **list, char *err, size_t errlen)
{
    char *save = NULL;
    int ntr = 0;
    snprintf(names, n, "%s", strcmp(given, "all") ? given : hx_transport_names());
    for (char *s = strtok_r(names, ", ", &save); s && ntr < TUNE_MAX_TRANSPORTS; s = strtok_r(NULL, ", ", &save)) {
        if (!hx_transport_paths(s)) {
            const char *why = hx_transport_absent_reason(s);
            if (why) snprintf(err, errlen, "--transport %s: %s (this build has %s)", s, why, hx_transport_names());
            else snprintf(err, errlen, "unknown --transport '%s': this build has %s (see halox info)", s, hx_transport_names());
            return -1;
        }
        int dup = 0;
        for (int k = 0; k < ntr; k++) dup |= !strcmp(list[k], s);
        if (!dup) list[ntr++] = s;
    }
    if (ntr == 0) return snprintf(err, errlen, "--transport names no transport: give halox info's names, or all"), -1;
    return ntr;
}

/* Parse and check everything before the first candidate runs. Returns 0, 1 for --help, or -1 with err. */
static int setup(tuner *t, tune_opts *o, int argc, char **argv, char **own, char **list, int *ntr, char *names,
                 size_t nlen, char *err, size_t errlen)
{
    hx_config *cfg = &t->base;
    int nown, help;
    hx_config_defaults(cfg);
    memset(o, 0, sizeof *o);
    int rc = split_args(argc, argv, own, &nown, t->run_args, &t->nrun_args, &help, &t->repeat_given, err, errlen);
    if (rc == 0 && help) return 1;
    if (rc == 0) rc = hx_opts_defaults(&hx_tune_command, o, err, errlen);
    if (rc == 0) rc = hx_opts_parse(&hx_tune_command, o, nown, own, err, errlen);
    if (rc == 0) rc = hx_config_parse(cfg, t->nrun_args, t->run_args, err, errlen);
    if (rc) return rc;
    if (o->grid && o->compare)
        return snprintf(err, errlen, "--grid-search and --compare-grid: give one (--compare-grid runs both)"), -1;
    if ((*ntr = transports(o->transport, names, nlen, list, err, errlen)) < 0) return -1;
    if (!t->repeat_given) cfg->repeat = TUNE_REPEAT;
    cfg->verify = 0;
    cfg->output[0] = 0;
    cfg->format = HX_FORMAT_CSV;
    cfg->no_header = 1;
    t->quiet = cfg->quiet;
    cfg->quiet = 1;
    hx_config probe = *cfg;
    snprintf(probe.transport, sizeof probe.transport, "%s", list[0]);
    probe.depth = probe.fuse = 1;
    if (hx_config_check(&probe, t->nranks, err, errlen)) return -1;
    if (cfg->backend == HX_BACKEND_CUDA && !hx_backend_built(HX_BACKEND_CUDA))
        return snprintf(err, errlen, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use "
                                     "--backend cpu"), -1;
    return 0;
}

int hx_tune_main(int argc, char **argv)
{
    static tuner t; /* large: not on the stack */
    memset(&t, 0, sizeof t);
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.nranks);
    char err[400] = "", names[256], *list[TUNE_MAX_TRANSPORTS];
    char **own = calloc((size_t)argc + 1, sizeof *own);
    t.run_args = calloc((size_t)argc + 1, sizeof *t.run_args);
    if (!own || !t.run_args) {
        free(own), free(t.run_args);
        if (t.rank == 0) fprintf(stderr, "halox: error: out of host memory\n");
        return HX_ERR_RUNTIME;
    }
    tune_opts o;
    int ntr = 0;
    int rc = setup(&t, &o, argc, argv, own, list, &ntr, names, sizeof names, err, sizeof err);
    free(own);
    if (rc == 1) {
        if (t.rank == 0) hx_opts_usage(&hx_tune_command, stdout);
        free(t.run_args);
        return HX_OK;
    }
    hx_config *cfg = &t.base;
    /* the backend, resolved as the context does (auto: cuda when every rank sees a GPU) */
    int gpus = hx_backend_built(HX_BACKEND_CUDA) ? hx_gpu_count() : 0, min_gpus = 0;
    MPI_Allreduce(&gpus, &min_gpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc == 0 && cfg->backend == HX_BACKEND_CUDA && min_gpus == 0)
        snprintf(err, sizeof err, "no CUDA GPU is visible to every rank: use --backend cpu, or check CUDA_VISIBLE_DEVICES"), rc = -1;
    if (rc != 0) {
        if (t.rank == 0) fprintf(stderr, "halox: error: %s\n", err);
        free(t.run_args);
        return HX_ERR_INPUT;
    }
    if (cfg->backend == HX_BACKEND_AUTO) cfg->backend = min_gpus > 0 ? HX_BACKEND_CUDA : HX_BACKEND_CPU;
    t.cuda = cfg->backend == HX_BACKEND_CUDA;
    t.radius = hx_config_radius(cfg);
    /* here, not from the candidates' runs, whose stderr is captured */
    if (t.cuda) hx_cli_note_one_core(MPI_COMM_WORLD, o.transport);

    t.budget = o.budget;
    t.t0 = MPI_Wtime();
    MPI_Bcast(&t.t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (!o.grid) tune_staged(&t, list, ntr);
    if (o.grid || o.compare) tune_grid(&t, list, ntr);

    /* winner and runner-up of the search that decides: the staged one unless --grid-search */
    const unsigned found = o.grid ? TUNE_GRID : TUNE_STAGED;
    const cand *w = tune_best(&t, found, NULL);
    int ran = 0, tried = 0;
    for (int i = 0; i < t.n; i++)
        if (t.c[i].found & found) ran += t.c[i].ran, tried++;
    if (!w) {
        if (t.rank == 0)
            fprintf(stderr, "halox: error: no candidate could run (%s): check halox info and the problem options\n",
                    t.n ? t.c[0].note : "every combination was refused");
        free(t.run_args);
        return HX_ERR_RUNTIME;
    }
    /* rank 0's choice, so that a floating-point tie cannot split the ranks (the times are all-reduced) */
    const cand *r = tune_best(&t, found, w), *g = o.compare ? tune_best(&t, TUNE_GRID, NULL) : NULL;
    int idx[3] = {(int)(w - t.c), r ? (int)(r - t.c) : -1, g ? (int)(g - t.c) : -1};
    MPI_Bcast(idx, 3, MPI_INT, 0, MPI_COMM_WORLD);
    w = &t.c[idx[0]];
    r = idx[1] >= 0 ? &t.c[idx[1]] : NULL;
    g = idx[2] >= 0 ? &t.c[idx[2]] : NULL;

    long cells = (long)cfg->size[0] * cfg->size[1] * (cfg->dim == 3 ? cfg->size[2] : 1);
    int do_verify = o.verify_set ? o.verify : cells <= TUNE_VERIFY_CELLS;
    int code = HX_OK, verified = 0;
    char vnote[200] = "";
    if (do_verify) {
        hx_config v = *cfg;
        apply(&v, w);
        v.verify = 1;
        v.repeat = 1;
        int c = tune_quiet_run(&v, t.rank, t.nranks, vnote, sizeof vnote);
        verified = c == HX_OK ? hx_last_run()->verified : c == HX_ERR_VERIFY ? -1 : 0;
        if (c == HX_ERR_VERIFY) code = HX_ERR_VERIFY;
    }
    if (t.rank == 0) {
        if (o.candidates[0] && tune_write_candidates(&t, o.candidates))
            fprintf(stderr, "halox: error: cannot write --candidates '%s': check the directory exists and is writable\n",
                    o.candidates), code = code ? code : HX_ERR_RUNTIME;
        tune_report(&t, w, r, found, ran, tried - ran);
        if (o.compare) tune_compare(&t, w, g);
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
    free(t.run_args);
    return code;
}
