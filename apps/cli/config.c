/* The options of `halox run` (one table) and the checks that need the rank count. Every failure
 * is one line that names the fix. */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>



/* hx_pattern_name, hx_boundary_name, hx_dtype_name and hx_backend_name: moved to the library
 * (halox/context.h, src/core/context.c). */

/* The options of `halox run`: the one place that says what each option accepts, its default,
 * whether a comma list sweeps it, its help, and which report field records it. */
static const hx_opt_choice dtypes[] = {
    {"float", HX_FLOAT}, {"double", HX_DOUBLE}, {"fp32", HX_FLOAT}, {"fp64", HX_DOUBLE}, {NULL, 0}};
static const hx_opt_choice patterns[] = {{"staged", HX_STAGED}, {"direct", HX_DIRECT}, {NULL, 0}};
static const hx_opt_choice boundaries[] = {{"periodic", HX_PERIODIC}, {"fixed", HX_FIXED}, {NULL, 0}};
static const hx_opt_choice backends[] = {
    {"auto", HX_BACKEND_AUTO}, {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {NULL, 0}};
static const hx_opt_choice schedules[] = {
    {"cycle", HX_SCHEDULE_CYCLE}, {"fused", HX_SCHEDULE_FUSED}, {"persistent", HX_SCHEDULE_PERSISTENT}, {NULL, 0}};
static const hx_opt_choice kernels[] = {{"auto", HX_KERNEL_AUTO},
                                        {"resident", HX_KERNEL_RESIDENT},
                                        {"passes", HX_KERNEL_PASSES},
                                        {"roles", HX_KERNEL_ROLES},
                                        {NULL, 0}};
static const hx_opt_choice switches[] = {{"auto", HX_AUTO}, {"on", 1}, {"off", 0}, {NULL, 0}};
static const hx_opt_choice lanes[] = {{"auto", 0}, {"16", 16}, {"32", 32}, {NULL, 0}};
static const hx_opt_choice formats[] = {
    {"table", HX_FORMAT_TABLE}, {"csv", HX_FORMAT_CSV}, {"json", HX_FORMAT_JSON}, {NULL, 0}};

#define F(member) HX_OPT_FIELD(hx_config, member)
#define AT(member) HX_OPT_AT(hx_config, member)
#define PROBLEM "problem"
#define EXCHANGE "decomposition and exchange"
#define MEASURE "measurement and output"
#define KERNEL "kernels and launch shapes (cuda backend)"
#define SW HX_OPT_SWEEP
static const hx_option run_options[] = {
    {.name = "size", .type = HX_OPT_DIMS, .meta = "NXxNY[xNZ]", .lo = 1, .hi = 1L << 30, .def = "2048x2048", .flags = SW,
     .group = PROBLEM, .what = "the global grid", .help = "global grid in cells; three numbers make it 3D",
     F(size), .count_at = AT(dim), .report = "size"},
    {.name = "stencil", .type = HX_OPT_STRING, .meta = "NAME|FILE", .def_text = "jacobi5 in 2D, jacobi7 in 3D",
     .flags = SW, .group = PROBLEM, .what = "a stencil name or an operator file",
     .help = "jacobi5 (2D), jacobi7 (3D), star9 (2D, radius 2), star13 (3D, radius 2), box9 (2D 3x3 box), box27 "
             "(3D 3x3x3 box), or FILE: any other value is the path of an operator file (terms with weights and "
             "coefficient fields, docs/operators.md); an operator's coefficient field c gets the initial values of "
             "seed S+1+c",
     F(stencil_arg), .seen_at = AT(stencil_set), .report = "stencil"},
    {.name = "dtype", .type = HX_OPT_CHOICE, .choices = dtypes, .def = "float", .flags = SW, .group = PROBLEM,
     .help = "cell type; fp32 and fp64 are accepted too", F(dtype), .report = "dtype"},
    {.name = "iters", .type = HX_OPT_INT, .meta = "N", .lo = 1, .hi = LONG_MAX, .def = "100", .flags = SW,
     .group = PROBLEM, .what = "a number of sweeps", .help = "sweeps in each timed run", F(iters), .report = "iters"},
    {.name = "boundary", .type = HX_OPT_CHOICE, .choices = boundaries, .def = "periodic", .flags = SW, .group = PROBLEM,
     .help = "wrap around, or cells outside the grid are 0", F(boundary), .report = "boundary"},
    {.name = "seed", .type = HX_OPT_U64, .meta = "S", .def = "42", .flags = SW, .group = PROBLEM,
     .what = "the seed of the initial field",
     .help = "initial field: global cell idx = x + NX*(y + NY*z) gets (splitmix64(S+idx) >> 40) * 2^-24",
     F(seed), .report = "seed"},

    {.name = "grid", .type = HX_OPT_DIMS, .meta = "PXxPY[xPZ]", .lo = 1, .hi = 1L << 30,
     .def_text = "the most cubic blocks for the rank count", .flags = SW, .group = EXCHANGE,
     .what = "the process grid", .help = "process grid; must multiply to the rank count", F(grid), .report = "grid"},
    {.name = "depth", .type = HX_OPT_INT, .meta = "D", .lo = 1, .hi = 1 << 20, .def = "1", .flags = SW,
     .group = EXCHANGE, .what = "the halo depth in stencil radii",
     .help = "halo depth in stencil radii: one exchange per D sweeps", F(depth), .report = "depth"},
    {.name = "pattern", .type = HX_OPT_CHOICE, .choices = patterns, .def = "staged", .flags = SW, .group = EXCHANGE,
     .help = "axis by axis with corners forwarded (4/6 messages), or all 8/26 neighbours at once",
     F(pattern), .report = "pattern"},
    {.name = "overlap", .type = HX_OPT_FLAG, .def = "on", .flags = SW, .group = EXCHANGE,
     .help = "compute the interior of a cycle's first sweep while halos travel (with --fuse, that sweep runs "
             "outside the fused pass)",
     F(overlap), .report = "overlap"},
    {.name = "fuse", .type = HX_OPT_INT, .meta = "N", .lo = 1, .hi = 8, .def = "1", .flags = SW,
     .group = EXCHANGE, .what = "the sweeps per pass (1 = off)",
     .help = "compute up to N sweeps of a cycle in one pass over the field: temporal blocking, cuda backend, "
             "N x radius <= 8 in 2D and <= 4 in 3D (--schedule fused and persistent: also <= 8 in 2D), "
             "bit-identical to separate sweeps; 1 = off",
     F(fuse), .report = "fuse"},
    {.name = "graph", .type = HX_OPT_FLAG, .def = "off", .flags = SW, .group = EXCHANGE,
     .help = "replay each cycle from a CUDA graph (cuda backend): the whole cycle with a stream transport (nccl), "
             "the sweeps after the exchange with a host transport; segments inside a whole-cycle graph are not "
             "timed apart",
     F(graph), .report = "graph"},
    {.name = "schedule", .type = HX_OPT_CHOICE, .choices = schedules, .def = "cycle", .flags = SW, .group = EXCHANGE,
     .help = "who drives a cycle: cycle (the host or the stream: pack, exchange, unpack and sweeps as separate "
             "calls), fused (one kernel per cycle that packs, puts into the neighbours' memory, signals, waits, "
             "unpacks and sweeps) or persistent (one kernel for the whole run, no host involvement); fused and "
             "persistent need a transport with a device path (ipc, nccl, nvshmem) and fuse sweeps in shared memory with "
             "--fuse N (N x radius <= 8)",
     F(schedule), .report = "schedule"},
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = backends, .def = "auto", .flags = SW, .group = EXCHANGE,
     .help = "where the field lives (auto: cuda when every rank sees a GPU)", F(backend), .report = "backend"},
    {.name = "devices", .type = HX_OPT_INTLIST, .meta = "LIST", .lo = 0, .hi = 4095,
     .def_text = "node-local rank modulo the GPU count", .group = EXCHANGE, .what = "GPU numbers",
     .help = "GPUs to use, e.g. 0,1,2,3: node-local rank i takes the (i modulo the list's length)-th; one list, "
             "not a sweep",
     F(devices), .report = "devices"},
    {.name = "threads", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 4096, .def = "0", .group = EXCHANGE,
     .what = "a number of threads",
     .help = "cpu backend: OpenMP threads per rank; 0 = OMP_NUM_THREADS when set, else the cores of the rank's "
             "binding, shared with the node's ranks bound alike (unbound ranks: cores / ranks on the node)",
     F(threads), .report = "threads"},
    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME|all", .def = "mpi", .flags = SW, .group = EXCHANGE,
     .what = "a transport name (see halox info)",
     .help = "communication model: mpi, mpi-cuda, ipc, ipc-put, nccl or nvshmem (halox info lists those of this build); "
             "all: every one (one that refuses here is skipped with a note), then a table of time per sweep and "
             "speed-up over mpi",
     F(transport), .report = "transport"},
    {.name = "ll-bytes", .type = HX_OPT_INT, .meta = "N", .lo = -1, .hi = 1L << 40, .def = "-1",
     .def_text = "-1 (automatic: 65536)", .group = EXCHANGE, .what = "a byte count (-1 automatic, 0 never)",
     .help = "ipc-put: exchange phases whose messages are all of at most N bytes (on every rank) travel as flagged "
             "words, each 4-byte value beside the exchange number, with no fence and no flag; larger ones as plain "
             "stores and a flag; 0 = never",
     F(ll_bytes), .report = "ll_bytes"},
    {.name = "host-fallback", .type = HX_OPT_STRING, .meta = "all|RANKS", .def_text = "none",
     .group = EXCHANGE, .what = "all, none, or a comma list of ranks",
     .help = "ipc: serve the links that touch these ranks (all, or a list such as 1,3) through host-staged MPI, as "
             "links between nodes are (ipc-put then refuses: its kernels store only within a node)",
     F(host_fallback), .report = "host_fallback"},

    {.name = "kernel", .type = HX_OPT_CHOICE, .choices = kernels, .def = "auto", .flags = SW, .group = KERNEL,
     .help = "the device schedules' kernel: auto (resident where a 2D rank's block fits in shared memory with "
             "--pattern direct, else passes), resident (tiles kept in shared memory for the whole run; 3D only "
             "when asked), passes (the field streamed pass by pass), roles (--schedule fused, --depth 1, "
             "--pattern direct: receiver, sender and boundary blocks); one that cannot run here is refused",
     F(kernel), .report = "kernel"},
    {.name = "block-rows", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 8, .def = "0",
     .flags = SW, .group = KERNEL, .what = "threads of a block in y",
     .help = "plain sweeps: threads of a block in y, 1 to 8; 0 = automatic", F(block_rows), .report = "block_rows"},
    {.name = "march", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 64, .def = "0",
     .flags = SW, .group = KERNEL, .what = "cells a thread marches",
     .help = "plain sweeps: cells each thread marches along the slow axis, 2 to 64; 0 = automatic", F(march),
     .report = "march"},
    {.name = "zsplit", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 1024, .def = "0",
     .flags = SW, .group = KERNEL, .what = "z chunks of a fused 3D pass",
     .help = "fused 3D passes: z chunks of a pass, 1 to 1024; 0 = automatic", F(zsplit), .report = "zsplit"},
    {.name = "lanes", .type = HX_OPT_CHOICE, .choices = lanes, .def = "auto", .flags = SW, .group = KERNEL,
     .help = "fused 3D passes of floats: lanes of a tile row", F(lanes), .report = "lanes"},
    {.name = "inplace", .type = HX_OPT_CHOICE, .choices = switches, .def = "auto", .flags = SW, .group = KERNEL,
     .help = "2D resident kernel: one buffer swept in bands (on) or two (off); auto takes two where they fit",
     F(inplace), .report = "inplace"},
    {.name = "prefetch", .type = HX_OPT_CHOICE, .choices = switches, .def = "auto", .flags = SW, .group = KERNEL,
     .help = "plain sweeps of fields larger than L2: prefetch into L2", F(prefetch), .report = "prefetch"},
    {.name = "pdl", .type = HX_OPT_CHOICE, .choices = switches, .def = "auto", .flags = SW, .group = KERNEL,
     .help = "plain sweeps and packing as programmatic dependent launches (sm_90)", F(pdl), .report = "pdl"},
    {.name = "tma", .type = HX_OPT_CHOICE, .choices = switches, .def = "auto", .flags = SW, .group = KERNEL,
     .help = "plain 3D sweeps fed by bulk tensor copies (sm_90)", F(tma), .report = "tma"},
    {.name = "profile", .type = HX_OPT_FLAG, .def = "off", .flags = SW, .group = KERNEL,
     .help = "--schedule fused and persistent: count where each block's cycles go; each rank logs a summary "
             "(shown with --verbose) when the run ends",
     F(profile), .report = "profile"},

    {.name = "repeat", .type = HX_OPT_INT, .meta = "R", .lo = 1, .hi = 100000, .def = "1", .flags = SW,
     .group = MEASURE, .what = "a number of timed runs",
     .help = "timed runs, each from the initial field; the report gives medians and the range", F(repeat),
     .report = "repeats"},
    {.name = "warmup", .type = HX_OPT_INT, .meta = "N", .lo = 0, .hi = 1 << 30, .def = "10", .flags = SW,
     .group = MEASURE, .what = "a number of sweeps",
     .help = "untimed sweeps, run once before the first timed repeat", F(warmup), .report = "warmup"},
    {.name = "desync-barrier", .type = HX_OPT_FLAG, .def = "off", .flags = SW, .group = MEASURE,
     .help = "time a barrier before each exchange as the desync segment: the load imbalance", F(desync_barrier),
     .report = "desync_barrier"},
    {.name = "norm-every", .type = HX_OPT_INT, .meta = "K", .lo = 1, .hi = LONG_MAX, .def_text = "off", .flags = SW,
     .group = MEASURE, .what = "a number of sweeps",
     .help = "global L2 norm of the update every K sweeps, printed and timed as the norm segment", F(norm_every),
     .report = "norm_every"},
    {.name = "verify", .type = HX_OPT_FLAG, .def = "off", .group = MEASURE,
     .help = "recompute on rank 0 without decomposition; exit 4 unless bit-identical", F(verify), .report = "verified"},
    {.name = "output", .type = HX_OPT_STRING, .meta = "FILE.npy", .group = MEASURE, .what = "a file name",
     .help = "the final field as NumPy .npy (C order, shape (NY,NX) or (NZ,NY,NX)), written with MPI-IO; the whole "
             "value is the name, commas included",
     F(output)},
    {.name = "format", .type = HX_OPT_CHOICE, .choices = formats, .def = "table", .group = MEASURE,
     .help = "report format", F(format)},
    {.name = "quiet", .type = HX_OPT_FLAG, .def = "off", .group = MEASURE, .help = "print only the report", F(quiet)},
};
#undef F
#undef AT
#undef SW
#undef KERNEL

