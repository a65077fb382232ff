/* CUDA backend: fields in device memory; sweeps, pack/unpack and reductions as kernels on
 * three streams (main at high priority, inner at low priority, comm).
 *
 * Sweep kernels: each thread owns V consecutive cells in x (one aligned 16-byte vector) and
 * marches along the slowest axis (y in 2D, z in 3D), keeping the 2R+1 vectors of that axis in
 * registers, so each cell is read from memory about once. Neighbours in x come from two scalar
 * loads per side that hit L1. The arithmetic is the shared expression tree of halox/stencil.h,
 * compiled with -fmad=false, so results match the CPU bit for bit. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compute/backend.h"

#define CU_TRY(bk, call)                                                                                   \
    do {                                                                                                   \
        cudaError_t e_ = (call);                                                                           \
        if (e_ != cudaSuccess) {                                                                           \
            snprintf((bk)->err, sizeof (bk)->err, "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
            return -1;                                                                                     \
        }                                                                                                  \
    } while (0)
#define CU_LAUNCHED(bk) CU_TRY(bk, cudaGetLastError())

typedef struct {
    cudaStream_t stream[HX_NUM_STREAMS]; /* what each slot runs on now */
    cudaStream_t own[HX_NUM_STREAMS];    /* the backend's own streams, destroyed at the end */
    cudaEvent_t event[HX_NUM_EVENTS];
    double *norm_dev;
    double *norm_host;
    int tile[6]; /* see tile_shape */
    cudaGraphExec_t graph[HX_MAX_GRAPHS];
} cuda_state;

static cuda_state *state(hx_backend *bk) { return (cuda_state *)bk->impl; }

/* ---------------------------------------------------------------- vector helpers */

template <typename T> struct vec16;
template <> struct vec16<float> { typedef float4 type; enum { n = 4 }; };
template <> struct vec16<double> { typedef double2 type; enum { n = 2 }; };

template <typename T> struct cells {
    T v[vec16<T>::n];
};

template <typename T> __device__ __forceinline__ cells<T> load_vec(const T *p)
{
    cells<T> c;
    typename vec16<T>::type raw = __ldg(reinterpret_cast<const typename vec16<T>::type *>(p));
    memcpy(c.v, &raw, sizeof raw);
    return c;
}

template <typename T> __device__ __forceinline__ cells<T> load_shared_vec(const T *p)
{
    cells<T> c;
    typename vec16<T>::type raw = *reinterpret_cast<const typename vec16<T>::type *>(p);
    memcpy(c.v, &raw, sizeof raw);
    return c;
}

template <typename T> __device__ __forceinline__ void store_cells(T *p, const cells<T> &c, int x0, int lo, int hi)
{
    const int V = vec16<T>::n;
    if (x0 >= lo && x0 + V <= hi) {
        typename vec16<T>::type raw;
        memcpy(&raw, c.v, sizeof raw);
        *reinterpret_cast<typename vec16<T>::type *>(p) = raw;
    } else {
#pragma unroll
        for (int i = 0; i < V; i++)
            if (x0 + i >= lo && x0 + i < hi) p[i] = c.v[i];
    }
}

/* The centre row of x values x0-R .. x0+V+R-1: R scalars each side of the aligned vector, which
 * hit L1 because the neighbouring lanes load them as vectors. Indices are clamped to the row so
 * that lanes whose cells lie outside the box never read outside the allocation (their results
 * are not stored). */
template <typename T, int R> struct xrow {
    T v[vec16<T>::n + 2 * R];
};

template <typename T, int R>
__device__ __forceinline__ xrow<T, R> load_xrow(const T *row, const cells<T> &centre, int x0, int pitch)
{
    const int V = vec16<T>::n;
    xrow<T, R> r;
#pragma unroll
    for (int i = 0; i < R; i++) {
        r.v[i] = __ldg(row + max(x0 - R + i, 0));
        r.v[R + V + i] = __ldg(row + min(x0 + V + i, pitch - 1));
    }
#pragma unroll
    for (int i = 0; i < V; i++) r.v[R + i] = centre.v[i];
    return r;
}

__device__ __forceinline__ float apply2(float w, float e, float s, float n, float ww, float ee, float ss, float nn, int R)
{
    return R == 1 ? hx_jacobi5v_f32(w, e, s, n) : hx_star9v_f32(w, e, s, n, ww, ee, ss, nn);
}
__device__ __forceinline__ double apply2(double w, double e, double s, double n, double ww, double ee, double ss,
                                         double nn, int R)
{
    return R == 1 ? hx_jacobi5v_f64(w, e, s, n) : hx_star9v_f64(w, e, s, n, ww, ee, ss, nn);
}
__device__ __forceinline__ float apply3(float w, float e, float s, float n, float d, float u, float ww, float ee,
                                        float ss, float nn, float dd, float uu, int R)
{
    return R == 1 ? hx_jacobi7v_f32(w, e, s, n, d, u) : hx_star13v_f32(w, e, s, n, d, u, ww, ee, ss, nn, dd, uu);
}
__device__ __forceinline__ double apply3(double w, double e, double s, double n, double d, double u, double ww,
                                         double ee, double ss, double nn, double dd, double uu, int R)
{
    return R == 1 ? hx_jacobi7v_f64(w, e, s, n, d, u) : hx_star13v_f64(w, e, s, n, d, u, ww, ee, ss, nn, dd, uu);
}

/* The V outputs of one vector: c is the centre row with R cells each side, w the 2R+1 vectors
 * along the marching axis (centre at w[R]), ys (3D) the vectors y-R .. y-1, y+1 .. y+R. For
 * R == 1 the distance-2 arguments are unused. */
template <typename T, int R>
__device__ __forceinline__ cells<T> stencil_row2(const xrow<T, R> &c, const cells<T> (&w)[2 * R + 1])
{
    cells<T> out;
#pragma unroll
    for (int i = 0; i < vec16<T>::n; i++) {
        const int k = R + i;
        out.v[i] = apply2(c.v[k - 1], c.v[k + 1], w[R - 1].v[i], w[R + 1].v[i], c.v[k - R], c.v[k + R], w[0].v[i],
                          w[2 * R].v[i], R);
    }
    return out;
}

