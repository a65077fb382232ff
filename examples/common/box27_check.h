/* The host side that the two box27 examples (box27_cpu.c, box27.cu) share around their own
 * stencil and sweeps: their options, the initial field (a function of each cell's global index),
 * and the check: the same sweeps of the caller's stencil on the whole periodic grid by a host loop,
 * compared with the gathered field bit for bit. C and C++ alike. */
#ifndef BOX27_CHECK_H
#define BOX27_CHECK_H
#include <halox/halox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The caller's stencil at p, rows sy and planes sz apart. */
typedef double (*box27_stencil)(const double *p, long sy, long sz);

/* --size NXxNYxNZ, --cycles N, --transport NAME, --pattern staged|direct over the defaults in n,
 * cycles, transport and pattern: 0, or 2 after the usage line of program `name`. */
static int box27_options(int argc, char **argv, const char *name, int n[3], int *cycles, const char **transport,
                         hx_pattern *pattern)
{
    for (int i = 1; i < argc; i += 2) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && !strcmp(o, "--size") && sscanf(v, "%dx%dx%d", &n[0], &n[1], &n[2]) == 3) continue;
        else if (v && !strcmp(o, "--cycles")) *cycles = atoi(v);
        else if (v && !strcmp(o, "--transport")) *transport = v;
        else if (v && !strcmp(o, "--pattern") && (!strcmp(v, "staged") || !strcmp(v, "direct"))) *pattern = strcmp(v, "staged") ? HX_DIRECT : HX_STAGED;
        else {
            fprintf(stderr, "usage: %s [--size NXxNYxNZ] [--cycles N] [--transport NAME] [--pattern staged|direct]\n", name);
            return 2;
        }
    }
    return 0;
}

static double box27_initial(long gx, long gy, long gz) { return (double)((gx * 7 + gy * 13 + gz * 29) % 101) / 101.0; }

/* This rank's owned cells of the initial field, row-major (d->local cells from d->offset). */
static void box27_initial_owned(const hx_decomp *d, double *owned)
{
    for (int z = 0; z < d->local[2]; z++)
        for (int y = 0; y < d->local[1]; y++)
            for (int x = 0; x < d->local[0]; x++)
                owned[x + d->local[0] * (y + (long)d->local[1] * z)] = box27_initial(d->offset[0] + x, d->offset[1] + y, d->offset[2] + z);
}

/* `sweeps` sweeps of f on g, the whole periodic grid of n cells, wrapping through a copy with one
 * ghost cell per side. */
static void box27_reference(double *g, const int n[3], int sweeps, box27_stencil f, const char *name)
{
    const long px = n[0] + 2, py = n[1] + 2, pz = n[2] + 2, sz = px * py;
    double *a = (double *)calloc((size_t)(px * py * pz), sizeof *a);
    if (!a) fprintf(stderr, "%s: out of memory\n", name), exit(1);
    for (int s = 0; s < sweeps; s++) {
        for (long z = 0; z < pz; z++)
            for (long y = 0; y < py; y++)
                for (long x = 0; x < px; x++) {
                    const long gx = (x - 1 + n[0]) % n[0], gy = (y - 1 + n[1]) % n[1], gz = (z - 1 + n[2]) % n[2];
                    a[x + y * px + z * sz] = g[gx + n[0] * (gy + (long)n[1] * gz)];
                }
        for (long z = 1; z <= n[2]; z++)
            for (long y = 1; y <= n[1]; y++)
                for (long x = 1; x <= n[0]; x++) g[(x - 1) + n[0] * ((y - 1) + (long)n[1] * (z - 1))] = f(a + x + y * px + z * sz, px, sz);
    }
    free(a);
}

/* The check (rank 0): how many cells of the gathered field (n cells, row-major) differ in any bit
 * from `sweeps` sweeps of f on the initial field by the host loop. */
static long box27_check(const double *global, const int n[3], int sweeps, box27_stencil f, const char *name)
{
    double *want = (double *)malloc((size_t)n[0] * n[1] * n[2] * sizeof *want);
    if (!want) fprintf(stderr, "%s: out of memory\n", name), MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0, z = 0; z < n[2]; z++)
        for (long y = 0; y < n[1]; y++)
            for (long x = 0; x < n[0]; x++) want[i++] = box27_initial(x, y, z);
    box27_reference(want, n, sweeps, f, name);
    long diff = 0;
    for (long i = 0; i < (long)n[0] * n[1] * n[2]; i++) diff += memcmp(&want[i], &global[i], sizeof *want) != 0;
    free(want);
    return diff;
}
#endif
