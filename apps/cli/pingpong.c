/* `halox pingpong`: message latency and bandwidth between two ranks, for every message size
 * (powers of two) and every transport of the build, written on the public API only: a layout,
 * a field, and an exchange made from a hand-made plan (hx_exchange_create_plan) with one phase
 * and one message to the peer.
 *
 * An exchange message is symmetric (each hx_message sends send_box and receives recv_box, both
 * `count` cells): both ranks of the pair send one message of B bytes and receive the peer's. One
 * round trip is two consecutive exchanges, each followed by hx_context_sync (the received data
 * is unpacked and usable) and the optional --compute-us busy-wait; the reported latency is half a
 * round trip, i.e. the time of one exchange plus the busy-wait. See docs/pingpong.md.
 * The device-initiated models (ipc-kernel, memcpy-peer) are not library transports: they live in
 * pingpong_kernel.c; the rows, their statistics and the report are in pingpong_report.c. */
#include "pingpong.h"
#include "pingpong_priv.h"
#include "run.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PP_MAX_TRANSPORTS 16

static const hx_opt_choice pair_modes[] = {{"first", 0}, {"all", 1}, {NULL, 0}};
static const hx_opt_choice backends[] = {
    {"auto", HX_BACKEND_AUTO}, {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {NULL, 0}};
static const hx_opt_choice formats[] = {
    {"table", HX_FORMAT_TABLE}, {"csv", HX_FORMAT_CSV}, {"json", HX_FORMAT_JSON}, {NULL, 0}};

#define F(member) HX_OPT_FIELD(pp_config, member)
#define MSG "messages"
#define WHERE "ranks and transports"
#define MEASURE "measurement and output"
static const hx_option pp_options[] = {
    {.name = "min-bytes", .type = HX_OPT_INT, .meta = "B", .lo = 8, .hi = 1L << 30, .def = "8", .group = MSG,
     .what = "a message size in bytes (a power of two, >= 8)",
     .help = "smallest message in bytes; a power of two, at least 8 (one double)", F(min_bytes)},
    {.name = "max-bytes", .type = HX_OPT_INT, .meta = "B", .lo = 8, .hi = 1L << 30, .def = "67108864",
     .def_text = "67108864 (64 MiB)", .group = MSG, .what = "a message size in bytes (a power of two, >= 8)",
     .help = "largest message in bytes; a power of two; every power of two from --min-bytes to here is measured",
     F(max_bytes)},
    {.name = "iters", .type = HX_OPT_INT, .meta = "N", .lo = 1, .hi = 100000000, .def = "1000", .group = MSG,
     .what = "a number of round trips", .help = "timed round trips per size up to 1 MiB", F(iters)},
    {.name = "large-iters", .type = HX_OPT_INT, .meta = "N", .lo = 1, .hi = 100000000, .def = "100", .group = MSG,
     .what = "a number of round trips",
     .help = "timed round trips per size above 1 MiB (fewer: each one moves many bytes); never more than --iters",
     F(large_iters)},
    {.name = "warmup", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 1 << 30, .def = "10", .group = MSG,
     .what = "a number of round trips", .help = "untimed round trips before each size", F(warmup)},
    {.name = "compute-us", .type = HX_OPT_INT, .meta = "T", .lo = 0, .hi = 10000000, .def = "0", .group = MSG,
     .what = "microseconds",
     .help = "busy-wait T microseconds on both ranks after each exchange is received (after hx_context_sync) and "
             "before the next send: a host spin for the library's transports (halox has no public kernel launch, so on "
             "cuda the GPU is idle meanwhile), a GPU spin inside the kernel for ipc-kernel; the latency includes it, "
             "the bandwidth does not",
     F(compute_us)},
    {.name = "ll-bytes", .type = HX_OPT_INT, .meta = "N", .lo = -1, .hi = 1L << 30, .def = "-1",
     .def_text = "-1 (automatic: up to 64 KiB)", .group = MSG, .what = "a byte count (-1 automatic, 0 never)",
     .help = "ipc-kernel: messages of at most N bytes (and 64 KiB) travel as flagged words, each 4-byte value beside "
             "the round trip's number in one 8-byte store, polled by the receiver's threads (no fence, no flag); "
             "larger ones as payload, fence and flag; 0: every size with the flag; -1: up to 64 KiB",
     F(ll_bytes)},
    {.name = "ll-threads", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 256, .def = "0",
     .def_text = "0 (automatic: 32 up to 256 B, else 256)", .group = MSG, .what = "a multiple of 32 up to 256",
     .help = "ipc-kernel: threads of the flagged-word kernel, a multiple of 32 up to 256; 0: one warp up to 256 B "
             "(its barrier is a warp's), 256 above",
     F(ll_threads)},

    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME[,NAME]|all", .def = "all", .group = WHERE,
     .what = "a transport name (see halox info)",
     .help = "transports to measure, one after another (halox info lists those of this build), and two models "
             "of CUDA builds: ipc-kernel (device-initiated: one kernel per size runs every round trip, GPU threads "
             "store into the peer's memory and signal a flag) and memcpy-peer (cudaMemcpyPeer one way, at "
             "--max-bytes only: the copy-engine reference); all: every one; one that refuses (nccl, ipc-kernel on the "
             "cpu backend or on a shared GPU, ...) is skipped with a note",
     F(transport)},
    {.name = "pairs", .type = HX_OPT_CHOICE, .choices = pair_modes, .def = "first", .group = WHERE,
     .help = "first: ranks 0 and 1 of the job; all: every pair of ranks that share a node, one pair after another "
             "(the other ranks idle)",
     F(pairs_all)},
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = backends, .def = "auto", .group = WHERE,
     .help = "where the messages live (auto: cuda when every rank sees a GPU)", F(backend)},
    {.name = "devices", .type = HX_OPT_INTLIST, .meta = "LIST", .lo = 0, .hi = 4095,
     .def_text = "node-local rank modulo the GPU count", .group = WHERE, .what = "GPU numbers",
     .help = "GPUs to use, e.g. 0,1: node-local rank i takes the (i modulo the list's length)-th", F(devices)},

    {.name = "format", .type = HX_OPT_CHOICE, .choices = formats, .def = "table", .group = MEASURE,
     .help = "report format (one row per transport, pair and size)", F(format)},
    {.name = "quiet", .type = HX_OPT_FLAG, .def = "off", .group = MEASURE,
     .help = "no progress lines on stderr (one per finished size)", F(quiet)},
};
#undef F