template <typename T, int R>
__device__ __forceinline__ cells<T> stencil_row3(const xrow<T, R> &c, const cells<T> (&ys)[2 * R],
                                                 const cells<T> (&w)[2 * R + 1])
{
    cells<T> out;
#pragma unroll
    for (int i = 0; i < vec16<T>::n; i++) {
        const int k = R + i;
        out.v[i] = apply3(c.v[k - 1], c.v[k + 1], ys[R - 1].v[i], ys[R].v[i], w[R - 1].v[i], w[R + 1].v[i], c.v[k - R],
                          c.v[k + R], ys[0].v[i], ys[2 * R - 1].v[i], w[0].v[i], w[2 * R].v[i], R);
    }
    return out;
}

struct sweep_args {
    int lo[3], hi[3];
    int xbase;  /* lo[0] rounded down to a vector boundary */
    int pitch;  /* row length in cells */
    long sy, sz;
};

/* ---------------------------------------------------------------- 2D sweep: march in y
 * The row for the next step is loaded one step ahead, so a load is always in flight while a
 * row is computed: bytes in flight, not arithmetic, set the speed of these kernels. */

template <typename T, int R, int ROWS>
__global__ void __launch_bounds__(256) sweep2d(const T *__restrict__ src, T *__restrict__ dst, sweep_args a)
{
    const int V = vec16<T>::n;
    const int x0 = a.xbase + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int y0 = a.lo[1] + (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
    if (x0 >= a.hi[0] || y0 >= a.hi[1]) return;
    const int y1 = min(y0 + ROWS, a.hi[1]);
    const T *base = src + x0;
    cells<T> win[2 * R + 1]; /* rows y-R .. y+R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = load_vec(base + (long)(y0 - R + k) * a.sy);
    cells<T> ahead = load_vec(base + (long)(y0 + R) * a.sy);
    for (int y = y0; y < y1; y++) {
        win[2 * R] = ahead;
        if (y + 1 < y1) ahead = load_vec(base + (long)(y + 1 + R) * a.sy);
        xrow<T, R> c = load_xrow<T, R>(src + (long)y * a.sy, win[R], x0, a.pitch);
        store_cells(dst + (long)y * a.sy + x0, stencil_row2<T, R>(c, win), x0, a.lo[0], a.hi[0]);
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
}

/* ---------------------------------------------------------------- 2D, several sweeps in one pass
 * Temporal blocking for the sweeps of a deep-halo cycle: level j+1 (sweep k+j) is computed from
 * level j as the rows of level j come out, so the field is read and written once for L sweeps.
 * A warp owns a strip of 32 vectors and marches down y; each level keeps 2R+1 rows in registers
 * and takes its x neighbours from the adjacent lanes (shuffles). The outermost `margin` lanes of a
 * strip only feed their neighbours (their own cells lack the x neighbours after a level or two),
 * so strips overlap by 2*margin lanes. Each level's cells outside that sweep's box keep the value
 * of the source field, as in separate sweeps (fixed boundary cells stay 0); the arithmetic is the
 * shared expression tree, so the result is bit-identical to L separate sweeps. */

struct fused_args {
    int lo[HX_FUSE_MAX][2], hi[HX_FUSE_MAX][2]; /* the box of each level (sweep) */
    int xstart;                                  /* first output vector of strip 0 */
    int margin;                                  /* lanes of a strip that only feed neighbours */
    int pitch, rows;                             /* allocation: cells per row, rows */
    long sy;
};

template <typename T, int R>
__device__ __forceinline__ cells<T> level_row(const cells<T> (&w)[2 * R + 1])
{
    const int V = vec16<T>::n;
    xrow<T, R> c;
#pragma unroll
    for (int i = 0; i < R; i++) {
        c.v[i] = __shfl_up_sync(0xffffffffu, w[R].v[V - R + i], 1);
        c.v[R + V + i] = __shfl_down_sync(0xffffffffu, w[R].v[i], 1);
    }
#pragma unroll
    for (int i = 0; i < V; i++) c.v[R + i] = w[R].v[i];
    return stencil_row2<T, R>(c, w);
}

template <typename T, int R, int L, int ROWS>
__global__ void __launch_bounds__(128) sweep2d_fused(const T *__restrict__ src, T *__restrict__ dst, fused_args a)
{
    const int V = vec16<T>::n, m = a.margin, lane = threadIdx.x;
    const int x0 = a.xstart + ((int)blockIdx.x * (32 - 2 * m) + lane - m) * V; /* may lie left of the row */
    const int Y0 = a.lo[L - 1][1] + (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
    if (Y0 >= a.hi[L - 1][1]) return; /* the whole warp: shuffles stay complete */
    const int Y1 = min(Y0 + ROWS, a.hi[L - 1][1]);
    const T *col = src + min(max(x0, 0), a.pitch - V);
    cells<T> w[L][2 * R + 1]; /* w[j]: the last 2R+1 rows of level j (level 0 = src) */
#pragma unroll
    for (int j = 0; j < L; j++)
#pragma unroll
        for (int k = 0; k <= 2 * R; k++)
#pragma unroll
            for (int i = 0; i < V; i++) w[j][k].v[i] = (T)0;
    int t = Y0 - L * R; /* level-0 row loaded at this step; level j+1 is computed at row t-(j+1)R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) w[0][k] = load_vec(col + (long)(t + k) * a.sy);
    t += 2 * R;
    const int last = Y1 - 1 + L * R;
    cells<T> ahead = load_vec(col + (long)t * a.sy);
    for (; t <= last; t++) {
        w[0][2 * R] = ahead;
        if (t + 1 <= last) ahead = load_vec(col + (long)(t + 1) * a.sy);
#pragma unroll
        for (int j = 0; j < L; j++) {
            const int row = t - (j + 1) * R;
            cells<T> out = level_row<T, R>(w[j]);
            if (j + 1 < L) {
                /* cells outside this sweep's box keep the source value */
                const bool row_in = row >= a.lo[j][1] && row < a.hi[j][1];
                if (!row_in || x0 < a.lo[j][0] || x0 + V > a.hi[j][0]) {
                    const T *sr = src + (long)min(max(row, 0), a.rows - 1) * a.sy;
#pragma unroll
                    for (int i = 0; i < V; i++) {
                        const int x = x0 + i;
                        if (!row_in || x < a.lo[j][0] || x >= a.hi[j][0]) out.v[i] = __ldg(sr + min(max(x, 0), a.pitch - 1));
                    }
                }
                w[j + 1][2 * R] = out;
            } else if (row >= Y0 && lane >= m && lane < 32 - m) {
                store_cells(dst + (long)row * a.sy + x0, out, x0, a.lo[j][0], a.hi[j][0]);
            }
        }
#pragma unroll
        for (int j = 0; j < L; j++)
#pragma unroll
            for (int k = 0; k < 2 * R; k++) w[j][k] = w[j][k + 1];
    }
}

