/* gray_scott: the Gray-Scott reaction-diffusion model (model.h) as a halox functor, swept by
 * hx_custom on the GPU: two state fields exchanged in one call per cycle, deep halos (--depth),
 * fused passes (--fuse), and with --schedule persistent one kernel for the whole run that exchanges
 * on the device (transport ipc unless --transport names another with a device path). Every --every
 * sweeps it writes v as DIR/v_SWEEP.npy (render.py makes PNGs).
 * --baseline runs the same model as a plain CUDA kernel of its own with hx_exchange_run per field
 * every sweep; --compare runs both from the same start and prints the time per sweep of each side
 * by side. At the end each run prints its fields' checksums (hx_field_checksum): the same at any
 * rank count, and the same for both runs (one expression, built with --fmad=false).
 *   mpirun -np 2 gray_scott [--size 512x512] [--sweeps 2000] [--depth 4] [--fuse 4] [--every 0]
 *                           [--schedule cycle|fused|persistent] [--out DIR] [--transport auto]
 *                           [--baseline | --compare] */
#include <cuda_runtime.h>
#include <halox/halox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

HX_DEFINE_KERNELS(gray_scott, float)

static const gray_scott model = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};

#define CUDA_OK(call)                                                                \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "gray_scott: %s: %s\n", #call, cudaGetErrorString(e_)); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)

struct opts {
    int n[2] = {512, 512};
    long sweeps = 2000, every = 0;
    int depth = 4, fuse = 4, baseline = 0, compare = 0;
    const char *out = ".", *transport = "auto";
    hx_schedule schedule = HX_SCHEDULE_CYCLE;
};

/* Every rank's owned cells of u and v at the start */
static void initial(const hx_decomp *d, const int n[2], float *u, float *v)
{
    for (int y = 0; y < d->local[1]; y++)
        for (int x = 0; x < d->local[0]; x++)
            gray_scott_initial(x + d->offset[0], y + d->offset[1], n[0], n[1], &u[x + (long)d->local[0] * y], &v[x + (long)d->local[0] * y]);
}

/* The baseline: one thread a cell of the owned box, the model's expression on the fields */
struct plain_in {
    const float *u, *v;
    long i, sy;
    __host__ __device__ float operator()(int f, int dx, int dy) const { return (f ? v : u)[i + dx + sy * dy]; }
};
__global__ void plain_kernel(const float *u, const float *v, float *u2, float *v2, int g, int nx, int ny, long sy, gray_scott m)
{
    const int x = g + (int)(blockIdx.x * blockDim.x + threadIdx.x), y = g + (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= g + nx || y >= g + ny) return;
    const plain_in in = {u, v, x + sy * y, sy};
    float o[2];
    m(in, o);
    u2[in.i] = o[0];
    v2[in.i] = o[1];
}

static int write_snapshot(hx_layout *l, const hx_field *v, const char *dir, long sweep)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/v_%06ld.npy", dir, sweep);
    return hx_field_write_npy(l, v, path);
}

