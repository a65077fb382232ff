/* heat2d: a 2D heat (Jacobi) loop of the caller's own, on halox's public API. The caller owns the
 * fields and the stencil loop; halox fills the ghost cells (hx_exchange_run) and sums the result.
 *   mpirun -np 4 heat2d [--backend cpu|cuda] [--transport NAME] [--size 512x384] [--iters 20] [--seed 42]
 * --transport takes any name of `halox info` (default mpi, which every build and backend has).
 * Rank 0 prints "checksum <uint64>", equal to that of `halox reference --stencil jacobi5
 * --boundary periodic --dtype float` with the same size, iterations and seed. */
#include <halox/halox.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each failure is reported on every rank (halox's calls fail collectively), then the job ends. */
#define CHECK(call)                                                                                 \
    do {                                                                                            \
        if ((st = (call)) != HX_OK) {                                                               \
            fprintf(stderr, "heat2d: %s: %s\n", #call, ctx ? hx_context_error(ctx) : "no context"); \
            goto done;                                                                              \
        }                                                                                           \
    } while (0)

/* One sweep over the owned block: in and out point at the first owned cell, rows pitch cells apart.
 * hx_jacobi5v_f32 is halox's own expression, so the result is bit-identical to its reference. */
static void sweep(const float *in, float *out, int nx, int ny, long pitch)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            const float *p = in + x + y * pitch;
            out[x + y * pitch] = hx_jacobi5v_f32(p[-1], p[1], p[-pitch], p[pitch]);
        }
}

int main(int argc, char **argv)
{
    const char *backend = "cpu", *transport = "mpi";
    int nx = 512, ny = 384;
    long iters = 20;
    uint64_t seed = 42;
    for (int i = 1; i < argc; i += 2) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && !strcmp(o, "--backend") && (!strcmp(v, "cpu") || !strcmp(v, "cuda"))) backend = v;
        else if (v && !strcmp(o, "--transport")) transport = v;
        else if (v && !strcmp(o, "--size") && sscanf(v, "%dx%d", &nx, &ny) == 2) continue;
        else if (v && !strcmp(o, "--iters")) iters = atol(v);
        else if (v && !strcmp(o, "--seed")) seed = strtoull(v, NULL, 10);
        else {
            fprintf(stderr, "usage: heat2d [--backend cpu|cuda] [--transport NAME] [--size NXxNY] [--iters N] [--seed S]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    hx_context *ctx = NULL;
    hx_layout *l = NULL;
    hx_exchange *x = NULL;
    hx_sweeper *sw = NULL;
    hx_field u = {0}, v = {0};
    uint64_t sum = 0;
    int st;
    hx_context_options opts = hx_context_defaults();
    opts.backend = strcmp(backend, "cuda") ? HX_BACKEND_CPU : HX_BACKEND_CUDA;
    /* The library prints nothing by itself: its warnings come here, as "halox: ..." lines on stderr. */
    opts.log_level = HX_LOG_WARN;
    opts.log = hx_log_to_file;
    opts.log_user = stderr;
    CHECK(hx_context_create(MPI_COMM_WORLD, &opts, &ctx));
    hx_layout_desc desc = {.dim = 2, .global = {nx, ny, 1}, .halo = 1, .dtype = HX_FLOAT, .boundary = HX_PERIODIC};
    CHECK(hx_layout_create(ctx, &desc, &l));
    CHECK(hx_exchange_create(l, transport, HX_DIRECT, 0, &x));
    const hx_decomp *d = hx_layout_decomp(l);
    if (hx_context_backend(ctx) == HX_BACKEND_CPU) {
        /* The caller's own memory, in halox's geometry: ghost = halo, rows of alloc[0] cells. */
        size_t cells = (size_t)d->alloc[0] * d->alloc[1];
        u = (hx_field){calloc(cells, sizeof(float)), desc.halo, {d->alloc[0], d->alloc[1]}};
        v = (hx_field){calloc(cells, sizeof(float)), desc.halo, {d->alloc[0], d->alloc[1]}};
        if (!u.data || !v.data) fprintf(stderr, "heat2d: out of memory\n"), MPI_Abort(MPI_COMM_WORLD, 1);
        CHECK(hx_field_init(l, &u, seed));
        long pitch = u.pitch[0], first = desc.halo * (1 + pitch);
        for (long it = 0; it < iters; it++) {
            CHECK(hx_exchange_run(x, &u, NULL)); /* ghosts of u from the neighbours */
            sweep((const float *)u.data + first, (float *)v.data + first, d->local[0], d->local[1], pitch);
            hx_field t = u; /* double buffer: v holds the new iterate */
            u = v, v = t;
        }
        CHECK(hx_field_checksum(l, &u, &sum));
    } else {
        /* CUDA: a C file cannot launch kernels, and hx_field_get_owned copies no ghost cells, so a
         * host sweep of device fields is out of reach here; halox's sweeper runs the same loop
         * (exchange, then one jacobi5 sweep of the same expression) on the GPU instead. */
        hx_sweep_options so = hx_sweep_defaults(HX_JACOBI5);
        CHECK(hx_sweeper_create(l, x, &so, &sw));
        CHECK(hx_sweeper_init(sw, seed));
        CHECK(hx_sweeper_iterate(sw, iters));
        hx_field f = hx_sweeper_field(sw);
        CHECK(hx_field_checksum(l, &f, &sum));
    }
    if (hx_context_rank(ctx) == 0) printf("checksum %" PRIu64 "\n", sum);
done:
    if (sw) hx_sweeper_destroy(sw);
    if (x) hx_exchange_destroy(x);
    free(u.data);
    free(v.data);
    if (l) hx_layout_destroy(l);
    hx_context_destroy(ctx);
    MPI_Finalize();
    return st == HX_OK ? 0 : 1;
}
