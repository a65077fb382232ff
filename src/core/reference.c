/* The single-domain reference solver (see halox/reference.h). Deliberately plain: a padded
 * global array whose pad is refilled from the opposite side (periodic) or left 0 (fixed). */
#include "halox/reference.h"
#include "core/operator_eval.h"

#include <stdint.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static long wrap(long i, long n) { return ((i % n) + n) % n; }

#define DEFINE_REFERENCE(T, SUF)                                                                   \
    /* the pad of a padded array of the grid: copies of the opposite side (periodic), else left */ \
    static void fill_pad_##SUF(T *u, int dim, long nx, long ny, long nz, long r, long pz)          \
    {                                                                                              \
        const long ax = nx + 2 * r, ay = ny + 2 * r, az = nz + 2 * pz, sy = ax, sz = ax * ay;      \
        /* planes and rows together: a 2D grid has one plane */                                     \
        _Pragma("omp parallel for collapse(2) schedule(static)")                                   \
        for (long z = 0; z < az; z++)                                                              \
            for (long y = 0; y < ay; y++)                                                          \
                for (long x = 0; x < ax; x++) {                                                    \
                    int pad = x < r || x >= nx + r || y < r || y >= ny + r || z < pz || z >= nz + pz; \
                    if (!pad) continue;                                                            \
                    long sx_ = wrap(x - r, nx) + r, sy_ = wrap(y - r, ny) + r,                     \
                         sz_ = dim == 3 ? wrap(z - pz, nz) + pz : z;                               \
                    u[x + sy * y + sz * z] = u[sx_ + sy * sy_ + sz * sz_];                         \
                }                                                                                  \
    }                                                                                              \
    static int reference_##SUF(const hx_problem *c, T *out)                                        \
    {                                                                                              \
        const hx_operator *op = c->op;                                                             \
        const int r = op ? hx_operator_radius(op) : hx_stencil_get(c->stencil)->radius, dim = c->dim; \
        const int ncoef = op ? op->desc.ncoef : 0;                                                 \
        const long nx = c->size[0], ny = c->size[1], nz = dim == 3 ? c->size[2] : 1;               \
        const long pz = dim == 3 ? r : 0;                                                          \
        const long ax = nx + 2 * r, ay = ny + 2 * r, az = nz + 2 * pz;                             \
        const long sy = ax, sz = ax * ay, total = ax * ay * az;                                    \
        T *u = calloc((size_t)total, sizeof(T)), *v = calloc((size_t)total, sizeof(T));            \
        T *coef[HX_OP_MAX_COEF] = {0};                                                             \
        hx_op_lin *lin = op ? malloc(sizeof *lin) : NULL;                                          \
        int ok = u && v && (!op || lin);                                                           \
        for (int k = 0; k < ncoef; k++) ok = ok && (coef[k] = calloc((size_t)total, sizeof(T)));   \
        if (!ok) {                                                                                 \
            for (int k = 0; k < ncoef; k++) free(coef[k]);                                         \
            return free(u), free(v), free(lin), -1;                                                \
        }                                                                                          \
        for (long z = 0; z < nz; z++)                                                              \
            for (long y = 0; y < ny; y++)                                                          \
                for (long x = 0; x < nx; x++) {                                                    \
                    const long g = x + nx * (y + ny * z), i = (x + r) + sy * (y + r) + sz * (z + pz); \
                    u[i] = (T)hx_initial_value(c->seed, (uint64_t)g);                              \
                    for (int k = 0; k < ncoef; k++)                                                \
                        coef[k][i] = c->coef ? ((const T *)c->coef[k])[g]                          \
                                             : (T)hx_initial_value(c->seed + 1 + (uint64_t)k, (uint64_t)g); \
                }                                                                                  \
        /* coefficients never change: their pad once (0 beyond a fixed boundary) */               \
        if (c->boundary == HX_PERIODIC)                                                            \
            for (int k = 0; k < ncoef; k++) fill_pad_##SUF(coef[k], dim, nx, ny, nz, r, pz);       \
        if (op) hx_op_linearize(op, sy, sz, lin);                                                  \
        const T *const *cf = (const T *const *)coef;                                               \
        for (long it = 0; it < c->iters; it++) {                                                   \
            if (c->boundary == HX_PERIODIC) fill_pad_##SUF(u, dim, nx, ny, nz, r, pz);             \
            _Pragma("omp parallel for collapse(2) schedule(static)")                               \
            for (long z = pz; z < nz + pz; z++)                                                    \
                for (long y = r; y < ny + r; y++)                                                  \
                    for (long x = r; x < nx + r; x++) {                                            \
                        long i = x + sy * y + sz * z;                                              \
                        v[i] = op ? hx_op_eval_##SUF(lin, u, cf, i)                                \
                                  : hx_stencil_apply_##SUF(c->stencil, u + i, sy, sz);             \
                    }                                                                              \
            T *t = u;                                                                              \
            u = v;                                                                                 \
            v = t;                                                                                 \
        }                                                                                          \
        for (long z = 0; z < nz; z++)                                                              \
            for (long y = 0; y < ny; y++)                                                          \
                memcpy(out + nx * (y + ny * z), u + r + sy * (y + r) + sz * (z + pz),              \
                       (size_t)nx * sizeof(T));                                                    \
        for (int k = 0; k < ncoef; k++) free(coef[k]);                                             \
        free(u);                                                                                   \
        free(v);                                                                                   \
        free(lin);                                                                                 \
        return 0;                                                                                  \
    }

DEFINE_REFERENCE(float, f32)
DEFINE_REFERENCE(double, f64)

int hx_reference_run(const hx_problem *cfg, void *out)
{
    if (cfg->op && (cfg->op->desc.dim != cfg->dim || cfg->op->desc.dtype != cfg->dtype)) return -1;
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
