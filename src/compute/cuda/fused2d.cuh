/* The fused 2D body (temporal blocking): L sweeps in one pass, a warp marching a strip of 32 vectors down y. */
#ifndef HALOX_CUDA_FUSED2D_CUH
#define HALOX_CUDA_FUSED2D_CUH

#include "halox/types.h" /* hx_box, HX_FUSE_MAX */
#include "compute/cuda/common.cuh"
#include "compute/cuda/cp_async.cuh"

#include <limits.h>

/* Temporal blocking for the sweeps of a deep-halo cycle: level j+1 (sweep k+j) is computed from
 * level j as the rows of level j come out, so the field is read and written once for L sweeps.
 * A warp owns a strip of 32 vectors and marches down y; each level keeps 2R+1 rows in registers
 * and takes its x neighbours from the adjacent lanes (shuffles). The outermost `margin` lanes of a
 * strip only feed their neighbours (their own cells lack the x neighbours after a level or two),
 * so strips overlap by 2*margin lanes. Each level's cells outside that sweep's box keep the value
 * of the source field, as in separate sweeps (fixed boundary cells stay 0); the arithmetic is the
 * shared expression tree, so the result is bit-identical to L separate sweeps.
 *
 * Registers: L x (2R+1) vectors of 16 bytes per thread (L x R <= 8: at most 96 floats or 48
 * doubles), with no copies when the window advances: the march is unrolled by 2R+1 steps and
 * each step names its rows by (phase + k) mod (2R+1). Level-0 rows come through a queue of
 * fused2d_ring rows per thread in shared memory filled by cp.async (or 2R+1 rows ahead in
 * registers where that measured faster). Registers and spills: table in docs/design.md. */

