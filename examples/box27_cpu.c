/* box27_cpu: a 27-point box stencil of the caller's own with deep halos, on halox's public API
 * and the cpu backend. Halo 2: one exchange (hx_exchange_run, corners and edges included) feeds
 * two sweeps, the first over the owned block grown by one cell, the second over the owned block.
 * Rank 0 then runs the same sweeps on the whole periodic grid in one array and compares every
 * cell, bit for bit; a mismatch exits 1.
 *   mpirun -np 4 box27_cpu [--size 40x36x32] [--cycles 5] [--transport mpi] [--pattern staged|direct] */
#include <halox/halox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HALO 2

/* The caller's stencil: weights by distance class, summed in one fixed order (so any two loops
 * over the same values give the same bits). p points at the centre; rows sy, planes sz apart. */
static double box27(const double *p, long sy, long sz)
{
    static const double w[4] = {0.4, 0.05, 0.015, 0.015}; /* centre, face, edge, corner: sum 1 */
    double s = 0.0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) s += w[abs(dx) + abs(dy) + abs(dz)] * p[dx + dy * sy + dz * sz];
    return s;
}

static double initial(long gx, long gy, long gz) { return (double)((gx * 7 + gy * 13 + gz * 29) % 101) / 101.0; }

/* One sweep over the owned block grown by e cells: in and out at the first allocated cell. */
static void sweep(const hx_decomp *d, const hx_field *f, const double *in, double *out, int e)
{
    const long sy = f->pitch[0], sz = (long)f->pitch[0] * f->pitch[1];
    for (int z = HALO - e; z < HALO + d->local[2] + e; z++)
        for (int y = HALO - e; y < HALO + d->local[1] + e; y++)
            for (int x = HALO - e; x < HALO + d->local[0] + e; x++) out[x + y * sy + z * sz] = box27(in + x + y * sy + z * sz, sy, sz);
}

/* The reference: the same sweeps on the whole periodic grid (n cells), wrapping through a copy
 * with one ghost cell per side. */
static void reference(double *g, const int n[3], int sweeps)
{
    const long px = n[0] + 2, py = n[1] + 2, pz = n[2] + 2, sz = px * py;
    double *a = calloc((size_t)(px * py * pz), sizeof *a);
    if (!a) fprintf(stderr, "box27_cpu: out of memory\n"), exit(1);
    for (int s = 0; s < sweeps; s++) {
        for (long z = 0; z < pz; z++)
            for (long y = 0; y < py; y++)
                for (long x = 0; x < px; x++) {
                    const long gx = (x - 1 + n[0]) % n[0], gy = (y - 1 + n[1]) % n[1], gz = (z - 1 + n[2]) % n[2];
                    a[x + y * px + z * sz] = g[gx + n[0] * (gy + (long)n[1] * gz)];
                }
        for (long z = 1; z <= n[2]; z++)
            for (long y = 1; y <= n[1]; y++)
                for (long x = 1; x <= n[0]; x++) g[(x - 1) + n[0] * ((y - 1) + (long)n[1] * (z - 1))] = box27(a + x + y * px + z * sz, px, sz);
    }
    free(a);
}

