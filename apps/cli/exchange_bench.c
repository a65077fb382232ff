/* `halox exchange`: the cost of a many-field exchange (hx_exchange_run_many, one message per
 * neighbour per phase carrying every field) against one exchange per field, timed side by side
 * in one run through the public API. Each repeat times --iters calls of each, alternating, every
 * rank between barriers; a repeat's time is the slowest rank's; the report gives the medians. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_bench.h"
#include "halox/halox.h"
#include "run.h"

typedef struct {
    int size[3], ndims;
    int fields, halo, iters, repeat, warmup;
    int pattern, backend, format;
    char transport[64];
    char devices[256];
} xb_config;

static const hx_opt_choice patterns[] = {{"staged", HX_STAGED}, {"direct", HX_DIRECT}, {NULL, 0}};
static const hx_opt_choice backends[] = {{"auto", HX_BACKEND_AUTO}, {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {NULL, 0}};
static const hx_opt_choice formats[] = {{"table", HX_FORMAT_TABLE}, {"csv", HX_FORMAT_CSV}, {NULL, 0}};

#define F(member) HX_OPT_FIELD(xb_config, member)
static const hx_option xb_options[] = {
    {.name = "size", .type = HX_OPT_DIMS, .meta = "NXxNY[xNZ]", .lo = 1, .hi = 1 << 20, .def = "1024x1024", .group = "problem",
     .what = "a global grid", .help = "global grid, 2D or 3D", F(size), .count_at = HX_OPT_AT(xb_config, ndims)},
    {.name = "fields", .type = HX_OPT_INT, .meta = "N", .lo = 1, .hi = HX_MAX_FIELDS, .def = "8", .group = "problem",
     .what = "a number of fields", .help = "fields exchanged (float), 1 to 32", F(fields)},
    {.name = "halo", .type = HX_OPT_INT, .meta = "W", .lo = 1, .hi = 64, .def = "1", .group = "problem",
     .what = "a halo width in cells", .help = "ghost cells per side on every axis", F(halo)},
    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME", .def = "auto", .group = "exchange",
     .what = "a transport name (see halox info)", .help = "transport of both exchanges (halox info lists this build's)",
     F(transport)},
    {.name = "pattern", .type = HX_OPT_CHOICE, .choices = patterns, .def = "staged", .group = "exchange",
     .help = "staged: faces axis by axis, corners forwarded; direct: one message per neighbour", F(pattern)},
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = backends, .def = "auto", .group = "exchange",
     .help = "where the fields live (auto: cuda when every rank sees a GPU)", F(backend)},
    {.name = "devices", .type = HX_OPT_INTLIST, .meta = "LIST", .lo = 0, .hi = 4095, .def_text = "node-local rank modulo the GPU count",
     .group = "exchange", .what = "GPU numbers", .help = "GPUs to use: node-local rank i takes the (i modulo length)-th", F(devices)},
    {.name = "iters", .type = HX_OPT_INT, .meta = "K", .lo = 1, .hi = 100000000, .def = "100", .group = "measurement",
     .what = "a number of calls", .help = "timed calls of each kind per repeat", F(iters)},
    {.name = "repeat", .type = HX_OPT_INT, .meta = "R", .lo = 1, .hi = 10000, .def = "5", .group = "measurement",
     .what = "a number of repeats", .help = "repeats; the report gives the medians", F(repeat)},
    {.name = "warmup", .type = HX_OPT_INT, .meta = "K", .lo = 0, .hi = 1000000, .def = "10", .group = "measurement",
     .what = "a number of calls", .help = "untimed calls of each kind first", F(warmup)},
    {.name = "format", .type = HX_OPT_CHOICE, .choices = formats, .def = "table", .group = "measurement",
     .help = "report format", F(format)},
};
#undef F

const hx_command hx_exchange_bench_command = {
    .name = "exchange",
    .synopsis = "mpirun -np N halox exchange [options]",
    .about = "Times the ghost exchange of --fields float fields of one layout two ways in the same run: one "
             "hx_exchange_run_many call that sends one message per neighbour and phase carrying every field, "
             "and one hx_exchange_run per field (one exchange each). Each repeat times --iters calls of each, "
             "completed with hx_context_sync, between barriers; a repeat counts the slowest rank. Reports the "
             "median microseconds per call of each (a call moves every field) and their ratio "
             "(single / many: above 1, the many-field exchange is faster).",
    .opts = xb_options,
    .nopts = (int)(sizeof xb_options / sizeof xb_options[0]),
};

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* k calls of one kind: many (one run_many) or not (one run per field); seconds, slowest rank */
static int batch(hx_context *ctx, hx_exchange *many, hx_exchange **single, const hx_field *f, int n, int k, int use_many,
                 double *sec, MPI_Comm comm)
{
    int st = HX_OK;
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < k && st == HX_OK; i++) {
        if (use_many) st = hx_exchange_run_many(many, n, f, NULL);
        for (int j = 0; !use_many && j < n && st == HX_OK; j++) st = hx_exchange_run(single[j], &f[j], NULL);
    }
    if (st == HX_OK) st = hx_context_sync(ctx);
    double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, sec, 1, MPI_DOUBLE, MPI_MAX, comm);
    return st;
}

