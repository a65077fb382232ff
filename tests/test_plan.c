/* Region geometry, tested by running the real plans and CPU pack/unpack on every rank of a
 * simulated job: after the exchange, every ghost cell must hold the global index of the cell it
 * mirrors (periodic wrap), or stay untouched outside a fixed boundary. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/backend.h"
#include "halox/plan.h"

static long wrapped_index(const hx_decomp *d, const int local[3], int *outside)
{
    long g[3];
    *outside = 0;
    for (int a = 0; a < 3; a++) {
        long v = (long)d->offset[a] + local[a] - d->ghost[a];
        if (v < 0 || v >= d->global[a]) {
            *outside = 1;
            v = ((v % d->global[a]) + d->global[a]) % d->global[a];
        }
        g[a] = v;
    }
    return g[0] + (long)d->global[0] * (g[1] + (long)d->global[1] * g[2]);
}

static void exchange_case(int dim, const int global[3], const int pg[3], int halo, hx_pattern pat, hx_boundary bnd)
{
    int n = pg[0] * pg[1] * pg[2];
    char err[256];
    hx_decomp *d = calloc((size_t)n, sizeof *d);
    hx_plan *plan = calloc((size_t)n, sizeof *plan);
    hx_backend *bk = calloc((size_t)n, sizeof *bk);
    double **field = calloc((size_t)n, sizeof *field);
    double **buf = calloc((size_t)n, sizeof *buf);
    for (int r = 0; r < n; r++) {
        CHECK(hx_decomp_init(&d[r], dim, global, pg, r, n, bnd, halo, err, sizeof err) == 0);
        hx_plan_build(&plan[r], &d[r], pat);
        CHECK_EQ(plan[r].nphases, pat == HX_DIRECT ? 1 : dim);
        CHECK(hx_backend_create(&bk[r], HX_BACKEND_CPU, &d[r], dim == 2 ? HX_JACOBI5 : HX_JACOBI7, HX_DOUBLE, -1, err,
                                sizeof err) == 0);
        long cells = hx_alloc_cells(&d[r]);
        field[r] = malloc(sizeof(double) * (size_t)cells);
        for (long i = 0; i < cells; i++) field[r][i] = -1;
        for (int z = 0; z < d[r].local[2]; z++)
            for (int y = 0; y < d[r].local[1]; y++)
                for (int x = 0; x < d[r].local[0]; x++) {
                    int l[3] = {x + d[r].ghost[0], y + d[r].ghost[1], z + d[r].ghost[2]}, out;
                    field[r][hx_local_index(&d[r], l[0], l[1], l[2])] = (double)wrapped_index(&d[r], l, &out);
                }
        buf[r] = malloc(sizeof(double) * (size_t)(plan[r].max_phase_cells + 1));
    }
    for (int p = 0; p < plan[0].nphases; p++) {
        /* every message of every rank: pack at the sender, unpack at the receiver */
        for (int r = 0; r < n; r++)
            for (int m = 0; m < plan[r].phase[p].nmsg; m++) {
                const hx_message *s = &plan[r].phase[p].msg[m];
                int q = s->peer, found = 0;
                for (int k = 0; k < plan[q].phase[p].nmsg; k++) {
                    const hx_message *t = &plan[q].phase[p].msg[k];
                    if (t->peer != r || t->recv_tag != s->send_tag) continue;
                    found++;
                    CHECK_EQ(t->count, s->count);
                    hx_phase one_s = {.nmsg = 1, .cells = s->count}, one_t = {.nmsg = 1, .cells = t->count};
                    one_s.msg[0] = *s;
                    one_s.msg[0].offset = 0;
                    one_t.msg[0] = *t;
                    one_t.msg[0].offset = 0;
                    bk[r].ops->pack(&bk[r], 0, &one_s, field[r], buf[r]);
                    bk[q].ops->unpack(&bk[q], 0, &one_t, buf[r], field[q]);
                }
                CHECK_EQ(found, 1);
            }
    }
    /* check every cell of every rank */
    for (int r = 0; r < n; r++) {
        int bad = 0;
        for (int z = 0; z < d[r].alloc[2]; z++)
            for (int y = 0; y < d[r].alloc[1]; y++)
                for (int x = 0; x < d[r].local[0] + 2 * d[r].ghost[0]; x++) {
                    int l[3] = {x, y, z}, out;
                    long want = wrapped_index(&d[r], l, &out);
                    double got = field[r][hx_local_index(&d[r], x, y, z)];
                    if (bnd == HX_FIXED && out) bad += got != -1;
                    else bad += got != (double)want;
                }
        if (bad) fprintf(stderr, "dim %d grid %dx%dx%d halo %d %s %s rank %d: %d wrong cells\n", dim, pg[0], pg[1],
                         pg[2], halo, pat ? "direct" : "staged", bnd ? "fixed" : "periodic", r, bad);
        CHECK_EQ(bad, 0);
    }
    for (int r = 0; r < n; r++) {
        free(field[r]);
        free(buf[r]);
        bk[r].ops->destroy(&bk[r]);
    }
    free(d), free(plan), free(bk), free(field), free(buf);
}

