/* The single-domain reference solver (see halox/reference.h). Deliberately plain: a padded
 * global array whose pad is refilled from the opposite side (periodic) or left 0 (fixed). */
#include "halox/reference.h"

#include <stdint.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static long wrap(long i, long n) { return ((i % n) + n) % n; }

#define DEFINE_REFERENCE(T, SUF)                                                                   \
    static int reference_##SUF(const hx_problem *c, T *out)                                        \
    {                                                                                              \
        const int r = hx_stencil_get(c->stencil)->radius, dim = c->dim;                            \
        const long nx = c->size[0], ny = c->size[1], nz = dim == 3 ? c->size[2] : 1;               \
        const long pz = dim == 3 ? r : 0;                                                          \
        const long ax = nx + 2 * r, ay = ny + 2 * r, az = nz + 2 * pz;                             \
        const long sy = ax, sz = ax * ay, total = ax * ay * az;                                    \
        T *u = calloc((size_t)total, sizeof(T)), *v = calloc((size_t)total, sizeof(T));            \
        if (!u || !v) return free(u), free(v), -1;                                                 \
        for (long z = 0; z < nz; z++)                                                              \
            for (long y = 0; y < ny; y++)                                                          \
                for (long x = 0; x < nx; x++)                                                      \
                    u[(x + r) + sy * (y + r) + sz * (z + pz)] =                                    \
                        (T)hx_initial_value(c->seed, (uint64_t)(x + nx * (y + ny * z)));           \
        for (long it = 0; it < c->iters; it++) {                                                   \
            if (c->boundary == HX_PERIODIC) {                                                      \
                _Pragma("omp parallel for schedule(static)")                                       \
                for (long z = 0; z < az; z++)                                                      \
                    for (long y = 0; y < ay; y++)                                                  \
                        for (long x = 0; x < ax; x++) {                                            \
                            int pad = x < r || x >= nx + r || y < r || y >= ny + r ||              \
                                      z < pz || z >= nz + pz;                                      \
                            if (!pad) continue;                                                    \
                            long sx_ = wrap(x - r, nx) + r, sy_ = wrap(y - r, ny) + r,             \
                                 sz_ = dim == 3 ? wrap(z - pz, nz) + pz : z;                       \
                            u[x + sy * y + sz * z] = u[sx_ + sy * sy_ + sz * sz_];                 \
                        }                                                                          \
            }                                                                                      \
            _Pragma("omp parallel for schedule(static)")                                           \
            for (long z = pz; z < nz + pz; z++)                                                    \
                for (long y = r; y < ny + r; y++)                                                  \
                    for (long x = r; x < nx + r; x++) {                                            \
                        long i = x + sy * y + sz * z;                                              \
                        v[i] = hx_stencil_apply_##SUF(c->stencil, u + i, sy, sz);                  \
                    }                                                                              \
            T *t = u;                                                                              \
            u = v;                                                                                 \
            v = t;                                                                                 \
        }                                                                                          \
        for (long z = 0; z < nz; z++)                                                              \
            for (long y = 0; y < ny; y++)                                                          \
                memcpy(out + nx * (y + ny * z), u + r + sy * (y + r) + sz * (z + pz),              \
                       (size_t)nx * sizeof(T));                                                    \
        free(u);                                                                                   \
        free(v);                                                                                   \
        return 0;                                                                                  \
    }

DEFINE_REFERENCE(float, f32)
DEFINE_REFERENCE(double, f64)

int hx_reference_run(const hx_problem *cfg, void *out)
{
    return cfg->dtype == HX_DOUBLE ? reference_f64(cfg, out) : reference_f32(cfg, out);
}

uint64_t hx_checksum_cells(hx_dtype t, const void *cells, long n)
{
    uint64_t sum = 0;
    size_t size = t == HX_DOUBLE ? 8 : 4;
    for (long i = 0; i < n; i++) {
        uint64_t b = 0;
        uint32_t w;
        if (size == 8) memcpy(&b, (const char *)cells + 8 * i, 8);
        else memcpy(&w, (const char *)cells + 4 * i, 4), b = w;
        sum += b;
    }
    return sum;
}

long hx_compare_fields(hx_dtype t, const void *a, const void *b, long n, double *max_abs, long *first_bad)
{
    long bad = 0;
    size_t es = hx_dtype_size(t);
    *max_abs = 0;
    *first_bad = -1;
    for (long i = 0; i < n; i++) {
        const char *pa = (const char *)a + (size_t)i * es, *pb = (const char *)b + (size_t)i * es;
        if (memcmp(pa, pb, es) == 0) continue;
        double x = t == HX_DOUBLE ? *(const double *)pa : *(const float *)pa;
        double y = t == HX_DOUBLE ? *(const double *)pb : *(const float *)pb;
        double d = fabs(x - y);
        if (d > *max_abs || isnan(d)) *max_abs = isnan(d) ? INFINITY : d;
        if (*first_bad < 0) *first_bad = i;
        bad++;
    }
    return bad;
}
