/* The fused 3D body (2.5D temporal blocking): L sweeps in one pass, a block streaming an x-y tile along z. */
#ifndef HALOX_CUDA_FUSED3D_CUH
#define HALOX_CUDA_FUSED3D_CUH

#include "compute/cuda/common.cuh"
#include "halox/plan.h" /* hx_box */
#include "halox/types.h" /* HX_FUSE_MAX_3D */
#include "compute/cuda/cp_async.cuh"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A block of S x BY/RY threads owns an x-y tile of S vectors x BY rows and marches along z; a
 * thread owns RY consecutive rows of one vector, and a warp 32/S rows of S lanes each (S = 32 or
 * 16). The tile includes a halo of L*R cells on each side that is recomputed: after level j only
 * the tile shrunk by j*R is right, so only lanes margin .. S-1-margin and rows L*R .. BY-1-L*R store.
 *
 * Level 0 (the source) streams through a ring of 2R+1+P planes in shared memory (P = 2R+1), filled
 * with cp.async P planes ahead, so loads stay in flight without registers. Level j+1 (sweep j) is
 * computed at plane t-(j+1)R while plane t of level 0 arrives: its z neighbours come from a
 * register window of the 2R+1 last planes of level j (for level 0, the thread's own cells, read
 * once from the ring), x neighbours from the adjacent lanes (a warp is one row of the tile), y
 * neighbours from the thread's other rows or from shared memory: level 0's ring, or a copy of the
 * centre plane of each register window that every thread writes at the start of a step. Those
 * copies alternate between two buffers by step parity, so one barrier per step orders everything:
 * the copies of step t are read after it, and rewritten two steps later, after a barrier that
 * every reader of step t has passed. Shared-memory traffic bounds the march (docs/design.md).
 *
 * As in the 2D body, cells outside a level's sweep box keep the source value and the arithmetic
 * is the shared expression tree, so the result is bit-identical to L separate sweeps. Where every
 * box lies R inside the one before (deep-halo sides; fused3d_args.nested) no stored cell depends on
 * a cell outside a box, and the march skips that fix-up; fixed sides need it. */

/* Skip the ramp's unread planes (sweep3d_fused_body) in the float passes of 4 sweeps: 1, or 0 in a
 * tuning build. A z chunk re-reads 2(LR + R) planes, and at a 4-GPU rank's block (256x128x128:
 * chunks of 16-18 planes) the ramp's unread levels were about 12% of a pass's level updates; the
 * float passes of 4 sweeps gained with the skip, those of 3 (RY = 2) and doubles lost as much, so
 * they keep the march as it was. */
#ifndef HX_FUSED3D_RAMP_SKIP
#define HX_FUSED3D_RAMP_SKIP 1
#endif

struct fused3d_args {
    int lo[HX_FUSE_MAX_3D][3], hi[HX_FUSE_MAX_3D][3]; /* the box of each level (sweep) */
    int xstart;                                        /* first output vector of tile column 0 */
    int margin;                                        /* lanes of a tile row that only feed neighbours */
    int zchunk;                                        /* output planes per block */
    int nested; /* every box lies R inside the one before on every side: no stored cell depends on a cell outside a box */
    int pitch, rows, planes;                           /* allocation: cells per row, rows, planes */
    long sy, sz;
};

/* Shared memory of one block: the level-0 ring and two copies of the centre plane of levels 1 .. L-1. */
template <typename T, int R, int L, int BY, int P, int S> __host__ __device__ constexpr size_t fused3d_smem()
{
    return (size_t)((2 * R + 1 + P) + 2 * (L - 1)) * S * BY * 16;
}

/* The V outputs of one vector: zw the 2R+1 vectors along z (centre zw[R]), x neighbours by
 * shuffles of the centre within the S lanes of a tile row, ys the vectors y-R .. y-1, y+1 .. y+R. */
template <typename T, int R, int S>
__device__ __forceinline__ cells<T> fused3d_cell(const cells<T> (&zw)[2 * R + 1], const cells<T> (&ys)[2 * R])
{
    const int V = vec16<T>::n;
    xrow<T, R> c;
#pragma unroll
    for (int i = 0; i < R; i++) {
        c.v[i] = __shfl_up_sync(0xffffffffu, zw[R].v[V - R + i], 1, S);
        c.v[R + V + i] = __shfl_down_sync(0xffffffffu, zw[R].v[i], 1, S);
    }
#pragma unroll
    for (int i = 0; i < V; i++) c.v[R + i] = zw[R].v[i];
    return stencil_row3<T, R>(c, ys, zw);
}

