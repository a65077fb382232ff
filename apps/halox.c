/* The halox command: `halox run [options]`, `halox info`, `halox roofline`, `halox reference`,
 * `halox pingpong`, `halox mg`, `halox tune`, `halox report`, `halox --help`, and the options every
 * subcommand takes (--verbose, --quiet). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "halox/halox.h"
#include "pingpong.h"
#include "exchange_bench.h"
#include "run.h"
#include "tune.h"

int hx_mg_main(int argc, char **argv); /* apps/mg/mg_main.c */

static void usage(FILE *out)
{
    fprintf(out, "halox %s: halo-exchange benchmark for distributed stencils (one MPI rank per GPU or CPU socket)\n\n"
                 "usage: mpirun -np N halox run [options]   run a stencil with halo exchanges and report timings\n"
                 "       halox info                         build, MPI, GPUs and transports\n"
                 "       halox roofline [options]           copy bandwidth vs each stencil's sweep rate on one device\n"
                 "       halox reference [run options]      checksum of the single-domain reference field (one process)\n"
                 "       mpirun -np N halox mg [options]    geometric multigrid solve (HPGMG-FV style, CPU or GPU)\n"
                 "       mpirun -np N halox tune [options]  search transport, pattern, depth, fuse, overlap, graph,\n"
                 "                                          schedule within --budget; prints the winner and why\n"
                 "       mpirun -np 2 halox pingpong [options] message latency and bandwidth per size and transport\n"
                 "       mpirun -np N halox exchange [options] N fields in one exchange call against one call per field\n"
                 "       halox report FILE.csv... [--out DIR] plots (PNG, SVG) and the overlap-coverage table of run and\n"
                 "                                          pingpong CSVs (python3 + matplotlib; no MPI)\n"
                 "       halox run --help                   all run options (halox roofline|pingpong|report --help: theirs)\n\n"
                 "every subcommand, before or after its name:\n"
                 "  --verbose       also what halox chose (the library's and the CLI's info messages, on stderr);\n"
                 "                  --verbose --verbose or --verbose=2: debug messages too\n"
                 "  --quiet         only the report: no warnings, notes or progress lines (errors still show)\n"
                 "  (default: warnings and notes on stderr; --quiet wins over --verbose)\n",
            HALOX_VERSION);
}

/* --transport all: the same problem over every transport of this build, then one table with
 * each one's time per sweep and its ratio to host-staged mpi, measured in this one job. A transport
 * whose set-up refuses here (mpi-cuda without a CUDA-aware MPI, ...) is skipped: a note with the
 * reason, once a job however many combinations a sweep runs, and "skipped" in the table. */
static int run_all_transports(int rank, hx_config *cfg)
{
    static char noted[64]; /* transports already noted as skipped in this job, by position */
    char names[256], *save = NULL, *list[64];
    int n = 0, code = HX_OK;
    snprintf(names, sizeof names, "%s", hx_transport_names()); /* "mpi, ipc, nccl": mpi first */
    for (char *t = strtok_r(names, ", ", &save); t && n < 64; t = strtok_r(NULL, ", ", &save)) list[n++] = t;
    double us[64];
    int verified[64];
    cfg->skip_refusals = 1;
    for (int i = 0; i < n; i++) {
        snprintf(cfg->transport, sizeof cfg->transport, "%s", list[i]);
        int c = hx_run(cfg, MPI_COMM_WORLD);
        us[i] = c == HX_OK ? hx_last_run()->us_per_sweep : -1;
        verified[i] = c == HX_OK ? hx_last_run()->verified : 0;
        if (c == HX_ERR_VERIFY) code = c;
        if (c != HX_OK && hx_last_run()->refused[0] && !noted[i]) {
            noted[i] = 1;
            if (rank == 0 && hx_cli_noting())
                fprintf(stderr, "halox: note: transport %s skipped: %s\n", list[i], hx_last_run()->refused);
            fflush(stderr);
        }
        const int printed = c == HX_OK || !hx_last_run()->refused[0];
        if (printed) cfg->no_header = 1;
        if (printed && rank == 0 && cfg->format == HX_FORMAT_TABLE) printf("\n");
    }
    cfg->skip_refusals = 0;
    strcpy(cfg->transport, "all");
    if (rank == 0) {
        double base = us[0];
        FILE *out = cfg->format == HX_FORMAT_TABLE ? stdout : stderr;
        fprintf(out, "%-10s %14s %14s %10s\n", "transport", "us/sweep", "vs mpi", "verified");
        for (int i = 0; i < n; i++) {
            if (us[i] < 0) fprintf(out, "%-10s %14s %14s %10s\n", list[i], noted[i] ? "skipped" : "failed", "-", "-");
            else fprintf(out, "%-10s %14.2f %13.2fx %10s\n", list[i], us[i], base > 0 ? base / us[i] : 0,
                         verified[i] > 0 ? "yes" : verified[i] < 0 ? "FAILED" : "-");
        }
        fflush(out);
    }
    return code;
}

