/* halox mg: the CUDA kernels (device fields, the halox context's stream). Each thread evaluates
 * the same expression of mg_cell.h as the CPU loop (mg_cpu.c); compiled with -fmad=false, so the
 * fields are bit-identical to the CPU's. Reductions: one thread per (i, k) column sums over j in
 * order, the columns come to pinned host memory and are added in order on the host. Timing
 * marks are CUDA events recorded on the stream. */
#ifdef MG_CUDA_EMULATE
#include "mg_cuda_emu.h" /* tests/emu: the same code on the host, for tests without a GPU */
#else
#include <cuda_runtime.h>
#define LAUNCH(kernel, grid, block, stream, ...) kernel<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#define LAUNCH_BLOCKS LAUNCH /* a kernel whose threads meet at __syncthreads */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mg_cell.h"

namespace {

struct cu_state {
    cudaStream_t st;
    double *dpart;  /* device: 2 * max_partials (sums, then maxima) */
    double *hpart;  /* pinned host copy */
    cudaEvent_t ev[MG_MARKS];
    int nev;        /* events created */
#ifndef MG_CUDA_EMULATE
    cudaGraphExec_t graph[MG_GRAPHS]; /* mg_graphs.c's stretches of an F-cycle */
#endif
};

cu_state *ST(mg_kctx *k) { return (cu_state *)k->impl; }

int fail(mg_kctx *k, cudaError_t e, const char *what)
{
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) dev = -1;
    snprintf(k->err, sizeof k->err, "%s on GPU %d failed: %s", what, dev, cudaGetErrorString(e));
    return -1;
}

#define CU(k, call, what)                                 \
    do {                                                  \
        cudaError_t e_ = (call);                          \
        if (e_ != cudaSuccess) return fail(k, e_, what); \
    } while (0)
/* after a kernel launch */
#define LAUNCHED(k, what) CU(k, cudaGetLastError(), what)

#include "mg_cuda_kernels.cuh"
#include "mg_cuda_gsrb2.cuh"

/* ---- launch helpers */

const int BX = 64, BY = 4;

/* a grid over nx x ny x nz cells, x and y in blocks of BX x BY, one z plane per block row */
dim3 cells_grid(int nx, int ny, int nz)
{
    return dim3((unsigned)((nx + BX - 1) / BX), (unsigned)((ny + BY - 1) / BY), (unsigned)nz);
}
dim3 cells_grid(const mg_geom *g) { return cells_grid(g->n[0], g->n[1], g->n[2]); }
const dim3 cells_block(BX, BY, 1);

/* columns (i, k) to the host, then summed in order */
int columns_to_host(mg_kctx *k, long n, int both)
{
    cu_state *s = ST(k);
    CU(k, cudaMemcpyAsync(s->hpart, s->dpart, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost, s->st),
       "copying partial sums to the host");
    if (both)
        CU(k, cudaMemcpyAsync(s->hpart + k->max_partials, s->dpart + k->max_partials, sizeof(double) * (size_t)n,
                              cudaMemcpyDeviceToHost, s->st),
           "copying partial maxima to the host");
    CU(k, cudaStreamSynchronize(s->st), "waiting for a reduction");
    return 0;
}

/* ---- the operations */

int cu_init(mg_kctx *k, void *stream, long max_partials)
{
    k->stream = stream;
    k->max_partials = max_partials > 0 ? max_partials : 1;
    k->err[0] = 0;
    cu_state *s = (cu_state *)calloc(1, sizeof *s);
    k->impl = s;
    if (!s) return snprintf(k->err, sizeof k->err, "out of host memory for the CUDA kernels' state"), -1;
    s->st = (cudaStream_t)stream;
    const size_t bytes = sizeof(double) * 2 * (size_t)k->max_partials;
    CU(k, cudaMalloc((void **)&s->dpart, bytes), "cudaMalloc of the reduction buffer");
    CU(k, cudaMallocHost((void **)&s->hpart, bytes), "cudaMallocHost of the reduction buffer");
    for (; s->nev < MG_MARKS; s->nev++) CU(k, cudaEventCreate(&s->ev[s->nev]), "cudaEventCreate");
    return 0;
}

void cu_fini(mg_kctx *k)
{
    cu_state *s = ST(k);
    if (!s) return;
    /* release errors are not actionable here; the state is dropped either way */
    for (int i = 0; i < s->nev; i++) (void)cudaEventDestroy(s->ev[i]);
#ifndef MG_CUDA_EMULATE
    for (int i = 0; i < MG_GRAPHS; i++)
        if (s->graph[i]) (void)cudaGraphExecDestroy(s->graph[i]);
#endif
    if (s->dpart) (void)cudaFree(s->dpart);
    if (s->hpart) (void)cudaFreeHost(s->hpart);
    free(s);
    k->impl = NULL;
}