/* Cells of level j+1 outside sweep j's box keep the source value. The march's steady state (fast
 * steps) skips it; its addresses are computed from opaque copies so that the compiler does not
 * hoist them out of the march, where they would take the register windows' registers. */
template <typename T, bool NC>
__device__ __forceinline__ void fused3d_outside(const T *__restrict__ src, const fused3d_args &a, int j, int x0_, int y_, int z_,
                                                cells<T> &out)
{
    const int V = vec16<T>::n, x0 = hx_opaque(x0_), y = hx_opaque(y_), z = hx_opaque(z_);
    /* y is tested twice, in xy_in and yz_in: written once it ran slower on every fused 3D pass
     * (ptxas scheduled the fix-up differently), so it stays */
    const bool z_in = (unsigned)(z - a.lo[j][2]) < (unsigned)(a.hi[j][2] - a.lo[j][2]);
    const bool xy_in = x0 >= a.lo[j][0] && x0 + V <= a.hi[j][0] && y >= a.lo[j][1] && y < a.hi[j][1];
    if (z_in && xy_in) return;
    const int yc = min(max(y, 0), a.rows - 1);
    const T *sr = src + (long)min(max(z, 0), a.planes - 1) * a.sz + (long)yc * a.sy;
    const bool yz_in = z_in && y >= a.lo[j][1] && y < a.hi[j][1];
#pragma unroll
    for (int i = 0; i < V; i++) {
        const int x = x0 + i;
        if (!yz_in || x < a.lo[j][0] || x >= a.hi[j][0]) {
            const T *at = sr + min(max(x, 0), a.pitch - 1);
            out.v[i] = NC ? __ldg(at) : __ldcg(at);
        }
    }
}

/* tile: this block's place in the grid (x: tile column, y: tile row, z: chunk of zchunk planes);
 * the block has S x BY / RY threads: lane (0..31, a warp's lanes) and group (0 .. S*BY/(32*RY) - 1,
 * one warp each: threadIdx.x, threadIdx.y in a (32, S*BY/(32*RY)) block; threadIdx.x % 32,
 * threadIdx.x / 32 in a flat one). A thread owns RY consecutive rows of the tile, whose y neighbours inside them come
 * from its registers (RY = 2 halves the shared loads for y neighbours, which bound the march);
 * smem: fused3d_smem<T, R, L, BY, P, S>() bytes, 16-byte aligned. Every thread of the block must call
 * it (barriers inside); a caller that reuses smem for another tile puts a __syncthreads() in
 * between. NC: the source is read-only for the whole kernel, so the fix-up may load it through the
 * non-coherent path (the cycle's kernels); the persistent kernel, whose other blocks wrote the
 * source earlier in the same launch, passes false (ld.global.cg). */
