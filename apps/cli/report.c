/* (About 420 lines: the report field table and the three formats it drives, kept as one table.)
 *
 * Segment reduction, the report's field table, and the three formats it drives. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int hx_reduce_times(MPI_Comm comm, const hx_times *t, hx_rank_stats *out)
{
    int n;
    double sum[HX_NUM_SEGS];
    if (MPI_Comm_size(comm, &n) != MPI_SUCCESS ||
        MPI_Allreduce(t->t, out->min, HX_NUM_SEGS, MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS ||
        MPI_Allreduce(t->t, out->max, HX_NUM_SEGS, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS ||
        MPI_Allreduce(t->t, sum, HX_NUM_SEGS, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS)
        return -1;
    for (int s = 0; s < HX_NUM_SEGS; s++) out->mean[s] = sum[s] / n;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    double med_min, med_mean, med_max; /* medians over repeats of the rank statistics */
    double rep_min, rep_max;           /* range over repeats of the rank maximum */
} seg_summary;

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static seg_summary summarise(const hx_report *r, int seg)
{
    seg_summary s;
    double *v = malloc(sizeof(double) * (size_t)r->nrep);
    for (int i = 0; i < r->nrep; i++) v[i] = r->reps[i].min[seg];
    s.med_min = median_of(v, r->nrep);
    for (int i = 0; i < r->nrep; i++) v[i] = r->reps[i].mean[seg];
    s.med_mean = median_of(v, r->nrep);
    for (int i = 0; i < r->nrep; i++) v[i] = r->reps[i].max[seg];
    s.med_max = median_of(v, r->nrep);
    s.rep_min = v[0];
    s.rep_max = v[r->nrep - 1];
    free(v);
    return s;
}

/* Fields ----------------------------------------------------------------------------------- */

static double global_cells(const hx_decomp *d) { return (double)d->global[0] * d->global[1] * d->global[2]; }
static const hx_stencil_info *stencil_of(const hx_report *r) { return hx_stencil_get(r->cfg->stencil); }
static void dims(hx_rvalue *v, const int a[3], int n)
{
    memcpy(v->dims, a, sizeof v->dims);
    v->ndims = n;
}