/* ---------------------------------------------------------------- 3D sweep: march in z
 * z neighbours from the register window, y neighbours as vectors (L1/L2 hits: the rows of
 * the block's other warps), both loaded one plane ahead. */

template <typename T, int R, int ZCHUNK>
__global__ void __launch_bounds__(256) sweep3d(const T *__restrict__ src, T *__restrict__ dst, sweep_args a)
{
    const int V = vec16<T>::n;
    const int x0 = a.xbase + (blockIdx.x * blockDim.x + threadIdx.x) * V;
    const int y = a.lo[1] + blockIdx.y * blockDim.y + threadIdx.y;
    const int z0 = a.lo[2] + blockIdx.z * ZCHUNK;
    if (x0 >= a.hi[0] || y >= a.hi[1] || z0 >= a.hi[2]) return;
    const int z1 = min(z0 + ZCHUNK, a.hi[2]);
    const T *base = src + x0 + (long)y * a.sy;
    cells<T> win[2 * R + 1]; /* planes z-R .. z+R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = load_vec(base + (long)(z0 - R + k) * a.sz);
    cells<T> ahead = load_vec(base + (long)(z0 + R) * a.sz);
    cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R of the current plane */
#pragma unroll
    for (int j = 0; j < R; j++) {
        ys[j] = load_vec(base + (long)z0 * a.sz - (long)(R - j) * a.sy);
        ys[R + j] = load_vec(base + (long)z0 * a.sz + (long)(j + 1) * a.sy);
    }
    for (int z = z0; z < z1; z++) {
        win[2 * R] = ahead;
        cells<T> cur_ys[2 * R]; /* this plane's; ys now takes the next plane's */
#pragma unroll
        for (int j = 0; j < 2 * R; j++) cur_ys[j] = ys[j];
        if (z + 1 < z1) {
            ahead = load_vec(base + (long)(z + 1 + R) * a.sz);
#pragma unroll
            for (int j = 0; j < R; j++) {
                ys[j] = load_vec(base + (long)(z + 1) * a.sz - (long)(R - j) * a.sy);
                ys[R + j] = load_vec(base + (long)(z + 1) * a.sz + (long)(j + 1) * a.sy);
            }
        }
        const T *plane = base + (long)z * a.sz;
        xrow<T, R> c = load_xrow<T, R>(plane - x0, win[R], x0, a.pitch);
        store_cells(dst + x0 + (long)y * a.sy + (long)z * a.sz, stencil_row3<T, R>(c, cur_ys, win), x0, a.lo[0], a.hi[0]);
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
}

/* ---------------------------------------------------------------- 3D sweep, pipelined through shared memory
 * A block owns a tile of 32 vectors x BY rows and marches along z. Each plane of the tile, with
 * R rows and one vector of halo on every side, is copied into a ring of shared-memory slots
 * with cp.async P planes ahead of the plane being computed, so bytes stay in flight without
 * holding registers, and the y and x neighbours come from shared memory instead of L1 misses.
 * The z neighbours stay in a register window. One barrier per plane; the slot refilled at step z
 * held plane z-1, which every thread finished with before that barrier. */

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

struct pipe_args {
    sweep_args s;
    int rows;  /* allocated rows (alloc[1]), to clamp halo rows of partial tiles */
    int chunk; /* planes per block */
};

template <typename T, int R, int P>
__global__ void __launch_bounds__(256) sweep3d_pipe(const T *__restrict__ src, T *__restrict__ dst, pipe_args pa)
{
    const int V = vec16<T>::n, NS = R + 1 + P, W = 34; /* vectors per smem row: 32 + one each side */
    const sweep_args &a = pa.s;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *ring = reinterpret_cast<T *>(smem_raw);
    const int by = blockDim.y, srows = by + 2 * R;
    const long slot_cells = (long)srows * W * V;
    const int tid = threadIdx.y * 32 + threadIdx.x, nthreads = 32 * by;
    const int xt = a.xbase + blockIdx.x * 32 * V; /* first cell of the tile */
    const int yt = a.lo[1] + blockIdx.y * by;
    const int z0 = a.lo[2] + blockIdx.z * pa.chunk;
    const int z1 = min(z0 + pa.chunk, a.hi[2]);
    const int x0 = xt + threadIdx.x * V, y = yt + threadIdx.y;
    const bool active = x0 < a.hi[0] && y < a.hi[1];

    /* copy plane z of the tile into its slot; halo reads are clamped into the allocation (their
     * values only feed cells outside the box, which are not stored) */
    auto fetch = [&](int z) {
        T *slot = ring + (long)((z - z0) % NS) * slot_cells;
        const T *plane = src + (long)z * a.sz;
        for (int i = tid; i < srows * W; i += nthreads) {
            const int r = i / W, c = i - r * W;
            const int gx = min(max(xt + (c - 1) * V, 0), a.pitch - V);
            const int gy = min(max(yt - R + r, 0), pa.rows - 1);
            cp_async16(slot + (long)i * V, plane + (long)gy * a.sy + gx);
        }
    };
#pragma unroll
    for (int k = 0; k < R + P; k++) {
        if (z0 + k < z1 + R) fetch(z0 + k);
        cp_async_commit();
    }
    cells<T> win[2 * R + 1]; /* planes z-R .. z+R of this thread's vector */
    const T *column = src + min(x0, a.pitch - V) + (long)min(y, pa.rows - 1) * a.sy;
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = load_vec(column + (long)(z0 - R + k) * a.sz);

    const int me = (threadIdx.y + R) * W + threadIdx.x + 1; /* this thread's vector in a slot */
    for (int z = z0; z < z1; z++) {
        cp_async_wait<P - 1>();
        __syncthreads();
        if (z + R + P < z1 + R) fetch(z + R + P);
        cp_async_commit();
        const T *cur = ring + (long)((z - z0) % NS) * slot_cells;
        const T *up = ring + (long)((z + R - z0) % NS) * slot_cells;
        win[2 * R] = load_shared_vec(up + (long)me * V);
        cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R */
#pragma unroll
        for (int j = 0; j < R; j++) {
            ys[j] = load_shared_vec(cur + (long)(me - (R - j) * W) * V);
            ys[R + j] = load_shared_vec(cur + (long)(me + (j + 1) * W) * V);
        }
        xrow<T, R> c;
#pragma unroll
        for (int i = 0; i < R; i++) {
            c.v[i] = cur[(long)me * V - R + i];
            c.v[R + V + i] = cur[(long)(me + 1) * V + i];
        }
#pragma unroll
        for (int i = 0; i < V; i++) c.v[R + i] = win[R].v[i];
        if (active) store_cells(dst + x0 + (long)y * a.sy + (long)z * a.sz, stencil_row3<T, R>(c, ys, win), x0, a.lo[0], a.hi[0]);
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
    cp_async_wait<0>();
}

/* Thin boxes (the boundary shell of an overlapped sweep): one thread per cell, every box of the
 * set in one launch. Same arithmetic through the pointer forms of halox/stencil.h. */
struct box_set {
    int n;
    int lo[HX_MAX_OUTER_BOXES][3], ext[HX_MAX_OUTER_BOXES][3];
    long first[HX_MAX_OUTER_BOXES + 1]; /* prefix sums of cell counts */
};

template <typename T>
__global__ void sweep_cells(const T *__restrict__ src, T *__restrict__ dst, box_set set, int stencil, long sy, long sz)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < set.first[set.n]; i += (long)gridDim.x * blockDim.x) {
        int b = 0;
        while (i >= set.first[b + 1]) b++;
        const long j = i - set.first[b], row = j / set.ext[b][0];
        const int x = set.lo[b][0] + (int)(j - row * set.ext[b][0]);
        const int y = set.lo[b][1] + (int)(row % set.ext[b][1]), z = set.lo[b][2] + (int)(row / set.ext[b][1]);
        const long f = x + sy * y + sz * z;
        if (sizeof(T) == 8) dst[f] = (T)hx_stencil_apply_f64(stencil, (const double *)src + f, sy, sz);
        else dst[f] = (T)hx_stencil_apply_f32(stencil, (const float *)src + f, sy, sz);
    }
}

