/* Process grid choice, block extents and neighbour ranks. */
#include "halox/decomp.h"

#include <stdio.h>
#include <string.h>

int hx_grid_rank(const int pgrid[3], const int coords[3])
{
    return coords[0] + pgrid[0] * (coords[1] + pgrid[1] * coords[2]);
}

void hx_grid_coords(const int pgrid[3], int rank, int coords[3])
{
    coords[0] = rank % pgrid[0];
    coords[1] = (rank / pgrid[0]) % pgrid[1];
    coords[2] = rank / (pgrid[0] * pgrid[1]);
}

void hx_split_extent(int n, int p, int c, int *count, int *first)
{
    int base = n / p, rem = n % p;
    *count = base + (c < rem ? 1 : 0);
    *first = c * base + (c < rem ? c : rem);
}

/* Surface of the largest block: what one rank's halo traffic and ghost memory scale with. */
static double block_surface(int dim, const int global[3], const int p[3])
{
    double e[3];
    for (int a = 0; a < 3; a++) e[a] = (double)((global[a] + p[a] - 1) / p[a]);
    if (dim == 2) return e[0] + e[1];
    return e[0] * e[1] + e[1] * e[2] + e[0] * e[2];
}

int hx_choose_grid(int nranks, int dim, const int global[3], int min_local, int pgrid[3])
{
    double best = -1.0;
    int zmax = dim == 3 ? nranks : 1;
    for (int pz = zmax; pz >= 1; pz--) {
        if (nranks % pz) continue;
        for (int py = nranks / pz; py >= 1; py--) {
            if ((nranks / pz) % py) continue;
            int p[3] = {nranks / (pz * py), py, pz};
            int fits = 1;
            for (int a = 0; a < dim; a++)
                if (global[a] / p[a] < min_local) fits = 0;
            if (!fits) continue;
            double s = block_surface(dim, global, p);
            /* Ties go to the grid found first, which splits slower axes more (contiguous faces). */
            if (best < 0 || s < best - 1e-9) {
                best = s;
                memcpy(pgrid, p, sizeof p);
            }
        }
    }
    return best < 0 ? -1 : 0;
}

int hx_decomp_init(hx_decomp *d, int dim, const int global[3], const int pgrid[3], int rank, int nranks,
                   hx_boundary boundary, int halo, char *err, size_t errlen)
{
    const hx_boundary b[3] = {boundary, boundary, boundary};
    const int h[3] = {halo, halo, halo};
    if (hx_decomp_init_axes(d, dim, global, pgrid, rank, nranks, b, h, err, errlen)) return -1;
    d->boundary = boundary;
    return 0;
}

int hx_decomp_init_axes(hx_decomp *d, int dim, const int global[3], const int pgrid[3], int rank, int nranks,
                        const hx_boundary boundary[3], const int halo[3], char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->dim = dim;
    d->boundary = HX_PERIODIC;
    for (int a = 0; a < 3; a++) {
        d->boundary_axis[a] = boundary[a];
        if (a < dim && boundary[a] == HX_FIXED) d->boundary = HX_FIXED;
    }
    d->rank = rank;
    d->nranks = nranks;
    for (int a = 0; a < 3; a++) {
        d->global[a] = a < dim ? global[a] : 1;
        d->pgrid[a] = a < dim ? pgrid[a] : 1;
    }
    if (d->pgrid[0] * d->pgrid[1] * d->pgrid[2] != nranks) {
        if (dim == 2)
            snprintf(err, errlen, "process grid %dx%d has %d ranks but the job has %d: give a process grid whose product is %d",
                     d->pgrid[0], d->pgrid[1], d->pgrid[0] * d->pgrid[1], nranks, nranks);
        else
            snprintf(err, errlen, "process grid %dx%dx%d has %d ranks but the job has %d: give a process grid whose product is %d",
                     d->pgrid[0], d->pgrid[1], d->pgrid[2], d->pgrid[0] * d->pgrid[1] * d->pgrid[2], nranks, nranks);
        return -1;
    }
    hx_grid_coords(d->pgrid, rank, d->coords);
    for (int a = 0; a < 3; a++) {
        hx_split_extent(d->global[a], d->pgrid[a], d->coords[a], &d->local[a], &d->offset[a]);
        d->ghost[a] = a < dim ? halo[a] : 0;
        d->alloc[a] = d->local[a] + 2 * d->ghost[a];
    }
    /* Rows start on 128-byte boundaries of the allocation, so GPU kernels can use aligned 16-byte
     * vectors (a field allocated with a lead moves every row alike: compute/backend.h). */
    d->alloc[0] = (d->alloc[0] + HX_ROW_ALIGN - 1) / HX_ROW_ALIGN * HX_ROW_ALIGN;
    for (int a = 0; a < dim; a++) {
        int smallest = d->global[a] / d->pgrid[a];
        if (smallest < 1 || smallest < halo[a]) {
            const char *axis = "xyz" + a;
            snprintf(err, errlen,
                     "blocks along %c are %d cells (%d cells over %d ranks) but the halo is %d cells wide: "
                     "use a larger grid, a narrower halo or fewer ranks along %c",
                     *axis, smallest, d->global[a], d->pgrid[a], halo[a], *axis);
            return -1;
        }
    }
    for (int dir = 0; dir < HX_NUM_DIRS; dir++) {
        int o[3], c[3], inside = 1;
        hx_dir_offset(dir, o);
        for (int a = 0; a < 3; a++) {
            if (a >= dim && o[a] != 0) inside = 0;
            c[a] = d->coords[a] + o[a];
            if (c[a] < 0 || c[a] >= d->pgrid[a]) {
                if (boundary[a] == HX_FIXED) inside = 0;
                c[a] = (c[a] + d->pgrid[a]) % d->pgrid[a];
            }
        }
        d->neighbour[dir] = inside ? hx_grid_rank(d->pgrid, c) : HX_NO_RANK;
    }
    return 0;
}
