/* Segment reduction and the three report formats. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "halox/stencil.h"

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

static void dims_string(char *buf, size_t n, const int v[3], int dim)
{
    if (dim == 3) snprintf(buf, n, "%dx%dx%d", v[0], v[1], v[2]);
    else snprintf(buf, n, "%dx%d", v[0], v[1]);
}

static double global_cells(const hx_decomp *d) { return (double)d->global[0] * d->global[1] * d->global[2]; }

static void print_table(FILE *out, const hx_report *r)
{
    const hx_config *c = r->cfg;
    const hx_decomp *d = r->d;
    const hx_stencil_info *st = hx_stencil_get(c->stencil);
    char size[64], grid[64], local[64];
    dims_string(size, sizeof size, d->global, d->dim);
    dims_string(grid, sizeof grid, d->pgrid, d->dim);
    dims_string(local, sizeof local, d->local, d->dim); /* rank 0's block */
    fprintf(out, "halox run: %dD %s %s, %s cells on %d ranks (grid %s, rank 0 block %s)\n", d->dim, st->name,
            hx_dtype_name(c->dtype), size, d->nranks, grid, local);
    fprintf(out, "  depth %d (halo %d cells), pattern %s, %s, boundary %s, backend %s, transport %s%s\n", c->depth,
            c->depth * st->radius, hx_pattern_name(c->pattern), c->overlap ? "overlap" : "no overlap",
            hx_boundary_name(c->boundary), r->backend, r->transport, c->graph ? ", CUDA graph" : "");
    fprintf(out, "  %ld sweeps, %ld exchanges, %d timed repeat%s, %d warm-up sweeps\n\n", c->iters,
            (c->iters + c->depth - 1) / c->depth, r->nrep, r->nrep > 1 ? "s" : "", c->warmup);
    fprintf(out, "%-9s %12s %12s %12s %14s %12s %12s\n", "segment", "rank min", "rank mean", "rank max", "mean/sweep",
            "rep min", "rep max");
    fprintf(out, "%-9s %12s %12s %12s %14s %12s %12s\n", "", "ms", "ms", "ms", "us", "ms", "ms");
    for (int s = 0; s < HX_NUM_SEGS; s++) {
        seg_summary m = summarise(r, s);
        if (s == HX_SEG_TOTAL) fprintf(out, "%.*s\n", 89, "-----------------------------------------------------------------------------------------------");
        fprintf(out, "%-9s %12.3f %12.3f %12.3f %14.2f %12.3f %12.3f\n", hx_segment_names[s], 1e3 * m.med_min,
                1e3 * m.med_mean, 1e3 * m.med_max, 1e6 * m.med_mean / (double)c->iters, 1e3 * m.rep_min,
                1e3 * m.rep_max);
    }
    seg_summary tot = summarise(r, HX_SEG_TOTAL);
    if (c->graph && r->whole_graph)
        fprintf(out, "(--graph: each cycle is one CUDA graph, so only total is timed; run without --graph for segments)\n");
    fprintf(out, "\ntime per sweep %.2f us (slowest rank, median of %d), %.3e cell updates/s\n",
            1e6 * tot.med_max / (double)c->iters, r->nrep, global_cells(d) * (double)c->iters / tot.med_max);
    if (r->have_norm) fprintf(out, "last update norm %.9e\n", r->last_norm);
    if (r->verified > 0) fprintf(out, "verify: bit-identical to the single-domain reference (max |diff| = 0)\n");
    else if (r->verified < 0)
        fprintf(out, "verify: FAILED, %ld cells differ from the single-domain reference (max |diff| = %.3e)\n",
                r->bad_cells, r->max_diff);
}

