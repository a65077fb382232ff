/* Process grids, block extents and neighbour ranks. */
#include <stdlib.h>

#include "check.h"
#include "halox/decomp.h"

static void test_split(void)
{
    /* 10 cells over 3 ranks: 4, 3, 3 starting at 0, 4, 7 */
    int n, f;
    hx_split_extent(10, 3, 0, &n, &f); CHECK(n == 4 && f == 0);
    hx_split_extent(10, 3, 1, &n, &f); CHECK(n == 3 && f == 4);
    hx_split_extent(10, 3, 2, &n, &f); CHECK(n == 3 && f == 7);
    /* blocks tile the axis and differ by at most one */
    for (int total = 1; total < 60; total++)
        for (int p = 1; p <= total && p < 12; p++) {
            int next = 0, lo = total, hi = 0;
            for (int c = 0; c < p; c++) {
                hx_split_extent(total, p, c, &n, &f);
                CHECK_EQ(f, next);
                next += n;
                if (n < lo) lo = n;
                if (n > hi) hi = n;
            }
            CHECK_EQ(next, total);
            CHECK(hi - lo <= 1);
        }
}

static void test_choose_grid(void)
{
    int g[3];
    int sq[3] = {2048, 2048, 1};
    CHECK(hx_choose_grid(4, 2, sq, 1, g) == 0 && g[0] == 2 && g[1] == 2 && g[2] == 1);
    CHECK(hx_choose_grid(9, 2, sq, 1, g) == 0 && g[0] == 3 && g[1] == 3);
    CHECK(hx_choose_grid(6, 2, sq, 1, g) == 0 && g[0] * g[1] == 6 && abs(g[0] - g[1]) == 1);
    CHECK(hx_choose_grid(2, 2, sq, 1, g) == 0 && g[0] == 1 && g[1] == 2); /* split y: contiguous faces */
    int cube[3] = {256, 256, 256};
    CHECK(hx_choose_grid(8, 3, cube, 1, g) == 0 && g[0] == 2 && g[1] == 2 && g[2] == 2);
    CHECK(hx_choose_grid(27, 3, cube, 1, g) == 0 && g[0] == 3 && g[1] == 3 && g[2] == 3);
    /* a long thin domain is cut across its long axis */
    int thin[3] = {4096, 64, 1};
    CHECK(hx_choose_grid(4, 2, thin, 1, g) == 0 && g[0] == 4 && g[1] == 1);
    /* minimum block size respected, and impossible requests refused */
    int small[3] = {8, 8, 1};
    CHECK(hx_choose_grid(4, 2, small, 4, g) == 0 && g[0] == 2 && g[1] == 2);
    CHECK(hx_choose_grid(4, 2, small, 5, g) == -1);
    CHECK(hx_choose_grid(7, 2, small, 2, g) == -1); /* 7x1 or 1x7 leaves 1-cell blocks */
}

static void test_neighbours(void)
{
    char err[256];
    hx_decomp d;
    int global[3] = {30, 20, 1}, pg[3] = {3, 2, 1};
    /* rank 4 is at (1, 1) of a 3x2 grid */
    CHECK(hx_decomp_init(&d, 2, global, pg, 4, 6, HX_PERIODIC, 2, err, sizeof err) == 0);
    CHECK(d.coords[0] == 1 && d.coords[1] == 1);
    CHECK(d.local[0] == 10 && d.local[1] == 10 && d.ghost[0] == 2 && d.ghost[2] == 0 && d.alloc[2] == 1);
    CHECK_EQ(d.neighbour[hx_dir_index(-1, 0, 0)], 3);
    CHECK_EQ(d.neighbour[hx_dir_index(1, 0, 0)], 5);
    CHECK_EQ(d.neighbour[hx_dir_index(0, 1, 0)], 1); /* wraps to row 0 */
    CHECK_EQ(d.neighbour[hx_dir_index(0, -1, 0)], 1);
    CHECK_EQ(d.neighbour[hx_dir_index(1, 1, 0)], 2);
    CHECK_EQ(d.neighbour[hx_dir_index(0, 0, 1)], HX_NO_RANK); /* no z in 2D */
    CHECK(hx_decomp_init(&d, 2, global, pg, 4, 6, HX_FIXED, 2, err, sizeof err) == 0);
    CHECK_EQ(d.neighbour[hx_dir_index(0, 1, 0)], HX_NO_RANK);
    CHECK_EQ(d.neighbour[hx_dir_index(1, 1, 0)], HX_NO_RANK);
    CHECK_EQ(d.neighbour[hx_dir_index(-1, -1, 0)], 0);
    CHECK_EQ(d.neighbour[hx_dir_index(1, -1, 0)], 2);
    /* one rank, periodic: every neighbour is itself */
    int one[3] = {1, 1, 1};
    CHECK(hx_decomp_init(&d, 3, global, one, 0, 1, HX_PERIODIC, 1, err, sizeof err) == 0);
    for (int dir = 0; dir < HX_NUM_DIRS; dir++) CHECK_EQ(d.neighbour[dir], 0);
    /* mismatched grid and too-small blocks are refused with a message */
    CHECK(hx_decomp_init(&d, 2, global, pg, 0, 4, HX_PERIODIC, 1, err, sizeof err) == -1);
    int g5[3] = {5, 5, 1};
    CHECK(hx_decomp_init(&d, 2, g5, pg, 0, 6, HX_PERIODIC, 2, err, sizeof err) == -1);
}

static void test_symmetry(void)
{
    /* if B is A's neighbour at offset o, A is B's neighbour at -o, for all grids */
    int global[3] = {12, 12, 12};
    char err[256];
    for (int px = 1; px <= 3; px++)
        for (int py = 1; py <= 3; py++)
            for (int pz = 1; pz <= 2; pz++)
                for (int b = 0; b < 2; b++) {
                    int pg[3] = {px, py, pz}, n = px * py * pz;
                    hx_decomp *ds = calloc((size_t)n, sizeof *ds);
                    for (int r = 0; r < n; r++)
                        CHECK(hx_decomp_init(&ds[r], 3, global, pg, r, n, (hx_boundary)b, 1, err, sizeof err) == 0);
                    for (int r = 0; r < n; r++)
                        for (int dir = 0; dir < HX_NUM_DIRS; dir++) {
                            int q = ds[r].neighbour[dir];
                            if (q == HX_NO_RANK) continue;
                            int found = 0;
                            /* with wrap, q may see r on several sides; the opposite side must be one */
                            found = ds[q].neighbour[hx_dir_opposite(dir)] == r;
                            CHECK(found);
                        }
                    free(ds);
                }
}

int main(void)
{
    test_split();
    test_choose_grid();
    test_neighbours();
    test_symmetry();
    TEST_DONE();
}