int cu_sync(mg_kctx *k)
{
    CU(k, cudaStreamSynchronize(ST(k)->st), "cudaStreamSynchronize");
    return 0;
}

int cu_mark(mg_kctx *k, int slot)
{
    CU(k, cudaEventRecord(ST(k)->ev[slot], ST(k)->st), "cudaEventRecord");
    return 0;
}

int cu_elapsed(mg_kctx *k, int a, int b, double *sec)
{
    float ms = 0;
    CU(k, cudaEventElapsedTime(&ms, ST(k)->ev[a], ST(k)->ev[b]), "cudaEventElapsedTime");
    *sec = 1e-3 * (double)ms;
    return 0;
}

int cu_zero(mg_kctx *k, const mg_geom *g, double *a)
{
    CU(k, cudaMemsetAsync(a - g->base, 0, sizeof(double) * (size_t)g->cells, ST(k)->st), "cudaMemsetAsync");
    return 0;
}

int cu_copy(mg_kctx *k, const mg_geom *g, double *dst, const double *src)
{
    CU(k, cudaMemcpyAsync(dst - g->base, src - g->base, sizeof(double) * (size_t)g->cells, cudaMemcpyDeviceToDevice,
                          ST(k)->st),
       "cudaMemcpyAsync");
    return 0;
}

int cu_bc(mg_kctx *k, const mg_geom *g, double *a)
{
    int any = 0, w = 0, h = 0, lo[3], hi[3]; /* the largest extended face plane (k_bc) */
    for (int d = 0; d < 3; d++) any |= g->bnd_lo[d] | g->bnd_hi[d];
    if (!any) return 0;
    mg_box(g, g->ghost - 1, lo, hi);
    for (int d = 0; d < 3; d++) {
        const int u = d == 0 ? 1 : 0, v = d == 2 ? 1 : 2;
        if (hi[u] - lo[u] + 3 > w) w = hi[u] - lo[u] + 3;
        if (hi[v] - lo[v] + 3 > h) h = hi[v] - lo[v] + 3;
    }
    /* one launch for the six faces (k_bc): a coarse level's exchange is bound by launches */
    LAUNCH(k_bc, dim3((w + 31) / 32, (h + 7) / 8, 6), dim3(32, 8), ST(k)->st, *g, a);
    LAUNCHED(k, "boundary kernel");
    return 0;
}

int cu_gsrb(mg_kctx *k, const mg_geom *g, const mg_op *A, double *u, const double *f, int colour, int ring)
{
    int lo[3], hi[3];
    mg_box(g, ring, lo, hi);
    const int half = (hi[0] - lo[0] + 2) / 2 + 1; /* cells of one colour in a row, at most */
    LAUNCH(k_gsrb, cells_grid(half, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1), cells_block, ST(k)->st, *g, *A, u, f, colour,
           ring);
    LAUNCHED(k, "smoothing kernel");
    return 0;
}

/* k_gsrb2 over E = mg_box(ring) and one layer around it; z chunks of at most 64 planes, halved
 * while the grid has fewer than 2048 blocks (a few per SM), down to 8 */
int cu_gsrb2(mg_kctx *k, const mg_geom *g, const mg_op *A, double *un, const double *uo, const double *f, int ring)
{
    int lo[3], hi[3];
    mg_box(g, ring, lo, hi);
    const int ez = hi[2] - lo[2] + 3; /* E's planes; its rows and columns in tiles of G2_TY - 2, G2_W - 2 */
    const int tx = (hi[0] - lo[0] + 3 + G2_W - 3) / (G2_W - 2), ty = (hi[1] - lo[1] + 3 + G2_TY - 3) / (G2_TY - 2);
    int tz = 64;
    while (tz > 8 && (long)tx * ty * ((ez + tz - 1) / tz) < 2048) tz /= 2;
    const dim3 grid((unsigned)tx, (unsigned)ty, (unsigned)((ez + tz - 1) / tz));
    LAUNCH_BLOCKS(k_gsrb2, grid, dim3(G2_TX, G2_TY), ST(k)->st, *g, *A, un, uo, f, ring, tz);
    LAUNCHED(k, "smoothing kernel (both colours)");
    return 0;
}

int cu_gsrb_boxes(mg_kctx *k, const mg_geom *g, const mg_op *A, double *u, const double *f, int colour, const mg_boxes *b)
{
    long total = 0;
    for (int q = 0; q < b->n; q++) total += mg_box_slots(b, q);
    if (total == 0) return 0;
    LAUNCH(k_gsrb_boxes, dim3((unsigned)((total + 255) / 256)), dim3(256), ST(k)->st, *g, *A, u, f, colour, *b, total);
    LAUNCHED(k, "smoothing kernel (boxes)");
    return 0;
}

