/* The fused 3D body (2.5D temporal blocking): L sweeps in one pass, a block streaming an x-y tile along z. */
#ifndef HALOX_CUDA_FUSED3D_CUH
#define HALOX_CUDA_FUSED3D_CUH

#include "compute/backend.h"
#include "compute/cuda/common.cuh"
#include "compute/cuda/cp_async.cuh"

/* A block of 32 x BY threads owns an x-y tile of 32 vectors x BY rows and marches along z. The
 * tile includes a halo of L*R cells on each side that is recomputed: after level j only the tile
 * shrunk by j*R is right, so only lanes margin .. 31-margin and rows L*R .. BY-1-L*R store.
 *
 * Level 0 (the source) streams through a ring of 2R+1+P planes in shared memory, filled with
 * cp.async P planes ahead, so loads stay in flight without registers. Level j+1 (sweep j) is
 * computed at plane t-(j+1)R while plane t of level 0 arrives: its z neighbours come from a
 * register window of the 2R+1 last planes of level j (the ring for level 0), x neighbours from
 * the adjacent lanes (a warp is one row of the tile), y neighbours from shared memory: level 0's
 * ring, or a copy of the centre plane of each register window that every thread writes at the
 * start of a step. Those copies alternate between two buffers by step parity, so one barrier per
 * step orders everything: the copies of step t are read after it, and rewritten two steps later,
 * after a barrier that every reader of step t has passed.
 *
 * As in the 2D body, cells outside a level's sweep box keep the source value and the arithmetic
 * is the shared expression tree, so the result is bit-identical to L separate sweeps. */

struct fused3d_args {
    int lo[HX_FUSE_MAX_3D][3], hi[HX_FUSE_MAX_3D][3]; /* the box of each level (sweep) */
    int xstart;                                        /* first output vector of tile column 0 */
    int margin;                                        /* lanes of a tile row that only feed neighbours */
    int zchunk;                                        /* output planes per block */
    int pitch, rows, planes;                           /* allocation: cells per row, rows, planes */
    long sy, sz;
};

/* Shared memory of one block: the level-0 ring and two copies of the centre plane of levels 1 .. L-1. */
template <typename T, int R, int L, int BY, int P> __host__ __device__ constexpr size_t fused3d_smem()
{
    return (size_t)((2 * R + 1 + P) + 2 * (L - 1)) * 32 * BY * 16;
}

/* The V outputs of one vector: zw the 2R+1 vectors along z (centre zw[R]), x neighbours by
 * shuffles of the centre, y neighbours from plane (shared, BY rows of 32 vectors) around row ty. */
template <typename T, int R, int BY>
__device__ __forceinline__ cells<T> fused3d_cell(const cells<T> (&zw)[2 * R + 1], const T *plane, int ty)
{
    const int V = vec16<T>::n;
    xrow<T, R> c;
#pragma unroll
    for (int i = 0; i < R; i++) {
        c.v[i] = __shfl_up_sync(0xffffffffu, zw[R].v[V - R + i], 1);
        c.v[R + V + i] = __shfl_down_sync(0xffffffffu, zw[R].v[i], 1);
    }
#pragma unroll
    for (int i = 0; i < V; i++) c.v[R + i] = zw[R].v[i];
    cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R; rows past the tile are clamped (they feed only the halo) */
#pragma unroll
    for (int k = 0; k < R; k++) {
        ys[k] = load_shared_vec(plane + ((long)max(ty - R + k, 0) * 32 + threadIdx.x) * V);
        ys[R + k] = load_shared_vec(plane + ((long)min(ty + k + 1, BY - 1) * 32 + threadIdx.x) * V);
    }
    return stencil_row3<T, R>(c, ys, zw);
}

/* tile: this block's place in the grid (x: tile column, y: tile row, z: chunk of zchunk planes);
 * blockDim must be (32, BY); smem: fused3d_smem<T, R, L, BY, P>() bytes, 16-byte aligned. Every
 * thread of the block must call it (barriers inside); a caller that reuses smem for another tile
 * puts a __syncthreads() in between. */
