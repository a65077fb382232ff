/* The 3D sweep bodies in registers: a window of planes marching in z, one row per thread (the
 * pipelined body fed through shared memory is in sweep3d_pipe.cuh). Plain C++ but
 * for the CUDA built-ins, so tests/test_sweep3d_emu.cpp runs them on the host. */
#ifndef HALOX_CUDA_SWEEP3D_CUH
#define HALOX_CUDA_SWEEP3D_CUH

#include "compute/cuda/common.cuh"

/* ---------------------------------------------------------------- where the blocks of a march go
 * A launch of the one-row marches (march_dim) is blocks of 32 lanes x by rows in x and y, one
 * march length of planes in z. A lane is the lanes type's cell group (a 16-byte vector or a pair).
 * Rows of 2^k cells from a ghost width below the vector end one lane past whole block columns (a
 * 512-cell fp32 row from x = 1 is 128 vectors and one more), and a block column for that one lane
 * keeps by warps of one live lane each marching beside the full columns. In the tail column
 * (radius 2 only, see march_tail_column) a warp takes that lane of march_tail_rows rows instead,
 * a lane a row, so the column has a quarter of the blocks and only its first blocks down y have
 * rows. */
struct march_grid {
    int cols; /* block columns of 32 lanes before the tail column */
    int tail; /* 1: the last lane of each row is the tail column's; 0: no tail column */
};

/* Rows a warp of the tail column takes: more rows leave the tail blocks' loads and stores
 * uncoalesced in few warps, fewer keep one-lane warps in scarce places (docs/performance.md) */
enum { march_tail_rows = 4 };

/* Which marches have the tail column: radius 2's, at 3-4 blocks a multiprocessor, where the
 * one-lane warps held scarce places. Radius 1 (6 blocks for fp32, 4 for fp64) gained nothing, and
 * its fp32 pair march would take 48 registers instead of 40 with both paths in one kernel. */
template <int R> __host__ __device__ constexpr bool march_tail_column() { return R == 2; }

/* Whether this block is in the tail column of a march of radius R */
template <int R> __host__ __device__ __forceinline__ bool march_in_tail(const march_grid &g, const uint3 tile)
{
    return march_tail_column<R>() && (int)tile.x >= g.cols;
}

/* lanes: cell groups across the box's row; tail_ok: the kernel has the tail column's march */
static inline march_grid march_grid_for(int lanes, bool tail_ok)
{
    march_grid g;
    g.tail = tail_ok && lanes % 32 == 1;
    g.cols = (lanes - g.tail + 31) / 32;
    return g;
}

/* The launch grid of a march of `chunk` planes over a box of rows x nz, blocks of by rows */
static inline dim3 march_dim(const march_grid &g, int rows, int by, int nz, int chunk)
{
    return dim3((unsigned)(g.cols + g.tail), (unsigned)((rows + by - 1) / by), (unsigned)((nz + chunk - 1) / chunk));
}

/* This thread's lane across the row and row within the box (from lo[1]); false: it has none.
 * TAIL: the block is in the tail column. The bodies are compiled once for each, so that both stay
 * plain functions of the block and thread index, which ptxas recomputes instead of holding in
 * registers (one placement for both, by a division, cost star13 fp32 a spill). */
template <bool TAIL> __device__ __forceinline__ bool march_place(const march_grid &g, const uint3 tile, int &lane, int &row)
{
    lane = TAIL ? g.cols * 32 : (int)(tile.x * 32 + threadIdx.x);
    row = (int)(TAIL ? (tile.y * blockDim.y + threadIdx.y) * march_tail_rows + threadIdx.x : tile.y * blockDim.y + threadIdx.y);
    return !TAIL || (int)threadIdx.x < march_tail_rows;
}