const hx_command hx_run_command = {
    .name = "run",
    .synopsis = "mpirun -np N halox run [options]",
    .about = "Runs a stencil over a grid split across the MPI ranks, exchanging halos, and reports the time of "
             "every phase.",
    .opts = run_options,
    .nopts = (int)(sizeof run_options / sizeof run_options[0]),
    .notes = "Exit codes: 0 success, 2 bad input (one line naming the fix), 3 run-time failure, 4 --verify found "
             "a difference.",
};

void hx_config_defaults(hx_config *c)
{
    char err[160];
    memset(c, 0, sizeof *c);
    hx_opts_defaults(&hx_run_command, c, err, sizeof err); /* the table's defaults parse: test_stencil checks */
    c->stencil = c->dim == 3 ? HX_JACOBI7 : HX_JACOBI5;
}

void hx_config_usage(FILE *out) { hx_opts_usage(&hx_run_command, out); }

int hx_config_parse(hx_config *c, int argc, char **argv, char *err, size_t n)
{
    int rc = hx_opts_parse(&hx_run_command, c, argc, argv, err, n);
    if (rc) return rc;
    return hx_config_resolve_stencil(c, err, n);
}

static const char *cells(long n) { return n == 1 ? "cell" : "cells"; }

int hx_config_grid(const hx_config *c, int nranks, int pgrid[3], char *err, size_t n)
{
    const int radius = hx_config_radius(c);
    int halo = c->depth * radius;
    if (c->grid[0]) {
        int gdim = c->grid[2] ? 3 : 2;
        if (gdim != c->dim)
            return hx_opt_fail(err, n, "--grid has %d numbers but --size has %d: give one process count per axis", gdim, c->dim);
        long prod = (long)c->grid[0] * c->grid[1] * (c->dim == 3 ? c->grid[2] : 1);
        if (prod != nranks)
            return hx_opt_fail(err, n, "--grid %s has %ld ranks but the job has %d: pass a grid whose product is %d or run %ld ranks",
                        c->dim == 3 ? "PXxPYxPZ" : "PXxPY", prod, nranks, nranks, prod);
        pgrid[0] = c->grid[0];
        pgrid[1] = c->grid[1];
        pgrid[2] = c->dim == 3 ? c->grid[2] : 1;
        return 0;
    }
    if (hx_choose_grid(nranks, c->dim, c->size, halo, pgrid))
        return hx_opt_fail(err, n, "no process grid of %d ranks leaves every block at least %d %s (depth %d x radius %d) wide "
                    "on every axis: use a larger --size, a smaller --depth or fewer ranks", nranks, halo, cells(halo),
                    c->depth, radius);
    return 0;
}