struct fused_args {
    int lo[HX_FUSE_MAX][2], hi[HX_FUSE_MAX][2]; /* the box of each level (sweep) */
    int xstart;                                  /* first output vector of strip 0 */
    int margin;                                  /* lanes of a strip that only feed neighbours */
    int nested; /* every box lies R inside the one before on every side: no stored cell depends on a cell outside a box */
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

/* Cells of one level's row outside that sweep's box take the source value (clamped reads: lanes
 * outside the allocation only feed cells that are never stored). Its addresses come from opaque
 * copies, as in the 3D body, so that ptxas does not hoist them into the march's registers (fp32
 * N = 6: 148 -> 125 registers, 16 warps per multiprocessor instead of 12). That made most passes
 * faster; fp32 radius 1 with N = 4 loses with them, so only it keeps the plain addresses.
 * A tuning build may force either with HX_FUSED2D_OPAQUE=0 or 1. */
template <typename T, int R, int L> __host__ __device__ constexpr bool fused2d_opaque()
{
#ifdef HX_FUSED2D_OPAQUE
    return HX_FUSED2D_OPAQUE;
#else
    return !(sizeof(T) == 4 && R == 1 && L == 4);
#endif
}
template <typename T, int LD, bool OPAQUE>
__device__ __forceinline__ void keep_source(cells<T> &out, const T *__restrict__ src, const fused_args &a, int j, int row,
                                            bool row_in, int x0)
{
    if (OPAQUE) row = hx_opaque(row), x0 = hx_opaque(x0);
    const T *sr = src + (long)min(max(row, 0), a.rows - 1) * a.sy;
#pragma unroll
    for (int i = 0; i < vec16<T>::n; i++) {
        const int x = x0 + i;
        if (!row_in || x < a.lo[j][0] || x >= a.hi[j][0]) out.v[i] = ld_cell<LD>(sr + min(max(x, 0), a.pitch - 1));
    }
}

/* One step of the march: level-0 row t arrives (row0), level j+1 is computed at row
 * t-(j+1)R. P is the step's phase: row k of a window (k = 0 oldest) lives in slot (P+k) mod 2R+1.
 * FAST: a step whose cells need no fix-up (sweep2d_fused_body's fast rows), without its tests. */
template <typename T, int R, int L, int P, int LD, bool FAST = false>
__device__ __forceinline__ void fused2d_step(const T *__restrict__ src, T *__restrict__ dst, const fused_args &a,
                                             cells<T> (&w)[L][2 * R + 1], const cells<T> &row0, int t, int x0,
                                             unsigned xin, bool store_lane, int Y0)
{
    const int W = 2 * R + 1;
    w[0][(P + 2 * R) % W] = row0;
#pragma unroll
    for (int j = 0; j < L; j++) {
        cells<T> win[W];
#pragma unroll
        for (int k = 0; k < W; k++) win[k] = w[j][(P + k) % W];
        cells<T> out = level_row<T, R>(win);
        const int row = t - (j + 1) * R;
        if (j + 1 < L) {
            if (!FAST) {
                const bool row_in = (unsigned)(row - a.lo[j][1]) < (unsigned)(a.hi[j][1] - a.lo[j][1]);
                if (!row_in || !((xin >> j) & 1u)) keep_source<T, LD, fused2d_opaque<T, R, L>()>(out, src, a, j, row, row_in, x0);
            }
            w[j + 1][(P + 2 * R) % W] = out;
        } else if (store_lane && row >= Y0) {
            store_cells(dst + (long)row * a.sy + x0, out, x0, a.lo[j][0], a.hi[j][0]);
        }
    }
}

/* Where the march's level-0 rows come from, DQ steps ahead. DQ > 0: a queue of DQ rows per thread
 * in shared memory (ring: DQ x nthreads vectors, slot k of thread `tid` at (k nthreads + tid) V),
 * filled by cp.async, so more bytes stay in flight without registers; a thread reads only the
 * copies it issued, after the wait that covers them: no barrier. take<P>(t) returns row t+P and
 * starts the load of the row DQ steps after it. */
template <typename T, int R, int LD, int DQ> struct fused2d_level0 {
    const T *col;
    long sy, stride; /* stride: cells between two slots of one thread */
    int last;
    T *q0, *qend, *q; /* the queue; q: the slot of the next row */
    __device__ __forceinline__ fused2d_level0(const T *col_, long sy_, int t, int last_, T *ring, int tid, int nthreads)
        : col(col_), sy(sy_), stride((long)nthreads * vec16<T>::n), last(last_)
    {
        q0 = ring + (long)tid * vec16<T>::n;
        qend = q0 + DQ * stride;
        q = q0;
#pragma unroll
        for (int p = 0; p < DQ; p++) { /* rows t .. t+DQ-1, one group each (empty past the last row) */
            if (t + p <= last) cp_async16(q0 + p * stride, col + (long)(t + p) * sy);
            cp_async_commit();
        }
    }
    template <int P> __device__ __forceinline__ cells<T> take(int t)
    {
        cp_async_wait<DQ - 1>(); /* row t+P has landed */
        const cells<T> row = load_shared_vec(q);
        if (t + P + DQ <= last) cp_async16(q, col + (long)(t + P + DQ) * sy);
        cp_async_commit();
        q += stride;
        if (q == qend) q = q0;
        return row;
    }
    __device__ __forceinline__ void finish() { cp_async_wait<0>(); }
};

/* DQ = 0: 2R+1 rows ahead in registers, slot (phase mod 2R+1). */
template <typename T, int R, int LD> struct fused2d_level0<T, R, LD, 0> {
    enum { W = 2 * R + 1 };
    const T *col;
    long sy;
    int last;
    cells<T> ahead[W]; /* rows t .. t+2R of the next W steps */
    __device__ __forceinline__ fused2d_level0(const T *col_, long sy_, int t, int last_, T *, int, int) : col(col_), sy(sy_), last(last_)
    {
#pragma unroll
        for (int p = 0; p < W; p++) {
#pragma unroll
            for (int i = 0; i < vec16<T>::n; i++) ahead[p].v[i] = (T)0;
            if (t + p <= last) ahead[p] = ld_vec<LD>(col + (long)(t + p) * sy);
        }
    }
    template <int P> __device__ __forceinline__ cells<T> take(int t)
    {
        const cells<T> row = ahead[P % W];
        if (t + P + W <= last) ahead[P % W] = ld_vec<LD>(col + (long)(t + P + W) * sy);
        return row;
    }
    __device__ __forceinline__ void finish() {}
};

/* One warp's march: strip `strip` (32 - 2 margin output vectors wide), rows `group` x rows ..
 * + rows of the last level's box. The lane is threadIdx.x mod 32, so a block may hold its warps
 * along y (the cycle kernel: 32 x 4 threads) or along x (the persistent pass kernel's 1D blocks).
 * A whole warp returns or none of it. LD: the loads' path (HX_LD_NC, or HX_LD_CA in the pass kernel).
 * DQ: level-0 rows in flight (fused2d_level0): 0 in registers, else a queue in shared memory
 * `ring` of DQ x nthreads vectors, `tid` this thread's place in it. */
template <typename T, int R, int L, int LD = HX_LD_NC, int DQ = 0>
__device__ __forceinline__ void sweep2d_fused_body(const T *__restrict__ src, T *__restrict__ dst, const fused_args &a,
                                                   int strip, int group, int rows, T *ring = nullptr, int tid = 0,
                                                   int nthreads = 0)
{
    static_assert(R == 1 || R == 2, "the march below is unrolled for radius 1 and 2");
    const int V = vec16<T>::n, W = 2 * R + 1, m = a.margin, lane = (int)(threadIdx.x & 31);
    const int x0 = a.xstart + (strip * (32 - 2 * m) + lane - m) * V; /* may lie left of the row */
    const int Y0 = a.lo[L - 1][1] + group * rows;
    if (Y0 >= a.hi[L - 1][1]) return; /* the whole warp: shuffles stay complete */
    const int Y1 = min(Y0 + rows, a.hi[L - 1][1]);
    const bool store_lane = lane >= m && lane < 32 - m;
    unsigned xin = 0; /* bit j: this vector lies inside level j's box in x */
#pragma unroll
    for (int j = 0; j + 1 < L; j++) xin |= (x0 >= a.lo[j][0] && x0 + V <= a.hi[j][0]) ? 1u << j : 0u;
    const T *col = src + min(max(x0, 0), a.pitch - V);
    cells<T> w[L][W]; /* w[j]: the last 2R+1 rows of level j (level 0 = src) */
#pragma unroll
    for (int j = 0; j < L; j++)
#pragma unroll
        for (int k = 0; k < W; k++)
#pragma unroll
            for (int i = 0; i < V; i++) w[j][k].v[i] = (T)0;
    int t = Y0 - L * R; /* level-0 row loaded at this step; level j+1 is computed at row t-(j+1)R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) w[0][k] = ld_vec<LD>(col + (long)(t + k) * a.sy);
    t += 2 * R;
    const int last = Y1 - 1 + L * R;
    /* Fast steps: where no level's fix-up can matter, the march skips its tests (the pass is bound
     * by issued instructions, and the tests were a fifth of a step's). That is
     * every step where the boxes are nested (a.nested), else the steps t in [tf0, tf1) whose rows
     * t-(j+1)R lie inside box j for every level, in a strip whose every lane lies inside every box
     * in x (warp-uniform: all lanes agree). */
    int tf0 = INT_MIN, tf1 = INT_MAX;
    if (!a.nested) {
        int all_in = xin == (1u << (L - 1)) - 1u;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) all_in &= __shfl_xor_sync(0xffffffffu, all_in, o);
#pragma unroll
        for (int j = 0; j + 1 < L; j++) {
            tf0 = max(tf0, a.lo[j][1] + (j + 1) * R);
            tf1 = min(tf1, a.hi[j][1] + (j + 1) * R);
        }
        if (!all_in) tf1 = INT_MIN;
    }
    tf1 = min(tf1, last + 1);
    fused2d_level0<T, R, LD, DQ> level0(col, a.sy, t, last, ring, tid, nthreads);
    for (; t <= last; t += W) {
        /* W steps with phases 0 .. 2R: the windows come back to slot order 0 .. 2R. Fast ones never
         * pass the last row (tf1 <= last + 1), so only the tested steps stop early. */
#define HX_FUSED2D_STEP(P, FAST)                                                                                       \
        if (!FAST && P > 0 && t + P > last) break;                                                                    \
        fused2d_step<T, R, L, P % W, LD, FAST>(src, dst, a, w, level0.template take<P>(t), t + P, x0, xin, store_lane, Y0);
#define HX_FUSED2D_STEPS(FAST)                                                                                         \
        HX_FUSED2D_STEP(0, FAST)                                                                                       \
        HX_FUSED2D_STEP(1, FAST)                                                                                       \
        HX_FUSED2D_STEP(2, FAST)                                                                                       \
        if (R == 2) {                                                                                                  \
            HX_FUSED2D_STEP(3, FAST)                                                                                   \
            HX_FUSED2D_STEP(4, FAST)                                                                                   \
        }
        if (t >= tf0 && t + W <= tf1) { /* W fast steps (warp-uniform) */
            HX_FUSED2D_STEPS(true)
            continue;
        }
        HX_FUSED2D_STEPS(false)
#undef HX_FUSED2D_STEPS
#undef HX_FUSED2D_STEP
    }
    level0.finish();
}

