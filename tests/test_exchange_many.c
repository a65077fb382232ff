/* hx_exchange_run_many and per-axis layouts (public API), at any rank count (tests/exchange_many.sh,
 * tests/gpu_exchange_many.sh): fields whose owned cells encode (global x, y, z, field), 1 to 8 of
 * them of mixed float/double with pitches of their own, exchanged in one call; every cell of every
 * array is then checked: owned cells unchanged, a ghost cell holds its periodic neighbour's value
 * when it lies within its axes' halo widths and inside every fixed axis, else stays 0 (padding
 * too). Layouts: uniform halos and per-axis widths (2,1,0 / 0,3,1 / 1,1,1) with per-axis
 * boundaries; staged and direct; 2D and 3D; start/finish and run; n below nfields. run_many equals
 * n single-field exchanges bit for bit. Bad input (nfields, n, dtypes, halo_axis) is HX_ERR_INPUT
 * with one line, on every rank alike. A TRANSPORT that refuses (absent from this build, or not
 * usable here: mpi-cuda without a CUDA-aware MPI) is reported in one line and its status is the
 * exit code, with no exchange left to run. Usage: test_exchange_many [cpu|cuda [TRANSPORT]] */
#include <halox/halox.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HALOX_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "check_mpi.h"

static int rank_ = 0, on_gpu = 0;
static const char *transport = "mpi";

/* exact in float: every coordinate below 64, field below 32 */
static double encode(const int g[3], int field) { return 1.0 + g[0] + 64.0 * g[1] + 4096.0 * g[2] + 262144.0 * field; }

typedef struct {
    hx_field f;
    hx_dtype dt;
    size_t cells, esize;
    void *host; /* the expected array after the exchange */
} tfield;

static size_t planes(const hx_decomp *d, int dim, int ghost) { return dim == 3 ? (size_t)(d->local[2] + 2 * ghost) : 1; }

static void *dev_alloc(size_t bytes)
{
#ifdef HALOX_HAVE_CUDA
    void *p = NULL;
    if (on_gpu) return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
#endif
    return calloc(1, bytes);
}
static void dev_free(void *p)
{
#ifdef HALOX_HAVE_CUDA
    if (on_gpu) { cudaFree(p); return; }
#endif
    free(p);
}
static void dev_copy(void *dst, const void *src, size_t bytes, int to_dev)
{
#ifdef HALOX_HAVE_CUDA
    if (on_gpu) {
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(cudaMemcpy(dst, src, bytes, to_dev ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost) == cudaSuccess);
        return;
    }
#endif
    (void)to_dev;
    memcpy(dst, src, bytes);
}

/* Field k of dtype dt with ghost G and pitches padded by k: the initial array (owned cells
 * encoded, every other cell 0) on the device, the expected one in t->host. */
static void make_field(const hx_layout *l, const int width[3], const hx_boundary bnd[3], int k, hx_dtype dt, tfield *t)
{
    const hx_decomp *d = hx_layout_decomp(l);
    const hx_layout_desc *ld = hx_layout_describe(l);
    const int G = ld->halo, dim = ld->dim;
    t->dt = dt;
    t->esize = dt == HX_DOUBLE ? 8 : 4;
    t->f.ghost = G;
    t->f.pitch[0] = d->local[0] + 2 * G + k % 3;
    t->f.pitch[1] = d->local[1] + 2 * G + (k % 2);
    const int ext[3] = {t->f.pitch[0], dim == 3 ? t->f.pitch[1] : d->local[1] + 2 * G, (int)planes(d, dim, G)};
    t->cells = (size_t)ext[0] * ext[1] * ext[2];
    void *init = calloc(t->cells, t->esize);
    t->host = calloc(t->cells, t->esize);
    t->f.data = dev_alloc(t->cells * t->esize);
    CHECK(init && t->host && t->f.data);
    if (!init || !t->host || !t->f.data) return;
    for (int z = 0; z < ext[2]; z++)
        for (int y = 0; y < ext[1]; y++)
            for (int x = 0; x < ext[0]; x++) {
                const int c[3] = {x, y, z};
                int g[3] = {0, 0, 0}, owned = 1, filled = 1;
                for (int a = 0; a < dim; a++) {
                    const int rel = c[a] - G, n = d->local[a];
                    if (rel < -G || rel >= n + G) filled = 0, owned = 0; /* padding */
                    else if (rel < 0 || rel >= n) {
                        owned = 0;
                        const int dist = rel < 0 ? -rel : rel - n + 1;
                        g[a] = d->offset[a] + rel;
                        if (dist > width[a]) filled = 0;
                        else if (g[a] < 0 || g[a] >= d->global[a]) {
                            if (bnd[a] == HX_FIXED) filled = 0;
                            g[a] = (g[a] + d->global[a]) % d->global[a];
                        }
                    } else g[a] = d->offset[a] + rel;
                }
                const size_t i = (size_t)x + (size_t)ext[0] * ((size_t)y + (size_t)ext[1] * z);
                const double v = filled ? encode(g, k) : 0.0;
                if (dt == HX_DOUBLE) {
                    ((double *)t->host)[i] = v;
                    if (owned) ((double *)init)[i] = v;
                } else {
                    ((float *)t->host)[i] = (float)v;
                    if (owned) ((float *)init)[i] = (float)v;
                }
            }
    dev_copy(t->f.data, init, t->cells * t->esize, 1);
    free(init);
}

