/* `halox run` and `halox reference`: the benchmark driver, written on the public API only
 * (context, layout, exchange, sweeper). Set-up errors come back agreed by every rank, so rank 0
 * prints one line and all ranks stop together; a failure in the middle of a run may leave other
 * ranks blocked in a message, so it aborts the job. */
#define _GNU_SOURCE /* sched_getaffinity, for hx_cli_note_one_core */
#include "run.h"

#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "halox/halox.h"
#include "report.h"

static hx_run_result last_result;
const hx_run_result *hx_last_run(void) { return &last_result; }

static hx_log_level verbosity = HX_LOG_WARN;

void hx_cli_set_verbosity(hx_log_level level) { verbosity = level; }
hx_log_level hx_cli_verbosity(void) { return verbosity; }
int hx_cli_noting(void) { return verbosity >= HX_LOG_WARN; }

/* The stock callback, less the library's error messages below --verbose: the CLI prints the error
 * every rank agreed on (hx_context_error) once, where the callback would speak on each failing rank. */
static void cli_log(hx_log_level level, int rank, const char *msg, void *user)
{
    if (level == HX_LOG_ERROR && verbosity < HX_LOG_INFO) return;
    hx_log_to_file(level, rank, msg, user);
}

void hx_cli_log_options(hx_context_options *co)
{
    co->log_level = verbosity > HX_LOG_ERROR ? verbosity : HX_LOG_ERROR;
    co->log = cli_log;
    co->log_user = stderr;
}

void hx_cli_info(int rank, const char *fmt, ...)
{
    if (verbosity < HX_LOG_INFO || rank != 0) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hx_log_to_file(HX_LOG_INFO, rank, msg, stderr);
    fflush(stderr);
}

/* Collective: 1 if any rank failed; the lowest failing rank prints its message. For the CLI's
 * own checks (options, --output), made before the library is involved. */
int hx_cli_any_failed(MPI_Comm comm, int failed, const char *msg)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = failed ? rank : size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        fprintf(stderr, "halox: error: MPI_Allreduce failed while checking set-up; aborting\n");
        MPI_Abort(comm, HX_ERR_RUNTIME);
    }
    if (first == size) return 0;
    if (rank == first) {
        fprintf(stderr, "halox: error: %s\n", msg);
        fflush(stderr);
    }
    return 1;
}

/* CPUs this process may run on (its affinity mask), 0 where unknown */
static int cpus_allowed(void)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    return 0;
}

/* 1 when the transports (one name, a comma list, or "all") hold one that a rank bound to one core
 * slows: every one but ipc and pingpong's device models, whose host thread only launches kernels */
static int slowed_on_one_core(const char *transports)
{
    char list[256], *save = NULL;
    if (!strcmp(transports, "all")) return 1;
    snprintf(list, sizeof list, "%s", transports);
    for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        if (strcmp(t, "ipc") && strcmp(t, "ipc-kernel") && strcmp(t, "memcpy-peer")) return 1;
    return 0;
}

void hx_cli_note_one_core(MPI_Comm comm, const char *transports)
{
    static int noted = 0; /* once a process: tune and --transport all run many times */
    int rank, size, one, count = 0;
    if (noted || !hx_cli_noting() || !slowed_on_one_core(transports)) return;
    noted = 1;
    one = cpus_allowed() == 1;
    if (MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, comm) != MPI_SUCCESS || count == 0) return;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0)
        fprintf(stderr, "halox: note: %d of %d ranks may run on one core only (their MPI binding); a rank's helper threads "
                "(NCCL's and NVSHMEM's proxies, the CUDA driver's) then share it with its busy-waiting thread, which slows "
                "mpi, nccl and nvshmem several times over and nccl's network path to milliseconds a message: give each "
                "rank more cores (Open MPI: mpirun --bind-to none)\n", count, size);
}

/* A library call failed at set-up: every rank holds the same message; rank 0 prints it. */
static int setup_failed(const hx_config *cfg, const hx_context *ctx, int rank, int status)
{
    snprintf(last_result.refused, sizeof last_result.refused, "%s", hx_context_error(ctx));
    if (rank == 0 && !cfg->skip_refusals) {
        fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
        fflush(stderr);
    }
    return status;
}

/* A failure in the middle of a run: other ranks may be blocked in a message, so stop them all. */
static void die(MPI_Comm comm, int rank, const char *msg)
{
    fprintf(stderr, "halox: error (rank %d): %s\n", rank, msg);
    fflush(stderr);
    MPI_Abort(comm, HX_ERR_RUNTIME);
}