/* Level-0 rows in flight per thread in the cycle kernel: a queue of 6 rows in shared memory
 * (12 KiB a block of 128 threads) instead of 2R+1 in registers, because the deep passes wait on
 * those loads (`long_scoreboard` first, DRAM far from its peak). fp64 radius 1 with N = 2, 3 is
 * slower with the queue and keeps the registers; 9 rows are no better than 6. A tuning build may set HX_FUSED2D_RING for every instance (0: registers). */
template <typename T, int R, int L> __host__ __device__ constexpr int fused2d_ring()
{
#ifdef HX_FUSED2D_RING
    return HX_FUSED2D_RING;
#else
    return sizeof(T) == 8 && R == 1 && L <= 3 ? 0 : 6;
#endif
}

/* The launch of a pass (fused2d.cu; tests/test_fused2d_emu.cpp runs the same): the arguments from
 * the level boxes and the allocation (alloc: cells per row, rows), the march (rows per warp: the
 * ROWS instance to launch, or any_rows: the instance taking any), the level-0 queue's shared memory
 * and a grid of blocks of 32 x 4 threads. */
struct fused2d_launch {
    fused_args a;
    size_t smem; /* the queue: fused2d_ring rows x 128 threads x 16 bytes */
    int rows, any_rows;
    dim3 grid, block;
};