/* the field's array now equals the expected one; *bits gets a copy (caller frees) */
static int field_ok(const tfield *t, void **bits)
{
    void *got = malloc(t->cells * t->esize);
    if (!got) return 0;
    dev_copy(got, t->f.data, t->cells * t->esize, 0);
    const int ok = memcmp(got, t->host, t->cells * t->esize) == 0;
    if (bits) *bits = got;
    else free(got);
    return ok;
}

static void free_field(tfield *t)
{
    dev_free(t->f.data);
    free(t->host);
}

static hx_dtype dtype_of(int i, int salt) { return (i * 7 + salt) % 3 == 0 ? HX_DOUBLE : HX_FLOAT; }

/* nf fields over layout l: one run_many (or start_many + finish_many) of the first n, checked
 * cell by cell, and equal bit for bit to n single-field exchanges. halo: the exchange's (0: the
 * layout's). */
static void check_case(hx_layout *l, const char *what, hx_pattern pattern, int halo, int nf, int n, int split, int salt)
{
    const hx_layout_desc *ld = hx_layout_describe(l);
    int width[3] = {0, 0, 0};
    hx_boundary bnd[3] = {ld->boundary, ld->boundary, ld->boundary};
    for (int a = 0; a < ld->dim; a++) {
        width[a] = ld->per_axis ? ld->halo_axis[a] : ld->halo;
        if (halo > 0 && width[a] > halo) width[a] = halo;
        if (ld->per_axis) bnd[a] = ld->boundary_axis[a];
    }
    hx_dtype dt[HX_MAX_FIELDS];
    tfield tf[8], ts[8];
    hx_field many[8];
    for (int i = 0; i < nf; i++) dt[i] = dtype_of(i, salt);
    for (int i = 0; i < n; i++) {
        make_field(l, width, bnd, i, dt[i], &tf[i]);
        make_field(l, width, bnd, i, dt[i], &ts[i]);
        many[i] = tf[i].f;
    }
    hx_exchange_options o = hx_exchange_defaults();
    o.transport = transport;
    o.pattern = pattern;
    o.halo = halo;
    o.nfields = nf;
    o.dtypes = dt;
    hx_exchange *x = NULL;
    int st = hx_exchange_create_opts(l, &o, &x);
    CHECK_EQ(st, HX_OK);
    if (st == HX_OK) {
        if (split) {
            CHECK_EQ(hx_exchange_start_many(x, n, many, NULL), HX_OK);
            CHECK_EQ(hx_exchange_finish_many(x, n, many, NULL), HX_OK);
        } else {
            CHECK_EQ(hx_exchange_run_many(x, n, many, NULL), HX_OK);
            CHECK_EQ(hx_exchange_run_many(x, n, many, NULL), HX_OK); /* twice: the buffers are reused */
        }
    }
    hx_exchange_destroy(x);
    for (int i = 0; i < n; i++) {
        hx_exchange_options s = o;
        s.nfields = 1;
        s.dtypes = &dt[i];
        hx_exchange *y = NULL;
        CHECK_EQ(hx_exchange_create_opts(l, &s, &y), HX_OK);
        if (y) CHECK_EQ(hx_exchange_run(y, &ts[i].f, NULL), HX_OK);
        hx_exchange_destroy(y);
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        void *a = NULL, *b = NULL;
        const int ok = field_ok(&tf[i], &a), ok2 = field_ok(&ts[i], &b);
        if (!ok || !ok2 || !a || !b || memcmp(a, b, tf[i].cells * tf[i].esize)) bad++;
        free(a);
        free(b);
        free_field(&tf[i]);
        free_field(&ts[i]);
    }
    if (bad) {
        fprintf(stderr, "rank %d: %s, %s, halo %d: %d of %d fields (nfields %d) wrong\n", rank_, what,
                pattern == HX_DIRECT ? "direct" : "staged", halo, bad, n, nf);
        hx_test_failures++;
    }
}