int cu_residual(mg_kctx *k, const mg_geom *g, const mg_op *A, double *r, const double *u, const double *f)
{
    LAUNCH(k_residual, cells_grid(g), cells_block, ST(k)->st, *g, *A, r, u, f);
    LAUNCHED(k, "residual kernel");
    return 0;
}

int cu_cheby(mg_kctx *k, const mg_geom *g, const mg_op *A, double *unew, double *d, const double *u, const double *f,
             double c1, double c2, int first, int ring)
{
    int lo[3], hi[3];
    mg_box(g, ring, lo, hi);
    LAUNCH(k_cheby, cells_grid(hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1), cells_block, ST(k)->st, *g, *A,
           unew, d, u, f, c1, c2, first, ring);
    LAUNCHED(k, "Chebyshev kernel");
    return 0;
}

int cu_restrict8(mg_kctx *k, const mg_geom *F, const double *r, const mg_geom *C, double *fc)
{
    LAUNCH(k_restrict8, cells_grid(C), cells_block, ST(k)->st, *F, r, *C, fc);
    LAUNCHED(k, "restriction kernel");
    return 0;
}

int cu_interp_pc(mg_kctx *k, const mg_geom *F, double *u, const mg_geom *C, const double *uc)
{
    LAUNCH(k_interp_pc, cells_grid(F), cells_block, ST(k)->st, *F, u, *C, uc);
    LAUNCHED(k, "interpolation kernel");
    return 0;
}

int cu_interp_linear(mg_kctx *k, const mg_geom *F, double *u, const mg_geom *C, const double *uc, int ring)
{
    int lo[3], hi[3];
    mg_box(F, ring, lo, hi);
    LAUNCH(k_interp_linear, cells_grid(hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1), cells_block, ST(k)->st, *F, u,
           *C, uc, ring);
    LAUNCHED(k, "linear interpolation kernel");
    return 0;
}

int cu_axpy2(mg_kctx *k, const mg_geom *g, double *u, double *r, const double *p, const double *q, double alpha)
{
    LAUNCH(k_axpy2, cells_grid(g), cells_block, ST(k)->st, *g, u, r, p, q, alpha);
    LAUNCHED(k, "CG update kernel");
    return 0;
}

int cu_xpby(mg_kctx *k, const mg_geom *g, double *p, const double *r, double beta)
{
    LAUNCH(k_xpby, cells_grid(g), cells_block, ST(k)->st, *g, p, r, beta);
    LAUNCHED(k, "CG direction kernel");
    return 0;
}

int cu_dot(mg_kctx *k, const mg_geom *g, const double *a, const double *b, double *sum)
{
    const long n = (long)g->n[0] * g->n[2];
    if (n > k->max_partials) return snprintf(k->err, sizeof k->err, "reduction of %ld columns: buffer too small", n), -1;
    LAUNCH(k_dot, dim3((unsigned)((g->n[0] + 127) / 128), (unsigned)g->n[2]), 128, ST(k)->st, *g, a, b, ST(k)->dpart);
    LAUNCHED(k, "dot product kernel");
    if (columns_to_host(k, n, 0)) return -1;
    *sum = mg_sum_partials(ST(k)->hpart, n);
    return 0;
}

int cu_set_rhs(mg_kctx *k, const mg_geom *g, const mg_pde *P, double *f)
{
    int lo[3], hi[3];
    mg_box(g, g->ghost - 1, lo, hi);
    LAUNCH(k_set_rhs, cells_grid(hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1), cells_block, ST(k)->st, *g, *P, f);
    LAUNCHED(k, "right-hand side kernel");
    return 0;
}

int cu_set_coefs(mg_kctx *k, const mg_geom *g, const mg_pde *P, double *alpha, double *bx, double *by, double *bz,
                 double *dinv)
{
    int lo[3], hi[3], m[3]; /* the cells of mg_box(ghost - 1) per axis */
    mg_box(g, g->ghost - 1, lo, hi);
    for (int d = 0; d < 3; d++) m[d] = hi[d] - lo[d] + 1;
    LAUNCH(k_set_beta, cells_grid(m[0] + 1, m[1] + 1, m[2] + 1), cells_block, ST(k)->st, *g, alpha, bx, by, bz);
    LAUNCHED(k, "coefficient kernel");
    mg_op A = {};
    A.helm = 1;
    A.a = P->a;
    A.b_ih2 = P->b * g->ih2;
    A.alpha = alpha;
    A.bx = bx;
    A.by = by;
    A.bz = bz;
    LAUNCH(k_set_dinv, cells_grid(m[0], m[1], m[2]), cells_block, ST(k)->st, *g, A, dinv);
    LAUNCHED(k, "diagonal kernel");
    return 0;
}