int hx_config_gpu_only(const hx_config *c, char *err, size_t n)
{
    if (c->graph) return hx_opt_fail(err, n, "--graph replays CUDA graphs: use it with --backend cuda, or leave it out");
    if (c->fuse > 1)
        return hx_opt_fail(err, n, "--fuse %d: fused sweeps run on the cuda backend: use --backend cuda or --fuse 1", c->fuse);
    if (c->schedule != HX_SCHEDULE_CYCLE)
        return hx_opt_fail(err, n, "--schedule %s runs kernels on GPUs: use --backend cuda, or --schedule cycle",
                    hx_schedule_name(c->schedule));
    if (c->profile) return hx_opt_fail(err, n, "--profile counts the GPU kernels' cycles: use --backend cuda, or leave it out");
    return 0;
}

/* --kernel and the launch shapes: what the option table's ranges cannot say. */
static int check_kernel(const hx_config *c, char *err, size_t n)
{
    const char *k = hx_kernel_name(c->kernel);
    if (c->kernel != HX_KERNEL_AUTO && c->schedule == HX_SCHEDULE_CYCLE)
        return hx_opt_fail(err, n, "--kernel %s picks the kernel of --schedule fused or persistent: add one of them, or use --kernel auto", k);
    if (c->kernel == HX_KERNEL_ROLES && c->schedule != HX_SCHEDULE_FUSED)
        return hx_opt_fail(err, n, "--kernel roles runs one cycle a launch: use --schedule fused");
    if (c->kernel == HX_KERNEL_ROLES && c->depth != 1)
        return hx_opt_fail(err, n, "--kernel roles exchanges before every sweep: use --depth 1");
    if ((c->kernel == HX_KERNEL_ROLES || c->kernel == HX_KERNEL_RESIDENT) && c->pattern != HX_DIRECT)
        return hx_opt_fail(err, n, "--kernel %s takes every ghost cell from one phase of messages: add --pattern direct", k);
    if (c->march == 1) return hx_opt_fail(err, n, "--march 1: give 2 to 64 cells a thread, or 0 (automatic)");
    return 0;
}