static hx_problem problem_of(const hx_config *c, const hx_operator *op)
{
    hx_problem p;
    memset(&p, 0, sizeof p);
    p.dim = c->dim;
    memcpy(p.size, c->size, sizeof p.size);
    p.stencil = c->stencil;
    p.dtype = c->dtype;
    p.boundary = c->boundary;
    p.seed = c->seed;
    p.iters = c->iters;
    p.op = op; /* its coefficient fields from seed + 1 + c, as the run makes them */
    return p;
}

/* Rank 0 checks that --output can be written before anything is computed. */
static int output_writable(const char *path, char *err, size_t n)
{
    int existed = access(path, F_OK) == 0;
    FILE *f = fopen(path, "ab");
    if (!f) return snprintf(err, n, "cannot open --output '%s' for writing: check the directory exists and is writable", path), -1;
    fclose(f);
    if (!existed) remove(path);
    return 0;
}

/* Gather the final field and compare it with the single-domain reference on rank 0. */
static void verify(hx_layout *l, const hx_field *f, const hx_config *cfg, const hx_operator *op, MPI_Comm comm, int rank,
                   hx_report *rep)
{
    const hx_decomp *d = hx_layout_decomp(l);
    long cells = (long)d->global[0] * d->global[1] * d->global[2];
    size_t elem = cfg->dtype == HX_DOUBLE ? 8 : 4;
    void *global = NULL, *ref = NULL;
    if (rank == 0) {
        global = malloc((size_t)cells * elem);
        ref = malloc((size_t)cells * elem);
    }
    if (hx_cli_any_failed(comm, rank == 0 && (!global || !ref), "out of host memory for --verify: verify a smaller --size")) {
        free(global), free(ref);
        MPI_Abort(comm, HX_ERR_RUNTIME);
    }
    if (hx_field_gather(l, f, global)) die(comm, rank, "gathering the field for --verify failed");
    double res[2] = {0, 0};
    if (rank == 0) {
        hx_problem p = problem_of(cfg, op);
        if (hx_reference_run(&p, ref)) die(comm, 0, "out of host memory for the reference run: verify a smaller --size");
        long first;
        res[0] = (double)hx_compare_fields(cfg->dtype, global, ref, cells, &res[1], &first);
        if (res[0] > 0) {
            long x = first % d->global[0], y = (first / d->global[0]) % d->global[1], z = first / ((long)d->global[0] * d->global[1]);
            fprintf(stderr, "halox: verify: first differing cell (x=%ld, y=%ld, z=%ld)\n", x, y, z);
        }
    }
    free(global);
    free(ref);
    MPI_Bcast(res, 2, MPI_DOUBLE, 0, comm);
    rep->bad_cells = (long)res[0];
    rep->max_diff = res[1];
    rep->verified = rep->bad_cells == 0 ? 1 : -1;
}

/* Norms as the library computes them, printed by rank 0 (user: the rank). */
static void print_norm(long sweep, double norm, void *user)
{
    if (*(const int *)user == 0) printf("norm  sweep %-8ld ||u_new - u_old||_2 = %.9e\n", sweep, norm);
}

/* Warm-up, then cfg->repeat timed runs from the seed; one hx_rank_stats per repeat. */
static void timed_runs(hx_sweeper *sw, hx_context *ctx, const hx_config *cfg, MPI_Comm comm, int rank, hx_rank_stats *reps)
{
    if (cfg->warmup > 0 && (hx_sweeper_init(sw, cfg->seed) || hx_sweeper_iterate(sw, cfg->warmup)))
        die(comm, rank, hx_context_error(ctx));
    for (int r = 0; r < cfg->repeat; r++) {
        if (hx_sweeper_init(sw, cfg->seed)) die(comm, rank, hx_context_error(ctx));
        const int show = !cfg->quiet && cfg->format == HX_FORMAT_TABLE && r == cfg->repeat - 1;
        hx_sweeper_on_norm(sw, show ? print_norm : NULL, &rank);
        MPI_Barrier(comm);
        if (hx_sweeper_iterate(sw, cfg->iters)) die(comm, rank, hx_context_error(ctx));
        hx_times t;
        hx_sweeper_times(sw, &t);
        if (hx_reduce_times(comm, &t, &reps[r])) die(comm, rank, "MPI_Allreduce of the timings failed");
    }
    hx_sweeper_on_norm(sw, NULL, NULL); /* its user pointer is this frame's */
}

