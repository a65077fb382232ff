/* (About 520 lines: the option table, the plan of one message and the measurement loop of the API-level models; the device models are in pingpong_kernel.c.)
 *
 * `halox pingpong`: message latency and bandwidth between two ranks, for every message size
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
 * pingpong_kernel.c and share this file's rows and statistics through pingpong_priv.h. */
#include "pingpong.h"
#include "pingpong_priv.h"
#include "run.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PP_SCHEMA 1
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

/* Rows and their field table ------------------------------------------------------------------ */

typedef enum { PF_INT, PF_REAL, PF_STR } pp_ftype;
typedef struct {
    const char *key; /* CSV column, JSON key, table heading */
    pp_ftype type;
    const char *fmt; /* PF_REAL */
    int width;       /* table column; 0: not in the table */
    void (*get)(const pp_row *r, long long *i, double *x, const char **s);
    const char *help;
} pp_field;

#define GET(fn) static void fn(const pp_row *r, long long *i, double *x, const char **s)
GET(get_bench) { (void)r, (void)i, (void)x, *s = "pingpong"; }
GET(get_version) { (void)r, (void)i, (void)x, *s = HALOX_VERSION; }
GET(get_backend) { (void)i, (void)x, *s = r->backend; }
GET(get_transport) { (void)i, (void)x, *s = r->transport; }
GET(get_rank_a) { (void)x, (void)s, *i = r->rank_a; }
GET(get_rank_b) { (void)x, (void)s, *i = r->rank_b; }
GET(get_bytes) { (void)x, (void)s, *i = r->bytes; }
GET(get_iters) { (void)x, (void)s, *i = r->iters; }
GET(get_warmup) { (void)x, (void)s, *i = r->warmup; }
GET(get_compute) { (void)x, (void)s, *i = r->compute_us; }
GET(get_median) { (void)i, (void)s, *x = r->median_us; }
GET(get_p99) { (void)i, (void)s, *x = r->p99_us; }
GET(get_min) { (void)i, (void)s, *x = r->min_us; }
GET(get_mean) { (void)i, (void)s, *x = r->mean_us; }
GET(get_bw) { (void)i, (void)s, *x = r->bandwidth_gbs; }
#undef GET

static const pp_field pp_fields[] = {
    {"bench", PF_STR, NULL, 0, get_bench, "\"pingpong\": tells these rows from halox run's"},
    {"halox_version", PF_STR, NULL, 0, get_version, "HALOX_VERSION"},
    {"backend", PF_STR, NULL, 0, get_backend, "cpu or cuda (--backend resolved)"},
    {"transport", PF_STR, NULL, 12, get_transport, "the transport measured"},
    {"rank_a", PF_INT, NULL, 6, get_rank_a, "the pair's first rank (it times)"},
    {"rank_b", PF_INT, NULL, 6, get_rank_b, "the pair's second rank"},
    {"bytes", PF_INT, NULL, 10, get_bytes, "message size B, each way"},
    {"iters", PF_INT, NULL, 6, get_iters, "timed round trips"},
    {"warmup", PF_INT, NULL, 0, get_warmup, "untimed round trips before them"},
    {"compute_us", PF_INT, NULL, 0, get_compute, "--compute-us: busy-wait after each exchange"},
    {"median_us", PF_REAL, "%.3f", 11, get_median, "median half round trip, microseconds (busy-wait included)"},
    {"p99_us", PF_REAL, "%.3f", 11, get_p99, "99th percentile (nearest rank) of the half round trips"},
    {"min_us", PF_REAL, "%.3f", 11, get_min, "fastest half round trip"},
    {"mean_us", PF_REAL, "%.3f", 0, get_mean, "mean half round trip"},
    {"bandwidth_gbs", PF_REAL, "%.4f", 14, get_bw, "B / (median - compute), GB/s (1e9 B/s), one direction"},
};
enum { NPF = (int)(sizeof pp_fields / sizeof pp_fields[0]) };

static void field_text(char *buf, size_t n, const pp_field *f, const pp_row *r)
{
    long long i = 0;
    double x = 0;
    const char *s = NULL;
    f->get(r, &i, &x, &s);
    if (f->type == PF_INT) snprintf(buf, n, "%lld", i);
    else if (f->type == PF_REAL) snprintf(buf, n, isfinite(x) ? f->fmt : "nan", x);
    else snprintf(buf, n, "%s", s ? s : "-");
}