template <typename T, int R, int L, int BY, int P, int RY, int S, bool NC = true>
__device__ __forceinline__ void sweep3d_fused_body(const T *__restrict__ src, T *__restrict__ dst, const fused3d_args &a,
                                                   const uint3 tile, T *smem, const int lane, const int group)
{
    enum { W = 2 * R + 1, NS = W + P };
    constexpr bool skip_ramp = HX_FUSED3D_RAMP_SKIP && sizeof(T) == 4 && L == 4; /* where it was measured faster */
    static_assert(L >= 1 && L <= HX_FUSE_MAX_3D && BY > 2 * L * R && P >= 1 && BY % RY == 0, "tile too small for the levels");
    static_assert((S == 32 || S == 16) && (BY / RY) % (32 / S) == 0, "a warp holds 32/S whole tile rows");
    static_assert(NS % W == 0 && NS % 2 == 0, "the march unrolls by NS: ring slots, window names and parities repeat");
    const int V = vec16<T>::n, H = L * R, m = a.margin;
    const int tx = lane % S, ty0 = (group * (32 / S) + lane / S) * RY; /* this thread's vector and first row in the tile */
    const long plane_cells = (long)S * BY * V;
    const int xt = a.xstart + ((int)tile.x * (S - 2 * m) - m) * V; /* the tile's first cell in x, may lie left of the row */
    const int yt = a.lo[L - 1][1] + (int)tile.y * (BY - 2 * H) - H;
    const int x0 = xt + tx * V;
    const int Z0 = a.lo[L - 1][2] + (int)tile.z * a.zchunk;
    if (Z0 >= a.hi[L - 1][2]) return; /* the whole block */
    const int Z1 = min(Z0 + a.zchunk, a.hi[L - 1][2]);
    const bool store_lane = tx >= m && tx < S - m;
    bool tile_in = true; /* the whole tile lies inside every sweep's box but the last (block-uniform) */
    int tf0 = INT_MIN, tf1 = INT_MAX; /* steps t whose planes t-(j+1)R all lie inside sweep j's box in z */
#pragma unroll
    for (int j = 0; j + 1 < L; j++) {
        tile_in = tile_in && xt >= a.lo[j][0] && xt + S * V <= a.hi[j][0] && yt >= a.lo[j][1] && yt + BY <= a.hi[j][1];
        tf0 = max(tf0, a.lo[j][2] + (j + 1) * R);
        tf1 = min(tf1, a.hi[j][2] + (j + 1) * R);
    }
    if (!tile_in) tf1 = INT_MIN;
    T *ring = smem, *cen = smem + NS * plane_cells; /* cen: [parity][level 1 .. L-1] */
    const long me = ((long)ty0 * S + tx) * V; /* row r of the thread: me + r * SV */
    const int xc = min(max(x0, 0), a.pitch - V);
    const T *column[RY], *column_last[RY]; /* planes past the allocation are clamped: halo only */
#pragma unroll
    for (int r = 0; r < RY; r++) {
        column[r] = src + xc + (long)min(max(yt + ty0 + r, 0), a.rows - 1) * a.sy;
        column_last[r] = column[r] + (long)(a.planes - 1) * a.sz;
    }
    const int zt = Z0 - H, last = Z1 - 1 + H; /* level-0 planes zt .. last arrive, one per step */
#pragma unroll
    for (int k = 0; k < 2 * R + P; k++) {
#pragma unroll
        for (int r = 0; r < RY; r++)
            if (zt + k <= last)
                cp_async16(ring + k * plane_cells + me + r * S * V, zt + k < a.planes ? column[r] + (long)(zt + k) * a.sz : column_last[r]);
        cp_async_commit();
    }
    long fetch = (long)(zt + 2 * R + P) * a.sz; /* offset of plane t+P, the one a step copies ahead */
    cells<T> w0[RY][W]; /* the last 2R+1 planes of level 0: shared loads of the thread's own cells, once each */
    cp_async_wait<P>(); /* the first 2R planes have landed (this thread's own copies: no barrier needed) */
#pragma unroll
    for (int r = 0; r < RY; r++)
#pragma unroll
        for (int q = 0; q < 2 * R; q++) w0[r][q] = load_shared_vec(ring + q * plane_cells + me + r * S * V);
    cells<T> w[L > 1 ? L - 1 : 1][RY][W]; /* w[j-1][r]: the last 2R+1 planes of level j, for j = 1 .. L-1 (none for L = 1) */
#pragma unroll
    for (int j = 0; j < L - 1; j++)
#pragma unroll
        for (int r = 0; r < RY; r++)
#pragma unroll
            for (int k = 0; k < W; k++)
#pragma unroll
                for (int i = 0; i < V; i++) w[j][r][k].v[i] = (T)0;

    /* one step at plane t of level 0, K = (t - zt) % NS its place in the ring */
    auto step = [&](const int t, const int K) {
        T *cpar = cen + (long)(K & 1) * (L - 1) * plane_cells; /* parity of t - zt */
#pragma unroll
        for (int j = 0; j < L - 1; j++) /* level j+1's centre plane, t-(j+2)R, for its y neighbours */
#pragma unroll
            for (int r = 0; r < RY; r++) {
                typename vec16<T>::type raw;
                memcpy(&raw, w[j][r][R].v, sizeof raw);
                *reinterpret_cast<typename vec16<T>::type *>(cpar + j * plane_cells + me + r * S * V) = raw;
            }
        cp_async_wait<P - 1>(); /* plane t has landed (this thread's part) */
        __syncthreads();        /* ... everyone's, and the centre copies are written */
#pragma unroll
        for (int r = 0; r < RY; r++)
            if (t + P <= last)
                cp_async16(ring + (long)((K + P) % NS) * plane_cells + me + r * S * V, t + P < a.planes ? column[r] + fetch : column_last[r]);
        cp_async_commit();
        fetch += a.sz;
        const bool fast = a.nested || (t >= tf0 && t < tf1);
#pragma unroll
        for (int j = 0; j < L; j++) { /* level j+1 (sweep j) at plane t-(j+1)R */
            const int z = t - (j + 1) * R;
            /* the stored planes Z0.. need level j+1 from Z0-(L-1-j)R only: below, the ramp's first
             * steps would compute planes nothing reads (2j of them for R = 1, none of level 1) */
            if (skip_ramp && j > 0 && z < Z0 - (L - 1 - j) * R) continue;
            /* level j's plane z in shared memory, for the y neighbours beyond this thread's rows */
            const T *plane = j == 0 ? ring + (long)((K - R + NS) % NS) * plane_cells : cpar + (j - 1) * plane_cells;
            if (j == 0) /* this thread's own planes of level 0 stay in w0; the new one from the ring */
#pragma unroll
                for (int r = 0; r < RY; r++) w0[r][2 * R] = load_shared_vec(ring + (long)K * plane_cells + me + r * S * V);
            cells<T> outs[RY];
#pragma unroll
            for (int r = 0; r < RY; r++) {
                const cells<T>(&zw)[W] = j == 0 ? w0[r] : w[j - 1][r];
                cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R: a row of this thread, or shared (clamped to the tile: halo only) */
#pragma unroll
                for (int k = 0; k < 2 * R; k++) {
                    const int rr = k < R ? r - R + k : r + 1 + k - R; /* the neighbour's row among this thread's */
                    if (rr >= 0 && rr < RY) ys[k] = j == 0 ? w0[rr][R] : w[j - 1][rr][R];
                    else ys[k] = load_shared_vec(plane + ((long)min(max(ty0 + rr, 0), BY - 1) * S + tx) * V);
                }
                outs[r] = fused3d_cell<T, R, S>(zw, ys);
            }
#pragma unroll
            for (int r = 0; r < RY; r++) {
                const int ty = ty0 + r, y = yt + ty;
                if (j + 1 < L) {
                    if (!fast) fused3d_outside<T, NC>(src, a, j, x0, y, z, outs[r]);
                    w[j][r][2 * R] = outs[r];
                } else if (store_lane && ty >= H && ty < BY - H && y < a.hi[L - 1][1] && z >= Z0) {
                    store_cells(dst + (long)z * a.sz + (long)y * a.sy + x0, outs[r], x0, a.lo[j][0], a.hi[j][0]);
                }
            }
        }
#pragma unroll
        for (int r = 0; r < RY; r++) {
#pragma unroll
            for (int q = 0; q < 2 * R; q++) w0[r][q] = w0[r][q + 1];
#pragma unroll
            for (int j = 0; j < L - 1; j++)
#pragma unroll
                for (int q = 0; q < 2 * R; q++) w[j][r][q] = w[j][r][q + 1];
        }
    };
    /* whole rounds of NS steps unrolled, so that ring slots and parities are constants and the
     * windows rotate by renaming; then the remaining steps */
    int t = zt + 2 * R;
    for (; t + NS - 1 <= last; t += NS) {
#pragma unroll
        for (int k = 0; k < NS; k++) step(t + k, (2 * R + k) % NS);
    }
    for (; t <= last; t++) step(t, (t - zt) % NS);
    cp_async_wait<0>();
}