/* ---------------------------------------------------------------- 3D sweep: march in z
 * z neighbours from the register window, y neighbours as vectors (L1/L2 hits: the rows of
 * the block's other warps), loaded one plane ahead; the plane entering the window (the one
 * that comes from DRAM) AHEAD planes ahead, so that enough bytes are in flight per SM to cover
 * the memory latency (HBM3e needs more than one plane's worth at this occupancy).
 * g, tile: this block's place (march_grid; tile.z: the layer of ZCHUNK planes). */
/* Planes ahead per dtype and radius (prefetching: the kernel that prefetches into L2), the
 * fastest measured: 3 for floats of radius 2, 2 for doubles of radius 1 with the L2 prefetches
 * (64 registers instead of 60, the same 4 blocks a multiprocessor), else 1. A tuning build may
 * force one with -DHX_SWEEP3D_AHEAD=N. */
template <typename T, int R> __host__ __device__ constexpr int sweep3d_ahead(bool prefetching = false)
{
#ifdef HX_SWEEP3D_AHEAD
    return HX_SWEEP3D_AHEAD;
#else
    return sizeof(T) == 4 && R == 2 ? 3 : sizeof(T) == 8 && R == 1 && prefetching ? 2 : 1;
#endif
}

/* Planes beyond the entering one that a step prefetches into L2 (prefetch_l2: bytes in flight
 * that hold no register) in the kernels for fields that L2 does not hold: 2 for star13 fp32 and
 * jacobi7 fp64; jacobi7 fp32 loses at every distance, and every case loses where the fields fit in
 * L2 (prefetches of lines already there). star13 fp64 runs the pipelined or bulk-copy march, which
 * have none. A tuning build may force one with -DHX_SWEEP3D_PF=N. */
template <typename T, int R> __host__ __device__ constexpr int sweep3d_prefetch()
{
#ifdef HX_SWEEP3D_PF
    return HX_SWEEP3D_PF;
#else
    return (sizeof(T) == 4) == (R == 2) ? 2 : 0;
#endif
}

/* How a marching thread holds its cells: N of them as one aligned vector, 16 bytes (four floats,
 * two doubles: the default) or two floats (lanes_pair, sweep3d_pair.cuh). The march asks a lanes type
 * for its cell type and count, a load, and the stencil and store of its cells. */
template <typename T, int N = vec16<T>::n> struct lanes {
    typedef cells<T, N> cell;
    enum { n = N };
    static __device__ __forceinline__ cell load(const T *p) { return load_vec<T, N>(p); }
    /* The cells of plane z at `at` (this thread's, in src) into dst; centre: their values; ys, w as
     * stencil_row3's */
    template <int R>
    static __device__ __forceinline__ void sweep(const T *src, T *dst, const T *at, const cell &centre, int x0,
                                                 const sweep_args &a, const cell (&ys)[2 * R], const cell (&w)[2 * R + 1])
    {
        const xrow<T, R, N> c = load_xrow<T, R, N>(at - x0, centre, x0, a.pitch);
        store_cells(dst + (at - src), stencil_row3<T, R, N>(c, ys, w), x0, a.lo[0], a.hi[0]);
    }
};

/* Two forms of the same march, each the faster for one radius: the walking form advances one
 * plane pointer per step (40 registers for fp32 radius 1 against 48: six blocks per multiprocessor
 * instead of five); for radius 2 it lets ptxas serialise the x neighbours' scalar loads, so radius
 * 2 keeps the indexed form, every address from z. They stay two functions: one body choosing its
 * addresses by a flag compiled radius 1 slower. The walking form also takes the lanes type L, and ZCHUNK 0 for
 * a march length given at run time (chunk), as the march of two floats a thread does. */
/* ZIG: every odd layer of the launch marches down, from its last plane to its first, so that two
 * layers resident side by side reach the planes they share at the same time, both at their starts
 * or both at their ends, and L2 serves the second read. A march down holds its window in its own
 * order, so the stencil gets z-1 for z+1 and z-2 for z+2: bit-identical, because the expressions
 * take them only as (d + u) and (dd + uu), and IEEE addition commutes. Taken by the 16-byte march
 * of floats (sweep3d_zigzag); HX_SWEEP3D_ZIGZAG 0 or 1 sets it for every walking march in a
 * tuning build. */