static void print_report(FILE *out, const pp_config *c, const pp_row *rows, int nrows, const char *skipped)
{
    char buf[128];
    if (c->format == HX_FORMAT_CSV) {
        for (int k = 0; k < NPF; k++) fprintf(out, "%s%s", k ? "," : "", pp_fields[k].key);
        fputc('\n', out);
        for (int r = 0; r < nrows; r++) {
            for (int k = 0; k < NPF; k++) {
                field_text(buf, sizeof buf, &pp_fields[k], &rows[r]);
                fprintf(out, "%s%s", k ? "," : "", buf);
            }
            fputc('\n', out);
        }
    } else if (c->format == HX_FORMAT_JSON) {
        fprintf(out, "{\"schema\": %d, \"bench\": \"pingpong\", \"halox_version\": \"%s\", \"rows\": [", PP_SCHEMA,
                HALOX_VERSION);
        for (int r = 0; r < nrows; r++) {
            fprintf(out, "%s\n  {", r ? "," : "");
            int first = 1;
            for (int k = 0; k < NPF; k++) {
                if (!strcmp(pp_fields[k].key, "bench") || !strcmp(pp_fields[k].key, "halox_version")) continue;
                field_text(buf, sizeof buf, &pp_fields[k], &rows[r]);
                if (pp_fields[k].type == PF_STR) fprintf(out, "%s\"%s\": \"%s\"", first ? "" : ", ", pp_fields[k].key, buf);
                else fprintf(out, "%s\"%s\": %s", first ? "" : ", ", pp_fields[k].key, strcmp(buf, "nan") ? buf : "null");
                first = 0;
            }
            fputc('}', out);
        }
        fprintf(out, "%s],\n \"skipped\": [", nrows ? "\n" : "");
        /* skipped: "name: reason\n" lines */
        int first = 1;
        for (const char *p = skipped; p && *p;) {
            size_t len = strcspn(p, "\n");
            size_t colon = strcspn(p, ":");
            if (colon > len) colon = len;
            fprintf(out, "%s{\"transport\": \"%.*s\", \"reason\": \"", first ? "" : ", ", (int)colon, p);
            for (const char *q = p + (colon < len ? colon + 2 : colon); q < p + len; q++) {
                if (*q == '"' || *q == '\\') fputc('\\', out);
                if ((unsigned char)*q >= 0x20) fputc(*q, out);
            }
            fputs("\"}", out);
            first = 0;
            p += len;
            if (*p) p++;
        }
        fputs("]}\n", out);
    } else {
        fprintf(out, "halox pingpong: half round trip = one symmetric exchange of B bytes each way (+ --compute-us %d); "
                     "backend %s\n",
                c->compute_us, nrows ? rows[0].backend : "-");
        for (int k = 0; k < NPF; k++)
            if (pp_fields[k].width) fprintf(out, "%*s", pp_fields[k].width + (k ? 1 : 0), pp_fields[k].key);
        fputc('\n', out);
        for (int r = 0; r < nrows; r++) {
            for (int k = 0; k < NPF; k++) {
                if (!pp_fields[k].width) continue;
                field_text(buf, sizeof buf, &pp_fields[k], &rows[r]);
                fprintf(out, "%*s", pp_fields[k].width + (k ? 1 : 0), buf);
            }
            fputc('\n', out);
        }
        if (skipped && *skipped) fprintf(out, "skipped:\n%s", skipped);
    }
    fflush(out);
}

/* Measurement ----------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

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

void hx_pp_stats(pp_row *row, double *samples, long iters, int compute_us)
{
    qsort(samples, (size_t)iters, sizeof *samples, cmp_double);
    double sum = 0;
    for (long i = 0; i < iters; i++) sum += samples[i];
    row->median_us = iters % 2 ? samples[iters / 2] : 0.5 * (samples[iters / 2 - 1] + samples[iters / 2]);
    long k99 = (long)ceil(0.99 * (double)iters) - 1;
    row->p99_us = samples[k99 < 0 ? 0 : k99];
    row->min_us = samples[0];
    row->mean_us = sum / (double)iters;
    double t = row->median_us - compute_us;
    row->bandwidth_gbs = t > 0 ? (double)row->bytes / (t * 1e-6) / 1e9 : NAN;
}

void hx_pp_collect(MPI_Comm comm, const pp_row *row, pp_row *rows, int *nrows, int quiet)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const int a = row->rank_a;
    /* the pair's first rank holds the statistics: rank 0 collects them */
    double stats[5] = {row->median_us, row->p99_us, row->min_us, row->mean_us, row->bandwidth_gbs};
    if (a != 0 && rank == a) MPI_Send(stats, 5, MPI_DOUBLE, 0, 77, comm);
    if (a != 0 && rank == 0) MPI_Recv(stats, 5, MPI_DOUBLE, a, 77, comm, MPI_STATUS_IGNORE);
    if (rank != 0) return;
    pp_row r = *row;
    r.median_us = stats[0], r.p99_us = stats[1], r.min_us = stats[2], r.mean_us = stats[3], r.bandwidth_gbs = stats[4];
    rows[(*nrows)++] = r;
    if (!quiet) {
        fprintf(stderr, "pingpong: %s %d-%d %ld B: median %.3f us, p99 %.3f us, %.4f GB/s (%ld %s)\n", r.transport, r.rank_a,
                r.rank_b, r.bytes, r.median_us, r.p99_us, r.bandwidth_gbs, r.iters,
                strcmp(r.transport, "memcpy-peer") ? "round trips" : "one-way copies");
        fflush(stderr);
    }
}

void hx_pp_skip(char *skipped, size_t n, const char *transport, const char *why)
{
    size_t used = strlen(skipped);
    snprintf(skipped + used, n - used, "%s: %s\n", transport, why);
    fprintf(stderr, "halox: note: transport %s skipped: %s\n", transport, why);
    fflush(stderr);
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
            print_report(stdout, &c, rows, nrows, skipped);
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