const hx_command hx_pingpong_command = {
    .name = "pingpong",
    .synopsis = "mpirun -np N halox pingpong [options]   (N >= 2)",
    .about = "Measures the latency and bandwidth of one message between two ranks, for every power-of-two size "
             "from --min-bytes to --max-bytes and every transport, through an exchange of a hand-made plan (one "
             "phase, one message to the peer). Exchanges are symmetric: in each one both ranks send B bytes and "
             "receive the peer's B bytes. A round trip is two consecutive exchanges, each completed with "
             "hx_context_sync and followed by the --compute-us busy-wait; latency is half a round trip (one "
             "exchange plus the busy-wait), timed with MPI_Wtime on the pair's first rank per round trip. The "
             "report gives per size the median and 99th percentile (nearest rank) of those per-round-trip "
             "half times, over --iters round trips (--large-iters above 1 MiB), and bandwidth = B / (median - T), "
             "in GB/s (1e9 bytes per second) of one direction. ipc-kernel is a true ping-pong on the device (one "
             "direction at a time, timed by the GPU) and memcpy-peer one-way copies timed with CUDA events: see "
             "docs/pingpong.md.",
    .opts = pp_options,
    .nopts = (int)(sizeof pp_options / sizeof pp_options[0]),
    .notes = "Exit codes: 0 success (transports that refuse are skipped with a note), 2 bad input, 3 run-time failure.",
};

/* Measurement ----------------------------------------------------------------------------------- */

static void spin_us(int us)
{
    if (us <= 0) return;
    double end = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < end) {
    }
}

void hx_pp_die(MPI_Comm comm, int rank, const char *msg)
{
    fprintf(stderr, "halox: error (rank %d): %s\n", rank, msg);
    fflush(stderr);
    MPI_Abort(comm, HX_ERR_RUNTIME);
}

/* The plan of one size: the pair's ranks send their owned row's first `cells` cells and receive the
 * peer's into the ghost row below; every other rank has no message. */
static void make_plan(hx_plan *p, const hx_decomp *d, int a, int b, long cells)
{
    memset(p, 0, sizeof *p);
    p->pattern = HX_DIRECT;
    p->nphases = 1;
    if (d->rank != a && d->rank != b) return;
    hx_message *m = &p->phase[0].msg[0];
    m->peer = d->rank == a ? b : a;
    m->dir = hx_dir_index(0, -1, 0);
    m->send_tag = d->rank == a ? 1 : 2; /* a sends tag 1, b sends tag 2: each receives the other's */
    m->recv_tag = d->rank == a ? 2 : 1;
    int g0 = d->ghost[0], g1 = d->ghost[1];
    m->send_box = (hx_box){{g0, g1, 0}, {g0 + (int)cells, g1 + 1, 1}};
    m->recv_box = (hx_box){{g0, 0, 0}, {g0 + (int)cells, 1, 1}};
    m->count = cells;
    m->offset = 0;
    p->phase[0].nmsg = 1;
    p->phase[0].cells = cells;
    p->max_phase_cells = cells;
}