/* Tile shape: threads per block in y (x is one warp of vectors) and cells each thread marches
 * along the slow axis. Longer marches re-read fewer of the 2R planes that start a march. */
typedef struct {
    int by2, chunk2; /* 2D: block 32 x by2, rows per thread */
    int by3, chunk3; /* 3D: block 32 x by3, planes per block */
    int pipe;        /* 3D: planes copied ahead through shared memory (1..3); 0 = register kernel;
                        -1 = by stencil: measured on an H200, the pipeline wins only for radius 2
                        in fp64 (77% vs 70% of copy bandwidth) and loses for radius 1 (66% vs 79%) */
    int sms;         /* multiprocessors: small boxes get shorter marches to fill them */
} tile_shape;

static tile_shape default_tiles(void)
{
    tile_shape t = {4, 8, 8, 16, -1, 132};
    /* HALOX_TILE="BY2,CHUNK2,BY3,CHUNK3[,PIPE]" overrides, for tuning runs of `halox roofline` */
    const char *e = getenv("HALOX_TILE");
    if (e) {
        tile_shape u = t;
        int n = sscanf(e, "%d,%d,%d,%d,%d", &u.by2, &u.chunk2, &u.by3, &u.chunk3, &u.pipe);
        if (n >= 4 && u.by2 >= 1 && u.by2 <= 8 && u.by3 >= 1 && u.by3 <= 8 && u.chunk2 >= 1 && u.chunk3 >= 1 &&
            u.pipe >= -1 && u.pipe <= 3)
            t = u;
        else
            fprintf(stderr, "halox: warning: HALOX_TILE='%s' ignored: give BY2,CHUNK2,BY3,CHUNK3[,PIPE] with BY in 1..8, PIPE in 0..3\n", e);
    }
    return t;
}

template <typename T, int R, int P>
static void launch_pipe(const hx_decomp *d, const hx_box *b, const T *src, T *dst, cudaStream_t st, int by,
                        const sweep_args &a, int groups, int chunk)
{
    pipe_args pa;
    pa.s = a;
    pa.rows = d->alloc[1];
    pa.chunk = chunk;
    const size_t smem = (size_t)(R + 1 + P) * (by + 2 * R) * 34 * 16;
    /* at most 6 slots x 12 rows x 544 bytes: below the 48 KiB that needs no opt-in */
    dim3 block(32, by);
    dim3 grid((groups + 31) / 32, (b->hi[1] - b->lo[1] + by - 1) / by, (b->hi[2] - b->lo[2] + chunk - 1) / chunk);
    sweep3d_pipe<T, R, P><<<grid, block, smem, st>>>(src, dst, pa);
}

template <typename T, int R, int CHUNK>
static void launch_chunk(const hx_decomp *d, const hx_box *b, const T *src, T *dst, cudaStream_t st, int by,
                         const sweep_args &a, int groups)
{
    dim3 block(32, by);
    if (d->dim == 2) {
        dim3 grid((groups + block.x - 1) / block.x, ((b->hi[1] - b->lo[1]) + block.y * CHUNK - 1) / (block.y * CHUNK));
        sweep2d<T, R, CHUNK><<<grid, block, 0, st>>>(src, dst, a);
    } else {
        dim3 grid((groups + block.x - 1) / block.x, (b->hi[1] - b->lo[1] + block.y - 1) / block.y,
                  (b->hi[2] - b->lo[2] + CHUNK - 1) / CHUNK);
        sweep3d<T, R, CHUNK><<<grid, block, 0, st>>>(src, dst, a);
    }
}