/* The custom sweeper: returns seconds per sweep, the fields' checksums in sum */
static int run_custom(hx_context *ctx, hx_layout *l, const opts &o, double *per, uint64_t sum[2])
{
    const hx_decomp *d = hx_layout_decomp(l);
    hx_exchange_options xo = hx_exchange_defaults();
    /* the device schedules exchange from their kernel: a transport with a device path */
    xo.transport = o.schedule != HX_SCHEDULE_CYCLE && !strcmp(o.transport, "auto") ? "ipc" : o.transport;
    xo.nfields = 2;
    hx_exchange *x = NULL;
    hx_custom *s = NULL;
    hx_custom_options co = hx_custom_defaults();
    co.depth = o.depth;
    co.fuse = o.fuse;
    co.schedule = o.schedule;
    const long cells = (long)d->local[0] * d->local[1];
    float *u = (float *)malloc(cells * sizeof(float)), *v = (float *)malloc(cells * sizeof(float));
    int st = u && v ? hx_exchange_create_opts(l, &xo, &x) : HX_ERR_RUNTIME;
    if (st == HX_OK) st = hx_custom_create(l, x, &co, &hx_kernels_gray_scott, &model, &s);
    if (st == HX_OK) initial(d, o.n, u, v);
    if (st == HX_OK) st = hx_custom_set_field(s, 0, u);
    if (st == HX_OK) st = hx_custom_set_field(s, 1, v);
    if (st == HX_OK && o.every) st = write_snapshot(l, hx_custom_field(s, 1), o.out, 0);
    double busy = 0;
    for (long done = 0; st == HX_OK && done < o.sweeps;) {
        const long k = o.every && o.every < o.sweeps - done ? o.every : o.sweeps - done;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        st = hx_custom_iterate(s, k); /* returns with the stream synchronized */
        busy += MPI_Wtime() - t0;
        done += k;
        if (st == HX_OK && o.every) st = write_snapshot(l, hx_custom_field(s, 1), o.out, done);
    }
    if (st == HX_OK) st = hx_field_checksum(l, hx_custom_field(s, 0), &sum[0]);
    if (st == HX_OK) st = hx_field_checksum(l, hx_custom_field(s, 1), &sum[1]);
    *per = o.sweeps ? busy / o.sweeps : 0;
    hx_custom_destroy(s);
    if (x) hx_exchange_destroy(x);
    free(u);
    free(v);
    (void)ctx;
    return st;
}

/* The baseline: hx_exchange_run of u and of v, then the plain kernel, every sweep */
static int run_baseline(hx_context *ctx, hx_layout *l, const opts &o, double *per, uint64_t sum[2])
{
    const hx_decomp *d = hx_layout_decomp(l);
    hx_exchange *x = NULL;
    hx_field f[2][2] = {};
    const long cells = (long)d->local[0] * d->local[1];
    float *u = (float *)malloc(cells * sizeof(float)), *v = (float *)malloc(cells * sizeof(float));
    int st = u && v ? hx_exchange_create(l, o.transport, HX_STAGED, 1, &x) : HX_ERR_RUNTIME;
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++)
            if (st == HX_OK) st = hx_field_alloc(l, &f[b][i]);
    if (st == HX_OK) initial(d, o.n, u, v);
    if (st == HX_OK) st = hx_field_set_owned(l, &f[0][0], u);
    if (st == HX_OK) st = hx_field_set_owned(l, &f[0][1], v);
    cudaStream_t stream = (cudaStream_t)hx_context_stream(ctx);
    const int g = f[0][0].ghost, nx = d->local[0], ny = d->local[1];
    const long sy = f[0][0].pitch[0];
    int cur = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (long k = 0; st == HX_OK && k < o.sweeps; k++) {
        st = hx_exchange_run(x, &f[cur][0], NULL);
        if (st == HX_OK) st = hx_exchange_run(x, &f[cur][1], NULL);
        if (st != HX_OK) break;
        plain_kernel<<<dim3((nx + 31) / 32, (ny + 7) / 8), dim3(32, 8), 0, stream>>>(
            (const float *)f[cur][0].data, (const float *)f[cur][1].data, (float *)f[!cur][0].data, (float *)f[!cur][1].data, g, nx, ny, sy, model);
        CUDA_OK(cudaGetLastError());
        cur = !cur;
    }
    if (st == HX_OK) st = hx_context_sync(ctx);
    *per = o.sweeps ? (MPI_Wtime() - t0) / o.sweeps : 0;
    if (st == HX_OK) st = hx_field_checksum(l, &f[cur][0], &sum[0]);
    if (st == HX_OK) st = hx_field_checksum(l, &f[cur][1], &sum[1]);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++)
            if (f[b][i].data) hx_field_free(l, &f[b][i]);
    if (x) hx_exchange_destroy(x);
    free(u);
    free(v);
    return st;
}