int cu_error(mg_kctx *k, const mg_geom *g, const double *u, double *sum2, double *maxabs)
{
    const long n = (long)g->n[0] * g->n[2];
    if (n > k->max_partials) return snprintf(k->err, sizeof k->err, "reduction of %ld columns: buffer too small", n), -1;
    cu_state *s = ST(k);
    LAUNCH(k_error, dim3((unsigned)((g->n[0] + 127) / 128), (unsigned)g->n[2]), 128, s->st, *g, u, s->dpart,
                                                                                          s->dpart + k->max_partials);
    LAUNCHED(k, "error kernel");
    if (columns_to_host(k, n, 1)) return -1;
    *sum2 = mg_sum_partials(s->hpart, n);
    double mx = 0;
    for (long i = 0; i < n; i++)
        if (s->hpart[k->max_partials + i] > mx) mx = s->hpart[k->max_partials + i];
    *maxabs = mx;
    return 0;
}

#ifndef MG_CUDA_EMULATE /* the host emulator has no graphs: mg then runs every F-cycle eagerly */
/* Thread-local capture: the work this thread issues on the stream (the kernels here and the
 * exchanges' launches inside hx_exchange_run) goes into the graph, not to the GPU. */
int cu_graph_begin(mg_kctx *k)
{
    CU(k, cudaStreamBeginCapture(ST(k)->st, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    return 0;
}

int cu_graph_launch(mg_kctx *k, int slot)
{
    cu_state *s = ST(k);
    if (!s->graph[slot]) return snprintf(k->err, sizeof k->err, "graph %d was never recorded", slot), -1;
    CU(k, cudaGraphLaunch(s->graph[slot], s->st), "cudaGraphLaunch");
    return 0;
}

int cu_graph_end(mg_kctx *k, int slot)
{
    cu_state *s = ST(k);
    cudaGraph_t g = NULL;
    CU(k, cudaStreamEndCapture(s->st, &g), "cudaStreamEndCapture");
    cudaGraphExec_t x = NULL;
    const cudaError_t e = cudaGraphInstantiate(&x, g, 0);
    const cudaError_t d = cudaGraphDestroy(g); /* the executable graph keeps what it needs */
    if (e != cudaSuccess) return fail(k, e, "cudaGraphInstantiate");
    const cudaError_t o = s->graph[slot] ? cudaGraphExecDestroy(s->graph[slot]) : cudaSuccess;
    s->graph[slot] = x;
    if (d != cudaSuccess) return fail(k, d, "cudaGraphDestroy");
    if (o != cudaSuccess) return fail(k, o, "cudaGraphExecDestroy");
    return cu_graph_launch(k, slot); /* the recording ran nothing: this first launch does the work */
}

void cu_graph_abort(mg_kctx *k)
{
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(ST(k)->st, &st) != cudaSuccess || st == cudaStreamCaptureStatusNone) return;
    cudaGraph_t g = NULL;
    if (cudaStreamEndCapture(ST(k)->st, &g) == cudaSuccess && g) (void)cudaGraphDestroy(g);
    (void)cudaGetLastError(); /* a failed capture's error is the one already reported */
}
#endif

mg_kernels make_table()
{
    mg_kernels t = {};
    t.name = "cuda";
    t.init = cu_init;
    t.fini = cu_fini;
    t.sync = cu_sync;
    t.mark = cu_mark;
    t.elapsed = cu_elapsed;
    t.zero = cu_zero;
    t.copy = cu_copy;
    t.bc = cu_bc;
    t.gsrb = cu_gsrb;
    t.gsrb_boxes = cu_gsrb_boxes;
    t.gsrb2 = cu_gsrb2;
    t.residual = cu_residual;
    t.cheby = cu_cheby;
    t.restrict8 = cu_restrict8;
    t.interp_pc = cu_interp_pc;
    t.interp_linear = cu_interp_linear;
    t.axpy2 = cu_axpy2;
    t.xpby = cu_xpby;
    t.dot = cu_dot;
    t.set_rhs = cu_set_rhs;
    t.set_coefs = cu_set_coefs;
    t.error = cu_error;
#ifndef MG_CUDA_EMULATE
    t.graph_begin = cu_graph_begin;
    t.graph_end = cu_graph_end;
    t.graph_launch = cu_graph_launch;
    t.graph_abort = cu_graph_abort;
#endif
    return t;
}

const mg_kernels cuda_table = make_table();

} // namespace

extern "C" const mg_kernels *mg_cuda_kernels(void) { return &cuda_table; }