template <typename T, int R> static void launch_sweep(const hx_decomp *d, const hx_box *b, const T *src, T *dst,
                                                      cudaStream_t st, const tile_shape &t)
{
    const int V = vec16<T>::n;
    sweep_args a;
    for (int i = 0; i < 3; i++) {
        a.lo[i] = b->lo[i];
        a.hi[i] = b->hi[i];
    }
    a.xbase = b->lo[0] / V * V;
    a.pitch = d->alloc[0];
    a.sy = d->alloc[0];
    a.sz = (long)d->alloc[0] * d->alloc[1];
    const int groups = (b->hi[0] - a.xbase + V - 1) / V;
    const int by = d->dim == 2 ? t.by2 : t.by3;
    int chunk = d->dim == 2 ? t.chunk2 : t.chunk3;
    /* halve the march until the box gives every multiprocessor a few blocks */
    const long columns = (long)((groups + 31) / 32) * ((b->hi[1] - b->lo[1] + (d->dim == 2 ? 0 : by - 1)) / (d->dim == 2 ? 1 : by));
    const long slow = d->dim == 2 ? 1 : (b->hi[2] - b->lo[2]);
    while (chunk > 8) {
        long blocks = d->dim == 2 ? columns / ((long)by * chunk) : columns * ((slow + chunk - 1) / chunk);
        if (blocks >= 4L * t.sms) break;
        chunk /= 2;
    }
    const int pipe = t.pipe >= 0 ? t.pipe : (R == 2 && sizeof(T) == 8 ? 2 : 0);
    if (d->dim == 3 && pipe > 0) {
        if (pipe == 1) launch_pipe<T, R, 1>(d, b, src, dst, st, by, a, groups, chunk);
        else if (pipe == 2) launch_pipe<T, R, 2>(d, b, src, dst, st, by, a, groups, chunk);
        else launch_pipe<T, R, 3>(d, b, src, dst, st, by, a, groups, chunk);
        return;
    }
    switch (chunk) {
    case 8: launch_chunk<T, R, 8>(d, b, src, dst, st, by, a, groups); break;
    case 16: launch_chunk<T, R, 16>(d, b, src, dst, st, by, a, groups); break;
    case 32: launch_chunk<T, R, 32>(d, b, src, dst, st, by, a, groups); break;
    default: launch_chunk<T, R, 64>(d, b, src, dst, st, by, a, groups); break;
    }
}

template <typename T, int R, int L, int ROWS>
static void launch_fused_rows(const fused_args &a, int strips, int chunks, const T *src, T *dst, cudaStream_t st)
{
    dim3 block(32, 4), grid((unsigned)strips, (unsigned)((chunks + 3) / 4));
    sweep2d_fused<T, R, L, ROWS><<<grid, block, 0, st>>>(src, dst, a);
}

template <typename T, int R, int L>
static void launch_fused(const hx_decomp *d, const hx_box *boxes, const T *src, T *dst, cudaStream_t st, int sms)
{
    const int V = vec16<T>::n;
    const hx_box *out = &boxes[L - 1];
    fused_args a;
    for (int j = 0; j < L; j++)
        for (int i = 0; i < 2; i++) {
            a.lo[j][i] = boxes[j].lo[i];
            a.hi[j][i] = boxes[j].hi[i];
        }
    a.margin = (L * R + V - 1) / V;
    a.xstart = out->lo[0] / V * V;
    a.pitch = d->alloc[0];
    a.rows = d->alloc[1];
    a.sy = d->alloc[0];
    const int per_strip = 32 - 2 * a.margin;
    const int strips = ((out->hi[0] - a.xstart + V - 1) / V + per_strip - 1) / per_strip;
    const int ny = out->hi[1] - out->lo[1];
    /* long marches amortise the 2LR rows that start one; shorten them until the GPU is full */
    int rows = 64;
    while (rows > 16 && (long)strips * ((ny + rows - 1) / rows) < 16L * sms) rows /= 2;
    const int chunks = (ny + rows - 1) / rows;
    if (rows == 64) launch_fused_rows<T, R, L, 64>(a, strips, chunks, src, dst, st);
    else if (rows == 32) launch_fused_rows<T, R, L, 32>(a, strips, chunks, src, dst, st);
    else launch_fused_rows<T, R, L, 16>(a, strips, chunks, src, dst, st);
}

/* ---------------------------------------------------------------- pack / unpack: one launch per phase */

struct dev_msg {
    int lo[3];
    int nx, ny;
    long count, offset;
};
struct dev_phase {
    int n;
    dev_msg m[HX_MAX_MSGS];
};

template <typename T, bool TO_BUF>
__global__ void move_phase(T *__restrict__ field, T *__restrict__ buf, dev_phase ph, long sy, long sz)
{
    const dev_msg m = ph.m[blockIdx.y];
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < m.count; i += (long)gridDim.x * blockDim.x) {
        const long row = i / m.nx;
        const int x = (int)(i - row * m.nx), y = (int)(row % m.ny), z = (int)(row / m.ny);
        const long f = (m.lo[0] + x) + sy * (m.lo[1] + y) + sz * (m.lo[2] + z);
        if (TO_BUF) buf[m.offset + i] = field[f];
        else field[f] = buf[m.offset + i];
    }
}

static int launch_move(hx_backend *bk, int stream, const hx_phase *ph, void *field, void *buf, bool to_buf)
{
    if (ph->nmsg == 0) return 0;
    const hx_decomp *d = bk->decomp;
    dev_phase dp;
    long most = 0;
    dp.n = ph->nmsg;
    for (int i = 0; i < ph->nmsg; i++) {
        const hx_message *m = &ph->msg[i];
        const hx_box *b = to_buf ? &m->send_box : &m->recv_box;
        for (int a = 0; a < 3; a++) dp.m[i].lo[a] = b->lo[a];
        dp.m[i].nx = b->hi[0] - b->lo[0];
        dp.m[i].ny = b->hi[1] - b->lo[1];
        dp.m[i].count = m->count;
        dp.m[i].offset = m->offset;
        if (m->count > most) most = m->count;
    }
    const int threads = 256;
    long blocks = (most + threads - 1) / threads;
    if (blocks > 4096) blocks = 4096;
    dim3 grid((unsigned)blocks, (unsigned)ph->nmsg);
    const long sy = d->alloc[0], sz = (long)d->alloc[0] * d->alloc[1];
    cudaStream_t st = state(bk)->stream[stream];
    if (bk->dtype == HX_DOUBLE) {
        if (to_buf) move_phase<double, true><<<grid, threads, 0, st>>>((double *)field, (double *)buf, dp, sy, sz);
        else move_phase<double, false><<<grid, threads, 0, st>>>((double *)field, (double *)buf, dp, sy, sz);
    } else {
        if (to_buf) move_phase<float, true><<<grid, threads, 0, st>>>((float *)field, (float *)buf, dp, sy, sz);
        else move_phase<float, false><<<grid, threads, 0, st>>>((float *)field, (float *)buf, dp, sy, sz);
    }
    CU_LAUNCHED(bk);
    return 0;
}