static void print_csv(FILE *out, const hx_report *r)
{
    const hx_config *c = r->cfg;
    const hx_decomp *d = r->d;
    if (!c->no_header) {
        fprintf(out, "dim,nx,ny,nz,ranks,px,py,pz,stencil,dtype,depth,pattern,overlap,boundary,backend,transport,iters,repeats");
        for (int s = 0; s < HX_NUM_SEGS; s++)
            fprintf(out, ",%s_min_s,%s_mean_s,%s_max_s", hx_segment_names[s], hx_segment_names[s], hx_segment_names[s]);
        fprintf(out, ",total_rep_min_s,total_rep_max_s,us_per_sweep,cells_per_s,verified,graph\n");
    }
    fprintf(out, "%d,%d,%d,%d,%d,%d,%d,%d,%s,%s,%d,%s,%d,%s,%s,%s,%ld,%d", d->dim, d->global[0], d->global[1],
            d->global[2], d->nranks, d->pgrid[0], d->pgrid[1], d->pgrid[2], hx_stencil_get(c->stencil)->name,
            hx_dtype_name(c->dtype), c->depth, hx_pattern_name(c->pattern), c->overlap, hx_boundary_name(c->boundary),
            r->backend, r->transport, c->iters, r->nrep);
    for (int s = 0; s < HX_NUM_SEGS; s++) {
        seg_summary m = summarise(r, s);
        fprintf(out, ",%.9e,%.9e,%.9e", m.med_min, m.med_mean, m.med_max);
    }
    seg_summary t = summarise(r, HX_SEG_TOTAL);
    fprintf(out, ",%.9e,%.9e,%.4f,%.6e,%d,%d\n", t.rep_min, t.rep_max, 1e6 * t.med_max / (double)c->iters,
            global_cells(d) * (double)c->iters / t.med_max, r->verified, c->graph);
}

static void print_json(FILE *out, const hx_report *r)
{
    const hx_config *c = r->cfg;
    const hx_decomp *d = r->d;
    fprintf(out, "{\n  \"config\": {\"dim\": %d, \"size\": [%d, %d, %d], \"ranks\": %d, \"grid\": [%d, %d, %d], "
                 "\"stencil\": \"%s\", \"dtype\": \"%s\", \"depth\": %d, \"pattern\": \"%s\", \"overlap\": %s, "
                 "\"boundary\": \"%s\", \"backend\": \"%s\", \"transport\": \"%s\", \"iters\": %ld, \"repeats\": %d, "
                 "\"warmup\": %d, \"seed\": %llu, \"graph\": %s},\n",
            d->dim, d->global[0], d->global[1], d->global[2], d->nranks, d->pgrid[0], d->pgrid[1], d->pgrid[2],
            hx_stencil_get(c->stencil)->name, hx_dtype_name(c->dtype), c->depth, hx_pattern_name(c->pattern),
            c->overlap ? "true" : "false", hx_boundary_name(c->boundary), r->backend, r->transport, c->iters, r->nrep,
            c->warmup, (unsigned long long)c->seed, c->graph ? "true" : "false");
    fprintf(out, "  \"segments\": {\n");
    for (int s = 0; s < HX_NUM_SEGS; s++) {
        seg_summary m = summarise(r, s);
        fprintf(out, "    \"%s\": {\"min\": %.9e, \"mean\": %.9e, \"max\": %.9e, \"rep_min\": %.9e, \"rep_max\": %.9e}%s\n",
                hx_segment_names[s], m.med_min, m.med_mean, m.med_max, m.rep_min, m.rep_max,
                s + 1 < HX_NUM_SEGS ? "," : "");
    }
    seg_summary t = summarise(r, HX_SEG_TOTAL);
    fprintf(out, "  },\n  \"us_per_sweep\": %.4f,\n  \"cells_per_s\": %.6e,\n", 1e6 * t.med_max / (double)c->iters,
            global_cells(d) * (double)c->iters / t.med_max);
    if (r->have_norm) fprintf(out, "  \"last_norm\": %.9e,\n", r->last_norm);
    fprintf(out, "  \"verified\": %s\n}\n", r->verified > 0 ? "true" : r->verified < 0 ? "false" : "null");
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