template <typename T, int R, int ZCHUNK, int AHEAD, int PF, typename L = lanes<T>, bool TAIL = false, bool ZIG = false>
__device__ __forceinline__ void sweep3d_walk_body(const T *__restrict__ src, T *__restrict__ dst, const sweep_args &a,
                                                  const march_grid &g, const uint3 tile, int chunk = ZCHUNK)
{
    typedef typename L::cell cell;
    int lane, row;
    if (!march_place<TAIL>(g, tile, lane, row)) return;
    const int x0 = a.xbase + lane * L::n;
    const int y = a.lo[1] + row;
    const int march = ZCHUNK > 0 ? ZCHUNK : chunk;
    const int z0 = a.lo[2] + tile.z * march;
    if (x0 >= a.hi[0] || y >= a.hi[1] || z0 >= a.hi[2]) return;
    const int z1 = min(z0 + march, a.hi[2]), n = z1 - z0;
#ifdef HX_SWEEP3D_ZIGZAG
    const bool down = HX_SWEEP3D_ZIGZAG && (tile.z & 1);
#else
    const bool down = ZIG && (tile.z & 1);
#endif
    const long st = down ? -a.sz : a.sz; /* one plane along the march */
    const T *base = src + x0 + (long)y * a.sy;
    const T *plane = base + (long)(down ? z1 - 1 : z0) * a.sz; /* the plane swept, in this thread's row */
    cell win[2 * R + 1]; /* the planes R behind .. R ahead of it along the march */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = L::load(plane + (long)(k - R) * st);
    cell ahead[AHEAD] = {}; /* the planes R .. R+AHEAD-1 ahead */
#pragma unroll
    for (int i = 0; i < AHEAD; i++)
        if (i < n) ahead[i] = L::load(plane + (long)(R + i) * st);
    cell ys[2 * R]; /* y-R .. y-1, y+1 .. y+R of the plane swept */
#pragma unroll
    for (int j = 0; j < R; j++) {
        ys[j] = L::load(plane - (long)(R - j) * a.sy);
        ys[R + j] = L::load(plane + (long)(j + 1) * a.sy);
    }
#pragma unroll
    for (int i = 0; i < PF; i++)
        if (AHEAD + i < n) prefetch_l2(plane + (long)(AHEAD + R + i) * st);
    for (int s = 0; s < n; s++, plane += st) {
        win[2 * R] = ahead[0];
#pragma unroll
        for (int i = 0; i + 1 < AHEAD; i++) ahead[i] = ahead[i + 1];
        if (s + AHEAD < n) ahead[AHEAD - 1] = L::load(plane + (long)(AHEAD + R) * st);
        if (PF > 0 && s + AHEAD + PF < n) prefetch_l2(plane + (long)(AHEAD + R + PF) * st);
        cell cur_ys[2 * R]; /* this plane's; ys now takes the next plane's */
#pragma unroll
        for (int j = 0; j < 2 * R; j++) cur_ys[j] = ys[j];
        if (s + 1 < n) {
#pragma unroll
            for (int j = 0; j < R; j++) {
                ys[j] = L::load(plane + st - (long)(R - j) * a.sy);
                ys[R + j] = L::load(plane + st + (long)(j + 1) * a.sy);
            }
        }
        L::template sweep<R>(src, dst, plane, win[R], x0, a, cur_ys, win);
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
}

template <typename T, int R, int ZCHUNK, int AHEAD, int PF, bool TAIL = false>
__device__ __forceinline__ void sweep3d_index_body(const T *__restrict__ src, T *__restrict__ dst, const sweep_args &a,
                                                   const march_grid &g, const uint3 tile)
{
    const int V = vec16<T>::n;
    int lane, row;
    if (!march_place<TAIL>(g, tile, lane, row)) return;
    const int x0 = a.xbase + lane * V;
    const int y = a.lo[1] + row;
    const int z0 = a.lo[2] + tile.z * ZCHUNK;
    if (x0 >= a.hi[0] || y >= a.hi[1] || z0 >= a.hi[2]) return;
    const int z1 = min(z0 + ZCHUNK, a.hi[2]);
    const T *base = src + x0 + (long)y * a.sy;
    cells<T> win[2 * R + 1]; /* planes z-R .. z+R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = load_vec(base + (long)(z0 - R + k) * a.sz);
    cells<T> ahead[AHEAD] = {}; /* planes z+R .. z+R+AHEAD-1 */
#pragma unroll
    for (int i = 0; i < AHEAD; i++)
        if (z0 + i < z1) ahead[i] = load_vec(base + (long)(z0 + R + i) * a.sz);
    cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R of the current plane */
#pragma unroll
    for (int j = 0; j < R; j++) {
        ys[j] = load_vec(base + (long)z0 * a.sz - (long)(R - j) * a.sy);
        ys[R + j] = load_vec(base + (long)z0 * a.sz + (long)(j + 1) * a.sy);
    }
#pragma unroll
    for (int i = 0; i < PF; i++)
        if (z0 + AHEAD + i < z1) prefetch_l2(base + (long)(z0 + AHEAD + R + i) * a.sz);
    for (int z = z0; z < z1; z++) {
        win[2 * R] = ahead[0];
#pragma unroll
        for (int i = 0; i + 1 < AHEAD; i++) ahead[i] = ahead[i + 1];
        if (z + AHEAD < z1) ahead[AHEAD - 1] = load_vec(base + (long)(z + AHEAD + R) * a.sz);
        if (PF > 0 && z + AHEAD + PF < z1) prefetch_l2(base + (long)(z + AHEAD + R + PF) * a.sz);
        cells<T> cur_ys[2 * R]; /* this plane's; ys now takes the next plane's */
#pragma unroll
        for (int j = 0; j < 2 * R; j++) cur_ys[j] = ys[j];
        if (z + 1 < z1) {
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

/* Whether the 16-byte march of radius R zigzags (sweep3d_walk_body): floats of radius 1, which
 * it takes at three to four resident layers (cu_sweep's pair rule), where it cuts DRAM reads.
 * Doubles and the pair march lost with it. */
template <typename T, int R> __host__ __device__ constexpr bool sweep3d_zigzag() { return sizeof(T) == 4 && R == 1; }

/* PF: planes prefetched beyond the entering one (0: none; sweep3d_prefetch gives the best).
 * g, tile: the block's place in a march_dim launch. */
template <typename T, int R, int ZCHUNK, int AHEAD = sweep3d_ahead<T, R>(), int PF = 0>
__device__ __forceinline__ void sweep3d_body(const T *__restrict__ src, T *__restrict__ dst, const sweep_args &a,
                                             const march_grid &g, const uint3 tile)
{
    const bool tail = march_in_tail<R>(g, tile);
    constexpr bool Z = sweep3d_zigzag<T, R>();
    if (R == 1 && !tail) sweep3d_walk_body<T, R, ZCHUNK, AHEAD, PF, lanes<T>, false, Z>(src, dst, a, g, tile);
    else if (R == 1) sweep3d_walk_body<T, R, ZCHUNK, AHEAD, PF, lanes<T>, true, Z>(src, dst, a, g, tile);
    else if (!tail) sweep3d_index_body<T, R, ZCHUNK, AHEAD, PF>(src, dst, a, g, tile);
    else sweep3d_index_body<T, R, ZCHUNK, AHEAD, PF, true>(src, dst, a, g, tile);
}

/* The grid of the pipelined launch: blocks of 32 x by threads, a thread one vector of one row, a
 * block `chunk` planes. groups: vectors across the box in x. */
static inline dim3 sweep3d_grid(int groups, int ny, int nz, int by, int chunk)
{
    return dim3((unsigned)((groups + 31) / 32), (unsigned)((ny + by - 1) / by), (unsigned)((nz + chunk - 1) / chunk));
}

#endif
