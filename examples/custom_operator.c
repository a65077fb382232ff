/* custom_operator: a variable-coefficient heat step of the caller's own, described as data
 * (halox/operator.h), run by halox's sweeper on its fast paths and checked bit for bit against the
 * single-domain reference driven by the same operator.
 *
 *   u'[x] = u + k[x] * (W + E + S + N) * r - k[x] * u * 4r,   r = 0.1
 *
 * written as six terms in a fixed order, the coefficient field k read at the updated cell.
 *   mpirun -np 4 custom_operator [--backend cpu|cuda] [--size 512x384] [--iters 48] [--seed 42]
 * On the cuda backend it runs the cycle schedule with fused passes of 4 sweeps (temporal blocking)
 * and the persistent schedule (one kernel for the whole run, over the ipc transport); on the cpu
 * backend the cycle schedule. Each run prints "<setting> bit-identical" or exits 1. */
#include <halox/halox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        if ((st = (call)) != HX_OK) {                                                                        \
            fprintf(stderr, "custom_operator: %s: %s\n", #call, ctx ? hx_context_error(ctx) : "no context"); \
            goto done;                                                                                       \
        }                                                                                                    \
    } while (0)

/* One setting: sweep `iters` with these options, gather the result on rank 0, compare with ref. */
static int run_one(hx_context *ctx, hx_layout *l, hx_exchange *x, const hx_sweep_options *o, long iters, uint64_t seed,
                   const float *ref, float *got, long n, const char *what)
{
    hx_sweeper *s = NULL;
    int st = hx_sweeper_create(l, x, o, &s);
    if (!st) st = hx_sweeper_init(s, seed);
    if (!st) st = hx_sweeper_iterate(s, iters);
    hx_field f = s ? hx_sweeper_field(s) : (hx_field){0};
    if (!st) st = hx_field_gather(l, &f, got);
    if (st) fprintf(stderr, "custom_operator: %s: %s\n", what, hx_context_error(ctx));
    else if (hx_context_rank(ctx) == 0) {
        double max_abs;
        long first;
        long bad = hx_compare_fields(HX_FLOAT, ref, got, n, &max_abs, &first);
        if (bad) fprintf(stderr, "custom_operator: %s: %ld cells differ from the reference (first %ld)\n", what, bad, first);
        else printf("%s bit-identical (%s)\n", what, hx_sweeper_kernel(s) ? hx_sweeper_kernel(s) : "cycle");
        st = bad ? HX_ERR_VERIFY : HX_OK;
    }
    int all = st;
    MPI_Allreduce(&st, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (s) hx_sweeper_destroy(s);
    return all;
}

int main(int argc, char **argv)
{
    const char *backend = "cpu";
    int nx = 512, ny = 384;
    long iters = 48;
    uint64_t seed = 42;
    for (int i = 1; i < argc; i += 2) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && !strcmp(o, "--backend") && (!strcmp(v, "cpu") || !strcmp(v, "cuda"))) backend = v;
        else if (v && !strcmp(o, "--size") && sscanf(v, "%dx%d", &nx, &ny) == 2) continue;
        else if (v && !strcmp(o, "--iters") && atol(v) > 0) iters = atol(v);
        else if (v && !strcmp(o, "--seed")) seed = strtoull(v, NULL, 10);
        else {
            fprintf(stderr, "usage: custom_operator [--backend cpu|cuda] [--size NXxNY] [--iters N] [--seed S]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    hx_context *ctx = NULL;
    hx_operator *op = NULL;
    hx_layout *l = NULL;
    hx_exchange *xc = NULL, *xd = NULL;
    hx_field k = {0};
    float *ref = NULL, *got = NULL;
    int st;
    hx_context_options opts = hx_context_defaults();
    opts.backend = strcmp(backend, "cuda") ? HX_BACKEND_CPU : HX_BACKEND_CUDA;
    opts.log_level = HX_LOG_WARN;
    opts.log = hx_log_to_file;
    opts.log_user = stderr;
    CHECK(hx_context_create(MPI_COMM_WORLD, &opts, &ctx));

    const double r = 0.1;
    const hx_term terms[] = {
        {{0, 0, 0}, 1.0, -1, {0, 0, 0}},    /* u */
        {{-1, 0, 0}, r, 0, {0, 0, 0}},      /* r * (k * W) */
        {{1, 0, 0}, r, 0, {0, 0, 0}},       /* r * (k * E) */
        {{0, -1, 0}, r, 0, {0, 0, 0}},      /* r * (k * S) */
        {{0, 1, 0}, r, 0, {0, 0, 0}},       /* r * (k * N) */
        {{0, 0, 0}, -4 * r, 0, {0, 0, 0}},  /* -4r * (k * u) */
    };
    hx_operator_desc od = {.struct_size = sizeof od, .name = "varheat5", .dim = 2, .dtype = HX_FLOAT,
                           .nterms = 6, .terms = terms, .ncoef = 1};
    CHECK(hx_operator_create(ctx, &od, &op));

    const int depth = 4; /* sweeps per exchange: the halo is depth x the operator's radius */
    hx_layout_desc ld = {.dim = 2, .global = {nx, ny, 1}, .halo = depth * hx_operator_radius(op), .dtype = HX_FLOAT,
                         .boundary = HX_PERIODIC};
    CHECK(hx_layout_create(ctx, &ld, &l));
    /* The coefficient field: halox's seeded values from seed + 1, as the reference makes them. */
    CHECK(hx_field_alloc(l, &k));
    CHECK(hx_field_init(l, &k, seed + 1));

    /* The reference on rank 0: one domain, the same operator, its coefficient from seed + 1. */
    const long n = (long)nx * ny;
    got = malloc((size_t)n * sizeof *got);
    ref = malloc((size_t)n * sizeof *ref);
    if (!got || !ref) fprintf(stderr, "custom_operator: out of memory\n"), MPI_Abort(MPI_COMM_WORLD, 1);
    if (hx_context_rank(ctx) == 0) {
        hx_problem p = {.dim = 2, .size = {nx, ny, 1}, .dtype = HX_FLOAT, .boundary = HX_PERIODIC, .seed = seed,
                        .iters = iters, .op = op};
        if (hx_reference_run(&p, ref)) fprintf(stderr, "custom_operator: the reference failed\n"), MPI_Abort(MPI_COMM_WORLD, 1);
    }

    hx_sweep_options o = hx_sweep_defaults(HX_JACOBI5);
    o.op = op;
    o.coef = &k;
    o.ncoef = 1;
    o.depth = depth;
    if (hx_context_backend(ctx) == HX_BACKEND_CPU) {
        CHECK(hx_exchange_create(l, "auto", HX_STAGED, 0, &xc));
        CHECK(run_one(ctx, l, xc, &o, iters, seed, ref, got, n, "cpu cycle, depth 4"));
    } else {
        /* Temporal blocking: each pass over memory does 4 sweeps of the operator. */
        CHECK(hx_exchange_create(l, "auto", HX_DIRECT, 0, &xc));
        o.fuse = 4;
        CHECK(run_one(ctx, l, xc, &o, iters, seed, ref, got, n, "cuda cycle, depth 4, fuse 4"));
        /* One kernel for the whole run: exchanges put and signalled by the kernel (ipc device path). */
        CHECK(hx_exchange_create(l, "ipc", HX_DIRECT, 0, &xd));
        o.schedule = HX_SCHEDULE_PERSISTENT;
        o.fuse = 2;
        CHECK(run_one(ctx, l, xd, &o, iters, seed, ref, got, n, "cuda persistent, depth 4, fuse 2"));
    }
done:
    if (xd) hx_exchange_destroy(xd);
    if (xc) hx_exchange_destroy(xc);
    if (k.data) hx_field_free(l, &k);
    if (l) hx_layout_destroy(l);
    if (op) hx_operator_destroy(op);
    free(ref);
    free(got);
    hx_context_destroy(ctx);
    MPI_Finalize();
    return st == HX_OK ? 0 : 1;
}