/* One pair, one size, one transport already set up: the timed round trips. Rank a returns the
 * statistics in row; every rank returns 0, or dies on a run-time failure. */
static void measure(hx_context *ctx, hx_exchange *x, const hx_field *f, const pp_config *c, int a, int b, long iters,
                    double *samples, pp_row *row)
{
    MPI_Comm comm = hx_context_comm(ctx);
    int rank = hx_context_rank(ctx);
    MPI_Barrier(comm);
    if (rank != a && rank != b) return;
    char msg[512];
    for (long i = 0; i < c->warmup + iters; i++) {
        double t0 = MPI_Wtime();
        for (int k = 0; k < 2; k++) {
            if (hx_exchange_run(x, f, NULL) || hx_context_sync(ctx)) {
                snprintf(msg, sizeof msg, "%s", hx_context_error(ctx));
                hx_pp_die(comm, rank, msg);
            }
            spin_us(c->compute_us);
        }
        if (i >= c->warmup) samples[i - c->warmup] = 0.5e6 * (MPI_Wtime() - t0);
    }
    if (rank == a) hx_pp_stats(row, samples, iters, c->compute_us);
}

static int is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }

/* Pairs: (0,1), or every pair of ranks on one node (node = MPI_COMM_TYPE_SHARED). */
static int make_pairs(MPI_Comm comm, int all, int (**pairs)[2])
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int n = 0;
    *pairs = malloc(sizeof **pairs * (all ? (size_t)size * (size_t)(size - 1) / 2 : 1));
    if (!all) {
        (*pairs)[0][0] = 0, (*pairs)[0][1] = 1;
        return 1;
    }
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int leader = rank; /* the world rank of the node's first rank names the node */
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    int *ids = malloc(sizeof *ids * (size_t)size);
    MPI_Allgather(&leader, 1, MPI_INT, ids, 1, MPI_INT, comm);
    for (int i = 0; i < size; i++)
        for (int j = i + 1; j < size; j++)
            if (ids[i] == ids[j]) (*pairs)[n][0] = i, (*pairs)[n][1] = j, n++;
    free(ids);
    return n;
}

