/* The report's fields: how each is computed from a run (its getter) and where it goes, in one
 * table that the three formats of report.c walk; and the medians over repeats they share. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}


static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

hx_seg_summary hx_report_summarise(const hx_report *r, int seg)
{
    hx_seg_summary s;
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
GET(get_stencil) { v->s = hx_config_stencil_name(r->cfg); }
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
GET(get_total_rep_min) { v->x = hx_report_summarise(r, HX_SEG_TOTAL).rep_min; }
GET(get_total_rep_max) { v->x = hx_report_summarise(r, HX_SEG_TOTAL).rep_max; }
GET(get_us_per_sweep) { v->x = 1e6 * hx_report_summarise(r, HX_SEG_TOTAL).med_max / (double)r->cfg->iters; }
GET(get_cells_per_s) { v->x = global_cells(r->d) * (double)r->cfg->iters / hx_report_summarise(r, HX_SEG_TOTAL).med_max; }
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
GET(get_threads) { v->i = r->cfg->threads; }
GET(get_halo) { v->i = (long long)r->cfg->depth * hx_config_radius(r->cfg); }
GET(get_exchanges) { v->i = (r->cfg->iters + r->cfg->depth - 1) / r->cfg->depth; }
/* host: the transport's host calls, waits included; device: events around the enqueued exchange */
GET(get_message_kind)
{
    unsigned paths = r->transport ? hx_transport_paths(r->transport) : 0;
    v->s = !paths ? NULL : (paths & HX_PATH_HOST) ? "host" : "device";
}
GET(get_schedule) { v->s = hx_schedule_name(r->cfg->schedule); }
GET(get_kernel) { v->s = hx_kernel_name(r->cfg->kernel); }
GET(get_kernel_ran) { v->s = r->kernel_ran; }
GET(get_block_rows) { v->i = r->cfg->block_rows; }
GET(get_march) { v->i = r->cfg->march; }
GET(get_zsplit) { v->i = r->cfg->zsplit; }
GET(get_lanes) { v->i = r->cfg->lanes; }
static const char *switch_name(int v) { return v == HX_AUTO ? "auto" : v ? "on" : "off"; }
GET(get_inplace) { v->s = switch_name(r->cfg->inplace); }
GET(get_prefetch) { v->s = switch_name(r->cfg->prefetch); }
GET(get_pdl) { v->s = switch_name(r->cfg->pdl); }
GET(get_tma) { v->s = switch_name(r->cfg->tma); }
GET(get_profile) { v->i = r->cfg->profile; }
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

/* The columns of schema 1 come first, at their old positions; then what schemas 2 and 3 added. */
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
    {"schema", HX_RF_INT, HX_SEC_RUN, "build", HX_IN_ALL, NULL, NULL, get_schema, "this layout's version (3)"},
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
    {"kernel", HX_RF_STR, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_kernel,
     "--kernel: the device schedule's kernel asked for (auto, resident, passes, roles)"},
    /* schema 3 */
    {"kernel_ran", HX_RF_STR, HX_SEC_RESULT, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_kernel_ran,
     "the device schedule's kernel that ran: resident, roles, passes, passes-march, passes-fused3d or passes-shmem; "
     "- (null) for cycle"},
    {"block_rows", HX_RF_INT, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_block_rows,
     "--block-rows; 0 = automatic"},
    {"march", HX_RF_INT, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_march, "--march; 0 = automatic"},
    {"zsplit", HX_RF_INT, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_zsplit, "--zsplit; 0 = automatic"},
    {"lanes", HX_RF_INT, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_lanes, "--lanes; 0 = automatic"},
    {"inplace", HX_RF_STR, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_inplace, "--inplace: auto, on or off"},
    {"prefetch", HX_RF_STR, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_prefetch, "--prefetch: auto, on or off"},
    {"pdl", HX_RF_STR, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_pdl, "--pdl: auto, on or off"},
    {"tma", HX_RF_STR, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_tma, "--tma: auto, on or off"},
    {"profile", HX_RF_BOOL, HX_SEC_CONFIG, "kernel", HX_IN_CSV | HX_IN_JSON, NULL, NULL, get_profile, "--profile"},
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

hx_rvalue hx_report_value(const hx_report *r, const hx_report_field *f)
{
    hx_rvalue v;
    memset(&v, 0, sizeof v);
    f->get(r, &v);
    if (f->type == HX_RF_STR && !v.s) v.absent = 1;
    if (f->type == HX_RF_REAL && !isfinite(v.x)) v.absent = 1;
    return v;
}

double hx_report_total_median(const hx_report *r) { return hx_report_summarise(r, HX_SEG_TOTAL).med_max; }
double hx_report_segment_median(const hx_report *r, int seg) { return hx_report_summarise(r, seg).med_max; }
