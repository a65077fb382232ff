/* Segment reduction, and the three formats (CSV, JSON, table) driven by the report's field table
 * (report_fields.c). */
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
    int nfields;
    const hx_report_field *fields = hx_report_fields(&nfields);
    if (!r->cfg->no_header) {
        int first = 1;
        for (int i = 0; i < nfields; i++) {
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
    for (int i = 0; i < nfields; i++) {
        const hx_report_field *f = &fields[i];
        if (!(f->formats & HX_IN_CSV)) continue;
        if (!first) fputc(',', out);
        first = 0;
        if (f->type == HX_RF_SEGMENTS) {
            for (int s = 0; s < HX_NUM_SEGS; s++) {
                hx_seg_summary m = hx_report_summarise(r, s);
                fprintf(out, "%s%.9e,%.9e,%.9e", s ? "," : "", m.med_min, m.med_mean, m.med_max);
            }
            continue;
        }
        hx_rvalue v = hx_report_value(r, f);
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
        hx_seg_summary m = hx_report_summarise(r, s);
        fprintf(out, "    \"%s\": {\"min\": %.9e, \"mean\": %.9e, \"max\": %.9e, \"rep_min\": %.9e, \"rep_max\": %.9e}%s\n",
                hx_segment_names[s], m.med_min, m.med_mean, m.med_max, m.rep_min, m.rep_max,
                s + 1 < HX_NUM_SEGS ? "," : "");
    }
    fprintf(out, "  }");
}

/* Top-level run fields, then "config": {...}, then the results (segments in their place). */
static void print_json(FILE *out, const hx_report *r)
{
    int nfields;
    const hx_report_field *fields = hx_report_fields(&nfields);
    const char *sep = "{\n";
    for (int pass = 0; pass < 3; pass++) {
        int in_config = 0;
        for (int i = 0; i < nfields; i++) {
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
                hx_rvalue v = hx_report_value(r, f);
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
    int nfields;
    const hx_report_field *fields = hx_report_fields(&nfields);
    char buf[700];
    int at = fprintf(out, "  %-9s", line), start = at, first = 1;
    for (int i = 0; i < nfields; i++) {
        const hx_report_field *f = &fields[i];
        if (!(f->formats & HX_IN_TABLE) || !f->line || strcmp(f->line, line)) continue;
        hx_rvalue v = hx_report_value(r, f);
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
        hx_seg_summary m = hx_report_summarise(r, s);
        if (s == HX_SEG_TOTAL) fprintf(out, "%.*s\n", 89, "-----------------------------------------------------------------------------------------------");
        fprintf(out, "%-9s %12.3f %12.3f %12.3f %14.2f %12.3f %12.3f\n", hx_segment_names[s], 1e3 * m.med_min,
                1e3 * m.med_mean, 1e3 * m.med_max, 1e6 * m.med_mean / (double)c->iters, 1e3 * m.rep_min,
                1e3 * m.rep_max);
    }
    if (c->graph && r->whole_graph)
        fprintf(out, "(--graph: each cycle is one CUDA graph, so only total is timed; run without --graph for segments)\n");
    hx_rvalue us = hx_report_value(r, hx_report_field_find("us_per_sweep")), cps = hx_report_value(r, hx_report_field_find("cells_per_s"));
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