#define GET(fn) static void fn(const hx_report *r, hx_rvalue *v)
GET(get_dim) { v->i = r->d->dim; }
GET(get_size) { dims(v, r->d->global, r->d->dim); }
GET(get_ranks) { v->i = r->d->nranks; }
GET(get_grid) { dims(v, r->d->pgrid, r->d->dim); }
GET(get_block) { dims(v, r->d->local, r->d->dim); }
GET(get_stencil) { v->s = stencil_of(r)->name; }
GET(get_dtype) { v->s = hx_dtype_name(r->cfg->dtype); }
GET(get_depth) { v->i = r->cfg->depth; }
GET(get_pattern) { v->s = hx_pattern_name(r->cfg->pattern); }
GET(get_overlap) { v->i = r->cfg->overlap; }
GET(get_boundary) { v->s = hx_boundary_name(r->cfg->boundary); }
GET(get_backend) { v->s = r->backend; }
GET(get_transport) { v->s = r->transport; }
GET(get_iters) { v->i = r->cfg->iters; }
GET(get_repeats) { v->i = r->nrep; }
GET(get_none) { (void)r, (void)v; }
GET(get_total_rep_min) { v->x = summarise(r, HX_SEG_TOTAL).rep_min; }
GET(get_total_rep_max) { v->x = summarise(r, HX_SEG_TOTAL).rep_max; }
GET(get_us_per_sweep) { v->x = 1e6 * summarise(r, HX_SEG_TOTAL).med_max / (double)r->cfg->iters; }
GET(get_cells_per_s) { v->x = global_cells(r->d) * (double)r->cfg->iters / summarise(r, HX_SEG_TOTAL).med_max; }
GET(get_verified) { v->i = r->verified; }
GET(get_graph) { v->i = r->cfg->graph; }
GET(get_schema) { (void)r, v->i = HX_REPORT_SCHEMA; }
GET(get_version) { (void)r, v->s = HALOX_VERSION; }
GET(get_gpu) { v->s = r->gpu_name; }
GET(get_fuse) { v->i = r->cfg->fuse; }
GET(get_warmup) { v->i = r->cfg->warmup; }
GET(get_seed) { v->u = r->cfg->seed; }
GET(get_devices) { v->s = r->cfg->devices[0] ? r->cfg->devices : NULL; }
GET(get_desync) { v->i = r->cfg->desync_barrier; }
GET(get_norm_every) { v->i = r->cfg->norm_every; }
GET(get_ll_bytes) { v->i = r->cfg->ll_bytes; }
GET(get_host_fallback) { v->s = r->cfg->host_fallback[0] ? r->cfg->host_fallback : NULL; }
GET(get_halo) { v->i = (long long)r->cfg->depth * stencil_of(r)->radius; }
GET(get_exchanges) { v->i = (r->cfg->iters + r->cfg->depth - 1) / r->cfg->depth; }
GET(get_threads) { v->i = r->cfg->threads; }
/* host: the transport's host calls, waits included; device: events around the enqueued exchange */
GET(get_message_kind)
{
    unsigned paths = r->transport ? hx_transport_paths(r->transport) : 0;
    v->s = !paths ? NULL : (paths & HX_PATH_HOST) ? "host" : "device";
}
GET(get_schedule) { v->s = hx_schedule_name(r->cfg->schedule); }
GET(get_kernel) { v->s = r->kernel; }
GET(get_last_norm)
{
    v->absent = !r->have_norm;
    v->x = r->last_norm;
}
GET(get_bad_cells)
{
    v->absent = r->verified == 0;
    v->i = r->bad_cells;
}
GET(get_max_diff)
{
    v->absent = r->verified == 0;
    v->x = r->max_diff;
}
#undef GET