/* The tile of each instance: a block of S x BY/RY threads, a thread RY rows (RY = 2 halves the
 * shared loads for y neighbours but doubles the register windows: 128 registers a thread at 14-16
 * warps, which spills for fp32 N = 4), one block per multiprocessor (shared memory 128 to 196 KiB,
 * 2(2R+1) planes of level 0 and two copies of each later level's centre plane). The fastest at
 * 512^3: a tile recomputes 2LR of its BY rows, so BY
 * as large as registers and shared memory allow. S = 16 (floats only: 16 lanes of doubles are 32
 * cells, too narrow for a margin of 4) is the narrow tile: rows of 64 cells and twice the rows for
 * the same threads and shared memory, chosen per pass by fused3d_lanes. A tuning build may set
 * HX_FUSED3D_BY_L2, _L3, _L4, _R2 and HX_FUSED3D_RY (all five; BY for S = 32). */
template <typename T, int R, int L, int S = 32> struct fused3d_tile {
    static_assert(S == 32 || (S == 16 && sizeof(T) == 4), "tile rows of 32 lanes, or 16 for floats");
#ifdef HX_FUSED3D_BY_L3
    enum { BY = (R == 2 ? HX_FUSED3D_BY_R2 : L == 2 ? HX_FUSED3D_BY_L2 : L == 3 ? HX_FUSED3D_BY_L3 : HX_FUSED3D_BY_L4) * 32 / S, RY = HX_FUSED3D_RY };
#else
    enum { RY = R == 2 || L == 3 || (L == 4 && sizeof(T) == 8) ? 2 : 1 };
    enum { BY = (L == 4 && RY == 1 ? 28 : 32) * 32 / S };
#endif
    enum { P = 2 * R + 1 };
};