int hx_run(const hx_config *cfg_in, MPI_Comm comm)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char err[320] = "";
    hx_config cfg = *cfg_in;
    memset(&last_result, 0, sizeof last_result);

    /* Every rank must run the same problem. */
    hx_config root = cfg;
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, comm);
    if (hx_cli_any_failed(comm, memcmp(&root, &cfg, sizeof cfg) != 0,
                   "ranks were started with different options: give every rank the same command line"))
        return HX_ERR_INPUT;
    if (hx_cli_any_failed(comm, hx_config_check(&cfg, nranks, err, sizeof err) != 0, err)) return HX_ERR_INPUT;
    int pgrid[3];
    if (hx_cli_any_failed(comm, hx_config_grid(&cfg, nranks, pgrid, err, sizeof err) != 0, err)) return HX_ERR_INPUT;
    if (hx_cli_any_failed(comm, rank == 0 && cfg.output[0] && output_writable(cfg.output, err, sizeof err), err)) return HX_ERR_INPUT;

    /* what the CLI can say in its own words, with the flag to change */
    if (strcmp(cfg.transport, "auto") && !hx_transport_paths(cfg.transport)) {
        const char *why = hx_transport_absent_reason(cfg.transport);
        if (why) snprintf(err, sizeof err, "--transport %s: %s (this build has %s)", cfg.transport, why, hx_transport_names());
        else snprintf(err, sizeof err, "unknown --transport '%s': this build has %s (see halox info)", cfg.transport, hx_transport_names());
        hx_cli_any_failed(comm, 1, err);
        return HX_ERR_INPUT;
    }
    if (cfg.backend == HX_BACKEND_CUDA && !hx_backend_built(HX_BACKEND_CUDA)) {
        hx_cli_any_failed(comm, 1, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use --backend cpu");
        return HX_ERR_INPUT;
    }
    if (hx_cli_any_failed(comm, cfg.backend == HX_BACKEND_CUDA && hx_gpu_count() == 0,
                   "no CUDA GPU is visible to this rank: use --backend cpu, or check CUDA_VISIBLE_DEVICES and the driver"))
        return HX_ERR_INPUT;

    hx_context_options co = hx_context_defaults();
    co.backend = cfg.backend;
    co.devices = cfg.devices;
    co.threads = cfg.threads;
    hx_cli_log_options(&co);
    hx_context *ctx;
    int st = hx_context_create(comm, &co, &ctx);
    if (st) {
        setup_failed(&cfg, ctx, rank, st);
        hx_context_destroy(ctx);
        return st;
    }
    if (hx_context_backend(ctx) != HX_BACKEND_CUDA && hx_config_gpu_only(&cfg, err, sizeof err)) {
        hx_cli_any_failed(comm, 1, err);
        hx_context_destroy(ctx);
        return HX_ERR_INPUT;
    }
    if (hx_context_backend(ctx) == HX_BACKEND_CUDA) hx_cli_note_one_core(comm, cfg.transport);
    hx_operator *op = NULL;
    if ((st = hx_config_make_operator(ctx, &cfg, &op))) {
        setup_failed(&cfg, ctx, rank, st);
        hx_context_destroy(ctx);
        return st;
    }
    hx_layout_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.dim = cfg.dim;
    memcpy(ld.global, cfg.size, sizeof ld.global);
    memcpy(ld.pgrid, pgrid, sizeof ld.pgrid);
    ld.halo = cfg.depth * hx_config_radius(&cfg);
    ld.dtype = cfg.dtype;
    ld.boundary = cfg.boundary;
    hx_sweep_options so = hx_sweep_defaults(cfg.stencil);
    so.depth = cfg.depth;
    so.overlap = cfg.overlap;
    so.graph = cfg.graph;
    so.fuse = cfg.fuse;
    so.norm_every = cfg.norm_every;
    so.desync_barrier = cfg.desync_barrier;
    so.schedule = cfg.schedule;
    so.kernel = cfg.kernel;
    so.tuning.block_rows = cfg.block_rows;
    so.tuning.march = cfg.march;
    so.tuning.zsplit = cfg.zsplit;
    so.tuning.lanes = cfg.lanes;
    so.tuning.inplace = cfg.inplace;
    so.tuning.prefetch = cfg.prefetch;
    so.tuning.pdl = cfg.pdl;
    so.tuning.tma = cfg.tma;
    so.profile = cfg.profile;

    hx_layout *layout = NULL;
    hx_exchange *x = NULL;
    hx_sweeper *sw = NULL;
    int code = HX_OK;
    hx_exchange_options xo = hx_exchange_defaults();
    xo.transport = cfg.transport;
    xo.pattern = cfg.pattern;
    xo.ll_bytes = cfg.ll_bytes;
    xo.host_fallback = cfg.host_fallback;
    hx_field coef[HX_OP_MAX_COEF];
    memset(coef, 0, sizeof coef);
    if ((st = hx_layout_create(ctx, &ld, &layout)) || (st = hx_exchange_create_opts(layout, &xo, &x)) ||
        (st = hx_config_make_coefficients(layout, op, cfg.seed, coef)) || (so.op = op, so.coef = coef, so.ncoef = cfg.op_ncoef,
                                                                 st = hx_sweeper_create(layout, x, &so, &sw))) {
        code = setup_failed(&cfg, ctx, rank, st);
        goto out;
    }
    /* the sweeper holds its own copies */
    for (int c = 0; c < HX_OP_MAX_COEF; c++) hx_field_free(layout, &coef[c]);

    hx_rank_stats *reps = calloc((size_t)cfg.repeat, sizeof *reps);
    if (hx_cli_any_failed(comm, !reps, "out of host memory for the timings")) {
        code = HX_ERR_RUNTIME;
        goto out;
    }
    timed_runs(sw, ctx, &cfg, comm, rank, reps);

    hx_report rep;
    memset(&rep, 0, sizeof rep);
    rep.cfg = &cfg;
    rep.d = hx_layout_decomp(layout);
    rep.backend = hx_backend_name(hx_context_backend(ctx));
    rep.transport = hx_exchange_transport(x);
    rep.gpu_name = hx_context_device_name(ctx);
    rep.nrep = cfg.repeat;
    rep.whole_graph = hx_sweeper_whole_graph(sw);
    rep.kernel_ran = hx_sweeper_kernel(sw);
    snprintf(last_result.kernel_ran, sizeof last_result.kernel_ran, "%s", rep.kernel_ran ? rep.kernel_ran : "");
    hx_cli_info(rank, "run: backend %s, grid %dx%dx%d, transport %s, schedule %s, depth %d, fuse %d, kernel %s",
                rep.backend, pgrid[0], pgrid[1], pgrid[2], rep.transport, hx_schedule_name(cfg.schedule), cfg.depth,
                cfg.fuse, rep.kernel_ran ? rep.kernel_ran : "cycle");
    rep.reps = reps;
    rep.have_norm = cfg.norm_every > 0 && cfg.norm_every <= cfg.iters;
    rep.last_norm = hx_sweeper_last_norm(sw);

    hx_field f = hx_sweeper_field(sw);
    if (cfg.output[0] && hx_field_write_npy(layout, &f, cfg.output)) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
        code = HX_ERR_RUNTIME;
    }
    if (cfg.verify) {
        verify(layout, &f, &cfg, op, comm, rank, &rep);
        if (rep.verified < 0) code = HX_ERR_VERIFY;
    }
    if (rank == 0) hx_report_print(stdout, &rep);
    last_result.us_per_sweep = 1e6 * hx_report_total_median(&rep) / (double)cfg.iters;
    last_result.verified = rep.verified;
    for (int g = 0; g < HX_NUM_SEGS; g++) last_result.us_segment[g] = 1e6 * hx_report_segment_median(&rep, g) / (double)cfg.iters;
    last_result.segments_timed = !rep.whole_graph;
    free(reps);
