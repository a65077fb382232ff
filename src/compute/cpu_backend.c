/* CPU backend: fields in host memory, sweeps and packing with OpenMP threads.
 * Every operation completes before it returns, so streams and events reduce to wall-clock stamps. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "compute/backend.h"
#include "compute/cpu_threads.h"
#include "core/operator_eval.h"

typedef struct {
    double stamp[HX_NUM_EVENTS];
} cpu_state;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *cpu_alloc(hx_backend *bk, size_t bytes)
{
    (void)bk;
    /* 64-byte alignment keeps rows vector-friendly */
    size_t rounded = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (p) memset(p, 0, rounded ? rounded : 64);
    return p;
}

static void cpu_free(hx_backend *bk, void *p)
{
    (void)bk;
    free(p);
}

static int cpu_copy_out(hx_backend *bk, int stream, void *host, const void *dev, size_t bytes)
{
    (void)bk;
    (void)stream;
    if (host != dev) memcpy(host, dev, bytes);
    return 0;
}

static int cpu_copy(hx_backend *bk, int stream, void *dst, const void *src, size_t bytes)
{
    (void)bk;
    (void)stream;
    /* threads share the copy, as they share a sweep */
    const size_t chunk = 1 << 20;
    const long n = (long)((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        size_t off = (size_t)i * chunk, len = bytes - off < chunk ? bytes - off : chunk;
        memcpy((char *)dst + off, (const char *)src + off, len);
    }
    return 0;
}

static int cpu_copy_in(hx_backend *bk, int stream, void *dev, const void *host, size_t bytes)
{
    return cpu_copy_out(bk, stream, dev, host, bytes);
}

#define DEFINE_CPU_KERNELS(T, SUF, W)                                                                 \
    static void init_##SUF(const hx_decomp *d, T *f, uint64_t seed)                               \
    {                                                                                              \
        memset(f, 0, (size_t)hx_alloc_cells(d) * sizeof(T));                                      \
        _Pragma("omp parallel for collapse(2) schedule(static)")                                   \
        for (int z = 0; z < d->local[2]; z++)                                                      \
            for (int y = 0; y < d->local[1]; y++) {                                                \
                uint64_t gz = (uint64_t)(d->offset[2] + z), gy = (uint64_t)(d->offset[1] + y);     \
                uint64_t row = (uint64_t)d->global[0] * (gy + (uint64_t)d->global[1] * gz);         \
                T *out = f + hx_local_index(d, d->ghost[0], y + d->ghost[1], z + d->ghost[2]);     \
                for (int x = 0; x < d->local[0]; x++)                                              \
                    out[x] = (T)hx_initial_value(seed, row + (uint64_t)(d->offset[0] + x));        \
            }                                                                                      \
    }                                                                                              \
    static void sweep_##SUF(const hx_decomp *d, int stencil, const hx_box *b, const T *src, T *dst) \
    {                                                                                              \
        const long sy = d->alloc[0], sz = (long)d->alloc[0] * d->alloc[1];                         \
        const int x0 = b->lo[0], x1 = b->hi[0];                                                    \
        _Pragma("omp parallel for collapse(2) schedule(static)")                                   \
        for (int z = b->lo[2]; z < b->hi[2]; z++)                                                  \
            for (int y = b->lo[1]; y < b->hi[1]; y++) {                                            \
                const long row = hx_local_index(d, 0, y, z);                                       \
                const T *s = src + row;                                                            \
                T *o = dst + row;                                                                  \
                switch (stencil) {                                                                 \
                case HX_JACOBI5:                                                                   \
                    for (int x = x0; x < x1; x++) o[x] = hx_jacobi5_##SUF(s + x, sy);              \
                    break;                                                                         \
                case HX_JACOBI7:                                                                   \
                    for (int x = x0; x < x1; x++) o[x] = hx_jacobi7_##SUF(s + x, sy, sz);          \
                    break;                                                                         \
                case HX_STAR9:                                                                     \
                    for (int x = x0; x < x1; x++) o[x] = hx_star9_##SUF(s + x, sy);                \
                    break;                                                                         \
                default:                                                                           \
                    for (int x = x0; x < x1; x++) o[x] = hx_star13_##SUF(s + x, sy, sz);           \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
    }                                                                                              \
    /* an operator's terms over the box, row by row: each cell's sum is ((t0 + t1) + t2) + ... */  \
    static void sweep_op_##SUF(const hx_decomp *d, const hx_op_lin *l, const void *const *coef,    \
                               const hx_box *b, const T *src, T *dst)                              \
    {                                                                                              \
        const int x0 = b->lo[0], x1 = b->hi[0];                                                    \
        const T *const *a = (const T *const *)coef;                                                \
        _Pragma("omp parallel for collapse(2) schedule(static)")                                   \
        for (int z = b->lo[2]; z < b->hi[2]; z++)                                                  \
            for (int y = b->lo[1]; y < b->hi[1]; y++) {                                            \
                const long row = hx_local_index(d, 0, y, z);                                       \
                T *o = dst + row;                                                                  \
                for (int t = 0; t < l->n; t++) {                                                   \
                    const T w = (T)l->W[t];                                                        \
                    const T *s = src + row + l->off[t];                                            \
                    const T *c = l->coef[t] < 0 ? NULL : a[l->coef[t]] + row + l->coff[t];         \
                    if (t == 0 && !c)                                                              \
                        for (int x = x0; x < x1; x++) o[x] = w * s[x];                             \
                    else if (t == 0)                                                               \
                        for (int x = x0; x < x1; x++) o[x] = w * (c[x] * s[x]);                    \
                    else if (!c)                                                                   \
                        for (int x = x0; x < x1; x++) o[x] = o[x] + w * s[x];                      \
                    else                                                                           \
                        for (int x = x0; x < x1; x++) o[x] = o[x] + w * (c[x] * s[x]);             \
                }                                                                                  \
            }                                                                                      \
    }                                                                                              \
    static void move_box_##SUF(const hx_decomp *d, const hx_box *b, T *field, T *buf, int to_buf) \
    {                                                                                              \
        const int nx = b->hi[0] - b->lo[0], ny = b->hi[1] - b->lo[1];                              \
        for (int z = b->lo[2]; z < b->hi[2]; z++)                                                  \
            for (int y = b->lo[1]; y < b->hi[1]; y++) {                                            \
                T *f = field + hx_local_index(d, b->lo[0], y, z);                                  \
                T *p = buf + ((long)(z - b->lo[2]) * ny + (y - b->lo[1])) * nx;                    \
                if (to_buf) memcpy(p, f, (size_t)nx * sizeof(T));                                  \
                else memcpy(f, p, (size_t)nx * sizeof(T));                                         \
            }                                                                                      \
    }                                                                                              \
    static double diff_##SUF(const hx_decomp *d, const hx_box *b, const T *a, const T *c)          \
    {                                                                                              \
        double sum = 0;                                                                            \
        _Pragma("omp parallel for collapse(2) reduction(+ : sum) schedule(static)")                \
        for (int z = b->lo[2]; z < b->hi[2]; z++)                                                  \
            for (int y = b->lo[1]; y < b->hi[1]; y++)                                              \
                for (int x = b->lo[0]; x < b->hi[0]; x++) {                                        \
                    long i = hx_local_index(d, x, y, z);                                           \
                    double e = (double)a[i] - (double)c[i];                                        \
                    sum += e * e;                                                                  \
                }                                                                                  \
        return sum;                                                                                \
    }

DEFINE_CPU_KERNELS(float, f32, wf)
DEFINE_CPU_KERNELS(double, f64, wd)

static int cpu_init_field(hx_backend *bk, void *field, uint64_t seed)
{
    if (bk->dtype == HX_DOUBLE) init_f64(bk->decomp, field, seed);
    else init_f32(bk->decomp, field, seed);
    return 0;
}

static int cpu_sweep(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst)
{
    (void)stream;
    if (hx_box_cells(box) == 0) return 0;
    if (bk->op) {
        /* linear offsets for this view's geometry: a few hundred operations a sweep */
        hx_op_lin l;
        const hx_decomp *d = bk->decomp;
        hx_op_linearize(bk->op, d->alloc[0], (long)d->alloc[0] * d->alloc[1], &l);
        if (bk->dtype == HX_DOUBLE) sweep_op_f64(d, &l, bk->coef, box, src, dst);
        else sweep_op_f32(d, &l, bk->coef, box, src, dst);
        return 0;
    }
    if (bk->dtype == HX_DOUBLE) sweep_f64(bk->decomp, bk->stencil, box, src, dst);
    else sweep_f32(bk->decomp, bk->stencil, box, src, dst);
    return 0;
}

static int cpu_sweep_shell(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst)
{
    for (int i = 0; i < nbox; i++)
        if (cpu_sweep(bk, stream, &boxes[i], src, dst)) return -1;
    return 0;
}

static void move_phase(hx_backend *bk, const hx_phase *ph, void *field, void *buf, int to_buf)
{
    /* messages are independent: one thread each */
#pragma omp parallel for schedule(dynamic)
    for (int m = 0; m < ph->nmsg; m++) {
        const hx_message *msg = &ph->msg[m];
        const hx_box *b = to_buf ? &msg->send_box : &msg->recv_box;
        if (bk->dtype == HX_DOUBLE) move_box_f64(bk->decomp, b, field, (double *)buf + msg->offset, to_buf);
        else move_box_f32(bk->decomp, b, field, (float *)buf + msg->offset, to_buf);
    }
}

static int cpu_pack(hx_backend *bk, int stream, const hx_phase *ph, const void *field, void *buf)
{
    (void)stream;
    move_phase(bk, ph, (void *)field, buf, 1);
    return 0;
}

static int cpu_unpack(hx_backend *bk, int stream, const hx_phase *ph, const void *buf, void *field)
{
    (void)stream;
    move_phase(bk, ph, field, (void *)buf, 0);
    return 0;
}

static int cpu_diff_norm2(hx_backend *bk, int stream, const hx_box *box, const void *a, const void *b, double *result)
{
    (void)stream;
    *result = bk->dtype == HX_DOUBLE ? diff_f64(bk->decomp, box, a, b) : diff_f32(bk->decomp, box, a, b);
    return 0;
}

static int cpu_record(hx_backend *bk, int stream, int event)
{
    (void)stream;
    ((cpu_state *)bk->impl)->stamp[event] = now();
    return 0;
}

static int cpu_nothing(hx_backend *bk, int stream, int event)
{
    (void)bk;
    (void)stream;
    (void)event;
    return 0;
}

static int cpu_sync(hx_backend *bk, int stream)
{
    (void)bk;
    (void)stream;
    return 0;
}

static int cpu_elapsed(hx_backend *bk, int a, int b, double *seconds)
{
    cpu_state *s = bk->impl;
    *seconds = s->stamp[b] - s->stamp[a];
    return 0;
}

static void *cpu_native_stream(hx_backend *bk, int stream)
{
    (void)bk;
    (void)stream;
    return NULL;
}

static void cpu_destroy(hx_backend *bk)
{
    free(bk->impl);
    bk->impl = NULL;
}

static const hx_backend_ops cpu_ops = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .alloc_host = cpu_alloc,
    .free_host = cpu_free,
    .to_host = cpu_copy_out,
    .to_device = cpu_copy_in,
    .copy = cpu_copy,
    .init_field = cpu_init_field,
    .sweep = cpu_sweep,
    .sweep_shell = cpu_sweep_shell,
    .pack = cpu_pack,
    .unpack = cpu_unpack,
    .diff_norm2 = cpu_diff_norm2,
    .record = cpu_record,
    .wait_event = cpu_nothing,
    .sync = cpu_sync,
    .elapsed = cpu_elapsed,
    .native_stream = cpu_native_stream,
    .destroy = cpu_destroy,
};

int hx_cpu_auto_threads(int mask_cores, int sharers)
{
    const int n = mask_cores / (sharers > 1 ? sharers : 1);
    return n > 1 ? n : 1;
}

int hx_cpu_thread_count(int requested, int automatic)
{
    if (requested > 0) return requested;
#ifdef _OPENMP
    /* OpenMP's own variable: a user who set it has chosen */
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && env[0]) return omp_get_max_threads();
#endif
    return automatic > 0 ? automatic : 1;
}

int hx_cpu_set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n > 0 ? n : 1);
    return omp_get_max_threads();
#else
    (void)n;
    return 1;
#endif
}

int hx_cpu_backend_create(hx_backend *bk, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    bk->ops = &cpu_ops;
    bk->device = -1;
    bk->host_accessible = 1;
    bk->impl = calloc(1, sizeof(cpu_state));
    return bk->impl ? 0 : -1;
}