/* Every combination of the sweep is parsed and checked before the first one runs, so a bad
 * value anywhere in a list stops the job with exit 2 before any computation. */
static int check_sweep(hx_sweep *sw, int nranks, int *help)
{
    char err[320] = "";
    int bad = 0;
    *help = 0;
    do {
        hx_config cfg;
        hx_config_defaults(&cfg);
        int rc = hx_config_parse(&cfg, sw->argc, hx_sweep_args(sw), err, sizeof err);
        if (rc == 1) {
            *help = 1;
            break;
        }
        bad = rc < 0 || hx_config_check(&cfg, nranks, err, sizeof err) != 0;
        /* GPU-only options where the backend will be the CPU: cpu asked for, or auto without a GPU
         * on this rank (auto takes cuda only when every rank has one) */
        const int cpu = cfg.backend == HX_BACKEND_CPU ||
                        (cfg.backend == HX_BACKEND_AUTO && (!hx_backend_built(HX_BACKEND_CUDA) || hx_gpu_count() == 0));
        if (!bad && cpu) bad = hx_config_gpu_only(&cfg, err, sizeof err) != 0;
    } while (!bad && hx_sweep_next(sw));
    hx_sweep_rewind(sw);
    return hx_cli_any_failed(MPI_COMM_WORLD, bad, err);
}

static int run_command(int rank, int argc, char **argv)
{
    int nranks, help, code = HX_OK, first = 1;
    long done = 0;
    char err[320] = "";
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    hx_sweep sw;
    int bad = hx_sweep_init(&sw, &hx_run_command, argc, argv, err, sizeof err) != 0;
    if (hx_cli_any_failed(MPI_COMM_WORLD, bad, err) || check_sweep(&sw, nranks, &help)) {
        hx_sweep_free(&sw);
        return HX_ERR_INPUT;
    }
    if (help) {
        if (rank == 0) hx_config_usage(stdout);
        hx_sweep_free(&sw);
        return HX_OK;
    }
    do {
        hx_config cfg;
        hx_config_defaults(&cfg);
        hx_config_parse(&cfg, sw.argc, hx_sweep_args(&sw), err, sizeof err); /* checked above */
        if (!first && cfg.format == HX_FORMAT_TABLE && rank == 0) printf("\n");
        cfg.no_header = !first;
        int c = !strcmp(cfg.transport, "all") ? run_all_transports(rank, &cfg) : hx_run(&cfg, MPI_COMM_WORLD);
        done++;
        /* progress of a sweep on stderr: one line per finished combination (--quiet: none) */
        if (rank == 0 && !cfg.quiet && sw.runs > 1 && strcmp(cfg.transport, "all")) {
            if (c == HX_OK) fprintf(stderr, "halox: run %ld/%ld done: %.3f us/sweep\n", done, sw.runs, hx_last_run()->us_per_sweep);
            else fprintf(stderr, "halox: run %ld/%ld failed\n", done, sw.runs);
            fflush(stderr);
        }
        if (c != HX_OK) code = c;
        if (c == HX_ERR_INPUT) break; /* the same mistake would repeat in every combination */
        first = 0;
    } while (hx_sweep_next(&sw));
    hx_sweep_free(&sw);
    return code;
}

/* `halox report ...` (argv[at] is "report"): exec python3 on scripts/halox_report.py, before MPI
 * starts. The script is $HALOX_REPORT_SCRIPT, else <bindir>/../share/halox/halox_report.py
 * (installed), else the source tree's scripts/halox_report.py (HALOX_SOURCE_DIR, set by CMake).
 * Returns only on failure. */
static int report_command(int argc, char **argv, int at)
{
    char path[4096] = "", exe[4096];
    const char *env = getenv("HALOX_REPORT_SCRIPT");
    if (env && *env) snprintf(path, sizeof path, "%s", env);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!path[0] && n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        snprintf(path, sizeof path, "%s/../share/halox/halox_report.py", exe);
        if (access(path, R_OK)) path[0] = 0;
    }
#ifdef HALOX_SOURCE_DIR
    if (!path[0]) snprintf(path, sizeof path, "%s/scripts/halox_report.py", HALOX_SOURCE_DIR);
#endif
    if (!path[0] || access(path, R_OK)) {
        fprintf(stderr, "halox: error: cannot find halox_report.py: set HALOX_REPORT_SCRIPT to its path\n");
        return HX_ERR_INPUT;
    }
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) return HX_ERR_RUNTIME;
    args[0] = "python3";
    args[1] = path;
    for (int i = 1, k = 2; i < argc; i++) /* the global options before "report" go to the script too */
        if (i != at) args[k++] = argv[i];
    execvp("python3", args);
    fprintf(stderr, "halox: error: cannot run python3 (halox report needs python3 with matplotlib)\n");
    free(args);
    return HX_ERR_RUNTIME;
}

