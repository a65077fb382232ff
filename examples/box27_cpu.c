/* box27_cpu: a 27-point box stencil of the caller's own with deep halos, on halox's public API
 * and the cpu backend. Halo 2: one exchange (hx_exchange_run, corners and edges included) feeds
 * two sweeps, the first over the owned block grown by one cell, the second over the owned block.
 * Rank 0 then runs the same sweeps on the whole periodic grid in one array and compares every
 * cell, bit for bit (common/box27_check.h, shared with box27.cu); a mismatch exits 1.
 *   mpirun -np 4 box27_cpu [--size 40x36x32] [--cycles 5] [--transport mpi] [--pattern staged|direct] */
#include <halox/halox.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/box27_check.h" /* options, initial field, the host loop that checks */

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

/* One sweep over the owned block grown by e cells: in and out at the first allocated cell. */
static void sweep(const hx_decomp *d, const hx_field *f, const double *in, double *out, int e)
{
    const long sy = f->pitch[0], sz = (long)f->pitch[0] * f->pitch[1];
    for (int z = HALO - e; z < HALO + d->local[2] + e; z++)
        for (int y = HALO - e; y < HALO + d->local[1] + e; y++)
            for (int x = HALO - e; x < HALO + d->local[0] + e; x++) out[x + y * sy + z * sz] = box27(in + x + y * sy + z * sz, sy, sz);
}

int main(int argc, char **argv)
{
    int n[3] = {40, 36, 32}, cycles = 5;
    const char *transport = "mpi";
    hx_pattern pattern = HX_STAGED;
    if (box27_options(argc, argv, "box27_cpu", n, &cycles, &transport, &pattern)) return 2;
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
        box27_initial_owned(d, owned);
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
        const long diff = box27_check(global, n, 2 * cycles, box27, "box27_cpu");
        printf("box27_cpu: %d ranks, %dx%dx%d, %d exchanges of halo %d, %d sweeps: %s (%ld cells differ)\n",
               hx_context_size(ctx), n[0], n[1], n[2], cycles, HALO, 2 * cycles, diff ? "MISMATCH" : "bit-identical to the host loop", diff);
        bad = diff != 0;
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