static int parse(int argc, char **argv, opts &o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--baseline")) o.baseline = 1;
        else if (!strcmp(a, "--compare")) o.compare = 1;
        else if (v && !strcmp(a, "--size") && sscanf(v, "%dx%d", &o.n[0], &o.n[1]) == 2) i++;
        else if (v && !strcmp(a, "--sweeps")) o.sweeps = atol(argv[++i]);
        else if (v && !strcmp(a, "--depth")) o.depth = atoi(argv[++i]);
        else if (v && !strcmp(a, "--fuse")) o.fuse = atoi(argv[++i]);
        else if (v && !strcmp(a, "--every")) o.every = atol(argv[++i]);
        else if (v && !strcmp(a, "--out")) o.out = argv[++i];
        else if (v && !strcmp(a, "--transport")) o.transport = argv[++i];
        else if (v && !strcmp(a, "--schedule")) {
            const char *n = argv[++i];
            if (!strcmp(n, "cycle")) o.schedule = HX_SCHEDULE_CYCLE;
            else if (!strcmp(n, "fused")) o.schedule = HX_SCHEDULE_FUSED;
            else if (!strcmp(n, "persistent")) o.schedule = HX_SCHEDULE_PERSISTENT;
            else return 1;
        } else return 1;
    }
    return o.n[0] < 1 || o.n[1] < 1 || o.sweeps < 0 || o.every < 0 || o.depth < 1 || o.fuse < 1;
}

int main(int argc, char **argv)
{
    opts o;
    if (parse(argc, argv, o)) {
        fprintf(stderr, "usage: gray_scott [--size NXxNY] [--sweeps N] [--depth D] [--fuse F] [--every K] [--out DIR]\n"
                        "                  [--schedule cycle|fused|persistent] [--transport NAME] [--baseline | --compare]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    hx_context *ctx = NULL;
    hx_layout *l = NULL;
    hx_context_options co = hx_context_defaults();
    co.backend = HX_BACKEND_CUDA;
    int st = hx_context_create(MPI_COMM_WORLD, &co, &ctx);
    const int rank = st == HX_OK ? hx_context_rank(ctx) : 0;
    if (st == HX_OK) {
        hx_layout_desc ld = {};
        ld.dim = 2;
        ld.global[0] = o.n[0], ld.global[1] = o.n[1];
        ld.halo = o.baseline ? 1 : o.depth * gray_scott::radius;
        ld.dtype = HX_FLOAT;
        ld.boundary = HX_PERIODIC;
        st = hx_layout_create(ctx, &ld, &l);
    }
    uint64_t a[2] = {0, 0}, b[2] = {0, 0};
    double ta = 0, tb = 0;
    if (st == HX_OK && !o.baseline) st = run_custom(ctx, l, o, &ta, a);
    if (st == HX_OK && (o.baseline || o.compare)) st = run_baseline(ctx, l, o, &tb, b);
    int bad = 0;
    if (st != HX_OK) {
        if (rank == 0) fprintf(stderr, "gray_scott: %s\n", ctx ? hx_context_error(ctx) : "cannot create the context");
    } else if (rank == 0) {
        printf("gray_scott %dx%d, %ld sweeps, %d rank(s)\n", o.n[0], o.n[1], o.sweeps, hx_context_size(ctx));
        if (!o.baseline)
            printf("custom   %s depth %d fuse %d: %10.2f us/sweep  checksum u %016llx v %016llx\n", hx_schedule_name(o.schedule), o.depth,
                   o.fuse, ta * 1e6, (unsigned long long)a[0], (unsigned long long)a[1]);
        if (o.baseline || o.compare)
            printf("baseline plain kernel:    %10.2f us/sweep  checksum u %016llx v %016llx\n", tb * 1e6, (unsigned long long)b[0],
                   (unsigned long long)b[1]);
        if (o.compare) {
            bad = a[0] != b[0] || a[1] != b[1];
            printf("compare: %s, custom/baseline time %.3f\n", bad ? "checksums DIFFER" : "bit-identical", tb > 0 ? ta / tb : 0.0);
        }
    }
    if (l) hx_layout_destroy(l);
    hx_context_destroy(ctx);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return st != HX_OK ? 1 : bad;
}