static void test_exchanges(void)
{
    int g2[3] = {13, 11, 1}, g3[3] = {9, 8, 7};
    int grids2[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1}, {3, 2, 1}, {3, 3, 1}, {4, 1, 1}};
    int grids3[][3] = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {3, 1, 2}, {1, 3, 3}};
    for (int pat = 0; pat < 2; pat++)
        for (int b = 0; b < 2; b++)
            for (int h = 1; h <= 3; h++) {
                for (size_t i = 0; i < sizeof grids2 / sizeof *grids2; i++)
                    if (g2[0] / grids2[i][0] >= h && g2[1] / grids2[i][1] >= h)
                        exchange_case(2, g2, grids2[i], h, (hx_pattern)pat, (hx_boundary)b);
                for (size_t i = 0; i < sizeof grids3 / sizeof *grids3; i++)
                    if (g3[0] / grids3[i][0] >= h && g3[1] / grids3[i][1] >= h && g3[2] / grids3[i][2] >= h)
                        exchange_case(3, g3, grids3[i], h, (hx_pattern)pat, (hx_boundary)b);
            }
}

static void test_message_counts(void)
{
    char err[256];
    hx_decomp d;
    hx_plan p;
    int g2[3] = {64, 64, 1}, pg2[3] = {2, 2, 1}, g3[3] = {64, 64, 64}, pg3[3] = {2, 2, 2};
    hx_decomp_init(&d, 2, g2, pg2, 0, 4, HX_PERIODIC, 3, err, sizeof err);
    hx_plan_build(&p, &d, HX_STAGED);
    CHECK(p.nphases == 2 && p.phase[0].nmsg == 2 && p.phase[1].nmsg == 2);
    /* phase y carries the x ghosts along: (32 + 2*3) x 3 cells */
    CHECK_EQ(p.phase[1].msg[0].count, (32 + 6) * 3);
    hx_plan_build(&p, &d, HX_DIRECT);
    CHECK(p.nphases == 1 && p.phase[0].nmsg == 8);
    CHECK_EQ(p.phase[0].cells, 4 * 32 * 3 + 4 * 3 * 3);
    hx_decomp_init(&d, 3, g3, pg3, 0, 8, HX_PERIODIC, 1, err, sizeof err);
    hx_plan_build(&p, &d, HX_DIRECT);
    CHECK_EQ(p.phase[0].nmsg, 26);
    hx_plan_build(&p, &d, HX_STAGED);
    CHECK(p.nphases == 3 && p.phase[2].nmsg == 2);
    CHECK_EQ(p.phase[2].msg[0].count, 34 * 34);
    /* fixed boundary at a corner rank: only inward neighbours */
    hx_decomp_init(&d, 2, g2, pg2, 0, 4, HX_FIXED, 1, err, sizeof err);
    hx_plan_build(&p, &d, HX_DIRECT);
    CHECK_EQ(p.phase[0].nmsg, 3);
}

static void test_regions(void)
{
    char err[256];
    hx_decomp d;
    int g[3] = {40, 30, 20}, pg[3] = {2, 1, 2};
    for (int b = 0; b < 2; b++)
        for (int r = 0; r < 4; r++) {
            CHECK(hx_decomp_init(&d, 3, g, pg, r, 4, (hx_boundary)b, 4, err, sizeof err) == 0);
            hx_box owned = hx_owned_box(&d);
            CHECK_EQ(hx_box_cells(&owned), (long)d.local[0] * d.local[1] * d.local[2]);
            for (int e = 0; e <= 3; e++)
                for (int radius = 1; radius <= 2; radius++) {
                    hx_box reg = hx_sweep_box(&d, e), inner, outer[HX_MAX_OUTER_BOXES];
                    /* fixed: never past the global edge; periodic: grown on every side */
                    for (int a = 0; a < 3; a++) {
                        int at_lo = d.offset[a] == 0, at_hi = d.offset[a] + d.local[a] == g[a];
                        CHECK_EQ(reg.lo[a], d.ghost[a] - ((b == HX_FIXED && at_lo) ? 0 : e));
                        CHECK_EQ(reg.hi[a], d.ghost[a] + d.local[a] + ((b == HX_FIXED && at_hi) ? 0 : e));
                    }
                    int no = hx_split_interior(&d, radius, &reg, &inner, outer);
                    /* inner and shell tile the region exactly once */
                    long cells = hx_alloc_cells(&d);
                    unsigned char *hit = calloc((size_t)cells, 1);
                    hx_box all[1 + HX_MAX_OUTER_BOXES];
                    all[0] = inner;
                    for (int i = 0; i < no; i++) all[1 + i] = outer[i];
                    for (int i = 0; i < 1 + no; i++)
                        for (int z = all[i].lo[2]; z < all[i].hi[2]; z++)
                            for (int y = all[i].lo[1]; y < all[i].hi[1]; y++)
                                for (int x = all[i].lo[0]; x < all[i].hi[0]; x++) hit[hx_local_index(&d, x, y, z)]++;
                    long inside = 0, wrong = 0;
                    for (int z = 0; z < d.alloc[2]; z++)
                        for (int y = 0; y < d.alloc[1]; y++)
                            for (int x = 0; x < d.local[0] + 2 * d.ghost[0]; x++) {
                                int in = x >= reg.lo[0] && x < reg.hi[0] && y >= reg.lo[1] && y < reg.hi[1] &&
                                         z >= reg.lo[2] && z < reg.hi[2];
                                unsigned char h = hit[hx_local_index(&d, x, y, z)];
                                inside += in;
                                wrong += in ? h != 1 : h != 0;
                            }
                    CHECK_EQ(wrong, 0);
                    CHECK_EQ(inside, hx_box_cells(&reg));
                    /* the interior reads only owned cells */
                    for (int a = 0; a < 3; a++)
                        if (hx_box_cells(&inner)) {
                            CHECK(inner.lo[a] - radius >= d.ghost[a]);
                            CHECK(inner.hi[a] + radius <= d.ghost[a] + d.local[a]);
                        }
                    free(hit);
                }
        }
}

int main(void)
{
    test_message_counts();
    test_regions();
    test_exchanges();
    TEST_DONE();
}