out:
    hx_sweeper_destroy(sw);
    if (layout)
        for (int c = 0; c < HX_OP_MAX_COEF; c++) hx_field_free(layout, &coef[c]);
    hx_exchange_destroy(x);
    hx_layout_destroy(layout);
    hx_operator_destroy(op);
    hx_context_destroy(ctx);
    return code;
}

/* `halox reference [run options]`: the single-domain reference of the problem, on one process,
 * printed as the checksum of hx_field_checksum (for checking programs built on the library). */
int hx_reference_main(int argc, char **argv)
{
    hx_config cfg;
    char err[320];
    hx_config_defaults(&cfg);
    int rc = hx_config_parse(&cfg, argc, argv, err, sizeof err);
    if (rc == 1) return 0;
    if (rc < 0 || hx_config_check(&cfg, 1, err, sizeof err)) {
        fprintf(stderr, "halox: error: %s\n", err);
        return HX_ERR_INPUT;
    }
    /* an operator is made on this process alone */
    hx_context *ctx = NULL;
    hx_operator *op = NULL;
    if (cfg.op && hx_config_operator_alone(&cfg, &ctx, &op, err, sizeof err)) {
        fprintf(stderr, "halox: error: %s\n", err);
        return HX_ERR_INPUT;
    }
    hx_problem p = problem_of(&cfg, op);
    long cells = (long)p.size[0] * p.size[1] * (p.dim == 3 ? p.size[2] : 1);
    void *out = malloc((size_t)cells * (cfg.dtype == HX_DOUBLE ? 8 : 4));
    int code = 0;
    if (!out || hx_reference_run(&p, out)) {
        fprintf(stderr, "halox: error: out of host memory for the reference run: use a smaller --size\n");
        code = HX_ERR_RUNTIME;
    } else printf("checksum %llu\n", (unsigned long long)hx_checksum_cells(cfg.dtype, out, cells));
    free(out);
    hx_operator_destroy(op);
    hx_context_destroy(ctx);
    return code;
}