int hx_pingpong_main(int argc, char **argv, MPI_Comm comm)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    pp_config c;
    memset(&c, 0, sizeof c);
    char err[400] = "";
    int rc = hx_opts_defaults(&hx_pingpong_command, &c, err, sizeof err);
    if (rc == 0) rc = hx_opts_parse(&hx_pingpong_command, &c, argc, argv, err, sizeof err);
    if (rc == 1) {
        if (rank == 0) hx_opts_usage(&hx_pingpong_command, stdout);
        return HX_OK;
    }
    if (rc == 0) {
        if (!is_pow2(c.min_bytes) || !is_pow2(c.max_bytes))
            snprintf(err, sizeof err, "--min-bytes %ld and --max-bytes %ld must be powers of two (8, 16, ..., 67108864)",
                     c.min_bytes, c.max_bytes), rc = -1;
        else if (c.ll_threads % 32)
            snprintf(err, sizeof err, "--ll-threads %d: give a multiple of 32 up to 256, or 0 (automatic)", c.ll_threads), rc = -1;
        else if (c.min_bytes > c.max_bytes)
            snprintf(err, sizeof err, "--min-bytes %ld is above --max-bytes %ld: swap them", c.min_bytes, c.max_bytes), rc = -1;
        else if (nranks < 2)
            snprintf(err, sizeof err, "pingpong needs two ranks or more: run mpirun -np 2 halox pingpong"), rc = -1;
        else if ((double)nranks * (double)(c.max_bytes / 8) + 64 > INT_MAX)
            snprintf(err, sizeof err, "--max-bytes %ld on %d ranks exceeds the layout's 2^31 cells: use a smaller --max-bytes",
                     c.max_bytes, nranks), rc = -1;
        else if (c.backend == HX_BACKEND_CUDA && !hx_backend_built(HX_BACKEND_CUDA))
            snprintf(err, sizeof err, "this halox was built without CUDA: use --backend cpu"), rc = -1;
    }
    if (hx_cli_any_failed(comm, rc != 0, err)) return HX_ERR_INPUT;

    /* transports: the list given, or every one of the build */
    char names[320], *save = NULL, *list[PP_MAX_TRANSPORTS];
    int ntr = 0;
    if (strcmp(c.transport, "all")) snprintf(names, sizeof names, "%s", c.transport);
    else snprintf(names, sizeof names, "%s%s", hx_transport_names(), hx_pp_device_names());
    for (char *t = strtok_r(names, ", ", &save); t && ntr < PP_MAX_TRANSPORTS; t = strtok_r(NULL, ", ", &save)) list[ntr++] = t;
    if (hx_cli_any_failed(comm, ntr == 0, "--transport names no transport: give one of halox info's, or all")) return HX_ERR_INPUT;

    hx_context_options co = hx_context_defaults();
    hx_cli_log_options(&co);
    co.backend = c.backend;
    co.devices = c.devices;
    hx_context *ctx;
    int st = hx_context_create(comm, &co, &ctx);
    if (st) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
        hx_context_destroy(ctx);
        return st;
    }
    const char *backend = hx_backend_name(hx_context_backend(ctx));
    if (hx_context_backend(ctx) == HX_BACKEND_CUDA) hx_cli_note_one_core(comm, c.transport);

    /* one row of cells per rank, as long as the largest message; one ghost row on each side */
    long max_cells = c.max_bytes / 8;
    hx_layout_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.dim = 2;
    ld.global[0] = (int)(max_cells * nranks);
    ld.global[1] = 1;
    ld.global[2] = 1;
    ld.pgrid[0] = nranks;
    ld.pgrid[1] = 1;
    ld.pgrid[2] = 1;
    ld.halo = 1;
    ld.dtype = HX_DOUBLE;
    ld.boundary = HX_PERIODIC;
    hx_layout *layout = NULL;
    hx_field f;
    memset(&f, 0, sizeof f);
    int code = HX_OK, have_field = 0;
    if ((st = hx_layout_create(ctx, &ld, &layout))) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
        code = st;
        goto out;
    }
    /* field allocation is local to each rank: agree on its outcome */
    st = hx_field_alloc(layout, &f);
    have_field = st == HX_OK;
    if (st == HX_OK) st = hx_field_init(layout, &f, 42);
    if (hx_cli_any_failed(comm, st != HX_OK, hx_context_error(ctx))) {
        code = HX_ERR_RUNTIME;
        goto out;
    }
    const hx_decomp *d = hx_layout_decomp(layout);

    int(*pairs)[2] = NULL;
    int npairs = make_pairs(comm, c.pairs_all, &pairs);
    int nsizes = 0;
    for (long b = c.min_bytes; b <= c.max_bytes; b *= 2) nsizes++;
    long maxiter = c.iters > c.large_iters ? c.iters : c.large_iters;
    double *samples = malloc(sizeof *samples * (size_t)maxiter);
    pp_row *rows = rank == 0 ? calloc((size_t)ntr * (size_t)npairs * (size_t)nsizes, sizeof *rows) : NULL;
    if (hx_cli_any_failed(comm, !samples || !pairs || (rank == 0 && !rows), "out of host memory for the timings")) {
        free(samples), free(rows), free(pairs);
        code = HX_ERR_RUNTIME;
        goto out;
    }
    char skipped[2048] = "";
    int nrows = 0;
    for (int t = 0; t < ntr; t++) {
        if (hx_pp_is_device_model(list[t])) {
            hx_pp_device_model(ctx, &c, list[t], pairs, npairs, samples, rows, &nrows, skipped, sizeof skipped);
            continue;
        }
        int refused = 0;
        for (int p = 0; p < npairs && !refused; p++) {
            int a = pairs[p][0], b = pairs[p][1];
            for (long bytes = c.min_bytes; bytes <= c.max_bytes && !refused; bytes *= 2) {
                hx_plan plan;
                make_plan(&plan, d, a, b, bytes / 8);
                hx_exchange *x = NULL;
                if (hx_exchange_create_plan(layout, list[t], &plan, &x)) {
                    /* agreed by every rank: the transport refuses (or failed to set up): skip it */
                    if (rank == 0) hx_pp_skip(skipped, sizeof skipped, list[t], hx_context_error(ctx));
                    hx_exchange_destroy(x);
                    refused = 1;
                    break;
                }
                long iters = bytes > PP_LARGE_BYTES && c.large_iters < c.iters ? c.large_iters : c.iters;
                pp_row row;
                memset(&row, 0, sizeof row);
                row.transport = list[t];
                row.backend = backend;
                row.rank_a = a, row.rank_b = b;
                row.bytes = bytes;
                row.iters = iters;
                row.warmup = c.warmup;
                row.compute_us = c.compute_us;
                row.ll_bytes = c.ll_bytes;
                row.ll_threads = c.ll_threads;
                measure(ctx, x, &f, &c, a, b, iters, samples, &row);
                hx_exchange_destroy(x);
                hx_pp_collect(comm, &row, rows, &nrows, c.quiet);
            }
        }
    }
    if (rank == 0) {
        if (nrows == 0) {
            fprintf(stderr, "halox: error: every transport refused: use --transport mpi (see halox info)\n");
            code = HX_ERR_INPUT;
        } else {
            hx_pp_print_report(stdout, &c, rows, nrows, skipped);
        }
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    free(samples), free(rows), free(pairs);
out:
    if (have_field) hx_field_free(layout, &f);
    hx_layout_destroy(layout);
    hx_context_destroy(ctx);
    return code;
}