template <typename T, int R, int L, int BY, int P>
__device__ __forceinline__ void sweep3d_fused_body(const T *__restrict__ src, T *__restrict__ dst, const fused3d_args &a,
                                                   const uint3 tile, T *smem)
{
    static_assert(L >= 2 && L <= HX_FUSE_MAX_3D && BY > 2 * L * R && P >= 1, "tile too small for the levels");
    const int V = vec16<T>::n, W = 2 * R + 1, NS = W + P, H = L * R, m = a.margin;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long plane_cells = 32L * BY * V;
    const int x0 = a.xstart + ((int)tile.x * (32 - 2 * m) + tx - m) * V; /* may lie left of the row */
    const int y = a.lo[L - 1][1] + (int)tile.y * (BY - 2 * H) - H + ty;
    const int Z0 = a.lo[L - 1][2] + (int)tile.z * a.zchunk;
    if (Z0 >= a.hi[L - 1][2]) return; /* the whole block */
    const int Z1 = min(Z0 + a.zchunk, a.hi[L - 1][2]);
    const bool store = tx >= m && tx < 32 - m && ty >= H && ty < BY - H && y < a.hi[L - 1][1];
    unsigned xyin = 0; /* bit j: this vector lies inside sweep j's box in x and y */
#pragma unroll
    for (int j = 0; j + 1 < L; j++)
        xyin |= (x0 >= a.lo[j][0] && x0 + V <= a.hi[j][0] && y >= a.lo[j][1] && y < a.hi[j][1]) ? 1u << j : 0u;
    T *ring = smem, *cen = smem + NS * plane_cells; /* cen: [parity][level 1 .. L-1] */
    const long me = ((long)ty * 32 + tx) * V;
    const int xc = min(max(x0, 0), a.pitch - V), yc = min(max(y, 0), a.rows - 1);
    const T *column = src + xc + (long)yc * a.sy;
    const int zt = Z0 - H, last = Z1 - 1 + H; /* level-0 planes zt .. last arrive, one per step */
    /* plane z of level 0 into its ring slot (planes past the allocation are clamped: halo only) */
    auto fetch = [&](int z) {
        cp_async16(ring + (long)((z - zt) % NS) * plane_cells + me, column + (long)min(z, a.planes - 1) * a.sz);
    };
#pragma unroll
    for (int k = 0; k < 2 * R + P; k++) {
        if (zt + k <= last) fetch(zt + k);
        cp_async_commit();
    }
    cells<T> w[L - 1][W]; /* w[j-1]: the last 2R+1 planes of level j, for j = 1 .. L-1 */
#pragma unroll
    for (int j = 0; j < L - 1; j++)
#pragma unroll
        for (int k = 0; k < W; k++)
#pragma unroll
            for (int i = 0; i < V; i++) w[j][k].v[i] = (T)0;

    for (int t = zt + 2 * R; t <= last; t++) {
        T *cpar = cen + (long)(t & 1) * (L - 1) * plane_cells;
#pragma unroll
        for (int j = 0; j < L - 1; j++) { /* level j+1's centre plane, t-(j+2)R, for its y neighbours */
            typename vec16<T>::type raw;
            memcpy(&raw, w[j][R].v, sizeof raw);
            *reinterpret_cast<typename vec16<T>::type *>(cpar + j * plane_cells + me) = raw;
        }
        cp_async_wait<P - 1>(); /* plane t has landed (this thread's part) */
        __syncthreads();        /* ... everyone's, and the centre copies are written */
        if (t + P <= last) fetch(t + P);
        cp_async_commit();
#pragma unroll
        for (int j = 0; j < L; j++) { /* level j+1 (sweep j) at plane t-(j+1)R */
            const int z = t - (j + 1) * R;
            cells<T> out;
            if (j == 0) {
                cells<T> zw[W];
#pragma unroll
                for (int k = 0; k < W; k++) zw[k] = load_shared_vec(ring + (long)((t - 2 * R + k - zt) % NS) * plane_cells + me);
                out = fused3d_cell<T, R, BY>(zw, ring + (long)((z - zt) % NS) * plane_cells, ty);
            } else {
                out = fused3d_cell<T, R, BY>(w[j - 1], cpar + (j - 1) * plane_cells, ty);
            }
            if (j + 1 < L) {
                const bool z_in = (unsigned)(z - a.lo[j][2]) < (unsigned)(a.hi[j][2] - a.lo[j][2]);
                if (!z_in || !((xyin >> j) & 1u)) { /* outside sweep j's box: the source value */
                    const T *sr = src + (long)min(max(z, 0), a.planes - 1) * a.sz + (long)yc * a.sy;
                    const bool yz_in = z_in && y >= a.lo[j][1] && y < a.hi[j][1];
#pragma unroll
                    for (int i = 0; i < V; i++) {
                        const int x = x0 + i;
                        if (!yz_in || x < a.lo[j][0] || x >= a.hi[j][0]) out.v[i] = __ldg(sr + min(max(x, 0), a.pitch - 1));
                    }
                }
                w[j][2 * R] = out;
            } else if (store && z >= Z0) {
                store_cells(dst + (long)z * a.sz + (long)y * a.sy + x0, out, x0, a.lo[j][0], a.hi[j][0]);
            }
        }
#pragma unroll
        for (int j = 0; j < L - 1; j++)
#pragma unroll
            for (int k = 0; k < 2 * R; k++) w[j][k] = w[j][k + 1];
    }
    cp_async_wait<0>();
}

