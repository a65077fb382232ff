/* `halox roofline`: one device, no communication. Measures the device-to-device copy bandwidth
 * and each stencil's sweep rate in the same run, and prints their ratio: how close a sweep comes
 * to the memory-bandwidth floor (one read and one write per cell), and its ratio to a copy of its
 * own field (the floor at that size: small fields copy faster from L2, or slower for launch cost).
 * Then each fused pass (--fuse N, where the backend has them): N sweeps per pass over memory,
 * reported as an effective bandwidth (owned cells x N per second x the bytes of one sweep) and its
 * multiple of the copy bandwidth.
 * On a GPU each row is also marked when its SM clock (NVML, clock_watch.h) ran below 90% of the
 * maximum, as it does under the power cap after sustained full-bandwidth rows.
 * The one CLI file below the public API: it times the backend's kernels themselves, through the
 * private backend interface (src/compute/backend.h). */
#include <stdlib.h>
#include <string.h>

#include "clock_watch.h"
#include "compute/backend.h"
#include "halox/halox.h"
#include "config.h"

/* The GPU's SM clock over each row (NVML, when the driver has it; cuda backend only), and whether
 * any row ran below it. */
static clock_watch watch;
static int rows_slow;

/* Marks a row whose mean SM clock, sampled after each timed batch, was below 90% of the maximum. */
static void print_clock(FILE *out)
{
    double mean;
    unsigned lo, max;
    clock_watch_stop(&watch, &mean, &lo, &max);
    if (max == 0 || mean >= 0.90 * max) return;
    fprintf(out, "  SM clock %.0f MHz (%.0f%% of %u, lowest %u)", mean, 100 * mean / max, max, lo);
    rows_slow = 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Seconds per call of op (sweep or copy), median over `repeat` batches of `batch` calls. With
 * `graph`, the batch is captured once into a CUDA graph and each timed batch is one replay of it, as
 * `halox run --graph` issues a cycle: the device's rate without the host's cost of each launch.
 * Copies are never captured: a graph's copy node of a large buffer runs well below the stream's copy
 * bandwidth, so it would be no floor. */
typedef int (*timed_op)(hx_backend *bk, void *ctx, int i);

static int issue_batch(hx_backend *bk, timed_op op, void *ctx, int batch)
{
    for (int i = 0; i < batch; i++)
        if (op(bk, ctx, i)) return -1;
    return 0;
}

static int time_op(hx_backend *bk, timed_op op, void *ctx, int batch, int repeat, int graph, double *out)
{
    if (graph) {
        if (bk->ops->capture_begin(bk, HX_STREAM_MAIN)) return -1;
        const int failed = issue_batch(bk, op, ctx, batch);
        if (bk->ops->capture_end(bk, HX_STREAM_MAIN, 0) || failed) return -1; /* ends the capture either way */
    }
    double *t = malloc(sizeof(double) * (size_t)repeat);
    if (!t) return -1;
    /* warm-up, then the timed batches */
    for (int r = -1; r < repeat; r++) {
        if (r >= 0 && bk->ops->record(bk, HX_STREAM_MAIN, 0)) return free(t), -1;
        if (graph ? bk->ops->graph_launch(bk, HX_STREAM_MAIN, 0) : issue_batch(bk, op, ctx, batch)) return free(t), -1;
        if (r < 0) continue;
        if (bk->ops->record(bk, HX_STREAM_MAIN, 1) || bk->ops->elapsed(bk, 0, 1, &t[r])) return free(t), -1;
        clock_watch_sample(&watch); /* the batch just ended: the clock it ran at */
        t[r] /= batch;
    }
    if (graph) bk->ops->drop_graphs(bk);
    *out = median(t, repeat);
    free(t);
    return 0;
}

typedef struct {
    void *a, *b;
    size_t bytes;
    hx_box box;
    int levels;                 /* fused_op: sweeps per pass */
    hx_box boxes[HX_FUSE_MAX]; /* ... and the box of each, as in a cycle of `levels` sweeps */
} bench_ctx;

static int copy_op(hx_backend *bk, void *ctx, int i)
{
    bench_ctx *c = ctx;
    return i % 2 ? bk->ops->copy(bk, HX_STREAM_MAIN, c->a, c->b, c->bytes) : bk->ops->copy(bk, HX_STREAM_MAIN, c->b, c->a, c->bytes);
}

static int sweep_op(hx_backend *bk, void *ctx, int i)
{
    bench_ctx *c = ctx;
    return i % 2 ? bk->ops->sweep(bk, HX_STREAM_MAIN, &c->box, c->b, c->a) : bk->ops->sweep(bk, HX_STREAM_MAIN, &c->box, c->a, c->b);
}

static int fused_op(hx_backend *bk, void *ctx, int i)
{
    bench_ctx *c = ctx;
    return i % 2 ? bk->ops->sweep_fused(bk, HX_STREAM_MAIN, c->levels, c->boxes, c->b, c->a)
                 : bk->ops->sweep_fused(bk, HX_STREAM_MAIN, c->levels, c->boxes, c->a, c->b);
}

typedef struct {
    hx_backend_kind backend;
    int device;
    int n2d;            /* cells per axis */
    char size3d[32];    /* --size3d as given: N or NXxNYxNZ */
    int n3[3];          /* the 3D grid, parsed */
    int small2d;        /* a latency-bound size to show launch cost, 0 = none */
    int repeat, batch;
    int device_set;     /* --device given */
    int fused;          /* time the fused passes too */
    int graph;          /* each timed batch one replay of a captured graph */
    hx_tuning tuning;   /* launch shapes of the sweeps and passes (halox run's tuning flags) */
} roofline_opts;

/* One row: a plain sweep (levels 0: the sweep table), or a pass of `levels` fused sweeps (1 is the
 * plain sweep on the same grid, for reference) with the ghost width a cycle of that many needs.
 * Returns 1 (nothing printed) when the backend has no fused pass. */
static int run_one(const roofline_opts *o, hx_stencil_id st, hx_dtype dt, const int n[3], int levels, double copy_bw,
                   FILE *out)
{
    const hx_stencil_info *info = hx_stencil_get(st);
    int global[3] = {n[0], n[1], info->dim == 3 ? n[2] : 1}, pg[3] = {1, 1, 1};
    const int halo = (levels > 1 ? levels : 1) * info->radius;
    char err[320];
    hx_decomp d;
    hx_backend bk;
    if (hx_decomp_init(&d, info->dim, global, pg, 0, 1, HX_PERIODIC, halo, err, sizeof err) ||
        hx_backend_create(&bk, o->backend, &d, st, dt, o->device, err, sizeof err)) {
        fprintf(stderr, "halox: error: %s\n", err);
        return -1;
    }
    if (hx_backend_set_tuning(&bk, &o->tuning)) { /* checked in hx_roofline_main: not reached */
        fprintf(stderr, "halox: error: %s\n", bk.err);
        bk.ops->destroy(&bk);
        return -1;
    }
    if (levels > 1 && !bk.ops->sweep_fused) {
        bk.ops->destroy(&bk);
        return 1;
    }
    bench_ctx c;
    memset(&c, 0, sizeof c);
    c.bytes = (size_t)hx_alloc_cells(&d) * bk.elem;
    /* plain sweeps on fields laid out as the sweeper lays out its own for them */
    const int lead = levels <= 1 ? hx_field_lead(&bk, &d, info->radius) : 0;
    c.a = hx_backend_alloc_field(&bk, c.bytes, lead);
    c.b = hx_backend_alloc_field(&bk, c.bytes, lead);
    c.box = hx_owned_box(&d);
    c.levels = levels > 1 ? levels : 1;
    for (int j = 0; j < c.levels && j < HX_FUSE_MAX; j++) c.boxes[j] = hx_sweep_box(&d, (c.levels - 1 - j) * info->radius);
    double t = 0, t_copy = 0; /* t_copy: a copy of one of these fields, ghost cells and all (plain rows) */
    int rc = -1;
    clock_watch_start(&watch);
    if (c.a && c.b && bk.ops->init_field(&bk, c.a, 1) == 0 && bk.ops->init_field(&bk, c.b, 2) == 0 &&
        time_op(&bk, c.levels > 1 ? fused_op : sweep_op, &c, o->batch, o->repeat, o->graph, &t) == 0 &&
        (levels > 0 || time_op(&bk, copy_op, &c, o->batch, o->repeat, 0, &t_copy) == 0)) {
        /* useful updates only: the owned cells, once per sweep (a pass also recomputes a halo) */
        double cells = (double)hx_box_cells(&c.box) * c.levels, bw = 2.0 * cells * (double)bk.elem / t;
        char size[40];
        if (info->dim == 2) snprintf(size, sizeof size, "%d^2", n[0]);
        else if (n[0] == n[1] && n[1] == n[2]) snprintf(size, sizeof size, "%d^3", n[0]);
        else snprintf(size, sizeof size, "%dx%dx%d", n[0], n[1], n[2]);
        if (levels == 0) {
            fprintf(out, "%-8s %-7s %-8s %10.2f %12.3e %10.1f", info->name, hx_dtype_name(dt), size, 1e6 * t, cells / t, bw / 1e9);
            if (copy_bw > 0) fprintf(out, " %9.1f%%", 100.0 * bw / copy_bw);
            if (t_copy > 0) fprintf(out, " %9.1f%%", 100.0 * bw / (2.0 * (double)c.bytes / t_copy));
        } else {
            fprintf(out, "%-8s %-7s %-8s %3d %10.2f %12.3e %10.1f", info->name, hx_dtype_name(dt), size, levels, 1e6 * t, cells / t,
                    bw / 1e9);
            if (copy_bw > 0) fprintf(out, " %8.2fx", bw / copy_bw);
        }
        print_clock(out);
        fprintf(out, "\n");
        rc = 0;
    } else {
        fprintf(stderr, "halox: error: roofline on %s failed: %s\n", bk.ops->name, bk.err);
    }
    hx_backend_free_field(&bk, c.a, lead);
    hx_backend_free_field(&bk, c.b, lead);
    bk.ops->destroy(&bk);
    return rc;
}

static double copy_bandwidth(const roofline_opts *o, size_t bytes)
{
    int global[3] = {1, 1, 1}, pg[3] = {1, 1, 1};
    char err[320];
    hx_decomp d;
    hx_backend bk;
    if (hx_decomp_init(&d, 2, global, pg, 0, 1, HX_PERIODIC, 1, err, sizeof err) ||
        hx_backend_create(&bk, o->backend, &d, HX_JACOBI5, HX_FLOAT, o->device, err, sizeof err)) {
        fprintf(stderr, "halox: error: %s\n", err);
        return -1;
    }
    bench_ctx c;
    memset(&c, 0, sizeof c);
    c.a = bk.ops->alloc(&bk, bytes);
    c.b = bk.ops->alloc(&bk, bytes);
    c.bytes = bytes;
    double t = -1;
    clock_watch_start(&watch);
    if (!c.a || !c.b || time_op(&bk, copy_op, &c, o->batch, o->repeat, 0, &t)) {
        fprintf(stderr, "halox: error: copy benchmark failed: %s\n", bk.err);
        t = -1;
    }
    if (c.a) bk.ops->free(&bk, c.a);
    if (c.b) bk.ops->free(&bk, c.b);
    bk.ops->destroy(&bk);
    return t > 0 ? 2.0 * (double)bytes / t : -1;
}

/* Every fused pass N of every stencil and dtype (N = 1: the plain sweep on the same grid). */
static int fused_table(const roofline_opts *o, double bw)
{
    if (o->backend != HX_BACKEND_CUDA) {
        printf("\n(fused passes: the cpu backend has none)\n");
        return 0;
    }
    printf("\nfused passes (--fuse N): N sweeps per pass over memory; effective GB/s = owned cells x N per second x "
           "the bytes of one sweep\n(one read and one write per cell), and its multiple of the copy bandwidth "
           "(the one-sweep floor is 1x)\n\n");
    printf("%-8s %-7s %-8s %3s %10s %12s %10s %9s\n", "stencil", "dtype", "size", "N", "us/pass", "cells/s", "eff GB/s", "x copy");
    for (int dt = 0; dt < 2; dt++)
        for (int st = 0; st < HX_NUM_STENCILS; st++) {
            const hx_stencil_info *info = hx_stencil_get((hx_stencil_id)st);
            const int n2[3] = {o->n2d, o->n2d, 1}, *n = info->dim == 3 ? o->n3 : n2;
            const int max = (info->dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX) / info->radius;
            for (int levels = 1; levels <= max; levels++) {
                int rc = run_one(o, (hx_stencil_id)st, (hx_dtype)dt, n, levels, bw, stdout);
                if (rc < 0) return -1;
                if (rc > 0) return printf("(this backend has no fused passes)\n"), 0;
            }
        }
    return 0;
}

/* The options of `halox roofline`, one table (options.h): --help, defaults and parsing. */
static const hx_opt_choice roofline_backends[] = {
    {"auto", HX_BACKEND_AUTO}, {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {NULL, 0}};
static const hx_opt_choice roofline_switch[] = {{"auto", HX_AUTO}, {"on", 1}, {"off", 0}, {NULL, 0}};
static const hx_opt_choice roofline_lanes[] = {{"auto", 0}, {"16", 16}, {"32", 32}, {NULL, 0}};
#define F(member) HX_OPT_FIELD(roofline_opts, member)
static const hx_option roofline_options[] = {
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = roofline_backends, .def = "auto",
     .help = "where to measure (auto: cuda when a GPU is visible)", F(backend)},
    {.name = "device", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 4095, .def = "0", .what = "a GPU number",
     .help = "the GPU to measure (cuda backend); one GPU, not a list", F(device),
     .seen_at = HX_OPT_AT(roofline_opts, device_set)},
    {.name = "size2d", .type = HX_OPT_INT, .meta = "N", .lo = 8, .hi = 32768, .def = "16384",
     .what = "cells per axis", .help = "2D grid of N x N cells", F(n2d)},
    {.name = "size3d", .type = HX_OPT_STRING, .meta = "N|NXxNYxNZ", .def = "512",
     .help = "3D grid of N x N x N cells, or NX x NY x NZ (each 8 to 1024: e.g. a rank's block of a multi-GPU run, "
             "256x256x512)", F(size3d)},
    {.name = "small", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 32768, .def = "1024", .what = "cells per axis",
     .help = "latency-bound 2D sizes from N x N, halved down to 128 (0: none)", F(small2d)},
    {.name = "repeat", .type = HX_OPT_INT, .meta = "R", .lo = 1, .hi = 1000, .def = "7",
     .what = "a number of timed batches", .help = "timed batches; the median is reported", F(repeat)},
    {.name = "batch", .type = HX_OPT_INT, .meta = "B", .lo = 1, .hi = 100000, .def = "20",
     .what = "a number of calls", .help = "sweeps or copies per timed batch", F(batch)},
    {.name = "fused", .type = HX_OPT_FLAG, .def = "on",
     .help = "also time each fused pass (--fuse N: 2D N x radius <= 8, 3D <= 4) at the same sizes, as an effective "
             "bandwidth (owned cells x N per second x the bytes of one sweep) and its multiple of the copy bandwidth "
             "(backends with fused passes: cuda)", F(fused)},
    {.name = "graph", .type = HX_OPT_FLAG, .def = "off",
     .help = "capture each batch of sweeps into a CUDA graph once and time its replays, as halox run --graph issues a "
             "cycle: the device's rate without the host's cost of each launch (cuda backend; copies are issued as without)",
     F(graph)},
    {.name = "block-rows", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 8, .def = "0",
     .group = "tuning (cuda backend; as halox run)", .what = "threads of a block in y",
     .help = "plain sweeps: threads of a block in y, 1 to 8 (automatic: 4 in 2D, 8 in 3D)", F(tuning.block_rows)},
    {.name = "march", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 64, .def = "0",
     .group = "tuning (cuda backend; as halox run)", .what = "cells a thread marches",
     .help = "plain sweeps: rows (2D: 2, 4, ... 64) or planes (3D: 4, 8, ... 64) each thread marches along the slow axis; "
             "since every run times 3D rows, 4 to 64 (automatic: by the box and the GPU)", F(tuning.march)},
    {.name = "zsplit", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 1024, .def = "0",
     .group = "tuning (cuda backend; as halox run)", .what = "a number of z chunks",
     .help = "fused 3D passes: z chunks of a pass, 1 to 1024 (automatic: a cost model over waves and halo planes)",
     F(tuning.zsplit)},
    {.name = "lanes", .type = HX_OPT_CHOICE, .choices = roofline_lanes, .def = "auto", .group = "tuning (cuda backend; as halox run)",
     .help = "fused 3D passes of floats: lanes of a tile row (auto: the cost model's choice)", F(tuning.lanes)},
    {.name = "prefetch", .type = HX_OPT_CHOICE, .choices = roofline_switch, .def = "auto", .group = "tuning (cuda backend; as halox run)",
     .help = "plain sweeps prefetch rows or planes ahead into L2 (auto: where the two fields do not fit in L2)",
     F(tuning.prefetch)},
    {.name = "pdl", .type = HX_OPT_CHOICE, .choices = roofline_switch, .def = "auto", .group = "tuning (cuda backend; as halox run)",
     .help = "plain sweeps launch as programmatic dependents of the kernel before them (auto and on: where the GPU and "
             "the build are sm_90 or later)", F(tuning.pdl)},
    {.name = "tma", .type = HX_OPT_CHOICE, .choices = roofline_switch, .def = "auto", .group = "tuning (cuda backend; as halox run)",
     .help = "plain 3D sweeps take the march fed by bulk tensor copies, sm_90 and later (auto: radius 2 where the two fields "
             "do not fit in L2 and the tiles use 85% of their lanes)", F(tuning.tma)},
};
#undef F

const hx_command hx_roofline_command = {
    .name = "roofline",
    .synopsis = "halox roofline [options]",
    .about = "Copy bandwidth and every stencil's sweep rate on one device, in one run, with their ratio: how close "
             "a sweep comes to the memory-bandwidth floor (one read and one write per cell).",
    .opts = roofline_options,
    .nopts = (int)(sizeof roofline_options / sizeof roofline_options[0]),
};

/* The copy, then every table: HX_OK, or HX_ERR_RUNTIME when a measurement failed (said on stderr). */
static int measure(const roofline_opts *o, size_t bytes)
{
    const double bw = copy_bandwidth(o, bytes);
    if (bw <= 0) return HX_ERR_RUNTIME;
    if (o->backend == HX_BACKEND_CUDA) printf("halox roofline on cuda GPU %d", o->device);
    else printf("halox roofline on the cpu");
    printf(": copy of %.0f MiB buffers: %.1f GB/s (bytes read + written), median of %d x %d%s",
           (double)bytes / (1 << 20), bw / 1e9, o->repeat, o->batch,
           o->graph ? "; each batch of sweeps one graph replay" : "");
    print_clock(stdout);
    printf("\n");
    if (o->backend == HX_BACKEND_CUDA && watch.lib)
        printf("SM clock: read through NVML after each timed batch; a row whose mean is below 90%% of the maximum is "
               "marked with its mean and lowest reading\n");
    else if (o->backend == HX_BACKEND_CUDA)
        printf("SM clock: not read (%s)\n", watch.why);
    printf("\n");
    printf("of copy: the sweep's GB/s (owned cells, one read and one write each) over the copy above; own copy: over a\n"
           "copy of one of the sweep's own fields, ghost cells and all, timed the same way after it (a field the L2\n"
           "cache holds, or one with few blocks to a wave, copies below the large-buffer rate too)\n\n");
    printf("%-8s %-7s %-8s %10s %12s %10s %10s %10s\n", "stencil", "dtype", "size", "us/sweep", "cells/s", "GB/s", "of copy",
           "own copy");
    for (int dt = 0; dt < 2; dt++)
        for (int st = 0; st < HX_NUM_STENCILS; st++) {
            const int n2[3] = {o->n2d, o->n2d, 1};
            if (run_one(o, (hx_stencil_id)st, (hx_dtype)dt, hx_stencil_get((hx_stencil_id)st)->dim == 3 ? o->n3 : n2, 0, bw,
                        stdout))
                return HX_ERR_RUNTIME;
        }
    if (o->fused && fused_table(o, bw)) return HX_ERR_RUNTIME;
    if (o->small2d > 0) {
        printf("\nlatency-bound sizes (launch cost shows when us/sweep stops shrinking with the size):\n");
        for (int n = o->small2d; n >= 128; n /= 2) {
            const int n2[3] = {n, n, 1};
            if (run_one(o, HX_JACOBI5, HX_FLOAT, n2, 0, bw, stdout)) return HX_ERR_RUNTIME;
        }
    }
    if (rows_slow)
        printf("\nMarked rows ran below the maximum SM clock, most often held there by the power cap after sustained\n"
               "full-bandwidth rows (large 2D fp64 ones): kernels that are not purely memory-bound read slow there.\n"
               "Time a marked row on its own (e.g. --size2d 256 for the 3D rows) to compare kernels.\n");
    return HX_OK;
}

/* GPU `device`'s PCI bus id, for the clock watch ("" when unknown) */
static const char *gpu_bus(int device)
{
    static char bus[64];
    hx_cuda_device_pci(device, bus, sizeof bus);
    return bus;
}

int hx_roofline_main(int argc, char **argv)
{
    roofline_opts o;
    char err[320];
    memset(&o, 0, sizeof o);
    int rc = hx_opts_defaults(&hx_roofline_command, &o, err, sizeof err);
    if (rc == 0) rc = hx_opts_parse(&hx_roofline_command, &o, argc, argv, err, sizeof err);
    if (rc == 1) {
        hx_opts_usage(&hx_roofline_command, stdout);
        return HX_OK;
    }
    if (rc < 0) {
        fprintf(stderr, "halox: error: %s\n", err);
        return HX_ERR_INPUT;
    }
    if (hx_parse_cube(o.size3d, 8, 1024, o.n3) < 0) {
        fprintf(stderr, "halox: error: bad --size3d '%s': give N (N^3 cells) or NXxNYxNZ, each number from 8 to 1024\n",
                o.size3d);
        return HX_ERR_INPUT;
    }
    /* the tuning applies to the 2D and the 3D rows alike: it must hold for both */
    for (int dim = 2; dim <= 3; dim++)
        if (hx_tuning_check(&o.tuning, dim, err, sizeof err)) {
            fprintf(stderr, "halox: error: %s (for the %dD rows)\n", err, dim);
            return HX_ERR_INPUT;
        }
    if (o.backend == HX_BACKEND_AUTO) o.backend = hx_cuda_device_count() > 0 ? HX_BACKEND_CUDA : HX_BACKEND_CPU;
    if (o.backend == HX_BACKEND_CPU && o.device_set) {
        fprintf(stderr, "halox: error: --device %d: this roofline runs on the cpu (%s): use --backend cuda on a "
                        "machine with a GPU, or leave --device out\n", o.device,
                hx_cuda_device_count() > 0 ? "--backend cpu" : "no CUDA GPU is visible");
        return HX_ERR_INPUT;
    }
    if (o.backend == HX_BACKEND_CPU && o.graph) {
        fprintf(stderr, "halox: error: --graph: the cpu backend has no graphs: use --backend cuda on a machine with a GPU, "
                        "or leave --graph out\n");
        return HX_ERR_INPUT;
    }
    if (o.backend == HX_BACKEND_CUDA && o.device >= hx_cuda_device_count()) {
        fprintf(stderr, "halox: error: no CUDA GPU %d is visible: use --backend cpu or another --device\n", o.device);
        return HX_ERR_INPUT;
    }
    /* the copy streams buffers as large as the largest float field measured, and never fewer than
     * 256 MiB: a buffer the L2 cache holds would make the floor a cache figure */
    size_t bytes = (size_t)o.n2d * (size_t)o.n2d * 4, b3 = (size_t)o.n3[0] * (size_t)o.n3[1] * (size_t)o.n3[2] * 4;
    if (b3 > bytes) bytes = b3;
    if (o.backend == HX_BACKEND_CUDA && bytes < ((size_t)256 << 20)) bytes = (size_t)256 << 20;
    if (o.backend == HX_BACKEND_CUDA) clock_watch_open(&watch, gpu_bus(o.device));
    rc = measure(&o, bytes);
    clock_watch_close(&watch);
    return rc;
}