static hx_layout *layout(hx_context *ctx, int dim, int per_axis, int halo, hx_boundary b, const int w[3], const hx_boundary ba[3])
{
    hx_layout_desc ld = {.dim = dim, .global = {23, 19, dim == 3 ? 13 : 1}, .halo = halo, .dtype = HX_FLOAT, .boundary = b};
    ld.per_axis = per_axis;
    for (int a = 0; per_axis && a < 3; a++) ld.halo_axis[a] = w[a], ld.boundary_axis[a] = ba[a];
    hx_layout *l = NULL;
    CHECK_EQ(hx_layout_create(ctx, &ld, &l), HX_OK);
    return l;
}

/* a bad exchange option set: HX_ERR_INPUT on every rank, one line naming `part` */
static void refused(hx_context *ctx, hx_layout *l, int nfields, const hx_dtype *dtypes, const char *part)
{
    hx_exchange_options o = hx_exchange_defaults();
    o.transport = transport;
    o.nfields = nfields;
    o.dtypes = dtypes;
    hx_exchange *x = NULL;
    CHECK_REFUSED(ctx, hx_exchange_create_opts(l, &o, &x), part);
    CHECK(x == NULL); /* a refused exchange is released by the library */
    hx_exchange_destroy(x);
}

/* The transport asked for: HX_OK, or its refusal, agreed by every rank, in one line, with *out
 * NULL (running a half-built exchange crashed a cuda mpi-cuda run on an MPI not CUDA-aware). */
static int transport_status(hx_context *ctx)
{
    hx_layout *l = layout(ctx, 2, 0, 1, HX_PERIODIC, NULL, NULL);
    hx_exchange_options o = hx_exchange_defaults();
    o.transport = transport;
    hx_exchange *x = NULL;
    const int st = l ? hx_exchange_create_opts(l, &o, &x) : HX_ERR_RUNTIME;
    CHECK(agreed(st));
    CHECK(st == HX_OK ? x != NULL : x == NULL);
    if (st != HX_OK) {
        const char *e = hx_context_error(ctx);
        CHECK(e[0] && !strchr(e, '\n'));
        if (rank_ == 0) fprintf(stderr, "test_exchange_many: error: %s\n", e);
    }
    hx_exchange_destroy(x);
    hx_layout_destroy(l);
    return st;
}