/* The columns of schema 1 come first, at their old positions; then what schema 2 added. */
static const hx_report_field fields[] = {
    {"dim", HX_RF_INT, HX_SEC_CONFIG, "problem", HX_IN_ALL, NULL, NULL, get_dim, "2 or 3"},
    {"size", HX_RF_DIMS, HX_SEC_CONFIG, "problem", HX_IN_ALL, "nx,ny,nz", NULL, get_size, "global cells per axis (--size)"},
    {"ranks", HX_RF_INT, HX_SEC_CONFIG, "decomp", HX_IN_ALL, NULL, NULL, get_ranks, "MPI ranks"},
    {"grid", HX_RF_DIMS, HX_SEC_CONFIG, "decomp", HX_IN_ALL, "px,py,pz", NULL, get_grid, "ranks per axis (--grid or chosen)"},
    {"stencil", HX_RF_STR, HX_SEC_CONFIG, "problem", HX_IN_ALL, NULL, NULL, get_stencil, "--stencil"},
    {"dtype", HX_RF_STR, HX_SEC_CONFIG, "problem", HX_IN_ALL, NULL, NULL, get_dtype, "--dtype"},
    {"depth", HX_RF_INT, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_depth, "--depth: sweeps per exchange"},
    {"pattern", HX_RF_STR, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_pattern, "--pattern"},
    {"overlap", HX_RF_BOOL, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_overlap, "--overlap"},
    {"boundary", HX_RF_STR, HX_SEC_CONFIG, "problem", HX_IN_ALL, NULL, NULL, get_boundary, "--boundary"},
    {"backend", HX_RF_STR, HX_SEC_CONFIG, "decomp", HX_IN_ALL, NULL, NULL, get_backend, "cpu or cuda (--backend resolved)"},
    {"transport", HX_RF_STR, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_transport, "--transport"},
    {"iters", HX_RF_INT, HX_SEC_CONFIG, "problem", HX_IN_ALL, NULL, NULL, get_iters, "--iters: sweeps per timed run"},
    {"repeats", HX_RF_INT, HX_SEC_CONFIG, "measure", HX_IN_ALL, NULL, NULL, get_repeats, "--repeat: timed runs"},
    {"segments", HX_RF_SEGMENTS, HX_SEC_RESULT, NULL, HX_IN_ALL, NULL, NULL, get_none,
     "per segment, seconds summed over a run: min/mean/max over the ranks (medians over the repeats); JSON adds "
     "rep_min/rep_max, the range over the repeats of the rank maximum"},
    {"total_rep_min_s", HX_RF_REAL, HX_SEC_RESULT, NULL, HX_IN_CSV, NULL, "%.9e", get_total_rep_min,
     "fastest repeat's slowest-rank total (JSON: segments.total.rep_min)"},
    {"total_rep_max_s", HX_RF_REAL, HX_SEC_RESULT, NULL, HX_IN_CSV, NULL, "%.9e", get_total_rep_max,
     "slowest repeat's slowest-rank total (JSON: segments.total.rep_max)"},
    {"us_per_sweep", HX_RF_REAL, HX_SEC_RESULT, NULL, HX_IN_ALL, NULL, "%.4f", get_us_per_sweep,
     "slowest rank's total over iters, median of the repeats, microseconds"},
    {"cells_per_s", HX_RF_REAL, HX_SEC_RESULT, NULL, HX_IN_ALL, NULL, "%.6e", get_cells_per_s,
     "global cell updates per second at that time"},
    {"verified", HX_RF_VERIFIED, HX_SEC_RESULT, NULL, HX_IN_ALL, NULL, NULL, get_verified,
     "--verify: 1 bit-identical, -1 differs, 0 not checked (JSON true/false/null)"},
    {"graph", HX_RF_BOOL, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_graph, "--graph"},
    /* schema 2 */
    {"schema", HX_RF_INT, HX_SEC_RUN, "build", HX_IN_ALL, NULL, NULL, get_schema, "this layout's version (2)"},
    {"halox_version", HX_RF_STR, HX_SEC_RUN, "build", HX_IN_ALL, NULL, NULL, get_version, "HALOX_VERSION"},
    {"gpu", HX_RF_STR, HX_SEC_RUN, "decomp", HX_IN_ALL, NULL, NULL, get_gpu, "rank 0's GPU; - on the CPU"},
    {"fuse", HX_RF_INT, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_fuse, "--fuse: sweeps per pass, 1 = off"},
    {"warmup", HX_RF_INT, HX_SEC_CONFIG, "measure", HX_IN_ALL, NULL, NULL, get_warmup,
     "--warmup: untimed sweeps run once before the first timed repeat"},
    {"seed", HX_RF_U64, HX_SEC_CONFIG, "problem", HX_IN_ALL, NULL, NULL, get_seed, "--seed"},
    {"devices", HX_RF_STR, HX_SEC_CONFIG, "decomp", HX_IN_ALL, NULL, NULL, get_devices,
     "--devices as given; - when not given"},
    {"desync_barrier", HX_RF_BOOL, HX_SEC_CONFIG, "measure", HX_IN_ALL, NULL, NULL, get_desync, "--desync-barrier"},
    {"norm_every", HX_RF_INT, HX_SEC_CONFIG, "measure", HX_IN_ALL, NULL, NULL, get_norm_every, "--norm-every; 0 = off"},
    {"halo", HX_RF_INT, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_halo, "ghost cells per side: depth x radius"},
    {"exchanges", HX_RF_INT, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_exchanges, "exchanges per timed run"},
    {"block", HX_RF_DIMS, HX_SEC_CONFIG, "decomp", HX_IN_TABLE, NULL, NULL, get_block, "rank 0's block of cells"},
    {"message_kind", HX_RF_STR, HX_SEC_RESULT, "exchange", HX_IN_ALL, NULL, NULL, get_message_kind,
     "what the message segment timed: host (host time posting and waiting for messages) or device (the device "
     "interval between events around the enqueued exchange)"},
    {"schedule", HX_RF_STR, HX_SEC_CONFIG, "exchange", HX_IN_ALL, NULL, NULL, get_schedule, "--schedule: cycle, fused or persistent"},
    {"last_norm", HX_RF_REAL, HX_SEC_RESULT, NULL, HX_IN_ALL, NULL, "%.9e", get_last_norm,
     "--norm-every: the last update norm; empty (JSON null) without it"},
    {"bad_cells", HX_RF_INT, HX_SEC_RESULT, NULL, HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_bad_cells,
     "--verify: cells that differ from the reference; empty (null) without --verify"},
    {"max_diff", HX_RF_REAL, HX_SEC_RESULT, NULL, HX_IN_CSV | HX_IN_JSON, NULL, "%.3e", get_max_diff,
     "--verify: the largest difference; empty (null) without --verify"},
    {"kernel", HX_RF_STR, HX_SEC_RESULT, "exchange", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_kernel,
     "the device schedule's kernel: resident (tiles kept in shared memory) or passes; - (null) for cycle"},
    {"threads", HX_RF_INT, HX_SEC_CONFIG, "decomp", HX_IN_ALL, NULL, NULL, get_threads,
     "--threads: OpenMP threads per rank of the cpu backend; 0 = automatic"},
    {"ll_bytes", HX_RF_INT, HX_SEC_CONFIG, "exchange", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_ll_bytes,
     "--ll-bytes: ipc-put's flagged-word limit; -1 = automatic"},
    {"host_fallback", HX_RF_STR, HX_SEC_CONFIG, "exchange", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_host_fallback,
     "--host-fallback as given; - (null) when not given"},
};
enum { NFIELDS = (int)(sizeof fields / sizeof fields[0]) };