int hx_config_check(const hx_config *c, int nranks, char *err, size_t n)
{
    const int sdim = hx_config_stencil_dim(c), radius = hx_config_radius(c);
    const char *sname = hx_config_stencil_name(c);
    if (sdim != c->dim)
        return hx_opt_fail(err, n, "stencil %s is %dD but --size is %dD: give --size with %d numbers or a %dD stencil (%s)",
                    sname, sdim, c->dim, sdim, c->dim, c->dim == 2 ? "jacobi5, star9, box9" : "jacobi7, star13, box27");
    /* in 2D the kernel-initiated schedules keep their own limit, fuse x radius <= 8 */
    const int fuse_max = c->dim == 3 ? HX_FUSE_MAX_3D : c->schedule != HX_SCHEDULE_CYCLE ? 8 : HX_FUSE_MAX;
    if (c->fuse > 1 && c->fuse * radius > fuse_max)
        return hx_opt_fail(err, n, "--fuse %d with %s (radius %d): at most %d sweeps per pass in %dD", c->fuse, sname, radius,
                    fuse_max / radius, c->dim);
    if (check_kernel(c, err, n)) return -1;
    if (c->schedule != HX_SCHEDULE_CYCLE && c->graph)
        return hx_opt_fail(err, n, "--schedule %s launches its own kernels: leave --graph out", hx_schedule_name(c->schedule));
    if (c->graph && c->norm_every > 0 && c->norm_every % c->depth)
        return hx_opt_fail(err, n, "--graph replays whole cycles of %d sweeps, so --norm-every %ld cannot fall inside one: "
                    "give a multiple of --depth", c->depth, c->norm_every);
    long halo = (long)c->depth * radius;
    for (int a = 0; a < c->dim; a++)
        if ((long)c->size[a] + 2 * halo > (1L << 30))
            return hx_opt_fail(err, n, "--size axis %d (%d) plus the halo is too large: keep each axis under 2^30 cells", a, c->size[a]);
    int pgrid[3];
    if (hx_config_grid(c, nranks, pgrid, err, n)) return -1;
    /* the same check decomposition does, stated for the whole grid */
    for (int a = 0; a < c->dim; a++)
        if (c->size[a] / pgrid[a] < halo)
            return hx_opt_fail(err, n, "blocks along %c are %d %s (%d over %d ranks) but the halo is %ld %s (depth %d x radius %d): "
                        "use a larger --size, a smaller --depth or fewer ranks along %c", "xyz"[a], c->size[a] / pgrid[a],
                        cells(c->size[a] / pgrid[a]), c->size[a], pgrid[a], halo, cells(halo), c->depth, radius,
                        "xyz"[a]);
    return 0;
}