int main(int argc, char **argv)
{
    int n[3] = {40, 36, 32}, cycles = 5;
    const char *transport = "mpi";
    hx_pattern pattern = HX_STAGED;
    for (int i = 1; i < argc; i += 2) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && !strcmp(o, "--size") && sscanf(v, "%dx%dx%d", &n[0], &n[1], &n[2]) == 3) continue;
        else if (v && !strcmp(o, "--cycles")) cycles = atoi(v);
        else if (v && !strcmp(o, "--transport")) transport = v;
        else if (v && !strcmp(o, "--pattern") && (!strcmp(v, "staged") || !strcmp(v, "direct"))) pattern = strcmp(v, "staged") ? HX_DIRECT : HX_STAGED;
        else {
            fprintf(stderr, "usage: box27_cpu [--size NXxNYxNZ] [--cycles N] [--transport NAME] [--pattern staged|direct]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    hx_context *ctx = NULL;
    hx_layout *l = NULL;
    hx_exchange *x = NULL;
    hx_field u = {0}, v = {0};
    double *owned = NULL, *global = NULL;
    int st, bad = 0, rank = 0;
    hx_context_options opts = hx_context_defaults();
    opts.backend = HX_BACKEND_CPU;
    opts.log = hx_log_to_file;
    opts.log_user = stderr;
    if ((st = hx_context_create(MPI_COMM_WORLD, &opts, &ctx)) == HX_OK) {
        rank = hx_context_rank(ctx);
        hx_layout_desc desc = {.dim = 3, .global = {n[0], n[1], n[2]}, .halo = HALO, .dtype = HX_DOUBLE, .boundary = HX_PERIODIC};
        st = hx_layout_create(ctx, &desc, &l);
    }
    if (st == HX_OK) st = hx_exchange_create(l, transport, pattern, 0, &x);
    if (st == HX_OK && (st = hx_field_alloc(l, &u)) == HX_OK) st = hx_field_alloc(l, &v);
    const hx_decomp *d = st == HX_OK ? hx_layout_decomp(l) : NULL;
    if (st == HX_OK) { /* owned cells from their global index */
        owned = malloc((size_t)d->local[0] * d->local[1] * d->local[2] * sizeof *owned);
        global = malloc((size_t)n[0] * n[1] * n[2] * sizeof *global);
        if (!owned || !global) fprintf(stderr, "box27_cpu: out of memory\n"), MPI_Abort(MPI_COMM_WORLD, 1);
        for (int z = 0; z < d->local[2]; z++)
            for (int y = 0; y < d->local[1]; y++)
                for (int x = 0; x < d->local[0]; x++)
                    owned[x + d->local[0] * (y + (long)d->local[1] * z)] = initial(d->offset[0] + x, d->offset[1] + y, d->offset[2] + z);
        st = hx_field_set_owned(l, &u, owned);
    }
    for (int c = 0; c < cycles && st == HX_OK; c++) {
        if ((st = hx_exchange_run(x, &u, NULL)) != HX_OK) break; /* two layers of ghosts, corners too */
        sweep(d, &u, u.data, v.data, 1);                             /* v valid on owned + 1 */
        sweep(d, &u, v.data, u.data, 0);                             /* u valid on owned */
    }
    if (st == HX_OK) st = hx_field_gather(l, &u, global);
    if (st != HX_OK) {
        fprintf(stderr, "box27_cpu: %s\n", ctx ? hx_context_error(ctx) : "no context");
        bad = 1;
    } else if (rank == 0) {
        double *want = malloc((size_t)n[0] * n[1] * n[2] * sizeof *want);
        if (!want) fprintf(stderr, "box27_cpu: out of memory\n"), MPI_Abort(MPI_COMM_WORLD, 1);
        for (long i = 0, z = 0; z < n[2]; z++)
            for (long y = 0; y < n[1]; y++)
                for (long xx = 0; xx < n[0]; xx++) want[i++] = initial(xx, y, z);
        reference(want, n, 2 * cycles);
        long diff = 0;
        for (long i = 0; i < (long)n[0] * n[1] * n[2]; i++) diff += memcmp(&want[i], &global[i], sizeof *want) != 0;
        printf("box27_cpu: %d ranks, %dx%dx%d, %d exchanges of halo %d, %d sweeps: %s (%ld cells differ)\n",
               hx_context_size(ctx), n[0], n[1], n[2], cycles, HALO, 2 * cycles, diff ? "MISMATCH" : "bit-identical to the host loop", diff);
        bad = diff != 0;
        free(want);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(owned);
    free(global);
    if (l) hx_field_free(l, &u), hx_field_free(l, &v);
    hx_exchange_destroy(x);
    hx_layout_destroy(l);
    hx_context_destroy(ctx);
    MPI_Finalize();
    return bad;
}