/* Tile rows and planes copied ahead, per instance: the block is 32 x BY threads, one block per
 * multiprocessor (shared memory: 112 to 154 KiB), BY as large as the registers allow without
 * spilling (ptxas output in docs/design.md, "Fused sweeps"): a tile recomputes 2LR of its BY rows. */
template <typename T, int R, int L> struct fused3d_tile {
    enum { BY = (R == 1 && L <= 3) ? 32 : 28, P = 2 };
};

/* The launch of a pass (fused3d.cu; tests/test_fused3d_emu.cpp runs the same): the arguments from
 * the level boxes and the allocation (alloc: cells per row, rows, planes), z cut into chunks for
 * `slots` blocks resident at once, the grid of 32 x BY blocks and their shared memory. */
struct fused3d_launch {
    fused3d_args a;
    dim3 grid, block;
    size_t smem;
};

template <typename T, int R, int L> static inline fused3d_launch fused3d_plan(const hx_box *boxes, const int *alloc, long slots)
{
    typedef fused3d_tile<T, R, L> C;
    const int V = vec16<T>::n, H = L * R;
    const hx_box *out = &boxes[L - 1];
    fused3d_launch l;
    fused3d_args &a = l.a;
    memset(&a, 0, sizeof a);
    for (int j = 0; j < L; j++)
        for (int i = 0; i < 3; i++) {
            a.lo[j][i] = boxes[j].lo[i];
            a.hi[j][i] = boxes[j].hi[i];
        }
    a.margin = (H + V - 1) / V;
    a.xstart = out->lo[0] / V * V;
    a.pitch = alloc[0];
    a.rows = alloc[1];
    a.planes = alloc[2];
    a.sy = alloc[0];
    a.sz = (long)alloc[0] * alloc[1];
    const int per_tile = 32 - 2 * a.margin, rows_per_tile = C::BY - 2 * H;
    const long tx = ((out->hi[0] - a.xstart + V - 1) / V + per_tile - 1) / per_tile;
    const long ty = (out->hi[1] - out->lo[1] + rows_per_tile - 1) / rows_per_tile;
    const int nz = out->hi[2] - out->lo[2];
    /* split z into chunks: cost ~ waves x planes per chunk, each chunk re-reading 2(LR+R) planes */
    int best = 1;
    double best_cost = 1e300;
    for (int k = 1; k <= 64 && k <= nz; k++) {
        const int chunk = (nz + k - 1) / k;
        const double cost = (double)((tx * ty * k + slots - 1) / slots) * (chunk + 2 * H + 2 * R);
        if (cost < best_cost * 0.999) best_cost = cost, best = k;
    }
    a.zchunk = (nz + best - 1) / best;
    const unsigned nzc = (unsigned)((nz + a.zchunk - 1) / a.zchunk);
    l.block = dim3(32, C::BY);
    l.grid = dim3((unsigned)tx, (unsigned)ty, nzc);
    l.smem = fused3d_smem<T, R, L, C::BY, C::P>();
    return l;
}

#endif