/* ---------------------------------------------------------------- init and norm */

/* Owned cells from the seed; f points at the first owned cell. */
template <typename T>
__global__ void init_kernel(T *f, int lx, int gx, int gy, int ox, int oy, int oz, long sy, long sz,
                            unsigned long long seed)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= lx) return;
    const unsigned long long idx = (unsigned long long)(ox + x) +
                                   (unsigned long long)gx * ((unsigned long long)(oy + y) + (unsigned long long)gy * (unsigned long long)(oz + z));
    f[x + sy * y + sz * z] = (T)hx_initial_value(seed, idx);
}

template <typename T>
__global__ void diff_kernel(const T *a, const T *b, sweep_args r, double *out)
{
    __shared__ double part[256];
    double sum = 0;
    const long nx = r.hi[0] - r.lo[0], ny = r.hi[1] - r.lo[1], nz = r.hi[2] - r.lo[2], n = nx * ny * nz;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        const long row = i / nx;
        const long f = (r.lo[0] + i - row * nx) + r.sy * (r.lo[1] + row % ny) + r.sz * (r.lo[2] + row / ny);
        const double e = (double)a[f] - (double)b[f];
        sum += e * e;
    }
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

/* ---------------------------------------------------------------- ops */

static void *cu_alloc(hx_backend *bk, size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        snprintf(bk->err, sizeof bk->err, "cudaMalloc of %zu bytes failed on GPU %d", bytes, bk->device);
        return NULL;
    }
    if (cudaMemset(p, 0, bytes) != cudaSuccess) {
        cudaFree(p);
        return NULL;
    }
    return p;
}

static void cu_free(hx_backend *bk, void *p)
{
    (void)bk;
    cudaFree(p);
}

static void *cu_alloc_host(hx_backend *bk, size_t bytes)
{
    void *p = NULL;
    if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) {
        snprintf(bk->err, sizeof bk->err, "cudaMallocHost of %zu bytes failed", bytes);
        return NULL;
    }
    return p;
}

static void cu_free_host(hx_backend *bk, void *p)
{
    (void)bk;
    cudaFreeHost(p);
}

static int cu_to_host(hx_backend *bk, int stream, void *host, const void *dev, size_t bytes)
{
    CU_TRY(bk, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, state(bk)->stream[stream]));
    return 0;
}

static int cu_to_device(hx_backend *bk, int stream, void *dev, const void *host, size_t bytes)
{
    CU_TRY(bk, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, state(bk)->stream[stream]));
    return 0;
}

static int cu_copy(hx_backend *bk, int stream, void *dst, const void *src, size_t bytes)
{
    CU_TRY(bk, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, state(bk)->stream[stream]));
    return 0;
}

static int cu_init_field(hx_backend *bk, void *field, uint64_t seed)
{
    const hx_decomp *d = bk->decomp;
    cudaStream_t st = state(bk)->stream[HX_STREAM_MAIN];
    CU_TRY(bk, cudaMemsetAsync(field, 0, (size_t)hx_alloc_cells(d) * bk->elem, st));
    const long sy = d->alloc[0], sz = (long)d->alloc[0] * d->alloc[1];
    const long first = hx_local_index(d, d->ghost[0], d->ghost[1], d->ghost[2]);
    dim3 grid((d->local[0] + 255) / 256, d->local[1], d->local[2]);
    if (bk->dtype == HX_DOUBLE)
        init_kernel<double><<<grid, 256, 0, st>>>((double *)field + first, d->local[0], d->global[0], d->global[1],
                                                  d->offset[0], d->offset[1], d->offset[2], sy, sz, seed);
    else
        init_kernel<float><<<grid, 256, 0, st>>>((float *)field + first, d->local[0], d->global[0], d->global[1],
                                                 d->offset[0], d->offset[1], d->offset[2], sy, sz, seed);
    CU_LAUNCHED(bk);
    return 0;
}

static int cu_sweep(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst)
{
    if (hx_box_cells(box) == 0) return 0;
    const hx_decomp *d = bk->decomp;
    cudaStream_t st = state(bk)->stream[stream];
    const int r = hx_stencil_get(bk->stencil)->radius;
    const int *ti = state(bk)->tile;
    const tile_shape t = {ti[0], ti[1], ti[2], ti[3], ti[4], ti[5]};
    if (bk->dtype == HX_DOUBLE) {
        if (r == 1) launch_sweep<double, 1>(d, box, (const double *)src, (double *)dst, st, t);
        else launch_sweep<double, 2>(d, box, (const double *)src, (double *)dst, st, t);
    } else {
        if (r == 1) launch_sweep<float, 1>(d, box, (const float *)src, (float *)dst, st, t);
        else launch_sweep<float, 2>(d, box, (const float *)src, (float *)dst, st, t);
    }
    CU_LAUNCHED(bk);
    return 0;
}

/* levels sweeps (2..HX_FUSE_MAX/radius) in one pass; boxes[j] is the box of the j-th. 2D only. */
static int cu_sweep_fused(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst)
{
    const hx_decomp *d = bk->decomp;
    const int r = hx_stencil_get(bk->stencil)->radius;
    if (d->dim != 2 || levels < 2 || levels * r > HX_FUSE_MAX) {
        snprintf(bk->err, sizeof bk->err, "fused sweeps are 2D only, 2 to %d sweeps of radius %d (asked %d in %dD)",
                 HX_FUSE_MAX / r, r, levels, d->dim);
        return -1;
    }
    if (hx_box_cells(&boxes[levels - 1]) == 0) return 0;
    cudaStream_t st = state(bk)->stream[stream];
    const int sms = state(bk)->tile[5];
#define HX_FUSE_CASE(T, R, L)                                                                 \
    if (r == R && levels == L) launch_fused<T, R, L>(d, boxes, (const T *)src, (T *)dst, st, sms)
    if (bk->dtype == HX_DOUBLE) {
        HX_FUSE_CASE(double, 1, 2); else HX_FUSE_CASE(double, 1, 3); else HX_FUSE_CASE(double, 1, 4);
        else HX_FUSE_CASE(double, 2, 2);
    } else {
        HX_FUSE_CASE(float, 1, 2); else HX_FUSE_CASE(float, 1, 3); else HX_FUSE_CASE(float, 1, 4);
        else HX_FUSE_CASE(float, 2, 2);
    }
#undef HX_FUSE_CASE
    CU_LAUNCHED(bk);
    return 0;
}