/* The launch of a pass (fused3d.cu; tests/test_fused3d_emu.cpp runs the same): the arguments from
 * the level boxes and the allocation (alloc: cells per row, rows, planes), z cut into chunks for
 * `slots` blocks resident at once (or into `zsplit` chunks where it is > 0), the grid of S x BY
 * blocks and their shared memory. */
struct fused3d_launch {
    fused3d_args a;
    dim3 grid, block;
    size_t smem;
    double cost; /* the model's: rounds of blocks x steps a block marches (blocks of every S have the same threads) */
};

template <typename T, int R, int L, int S = 32>
static inline fused3d_launch fused3d_plan(const hx_box *boxes, const int *alloc, long slots, int zsplit = 0)
{
    typedef fused3d_tile<T, R, L, S> C;
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
    const int per_tile = S - 2 * a.margin, rows_per_tile = C::BY - 2 * H;
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
    if (zsplit > 0) best = zsplit < nz ? zsplit : nz; /* a fixed split (hx_tuning.zsplit) */
    a.zchunk = (nz + best - 1) / best;
    l.cost = (double)((tx * ty * best + slots - 1) / slots) * (a.zchunk + 2 * H + 2 * R);
    /* Level j+1 at a cell of box j+1 reads level j within R: inside box j when box j+1 is box j
     * shrunk by R (deep-halo sides). Then cells outside the boxes feed nothing that is stored and
     * need not hold the source value, which saves the march the loads of its fix-up (global loads on
     * the critical path of every edge tile). Fixed sides keep the box: there the fix-up runs. */
    a.nested = 1;
    for (int j = 0; j + 1 < L; j++)
        for (int i = 0; i < 3; i++)
            if (boxes[j + 1].lo[i] < boxes[j].lo[i] + R || boxes[j + 1].hi[i] > boxes[j].hi[i] - R) a.nested = 0;
    const unsigned nzc = (unsigned)((nz + a.zchunk - 1) / a.zchunk);
    l.block = dim3(32, S * C::BY / (32 * C::RY));
    l.grid = dim3((unsigned)tx, (unsigned)ty, nzc);
    l.smem = fused3d_smem<T, R, L, C::BY, C::P, S>();
    return l;
}

/* The narrow tile's march costs 4-10% more per block and step than the wide one's (fused passes
 * of 2-4 sweeps where the model ties), so it is taken only where the model says it saves more. */
#define HX_FUSED3D_NARROW_COST 1.08

/* The lanes of a tile row for the passes whose costs the two plans give (the sums over a cycle's
 * passes, or one pass's): 16 where the narrow tile's rounds and steps come out cheaper by more than
 * its dearer march (at a 2- or 4-GPU rank's block, 256x128x128: 5 tiles of 56 cells across x = 256
 * and 3 of 48 rows across y = 128, instead of 3 of 120 cells and 7 of 20 rows), else 32; `forced`
 * (16 or 32) wins. Doubles take 32. */
template <typename T> static inline int fused3d_pick_lanes(double cost16, double cost32, int forced)
{
    if (sizeof(T) != 4) return 32;
    if (forced == 16 || forced == 32) return forced;
    return cost16 * HX_FUSED3D_NARROW_COST < cost32 ? 16 : 32;
}

#endif