/* The march's arguments from the level boxes (boxes[L-1] the output) and the allocation (pitch
 * cells per row, `rows` rows); returns the strips across the output box (0 when it is empty). Host
 * and device: the pass kernel builds them for each pass. */
template <typename T, int R, int L>
__host__ __device__ inline int fused2d_args(const hx_box *boxes, int pitch, int rows, fused_args &a)
{
    const int V = vec16<T>::n;
    const hx_box *out = &boxes[L - 1];
    for (int j = 0; j < HX_FUSE_MAX; j++)
        for (int i = 0; i < 2; i++) {
            a.lo[j][i] = j < L ? boxes[j].lo[i] : 0;
            a.hi[j][i] = j < L ? boxes[j].hi[i] : 0;
        }
    a.margin = (L * R + V - 1) / V;
    a.xstart = out->lo[0] / V * V;
    a.nested = 1;
    for (int j = 0; j + 1 < L; j++)
        for (int i = 0; i < 2; i++)
            if (boxes[j + 1].lo[i] < boxes[j].lo[i] + R || boxes[j + 1].hi[i] > boxes[j].hi[i] - R) a.nested = 0;
    a.pitch = pitch;
    a.rows = rows;
    a.sy = pitch;
    if (out->hi[0] <= out->lo[0] || out->hi[1] <= out->lo[1]) return 0;
    const int per_strip = 32 - 2 * a.margin;
    return ((out->hi[0] - a.xstart + V - 1) / V + per_strip - 1) / per_strip;
}

/* Rows a warp marches: a march re-reads and recomputes 2LR rows that start it, so long marches for
 * deep fusion (`deep` rows for L x R > 4, 64 otherwise), halved (down to 16) until there are
 * `warps` marches. */
