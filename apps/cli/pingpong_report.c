/* `halox pingpong`'s rows: their statistics, their collection on rank 0, and the report (one field
 * table drives the CSV columns, the JSON keys and the table's headings). */
#include "pingpong_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PP_SCHEMA 1

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
GET(get_ll_bytes) { (void)x, (void)s, *i = r->ll_bytes; }
GET(get_ll_threads) { (void)x, (void)s, *i = r->ll_threads; }
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
    {"ll_bytes", PF_INT, NULL, 0, get_ll_bytes, "--ll-bytes: ipc-kernel's flagged-word limit (-1 automatic, 0 never)"},
    {"ll_threads", PF_INT, NULL, 0, get_ll_threads, "--ll-threads: ipc-kernel's flagged-word threads (0 automatic)"},
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

void hx_pp_print_report(FILE *out, const pp_config *c, const pp_row *rows, int nrows, const char *skipped)
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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