static int measure(hx_context *ctx, const xb_config *c, MPI_Comm comm, double us[2], const char **tname)
{
    const int dim = c->ndims == 3 ? 3 : 2, n = c->fields;
    hx_layout_desc ld = {.dim = dim, .global = {c->size[0], c->size[1], dim == 3 ? c->size[2] : 1}, .halo = c->halo,
                         .dtype = HX_FLOAT, .boundary = HX_PERIODIC};
    hx_layout *l = NULL;
    hx_exchange *many = NULL, *single[HX_MAX_FIELDS] = {NULL};
    hx_field f[HX_MAX_FIELDS];
    memset(f, 0, sizeof f);
    int st = hx_layout_create(ctx, &ld, &l), nf = 0;
    hx_exchange_options o = hx_exchange_defaults();
    o.transport = c->transport;
    o.pattern = (hx_pattern)c->pattern;
    if (st == HX_OK) {
        o.nfields = n;
        st = hx_exchange_create_opts(l, &o, &many);
    }
    o.nfields = 1;
    for (int j = 0; st == HX_OK && j < n; j++) st = hx_exchange_create_opts(l, &o, &single[j]);
    for (; st == HX_OK && nf < n; nf++)
        if ((st = hx_field_alloc(l, &f[nf])) == HX_OK) st = hx_field_init(l, &f[nf], 1 + (uint64_t)nf);
    double *t[2] = {calloc((size_t)c->repeat, sizeof(double)), calloc((size_t)c->repeat, sizeof(double))}, sec;
    if (st == HX_OK && (!t[0] || !t[1])) st = HX_ERR_RUNTIME;
    if (st == HX_OK) *tname = hx_exchange_transport(many);
    for (int k = 0; k < 2 && st == HX_OK && c->warmup; k++) st = batch(ctx, many, single, f, n, c->warmup, k == 0, &sec, comm);
    for (int r = 0; r < c->repeat && st == HX_OK; r++)
        for (int k = 0; k < 2 && st == HX_OK; k++)
            if ((st = batch(ctx, many, single, f, n, c->iters, k == 0, &sec, comm)) == HX_OK) t[k][r] = sec * 1e6 / c->iters;
    if (st == HX_OK)
        for (int k = 0; k < 2; k++) us[k] = median(t[k], c->repeat);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (hx_cli_any_failed(comm, st != HX_OK, hx_context_error(ctx)) && st == HX_OK) st = HX_ERR_RUNTIME;
    free(t[0]);
    free(t[1]);
    for (int j = 0; j < nf; j++) hx_field_free(l, &f[j]);
    for (int j = 0; j < n; j++) hx_exchange_destroy(single[j]);
    hx_exchange_destroy(many);
    hx_layout_destroy(l);
    return st;
}

int hx_exchange_bench_main(int argc, char **argv, MPI_Comm comm)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    xb_config c;
    memset(&c, 0, sizeof c);
    char err[400] = "";
    int rc = hx_opts_defaults(&hx_exchange_bench_command, &c, err, sizeof err);
    if (rc == 0) rc = hx_opts_parse(&hx_exchange_bench_command, &c, argc, argv, err, sizeof err);
    if (rc == 1) {
        if (rank == 0) hx_opts_usage(&hx_exchange_bench_command, stdout);
        return HX_OK;
    }
    if (rc == 0 && c.backend == HX_BACKEND_CUDA && !hx_backend_built(HX_BACKEND_CUDA))
        snprintf(err, sizeof err, "this halox was built without CUDA: use --backend cpu"), rc = -1;
    if (hx_cli_any_failed(comm, rc != 0, err)) return HX_ERR_INPUT;
    hx_context_options co = hx_context_defaults();
    hx_cli_log_options(&co);
    co.backend = (hx_backend_kind)c.backend;
    co.devices = c.devices[0] ? c.devices : NULL;
    hx_context *ctx = NULL;
    int st = hx_context_create(comm, &co, &ctx);
    double us[2] = {0, 0};
    const char *tname = c.transport;
    if (st != HX_OK) {
        if (rank == 0) fprintf(stderr, "halox: error: %s\n", hx_context_error(ctx));
    } else {
        st = measure(ctx, &c, comm, us, &tname);
    }
    if (st == HX_OK && rank == 0) {
        char size[64];
        if (c.ndims == 3) snprintf(size, sizeof size, "%dx%dx%d", c.size[0], c.size[1], c.size[2]);
        else snprintf(size, sizeof size, "%dx%d", c.size[0], c.size[1]);
        const char *backend = hx_backend_name(hx_context_backend(ctx)), *pattern = hx_opt_choice_name(patterns, c.pattern);
        const double ratio = us[0] > 0 ? us[1] / us[0] : 0;
        if (c.format == HX_FORMAT_CSV)
            printf("size,fields,dtype,halo,transport,pattern,backend,ranks,iters,repeat,many_us,single_us,ratio\n"
                   "%s,%d,float,%d,%s,%s,%s,%d,%d,%d,%.3f,%.3f,%.3f\n",
                   size, c.fields, c.halo, tname, pattern, backend, nranks, c.iters, c.repeat, us[0], us[1], ratio);
        else
            printf("exchange %s, %d float fields, halo %d, %s %s, %s backend, %d rank%s (median of %d x %d calls)\n"
                   "  many    1 call of %d fields      %10.2f us per call\n"
                   "  single  %d call%s of 1 field      %10.2f us per call\n"
                   "  ratio   single / many          %10.2f\n",
                   size, c.fields, c.halo, tname, pattern, backend, nranks, nranks > 1 ? "s" : "", c.repeat, c.iters,
                   c.fields, us[0], c.fields, c.fields > 1 ? "s" : " ", us[1], ratio);
    }
    hx_context_destroy(ctx);
    return st;
}