const hx_report_field *hx_report_fields(int *count)
{
    *count = NFIELDS;
    return fields;
}

const hx_report_field *hx_report_field_find(const char *key)
{
    for (int i = 0; i < NFIELDS; i++)
        if (!strcmp(fields[i].key, key)) return &fields[i];
    return NULL;
}

static hx_rvalue value_of(const hx_report *r, const hx_report_field *f)
{
    hx_rvalue v;
    memset(&v, 0, sizeof v);
    f->get(r, &v);
    if (f->type == HX_RF_STR && !v.s) v.absent = 1;
    if (f->type == HX_RF_REAL && !isfinite(v.x)) v.absent = 1;
    return v;
}

/* Formats ---------------------------------------------------------------------------------- */

static void csv_text(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void json_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* The value as the table and CSV show it (CSV quotes text itself). */
static void plain_value(char *buf, size_t n, const hx_report_field *f, const hx_rvalue *v, int csv)
{
    if (v->absent) {
        snprintf(buf, n, "%s", csv && f->type != HX_RF_STR ? "" : "-");
        return;
    }
    switch (f->type) {
    case HX_RF_INT: snprintf(buf, n, "%lld", v->i); break;
    case HX_RF_U64: snprintf(buf, n, "%llu", v->u); break;
    case HX_RF_BOOL:
        if (csv) snprintf(buf, n, "%d", v->i != 0);
        else snprintf(buf, n, "%s", v->i ? "on" : "off");
        break;
    case HX_RF_VERIFIED:
        if (csv) snprintf(buf, n, "%lld", v->i);
        else snprintf(buf, n, "%s", v->i > 0 ? "yes" : v->i < 0 ? "FAILED" : "-");
        break;
    case HX_RF_REAL: snprintf(buf, n, f->fmt, v->x); break;
    case HX_RF_STR: snprintf(buf, n, "%s", v->s); break;
    case HX_RF_DIMS:
        if (csv) snprintf(buf, n, "%d,%d,%d", v->dims[0], v->dims[1], v->ndims == 3 ? v->dims[2] : 1);
        else if (v->ndims == 3) snprintf(buf, n, "%dx%dx%d", v->dims[0], v->dims[1], v->dims[2]);
        else snprintf(buf, n, "%dx%d", v->dims[0], v->dims[1]);
        break;
    case HX_RF_SEGMENTS: buf[0] = 0; break;
    }
}

static void json_value(FILE *out, const hx_report_field *f, const hx_rvalue *v)
{
    if (v->absent || (f->type == HX_RF_VERIFIED && v->i == 0)) {
        fputs("null", out);
        return;
    }
    switch (f->type) {
    case HX_RF_BOOL:
    case HX_RF_VERIFIED: fputs(v->i > 0 ? "true" : "false", out); break;
    case HX_RF_STR: json_text(out, v->s); break;
    case HX_RF_DIMS: fprintf(out, "[%d, %d, %d]", v->dims[0], v->dims[1], v->ndims == 3 ? v->dims[2] : 1); break;
    default: {
        char buf[64];
        plain_value(buf, sizeof buf, f, v, 1);
        fputs(buf, out);
    }
    }
}

static void print_csv(FILE *out, const hx_report *r)
{
    if (!r->cfg->no_header) {
        int first = 1;
        for (int i = 0; i < NFIELDS; i++) {
            const hx_report_field *f = &fields[i];
            if (!(f->formats & HX_IN_CSV)) continue;
            if (f->type == HX_RF_SEGMENTS) {
                for (int s = 0; s < HX_NUM_SEGS; s++)
                    fprintf(out, "%s%s_min_s,%s_mean_s,%s_max_s", first && s == 0 ? "" : ",", hx_segment_names[s],
                            hx_segment_names[s], hx_segment_names[s]);
            } else {
                fprintf(out, "%s%s", first ? "" : ",", f->type == HX_RF_DIMS ? f->csv : f->key);
            }
            first = 0;
        }
        fputc('\n', out);
    }
    int first = 1;
    for (int i = 0; i < NFIELDS; i++) {
        const hx_report_field *f = &fields[i];
        if (!(f->formats & HX_IN_CSV)) continue;
        if (!first) fputc(',', out);
        first = 0;
        if (f->type == HX_RF_SEGMENTS) {
            for (int s = 0; s < HX_NUM_SEGS; s++) {
                seg_summary m = summarise(r, s);
                fprintf(out, "%s%.9e,%.9e,%.9e", s ? "," : "", m.med_min, m.med_mean, m.med_max);
            }
            continue;
        }
        hx_rvalue v = value_of(r, f);
        char buf[600];
        plain_value(buf, sizeof buf, f, &v, 1);
        if (f->type == HX_RF_STR) csv_text(out, buf);
        else fputs(buf, out);
    }
    fputc('\n', out);
}

static void json_segments(FILE *out, const hx_report *r)
{
    fprintf(out, "{\n");
    for (int s = 0; s < HX_NUM_SEGS; s++) {
        seg_summary m = summarise(r, s);
        fprintf(out, "    \"%s\": {\"min\": %.9e, \"mean\": %.9e, \"max\": %.9e, \"rep_min\": %.9e, \"rep_max\": %.9e}%s\n",
                hx_segment_names[s], m.med_min, m.med_mean, m.med_max, m.rep_min, m.rep_max,
                s + 1 < HX_NUM_SEGS ? "," : "");
    }
    fprintf(out, "  }");
}

/* Top-level run fields, then "config": {...}, then the results (segments in their place). */
static void print_json(FILE *out, const hx_report *r)
{
    const char *sep = "{\n";
    for (int pass = 0; pass < 3; pass++) {
        int in_config = 0;
        for (int i = 0; i < NFIELDS; i++) {
            const hx_report_field *f = &fields[i];
            if (!(f->formats & HX_IN_JSON) || (int)f->section != pass) continue;
            if (pass == HX_SEC_CONFIG && !in_config) {
                fprintf(out, "%s  \"config\": {", sep);
                sep = "";
                in_config = 1;
            }
            fprintf(out, pass == HX_SEC_CONFIG ? "%s\"%s\": " : "%s  \"%s\": ", sep, f->key);
            if (f->type == HX_RF_SEGMENTS) json_segments(out, r);
            else {
                hx_rvalue v = value_of(r, f);
                json_value(out, f, &v);
            }
            sep = pass == HX_SEC_CONFIG ? ", " : ",\n";
        }
        if (in_config) {
            fprintf(out, "}");
            sep = ",\n";
        }
    }
    fprintf(out, "\n}\n");
}

/* Header lines: every table field of a line as "key value", wrapped. */
static void table_line(FILE *out, const hx_report *r, const char *line)
{
    char buf[700];
    int at = fprintf(out, "  %-9s", line), start = at, first = 1;
    for (int i = 0; i < NFIELDS; i++) {
        const hx_report_field *f = &fields[i];
        if (!(f->formats & HX_IN_TABLE) || !f->line || strcmp(f->line, line)) continue;
        hx_rvalue v = value_of(r, f);
        char item[760];
        plain_value(buf, sizeof buf, f, &v, 0);
        int len = snprintf(item, sizeof item, "%s%s %s", first ? "" : ", ", f->key, buf);
        if (!first && at + len > 100) {
            fprintf(out, ",\n%*s", start, "");
            at = start;
            len = snprintf(item, sizeof item, "%s %s", f->key, buf);
        }
        fputs(item, out);
        at += len;
        first = 0;
    }
    fputc('\n', out);
}

static void print_table(FILE *out, const hx_report *r)
{
    static const char *const lines[] = {"problem", "decomp", "exchange", "measure", "build"};
    const hx_config *c = r->cfg;
    fprintf(out, "halox run\n");
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++) table_line(out, r, lines[k]);
    fprintf(out, "\n%-9s %12s %12s %12s %14s %12s %12s\n", "segment", "rank min", "rank mean", "rank max", "mean/sweep",
            "rep min", "rep max");
    fprintf(out, "%-9s %12s %12s %12s %14s %12s %12s\n", "", "ms", "ms", "ms", "us", "ms", "ms");
    for (int s = 0; s < HX_NUM_SEGS; s++) {
        seg_summary m = summarise(r, s);
        if (s == HX_SEG_TOTAL) fprintf(out, "%.*s\n", 89, "-----------------------------------------------------------------------------------------------");
        fprintf(out, "%-9s %12.3f %12.3f %12.3f %14.2f %12.3f %12.3f\n", hx_segment_names[s], 1e3 * m.med_min,
                1e3 * m.med_mean, 1e3 * m.med_max, 1e6 * m.med_mean / (double)c->iters, 1e3 * m.rep_min,
                1e3 * m.rep_max);
    }
    if (c->graph && r->whole_graph)
        fprintf(out, "(--graph: each cycle is one CUDA graph, so only total is timed; run without --graph for segments)\n");
    hx_rvalue us = value_of(r, hx_report_field_find("us_per_sweep")), cps = value_of(r, hx_report_field_find("cells_per_s"));
    fprintf(out, "\ntime per sweep %.2f us (slowest rank, median of %d), %.3e cell updates/s\n", us.x, r->nrep, cps.x);
    if (r->have_norm) fprintf(out, "last update norm %.9e\n", r->last_norm);
    if (r->verified > 0) fprintf(out, "verify: bit-identical to the single-domain reference (max |diff| = 0)\n");
    else if (r->verified < 0)
        fprintf(out, "verify: FAILED, %ld cells differ from the single-domain reference (max |diff| = %.3e)\n",
                r->bad_cells, r->max_diff);
}

void hx_report_print(FILE *out, const hx_report *r)
{
    switch (r->cfg->format) {
    case HX_FORMAT_CSV: print_csv(out, r); break;
    case HX_FORMAT_JSON: print_json(out, r); break;
    default: print_table(out, r); break;
    }
    fflush(out);
}

double hx_report_total_median(const hx_report *r) { return summarise(r, HX_SEG_TOTAL).med_max; }
double hx_report_segment_median(const hx_report *r, int seg) { return summarise(r, seg).med_max; }