static int cu_sweep_shell(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst)
{
    const hx_decomp *d = bk->decomp;
    box_set set;
    set.n = 0;
    set.first[0] = 0;
    for (int i = 0; i < nbox && i < HX_MAX_OUTER_BOXES; i++) {
        long n = hx_box_cells(&boxes[i]);
        if (n == 0) continue;
        for (int a = 0; a < 3; a++) {
            set.lo[set.n][a] = boxes[i].lo[a];
            set.ext[set.n][a] = boxes[i].hi[a] - boxes[i].lo[a];
        }
        set.first[set.n + 1] = set.first[set.n] + n;
        set.n++;
    }
    if (set.n == 0) return 0;
    long blocks = (set.first[set.n] + 255) / 256;
    if (blocks > 8192) blocks = 8192;
    const long sy = d->alloc[0], sz = (long)d->alloc[0] * d->alloc[1];
    cudaStream_t st = state(bk)->stream[stream];
    if (bk->dtype == HX_DOUBLE) sweep_cells<double><<<(unsigned)blocks, 256, 0, st>>>((const double *)src, (double *)dst, set, bk->stencil, sy, sz);
    else sweep_cells<float><<<(unsigned)blocks, 256, 0, st>>>((const float *)src, (float *)dst, set, bk->stencil, sy, sz);
    CU_LAUNCHED(bk);
    return 0;
}

static int cu_pack(hx_backend *bk, int stream, const hx_phase *ph, const void *field, void *buf)
{
    return launch_move(bk, stream, ph, (void *)field, buf, true);
}

static int cu_unpack(hx_backend *bk, int stream, const hx_phase *ph, const void *buf, void *field)
{
    return launch_move(bk, stream, ph, field, (void *)buf, false);
}

static int cu_sync(hx_backend *bk, int stream);

static int cu_diff_norm2(hx_backend *bk, int stream, const hx_box *box, const void *a, const void *b, double *result)
{
    cuda_state *s = state(bk);
    cudaStream_t st = s->stream[stream];
    const hx_decomp *d = bk->decomp;
    sweep_args r;
    for (int i = 0; i < 3; i++) {
        r.lo[i] = box->lo[i];
        r.hi[i] = box->hi[i];
    }
    r.sy = d->alloc[0];
    r.sz = (long)d->alloc[0] * d->alloc[1];
    CU_TRY(bk, cudaMemsetAsync(s->norm_dev, 0, sizeof(double), st));
    long n = hx_box_cells(box), blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    if (blocks < 1) blocks = 1;
    if (bk->dtype == HX_DOUBLE) diff_kernel<double><<<(unsigned)blocks, 256, 0, st>>>((const double *)a, (const double *)b, r, s->norm_dev);
    else diff_kernel<float><<<(unsigned)blocks, 256, 0, st>>>((const float *)a, (const float *)b, r, s->norm_dev);
    CU_LAUNCHED(bk);
    CU_TRY(bk, cudaMemcpyAsync(s->norm_host, s->norm_dev, sizeof(double), cudaMemcpyDeviceToHost, st));
    /* the reduction result is needed by the host at once (an MPI_Allreduce follows) */
    if (cu_sync(bk, stream)) return -1;
    *result = *s->norm_host;
    return 0;
}

static int cu_record(hx_backend *bk, int stream, int event)
{
    CU_TRY(bk, cudaEventRecord(state(bk)->event[event], state(bk)->stream[stream]));
    return 0;
}

static int cu_wait_event(hx_backend *bk, int stream, int event)
{
    CU_TRY(bk, cudaStreamWaitEvent(state(bk)->stream[stream], state(bk)->event[event], 0));
    return 0;
}

/* Waits on the device end in an error after HALOX_TIMEOUT seconds (default 60) instead of a hang:
 * a stream that never finishes is a neighbour's exchange that never arrived. */
typedef cudaError_t (*query_fn)(void *);
static cudaError_t query_stream(void *p) { return cudaStreamQuery((cudaStream_t)p); }
static cudaError_t query_event(void *p) { return cudaEventQuery((cudaEvent_t)p); }

static int wait_deadline(hx_backend *bk, query_fn query, void *what, const char *name)
{
    cudaError_t e = query(what);
    if (e == cudaSuccess) return 0;
    const double limit = hx_timeout_seconds();
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (e == cudaErrorNotReady) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > limit) {
            snprintf(bk->err, sizeof bk->err,
                     "GPU %d: %s did not complete within %.0f s: a neighbour's exchange never arrived "
                     "(raise HALOX_TIMEOUT if the run is just long)", bk->device, name, limit);
            return -1;
        }
        e = query(what);
    }
    CU_TRY(bk, e);
    return 0;
}

static int cu_sync(hx_backend *bk, int stream)
{
    return wait_deadline(bk, query_stream, (void *)state(bk)->stream[stream], "the work queued on a stream");
}

static int cu_elapsed(hx_backend *bk, int a, int b, double *seconds)
{
    float ms = 0;
    if (wait_deadline(bk, query_event, (void *)state(bk)->event[b], "a timed segment")) return -1;
    CU_TRY(bk, cudaEventElapsedTime(&ms, state(bk)->event[a], state(bk)->event[b]));
    *seconds = 1e-3 * (double)ms;
    return 0;
}

static void *cu_native_stream(hx_backend *bk, int stream) { return (void *)state(bk)->stream[stream]; }

/* Thread-local capture: calls of other threads (an MPI progress thread, say) stay outside it. */
static int cu_capture_begin(hx_backend *bk, int stream)
{
    CU_TRY(bk, cudaStreamBeginCapture(state(bk)->stream[stream], cudaStreamCaptureModeThreadLocal));
    return 0;
}

static int cu_capture_end(hx_backend *bk, int stream, int slot)
{
    cuda_state *s = state(bk);
    cudaGraph_t g = NULL;
    CU_TRY(bk, cudaStreamEndCapture(s->stream[stream], &g));
    if (s->graph[slot]) {
        cudaError_t e = cudaGraphExecDestroy(s->graph[slot]);
        s->graph[slot] = NULL;
        if (e != cudaSuccess) {
            cudaGraphDestroy(g);
            CU_TRY(bk, e);
        }
    }
    cudaError_t e = cudaGraphInstantiate(&s->graph[slot], g, 0);
    cudaError_t e2 = cudaGraphDestroy(g); /* the executable graph keeps what it needs */
    CU_TRY(bk, e);
    CU_TRY(bk, e2);
    /* upload now, so that the first replay costs no more than the others */
    CU_TRY(bk, cudaGraphUpload(s->graph[slot], s->stream[stream]));
    return 0;
}

