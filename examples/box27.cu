/* box27: a 27-point box stencil of the caller's own CUDA kernel with deep halos, on halox's public
 * API and the cuda backend (one GPU per rank). Halo 2: one exchange (hx_exchange_run on the
 * caller's stream, corners and edges included) feeds two sweeps, the first over the owned block
 * grown by one cell, the second over the owned block. Rank 0 then runs the same sweeps on the
 * whole periodic grid with a host loop (common/box27_check.h) and compares every cell, bit for bit
 * (the kernel is built with --fmad=false, so both round every product and sum alike); a mismatch
 * exits 1.
 *   mpirun -np 2 box27 [--size 64x48x40] [--cycles 5] [--transport auto] [--pattern staged|direct] */
#include <cuda_runtime.h>
#include <halox/halox.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/box27_check.h" /* options, initial field, the host loop that checks */

#define HALO 2

#define CUDA_OK(call)                                                                                   \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "box27: %s: %s\n", #call, cudaGetErrorString(e_));                          \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                               \
        }                                                                                               \
    } while (0)

/* The caller's stencil, on host and device: weights by distance class, one fixed order. */
__host__ __device__ static double box27(const double *p, long sy, long sz)
{
    const double w[4] = {0.4, 0.05, 0.015, 0.015}; /* centre, face, edge, corner: sum 1 */
    double s = 0.0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int k = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) + (dz < 0 ? -dz : dz);
                s += w[k] * p[dx + dy * sy + dz * sz];
            }
    return s;
}

/* One sweep over the box [lo, lo + n) of the arrays (first allocated cell), rows sy, planes sz apart. */
__global__ void sweep_kernel(const double *in, double *out, int lo, int nx, int ny, int nz, long sy, long sz)
{
    const int x = lo + blockIdx.x * blockDim.x + threadIdx.x, y = lo + blockIdx.y, z = lo + blockIdx.z;
    if (x >= lo + nx) return;
    const long i = x + y * sy + z * sz;
    out[i] = box27(in + i, sy, sz);
}

static void sweep(const hx_decomp *d, const hx_field *f, const void *in, void *out, int e, cudaStream_t st)
{
    const int nx = d->local[0] + 2 * e, ny = d->local[1] + 2 * e, nz = d->local[2] + 2 * e;
    const long sy = f->pitch[0], sz = (long)f->pitch[0] * f->pitch[1];
    sweep_kernel<<<dim3((nx + 127) / 128, ny, nz), 128, 0, st>>>((const double *)in, (double *)out, HALO - e, nx, ny, nz, sy, sz);
    CUDA_OK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    int n[3] = {64, 48, 40}, cycles = 5;
    const char *transport = "auto";
    hx_pattern pattern = HX_STAGED;
    if (box27_options(argc, argv, "box27", n, &cycles, &transport, &pattern)) return 2;
    MPI_Init(&argc, &argv);
    hx_context *ctx = NULL;
    hx_layout *l = NULL;
    hx_exchange *x = NULL;
    hx_field u = {0}, v = {0};
    double *owned = NULL, *global = NULL;
    int st, bad = 0, rank = 0;
    cudaStream_t stream = NULL;
    hx_context_options opts = hx_context_defaults();
    opts.backend = HX_BACKEND_CUDA; /* hx_context_create sets this rank's GPU */
    opts.log = hx_log_to_file;
    opts.log_user = stderr;
    if ((st = hx_context_create(MPI_COMM_WORLD, &opts, &ctx)) == HX_OK) {
        rank = hx_context_rank(ctx);
        CUDA_OK(cudaStreamCreate(&stream));
        hx_layout_desc desc = {};
        desc.dim = 3;
        desc.global[0] = n[0], desc.global[1] = n[1], desc.global[2] = n[2];
        desc.halo = HALO;
        desc.dtype = HX_DOUBLE;
        desc.boundary = HX_PERIODIC;
        st = hx_layout_create(ctx, &desc, &l);
    }
    if (st == HX_OK) st = hx_exchange_create(l, transport, pattern, 0, &x);
    if (st == HX_OK && (st = hx_field_alloc(l, &u)) == HX_OK) st = hx_field_alloc(l, &v);
    const hx_decomp *d = st == HX_OK ? hx_layout_decomp(l) : NULL;
    if (st == HX_OK) {
        owned = (double *)malloc((size_t)d->local[0] * d->local[1] * d->local[2] * sizeof *owned);
        global = (double *)malloc((size_t)n[0] * n[1] * n[2] * sizeof *global);
        if (!owned || !global) fprintf(stderr, "box27: out of memory\n"), MPI_Abort(MPI_COMM_WORLD, 1);
        box27_initial_owned(d, owned);
        st = hx_field_set_owned(l, &u, owned);
    }
    for (int c = 0; c < cycles && st == HX_OK; c++) {
        if ((st = hx_exchange_run(x, &u, stream)) != HX_OK) break; /* ordered on our stream */
        sweep(d, &u, u.data, v.data, 1, stream);                    /* v valid on owned + 1 */
        sweep(d, &u, v.data, u.data, 0, stream);                    /* u valid on owned */
    }
    if (st == HX_OK) {
        CUDA_OK(cudaStreamSynchronize(stream));
        st = hx_exchange_check(x);
    }
    if (st == HX_OK) st = hx_field_gather(l, &u, global);
    if (st != HX_OK) {
        fprintf(stderr, "box27: %s\n", ctx ? hx_context_error(ctx) : "no context");
        bad = 1;
    } else if (rank == 0) {
        const long diff = box27_check(global, n, 2 * cycles, box27, "box27");
        printf("box27: %d ranks, %s, %dx%dx%d, %d exchanges of halo %d, %d sweeps: %s (%ld cells differ)\n", hx_context_size(ctx),
               hx_exchange_transport(x), n[0], n[1], n[2], cycles, HALO, 2 * cycles,
               diff ? "MISMATCH" : "bit-identical to the host loop", diff);
        bad = diff != 0;
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(owned);
    free(global);
    if (l) hx_field_free(l, &u), hx_field_free(l, &v);
    hx_exchange_destroy(x);
    hx_layout_destroy(l);
    if (stream) cudaStreamDestroy(stream);
    hx_context_destroy(ctx);
    MPI_Finalize();
    return bad;
}
