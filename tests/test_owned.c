/* hx_field_get_owned / hx_field_set_owned on the public API (CPU backend, where the test can read
 * every cell): get returns exactly the owned cells, x fastest; set writes exactly them and keeps
 * every ghost cell; fields with more ghost cells than the layout's halo (a larger stage), planes
 * beyond the stage the layout keeps, 2D and 3D, float and double; hx_field_init on the same fields. Run at 1 and 2 ranks (tests/owned.sh). */
#include <halox/halox.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* cell value of the pattern: distinct per rank, cell and generation */
static double pattern(int rank, long i, int gen) { return (double)(gen * 1000003L + rank * 100003L + i) * 0.5; }

static double cell(const void *data, hx_dtype t, long i) { return t == HX_DOUBLE ? ((const double *)data)[i] : ((const float *)data)[i]; }
static void set_cell(void *data, hx_dtype t, long i, double v)
{
    if (t == HX_DOUBLE) ((double *)data)[i] = v;
    else ((float *)data)[i] = (float)v;
}

/* v as the field stores it */
static double stored(hx_dtype t, double v) { return t == HX_DOUBLE ? v : (double)(float)v; }

/* The geometry of a test field: row pitch, cells per plane, ghost width (z: 0 in 2D), owned extents. */
typedef struct {
    long pitch, plane;
    int ghost, gz, nx, ny, nz;
} field_geom;

/* Cell i of the field: its index in the owned block (x fastest), or -1 for a ghost cell. */
static long owned_index(const field_geom *g, long i)
{
    const int x = (int)(i % g->pitch) - g->ghost, y = (int)(i % g->plane / g->pitch) - g->ghost, z = (int)(i / g->plane) - g->gz;
    if (x < 0 || x >= g->nx || y < 0 || y >= g->ny || z < 0 || z >= g->nz) return -1;
    return (long)x + (long)g->nx * (y + (long)g->ny * z);
}

/* A field of `ghost` cells per side (>= the layout's halo), allocated here with that geometry. */
static void check_field(hx_layout *l, int rank, int dim, hx_dtype t, int ghost)
{
    const hx_decomp *d = hx_layout_decomp(l);
    const size_t es = t == HX_DOUBLE ? 8 : 4;
    const int nx = d->local[0], ny = d->local[1], nz = dim == 3 ? d->local[2] : 1;
    hx_field f = {.ghost = ghost, .pitch = {nx + 2 * ghost + 3, ny + 2 * ghost + 1}}; /* padded pitches */
    const int planes = dim == 3 ? nz + 2 * ghost : 1, rows = ny + 2 * ghost;
    const long total = (long)f.pitch[0] * (dim == 3 ? f.pitch[1] : rows) * planes;
    const long plane = (long)f.pitch[0] * (dim == 3 ? f.pitch[1] : rows);
    f.data = malloc((size_t)total * es);
    const long n = (long)nx * ny * nz;
    void *owned = malloc((size_t)n * es);
    CHECK(f.data && owned);
    if (!f.data || !owned) goto done;
    for (long i = 0; i < total; i++) set_cell(f.data, t, i, pattern(rank, i, 0));

    const field_geom g = {f.pitch[0], plane, ghost, dim == 3 ? ghost : 0, nx, ny, nz};

    /* get: the owned cells, in order */
    CHECK_EQ(hx_field_get_owned(l, &f, owned), HX_OK);
    long got = 0;
    for (long i = 0, o; i < total; i++)
        if ((o = owned_index(&g, i)) >= 0) got += cell(owned, t, o) == cell(f.data, t, i);
    CHECK_EQ(got, n);

    /* set: new owned values, every other cell as it was */
    for (long k = 0; k < n; k++) set_cell(owned, t, k, pattern(rank, k, 1));
    CHECK_EQ(hx_field_set_owned(l, &f, owned), HX_OK);
    long changed = 0, kept = 0;
    for (long i = 0, o; i < total; i++) {
        if ((o = owned_index(&g, i)) >= 0) changed += cell(f.data, t, i) == cell(owned, t, o);
        else kept += cell(f.data, t, i) == stored(t, pattern(rank, i, 0));
    }
    CHECK_EQ(changed, n);
    CHECK_EQ(kept, total - n);

    /* hx_field_init: halox's seeded values in the owned cells, 0 in every ghost cell of the field's
     * own width (and nothing written outside it: ASan) */
    CHECK_EQ(hx_field_init(l, &f, 7), HX_OK);
    long good = 0;
    for (long i = 0, o; i < total; i++) {
        double want = 0;
        if ((o = owned_index(&g, i)) >= 0) {
            const uint64_t gx = (uint64_t)(d->offset[0] + o % nx), gy = (uint64_t)(d->offset[1] + o / nx % ny),
                           gzz = (uint64_t)(dim == 3 ? d->offset[2] + o / ((long)nx * ny) : 0);
            want = stored(t, hx_initial_value(7, gx + (uint64_t)d->global[0] * (gy + (uint64_t)d->global[1] * gzz)));
        }
        good += cell(f.data, t, i) == want;
    }
    CHECK_EQ(good, total);
done:
    free(owned);
    free(f.data);
}

/* One layout, then fields of the halo's ghost width and of two more (the layout's stage grows). */
static void check_case(hx_context *ctx, int dim, hx_dtype t, int halo, int nx, int ny)
{
    hx_layout_desc desc = {.dim = dim, .global = {nx, ny, 7}, .halo = halo, .dtype = t, .boundary = HX_PERIODIC};
    hx_layout *l = NULL;
    if (hx_layout_create(ctx, &desc, &l) != HX_OK) {
        fprintf(stderr, "layout: %s\n", hx_context_error(ctx));
        CHECK(0);
    } else {
        check_field(l, hx_context_rank(ctx), dim, t, halo);
        check_field(l, hx_context_rank(ctx), dim, t, halo + 2);
        check_field(l, hx_context_rank(ctx), dim, t, halo);
    }
    hx_layout_destroy(l);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    hx_context_options o = hx_context_defaults();
    o.backend = HX_BACKEND_CPU;
    hx_context *ctx = NULL;
    if (hx_context_create(MPI_COMM_WORLD, &o, &ctx) != HX_OK) {
        fprintf(stderr, "context: %s\n", ctx ? hx_context_error(ctx) : "none");
        CHECK(0);
    } else {
        for (int dim = 2; dim <= 3; dim++)
            for (int dt = 0; dt < 2; dt++) {
                const hx_dtype t = dt ? HX_DOUBLE : HX_FLOAT;
                check_case(ctx, dim, t, 1, 10, 9);
                check_case(ctx, dim, t, 2, 10, 9);
            }
        /* planes of over 16 MiB: a stage for the one call, released after it */
        check_case(ctx, 2, HX_DOUBLE, 1, 3000, 1600);
    }
    hx_context_destroy(ctx);
    int failures = hx_test_failures, all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    hx_test_failures = all;
    TEST_DONE();
}