static int is_global(const char *a)
{
    return !strcmp(a, "--verbose") || !strncmp(a, "--verbose=", 10) || !strcmp(a, "--no-verbose") ||
           !strcmp(a, "--quiet") || !strncmp(a, "--quiet=", 8) || !strcmp(a, "--no-quiet");
}

/* --verbose and --quiet, wherever they stand, taken out of argv; the subcommands with a quiet option
 * of their own (run, tune, reference, pingpong) get --quiet back at the end of their arguments.
 * Sets the CLI's verbosity. Returns 0, or -1 with a message in err. */
static int global_options(int *argc, char **argv, const char *cmd, char *err, size_t n)
{
    int verbose = 0, quiet = 0, k = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (!is_global(a)) {
            argv[k++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--verbose")) verbose++;
        else if (!strcmp(a, "--no-verbose") || !strcmp(a, "--verbose=0") || !strcmp(a, "--verbose=off")) verbose = 0;
        else if (!strcmp(a, "--verbose=1") || !strcmp(a, "--verbose=on")) verbose = 1;
        else if (!strcmp(a, "--verbose=2")) verbose = 2;
        else if (!strcmp(a, "--quiet") || !strcmp(a, "--quiet=on")) quiet = 1;
        else if (!strcmp(a, "--quiet=off") || !strcmp(a, "--no-quiet")) quiet = 0;
        else {
            snprintf(err, n, "bad '%s': give --verbose, --verbose=0|1|2, --quiet or --quiet=on|off", a);
            return -1;
        }
    }
    if (quiet && (!strcmp(cmd, "run") || !strcmp(cmd, "tune") || !strcmp(cmd, "reference") || !strcmp(cmd, "pingpong")))
        argv[k++] = "--quiet"; /* room: at least one argument was taken out */
    argv[k] = NULL;
    *argc = k;
    hx_cli_set_verbosity(quiet ? HX_LOG_ERROR : verbose >= 2 ? HX_LOG_DEBUG : verbose == 1 ? HX_LOG_INFO : HX_LOG_WARN);
    return 0;
}

int main(int argc, char **argv)
{
    int at = 1; /* the subcommand's place, after any global options */
    while (at < argc && is_global(argv[at])) at++;
    if (at < argc && !strcmp(argv[at], "report")) return report_command(argc, argv, at);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "halox: error: MPI_Init failed: check the MPI installation (mpirun --version)\n");
        return HX_ERR_RUNTIME;
    }
    int rank, code = HX_OK;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char err[200] = "";
    at = 1;
    while (at < argc && is_global(argv[at])) at++;
    const char *cmd = at < argc && strncmp(argv[at], "--", 2) ? argv[at] : "run";
    if (at < argc && !strcmp(argv[at], "--help")) cmd = "--help";
    if (global_options(&argc, argv, cmd, err, sizeof err)) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", err);
        MPI_Finalize();
        return HX_ERR_INPUT;
    }
    int first_opt = argc > 1 ? 2 : 1;
    if (argc > 1 && strncmp(argv[1], "--", 2) == 0 && strcmp(argv[1], "--help") != 0)
        first_opt = 1; /* `halox --size ...` is `halox run --size ...` */
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (rank == 0) usage(stdout);
    } else if (!strcmp(cmd, "info")) {
        hx_print_info(stdout, MPI_COMM_WORLD);
    } else if (!strcmp(cmd, "roofline")) {
        if (rank == 0) code = hx_roofline_main(argc - 2, argv + 2);
    } else if (!strcmp(cmd, "reference")) {
        if (rank == 0) code = hx_reference_main(argc - 2, argv + 2);
    } else if (!strcmp(cmd, "pingpong")) {
        code = hx_pingpong_main(argc - 2, argv + 2, MPI_COMM_WORLD);
    } else if (!strcmp(cmd, "exchange")) {
        code = hx_exchange_bench_main(argc - 2, argv + 2, MPI_COMM_WORLD);
    } else if (!strcmp(cmd, "mg")) {
        code = hx_mg_main(argc - 2, argv + 2);
    } else if (!strcmp(cmd, "tune")) {
        code = hx_tune_main(argc - 2, argv + 2);
    } else if (!strcmp(cmd, "run")) {
        code = run_command(rank, argc - first_opt, argv + first_opt);
    } else {
        if (rank == 0) fprintf(stderr, "halox: error: unknown command '%s': use run, info, roofline, reference, pingpong, exchange, report, mg, tune or --help\n", cmd);
        code = HX_ERR_INPUT;
    }
    MPI_Finalize();
    return code;
}