static void bad_inputs(hx_context *ctx, int nranks)
{
    hx_layout *l = layout(ctx, 2, 0, 1, HX_PERIODIC, NULL, NULL);
    if (!l) return;
    hx_dtype dt[HX_MAX_FIELDS + 1];
    for (int i = 0; i <= HX_MAX_FIELDS; i++) dt[i] = HX_FLOAT;
    refused(ctx, l, HX_MAX_FIELDS + 1, dt, "nfields");
    refused(ctx, l, -1, NULL, "nfields");
    dt[1] = (hx_dtype)7;
    refused(ctx, l, 2, dt, "dtypes[1]");
    dt[1] = rank_ == nranks - 1 ? HX_DOUBLE : HX_FLOAT; /* one rank disagrees */
    if (nranks > 1) refused(ctx, l, 2, dt, "differ between ranks");
    dt[1] = HX_FLOAT;
    /* n outside 1..nfields, on one-field and three-field exchanges */
    for (int nf = 1; nf <= 3; nf += 2) {
        hx_exchange_options o = hx_exchange_defaults();
        o.transport = transport;
        o.nfields = nf;
        hx_exchange *x = NULL;
        CHECK_EQ(hx_exchange_create_opts(l, &o, &x), HX_OK);
        hx_field f[4];
        for (int i = 0; i < 4; i++) CHECK_EQ(hx_field_alloc(l, &f[i]), HX_OK);
        const int bad_n[2] = {0, nf + 1};
        for (int k = 0; x && k < 2; k++) {
            CHECK_EQ(hx_exchange_run_many(x, bad_n[k], f, NULL), HX_ERR_INPUT);
            const char *e = hx_context_error(ctx);
            CHECK(strstr(e, "fields in one call") && !strchr(e, '\n'));
            CHECK_EQ(hx_exchange_start_many(x, bad_n[k], f, NULL), HX_ERR_INPUT);
        }
        if (x) CHECK_EQ(hx_exchange_run_many(x, nf, f, NULL), HX_OK);
        hx_exchange_destroy(x);
        for (int i = 0; i < 4; i++) hx_field_free(l, &f[i]);
    }
    hx_layout_destroy(l);
    /* halo_axis negative, or wider than a block */
    const int neg[3] = {1, -1, 0}, wide[3] = {1, 40, 0};
    const hx_boundary ba[3] = {HX_PERIODIC, HX_FIXED, HX_FIXED};
    for (int k = 0; k < 2; k++) {
        hx_layout_desc ld = {.dim = 2, .global = {23, 19, 1}, .dtype = HX_FLOAT, .per_axis = 1};
        for (int a = 0; a < 3; a++) ld.halo_axis[a] = k ? wide[a] : neg[a], ld.boundary_axis[a] = ba[a];
        hx_layout *b = NULL;
        CHECK_REFUSED(ctx, hx_layout_create(ctx, &ld, &b), k ? "40" : "halo_axis[1]");
        hx_layout_destroy(b);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    hx_context_options co = hx_context_defaults();
    co.backend = argc > 1 && !strcmp(argv[1], "cuda") ? HX_BACKEND_CUDA : HX_BACKEND_CPU;
    on_gpu = co.backend == HX_BACKEND_CUDA;
    if (argc > 2) transport = argv[2];
    else if (on_gpu) transport = "auto";
    hx_context *ctx = NULL;
    CHECK_EQ(hx_context_create(MPI_COMM_WORLD, &co, &ctx), HX_OK);
    if (!ctx) return 1;
    const int refusal = transport_status(ctx);
    const hx_boundary P = HX_PERIODIC, F = HX_FIXED;
    const struct {
        const char *name;
        int per_axis, halo;
        hx_boundary b;
        int w[3];
        hx_boundary ba[3];
    } lay[] = {
        {"uniform halo 2 periodic", 0, 2, P, {0, 0, 0}, {P, P, P}},
        {"uniform halo 1 fixed", 0, 1, F, {0, 0, 0}, {P, P, P}},
        {"per-axis 2,1,0 periodic x fixed y z", 1, 0, P, {2, 1, 0}, {P, F, F}},
        {"per-axis 0,3,1 periodic x y fixed z", 1, 0, P, {0, 3, 1}, {P, P, F}},
        {"per-axis 1,1,1 fixed x periodic y z", 1, 0, P, {1, 1, 1}, {F, P, P}},
        {"per-axis 1,2,2 fixed x y periodic z", 1, 0, P, {1, 2, 2}, {F, F, P}},
    };
    const int nlay = (int)(sizeof lay / sizeof *lay);
    int salt = 0;
    for (int dim = 2; refusal == HX_OK && dim <= 3; dim++)
        for (int k = 0; k < nlay; k++) {
            hx_layout *l = layout(ctx, dim, lay[k].per_axis, lay[k].halo, lay[k].b, lay[k].w, lay[k].ba);
            if (!l) continue;
            for (int pat = 0; pat < 2; pat++) {
                const hx_pattern pattern = pat ? HX_DIRECT : HX_STAGED;
                /* every count of fields on one layout per dim (on the cpu); three counts elsewhere */
                for (int nf = 1; nf <= 8; nf++) {
                    if ((k != 2 || on_gpu) && nf != 1 && nf != 3 && nf != 8) continue;
                    check_case(l, lay[k].name, pattern, 0, nf, nf, nf == 3, salt++);
                }
                check_case(l, lay[k].name, pattern, 0, 5, 2, 0, salt++);     /* n below nfields */
                if (k == 2 || k == 0) check_case(l, lay[k].name, pattern, 1, 4, 4, 0, salt++); /* a narrower exchange */
            }
            hx_layout_destroy(l);
        }
    if (!on_gpu && refusal == HX_OK) bad_inputs(ctx, nranks);
    hx_context_destroy(ctx);
    int mine = hx_test_failures, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (all == 0 && refusal != HX_OK) return refusal; /* refused cleanly: the status, on every rank */
    if (rank_ != 0) return mine ? 1 : 0;
    hx_test_failures = all;
    TEST_DONE();
}