template <int R, int L> __host__ __device__ inline int fused2d_march_rows(int strips, int ny, long warps, int deep = 128)
{
    int rows = L * R > 4 ? deep : 64;
    while (rows > 16 && (long)strips * ((ny + rows - 1) / rows) < warps) rows /= 2;
    return rows;
}

/* Rows a march covers where `warps` warps take a pass's marches in turn (the pass kernel; the
 * cycle's kernel on a small block, fused2d_plan's any_rows, where `warps` is what the GPU holds at
 * once) and the pass ends with the last: a pass lasts about rounds x (rows + 2LR) row steps (a march
 * recomputes 2LR rows to start). Chunks per strip are chosen so that the marches fill whole
 * rounds (1 to 4 tried): with power-of-two rows a pass can spend half its time at the grid barrier
 * (a second round for a few marches). Marches stay at most HX_MARCH2D_MAX_ROWS rows long, taking
 * more rounds when they must: long marches lose, though the model does not see why; the cap is
 * measured. */
template <int R, int L> __host__ __device__ inline int hx_march2d_rows(int strips, int ny, long warps)
{
#ifdef HX_MARCH2D_POW2_ROWS /* a tuning build: the power-of-two rule of fused2d_march_rows */
    return fused2d_march_rows<R, L>(strips, ny, warps);
#endif
#ifndef HX_MARCH2D_MAX_ROWS /* a tuning build may set it */
#define HX_MARCH2D_MAX_ROWS 128
#endif
    int best = ny;
    long best_cost = -1;
    for (int r = 1; r <= 64; r++) {
        long chunks = (long)r * warps / strips; /* marches per strip that fit r rounds */
        if (chunks < 1) chunks = 1;
        const int rows = (int)((ny + chunks - 1) / chunks);
        if (rows > HX_MARCH2D_MAX_ROWS && r < 64) continue;
        if (r > 4 && best_cost >= 0) break; /* more rounds only to stay under the cap */
        const long marches = (long)strips * ((ny + rows - 1) / rows), rounds = (marches + warps - 1) / warps;
        const long cost = rounds * (rows + 2 * L * R);
        if (best_cost < 0 || cost < best_cost) best_cost = cost, best = rows;
    }
    return best;
}

/* Deep marches of 256 rows for doubles, 128 for floats: 256 rows made every fp64 pass with
 * L x R > 4 faster and every such fp32 pass slower (a float strip is twice as wide, so half the
 * marches, and the last wave of blocks runs part empty). 128-row marches for L x R <= 4 won or
 * lost by case: 64 stays. */
template <typename T> constexpr int fused2d_deep_rows()
{
    return sizeof(T) == 8 ? 256 : 128;
}

/* held: the warps of the any-rows instance the GPU holds at once (0: unknown). Where the usual
 * power-of-two marches do not fill them (a small block: at 4096^2 on 132 SMs 2240 marches of 64
 * rows for 3168 warps), the marches are cut to fill whole rounds instead (hx_march2d_rows). Larger
 * blocks keep the power-of-two marches, which are faster there than whole rounds. */
template <typename T, int R, int L>
static inline fused2d_launch fused2d_plan(const hx_box *boxes, const int *alloc, int sms, long held = 0)
{
    fused2d_launch l;
    const int strips = fused2d_args<T, R, L>(boxes, alloc[0], alloc[1], l.a);
    const int ny = boxes[L - 1].hi[1] - boxes[L - 1].lo[1];
    l.rows = fused2d_march_rows<R, L>(strips, ny, 16L * sms, fused2d_deep_rows<T>()); /* about 16 warps per multiprocessor */
    l.any_rows = held > 0 && (long)strips * ((ny + l.rows - 1) / l.rows) < held;
    if (l.any_rows) l.rows = hx_march2d_rows<R, L>(strips, ny, held);
    const int chunks = (ny + l.rows - 1) / l.rows;
    l.block = dim3(32, 4);
    l.smem = (size_t)fused2d_ring<T, R, L>() * 128 * 16;
    l.grid = dim3((unsigned)(strips > 0 ? strips : 1), (unsigned)((chunks + 3) / 4));
    return l;
}

#endif