static void cu_drop_graphs(hx_backend *bk)
{
    cuda_state *s = state(bk);
    for (int i = 0; i < HX_MAX_GRAPHS; i++)
        if (s->graph[i]) {
            cudaGraphExecDestroy(s->graph[i]);
            s->graph[i] = NULL;
        }
}

static int cu_graph_launch(hx_backend *bk, int stream, int slot)
{
    CU_TRY(bk, cudaGraphLaunch(state(bk)->graph[slot], state(bk)->stream[stream]));
    return 0;
}

static int cu_use_stream(hx_backend *bk, int stream, void *native)
{
    cuda_state *s = state(bk);
    s->stream[stream] = native ? (cudaStream_t)native : s->own[stream];
    return 0;
}

static void cu_destroy(hx_backend *bk)
{
    cuda_state *s = state(bk);
    if (!s) return;
    cudaDeviceSynchronize();
    for (int i = 0; i < HX_NUM_STREAMS; i++)
        if (s->own[i] || s->stream[i]) cudaStreamDestroy(s->own[i] ? s->own[i] : s->stream[i]);
    for (int i = 0; i < HX_NUM_EVENTS; i++)
        if (s->event[i]) cudaEventDestroy(s->event[i]);
    cu_drop_graphs(bk);
    if (s->norm_dev) cudaFree(s->norm_dev);
    if (s->norm_host) cudaFreeHost(s->norm_host);
    free(s);
    bk->impl = NULL;
}

static const hx_backend_ops cuda_ops = {
    "cuda",        cu_alloc,      cu_free,     cu_alloc_host,  cu_free_host, cu_to_host,
    cu_to_device,  cu_copy,       cu_init_field, cu_sweep,     cu_sweep_shell, cu_pack,
    cu_unpack,     cu_diff_norm2, cu_record,   cu_wait_event,  cu_sync,      cu_elapsed,
    cu_native_stream, cu_capture_begin, cu_capture_end, cu_graph_launch, cu_drop_graphs, cu_sweep_fused, cu_use_stream, cu_destroy,
};

extern "C" int hx_cuda_built(void) { return 1; }

extern "C" int hx_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* no driver or no device: clear the sticky state */
        return 0;
    }
    return n;
}

extern "C" int hx_cuda_backend_create(hx_backend *bk, int device, char *err, size_t errlen)
{
    bk->ops = &cuda_ops;
    bk->device = device;
    bk->host_accessible = 0;
    bk->async = 1;
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "cannot use GPU %d: %s: check --devices and CUDA_VISIBLE_DEVICES", device, cudaGetErrorString(e));
        return -1;
    }
    cuda_state *s = (cuda_state *)calloc(1, sizeof *s);
    bk->impl = s;
    const tile_shape t = default_tiles();
    s->tile[0] = t.by2, s->tile[1] = t.chunk2, s->tile[2] = t.by3, s->tile[3] = t.chunk3, s->tile[4] = t.pipe;
    s->tile[5] = t.sms;
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess && sms > 0) s->tile[5] = sms;
    int lo = 0, hi = 0;
    const char *step = "cudaDeviceGetStreamPriorityRange";
    e = cudaDeviceGetStreamPriorityRange(&lo, &hi);
    /* main carries packing and the boundary shell: highest priority; the interior yields to it */
    if (e == cudaSuccess) step = "cudaStreamCreateWithPriority", e = cudaStreamCreateWithPriority(&s->stream[HX_STREAM_MAIN], cudaStreamNonBlocking, hi);
    if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&s->stream[HX_STREAM_INNER], cudaStreamNonBlocking, lo);
    if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&s->stream[HX_STREAM_USER], cudaStreamNonBlocking, hi);
    for (int i = 0; i < HX_NUM_STREAMS; i++) s->own[i] = s->stream[i];
    for (int i = 0; i < HX_NUM_EVENTS && e == cudaSuccess; i++) {
        step = "cudaEventCreate";
        e = cudaEventCreateWithFlags(&s->event[i], i < HX_MAX_EVENTS ? cudaEventDefault : cudaEventDisableTiming);
    }
    if (e == cudaSuccess) step = "cudaMalloc", e = cudaMalloc(&s->norm_dev, sizeof(double));
    if (e == cudaSuccess) step = "cudaMallocHost", e = cudaMallocHost(&s->norm_host, sizeof(double));
    if (e != cudaSuccess) {
        snprintf(err, errlen, "setting up GPU %d failed in %s: %s", device, step, cudaGetErrorString(e));
        cu_destroy(bk);
        return -1;
    }
    return 0;
}

extern "C" void hx_cuda_print_info(FILE *out)
{
    int drv = 0, rt = 0, n = hx_cuda_device_count();
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    fprintf(out, "cuda       runtime %d.%d, driver %d.%d, built for sm_%s, %d GPU%s visible\n", rt / 1000, (rt % 1000) / 10,
            drv / 1000, (drv % 1000) / 10, HALOX_CUDA_ARCHS, n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
        fprintf(out, "  GPU %d    %s, %.1f GiB, %d SMs, cc %d.%d, PCI %04x:%02x:%02x\n", i, p.name,
                (double)p.totalGlobalMem / (1 << 30), p.multiProcessorCount, p.major, p.minor, p.pciDomainID,
                p.pciBusID, p.pciDeviceID);
    }
    if (n > 1) {
        fprintf(out, "  peer access (row can read/write column):\n        ");
        for (int j = 0; j < n; j++) fprintf(out, " %3d", j);
        fprintf(out, "\n");
        for (int i = 0; i < n; i++) {
            fprintf(out, "    %3d ", i);
            for (int j = 0; j < n; j++) {
                int ok = 0;
                if (i != j) cudaDeviceCanAccessPeer(&ok, i, j);
                fprintf(out, " %3s", i == j ? "-" : ok ? "yes" : "no");
            }
            fprintf(out, "\n");
        }
    }
}
