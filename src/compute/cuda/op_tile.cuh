/* The tile body of the operator sweeps: one plain sweep (levels 1) or a fused pass of `levels`
 * sweeps (temporal blocking) of a user operator, 2D or 3D.
 *
 * A block owns an output tile of the last level's box. It loads the tile grown by H = levels x R
 * cells on every side from the source into shared memory once (coalesced rows, each cell read by
 * one thread), then computes level j + 1 from level j in shared memory over the tile shrunk by
 * (j + 1) R, ping-ponging two buffers; the last level goes straight to the destination. A cell of
 * level j + 1 outside box j holds the source value, as a separate sweep on box j leaves it. So a
 * pass is bit-identical to separate sweeps: the same terms in the same order on the same values. */
#ifndef HALOX_CUDA_OP_TILE_CUH
#define HALOX_CUDA_OP_TILE_CUH

#include "compute/cuda/op_dev.cuh"
#include "halox/sweeper.h" /* HX_FUSE_MAX */

/* Rows a thread computes at once on the levels before the last (the last: all of its rows) */
enum { OP_K = 4 };

/* Tile cells a thread loads from the source before it stores them to shared memory */
enum { OP_LB = 8 };

/* Tile shapes: output cells OX x OY x OZ of a block of TX x TY threads, halo H. 2D: 64 lanes wide,
 * 32 rows, halved for halos beyond 4 so that two buffers stay within 48 KiB for doubles; 3D:
 * 32 x 8 x 8, or x 4 planes for halos of 3 and 4. From halo 2 on, the output is 2H narrower than
 * the lanes, so that a tile row with its halo is one pass of the lanes at every level. */
template <int DIM, int H> struct op_shape {
    enum {
        TX = DIM == 2 ? 64 : 32,
        TY = DIM == 2 ? 4 : 8,
        OX = H == 1 ? TX : TX - 2 * H,
        OY = DIM == 2 ? (H <= 4 ? 32 : 16) : 8,
        OZ = DIM == 2 ? 1 : (H <= 2 ? 8 : 4),
        RX = OX + 2 * H,
        RY = OY + 2 * H,
        RZ = DIM == 2 ? 1 : OZ + 2 * H,
        CELLS = RX * RY * RZ,
    };
};

/* Shared memory of a pass of `levels`: one buffer for a plain sweep, two to ping-pong */
template <typename T, int DIM, int H> static inline size_t op_tile_smem(int levels)
{
    return (size_t)(levels > 1 ? 2 : 1) * op_shape<DIM, H>::CELLS * sizeof(T);
}

struct op_tile_args {
    int lo[HX_FUSE_MAX][3], hi[HX_FUSE_MAX][3]; /* box of each level (the last one's is tiled) */
    int levels, r;
    int alloc[3]; /* the field's allocation in cells (alloc[2] = 1 in 2D) */
    long sy, sz;
};

/* The box of level j, picked by constant indices: a runtime index into a's arrays would put a copy
 * of a in local memory where a is not a kernel parameter (the persistent kernel's) */
struct op_lbox {
    int lo[3], hi[3];
};
__host__ __device__ __forceinline__ op_lbox op_level(const op_tile_args &a, int j)
{
    op_lbox b;
#pragma unroll
    for (int i = 0; i < 3; i++) b.lo[i] = a.lo[0][i], b.hi[i] = a.hi[0][i];
#pragma unroll
    for (int l = 1; l < HX_FUSE_MAX; l++)
        if (l == j)
#pragma unroll
            for (int i = 0; i < 3; i++) b.lo[i] = a.lo[l][i], b.hi[i] = a.hi[l][i];
    return b;
}

__device__ __forceinline__ bool op_in(const op_lbox &b, int x, int y, int z)
{
    return x >= b.lo[0] && x < b.hi[0] && y >= b.lo[1] && y < b.hi[1] && z >= b.lo[2] && z < b.hi[2];
}

__device__ __forceinline__ bool op_in_alloc(const op_tile_args &a, int x, int y, int z)
{
    return x >= 0 && x < a.alloc[0] && y >= 0 && y < a.alloc[1] && z >= 0 && z < a.alloc[2];
}

/* Level 0 of a tile that lies inside the allocation (nearly every tile): whole rows, no clamps.
 * LR rows' loads are issued before any is stored: loads in flight, not instructions, feed the SMs. */
template <typename T, int DIM, int H, bool CG>
__device__ __forceinline__ void op_tile_load_inside(const T *__restrict__ src, T *in, const op_tile_args &a, int gx0, int gy0, int gz0,
                                                    int tx, int ty)
{
    typedef op_shape<DIM, H> S;
    constexpr int NX = (S::RX + S::TX - 1) / S::TX, ROWS = S::RY * S::RZ, NR = (ROWS + S::TY - 1) / S::TY, LR = 4;
    /* the thread's rows ty, ty + TY, ...: a pointer and (y, z) advanced a row at a time */
    const T *p = src + gx0 + tx + a.sy * (gy0 + ty % S::RY) + a.sz * (gz0 + ty / S::RY);
    int y = ty % S::RY;
    T *d = in + tx + S::RX * ty;
    const long step = a.sy * S::TY, wrap = a.sz - a.sy * S::RY;
#pragma unroll
    for (int b0 = 0; b0 < NR; b0 += LR) {
        T v[LR][NX];
        const T *q0 = p;
        int y0 = y;
#pragma unroll
        for (int q = 0; q < LR; q++) {
            if (b0 + q < NR && ty + S::TY * (b0 + q) < ROWS)
#pragma unroll
                for (int c = 0; c < NX; c++)
                    if (tx + S::TX * c < S::RX) v[q][c] = CG ? __ldcg(q0 + S::TX * c) : __ldg(q0 + S::TX * c);
            q0 += step;
            if (DIM == 3 && (y0 += S::TY) >= S::RY) y0 -= S::RY, q0 += wrap;
        }
#pragma unroll
        for (int q = 0; q < LR; q++) {
            if (b0 + q < NR && ty + S::TY * (b0 + q) < ROWS)
#pragma unroll
                for (int c = 0; c < NX; c++)
                    if (tx + S::TX * c < S::RX) d[S::TX * c + S::RX * S::TY * (b0 + q)] = v[q][c];
        }
        p = q0;
        y = y0;
    }
}

/* Level 0 of a tile at the allocation's edge: cells beyond it feed no cell of a box (0); each load
 * from an address clamped into the allocation, OP_LB of them before any store */
template <typename T, int DIM, int H, bool CG>
__device__ __forceinline__ void op_tile_load_edge(const T *__restrict__ src, T *in, const op_tile_args &a, int gx0, int gy0, int gz0,
                                                  int tx, int ty)
{
    typedef op_shape<DIM, H> S;
    constexpr int NX = (S::RX + S::TX - 1) / S::TX, NR = (S::RY * S::RZ + S::TY - 1) / S::TY, N = NX * NR;
#pragma unroll
    for (int b0 = 0; b0 < N; b0 += OP_LB) {
        T v[OP_LB];
        int at[OP_LB];
#pragma unroll
        for (int q = 0; q < OP_LB; q++) {
            const int n = b0 + q, row = ty + S::TY * (n / NX), x = tx + S::TX * (n % NX);
            const int y = row % S::RY, z = row / S::RY, gx = gx0 + x, gy = gy0 + y, gz = gz0 + z;
            const bool here = n < N && row < S::RY * S::RZ && x < S::RX;
            const int cx = min(max(gx, 0), a.alloc[0] - 1), cy = min(max(gy, 0), a.alloc[1] - 1), cz = min(max(gz, 0), a.alloc[2] - 1);
            const T *p = src + cx + a.sy * cy + a.sz * cz;
            const T u = CG ? __ldcg(p) : __ldg(p);
            v[q] = op_in_alloc(a, gx, gy, gz) ? u : (T)0;
            at[q] = here ? x + S::RX * row : -1;
        }
#pragma unroll
        for (int q = 0; q < OP_LB; q++)
            if (at[q] >= 0) in[at[q]] = v[q];
    }
}

/* Level j + 1 (margin m = (j + 1) R) of a tile whose level region lies inside box j and the
 * allocation: no box test, and coefficients at the cells themselves (the clamp of the general path
 * leaves them there). OP_K cells of a thread at a fixed stride (op_eval_s): 2D rows ty + TY k, 3D
 * planes z .. z + OP_K - 1 of row ty; a group cut short by the region's end goes cell by cell. */
template <typename T, int DIM, int H, bool C>
__device__ __forceinline__ void op_level_inside(const op_dev<T> &o, const T *in, T *out, const op_tile_args &a, int m, int gx0, int gy0,
                                                int gz0, int tx, int ty)
{
    typedef op_shape<DIM, H> S;
    constexpr int SI = DIM == 2 ? S::TY * S::RX : S::RX * S::RY;
    const int mz = DIM == 3 ? m : 0, nx = S::RX - 2 * m, ny = S::RY - 2 * m, nz = S::RZ - 2 * mz;
    const long sf = DIM == 2 ? S::TY * a.sy : a.sz;
    const int lines = DIM == 2 ? (ny + S::TY * OP_K - 1) / (S::TY * OP_K) : (ny - ty + S::TY - 1) / S::TY;
    const int groups = DIM == 2 ? 1 : (nz + OP_K - 1) / OP_K;
    for (int l = 0; l < lines; l++)
        for (int g = 0; g < groups; g++) {
            const int y = DIM == 2 ? ty + S::TY * OP_K * l : ty + S::TY * l, z = OP_K * g;
            if (y >= ny) continue;
            const int left = DIM == 2 ? (ny - 1 - y) / S::TY + 1 : nz - z; /* cells of the group in the region */
            for (int x = m + tx; x < m + nx; x += S::TX) {
                const int i0 = x + S::RX * (m + y + S::RY * (mz + z));
                const long f0 = gx0 + x + a.sy * (gy0 + m + y) + a.sz * (gz0 + mz + z);
                if (left >= OP_K) {
                    T v[OP_K];
                    op_eval_s<T, C, OP_K, SI>(o, in + i0, f0, sf, v);
#pragma unroll
                    for (int k = 0; k < OP_K; k++) out[i0 + SI * k] = v[k];
                } else
                    for (int k = 0; k < left; k++) out[i0 + SI * k] = op_eval<T, C>(o, in + i0 + SI * k, f0 + sf * k);
            }
        }
}

/* The block at tile blk of the last box; smem holds op_tile_smem bytes; ty is the thread's row
 * index (0 .. TY-1) and tx its lane in x (0 .. TX-1). o.uoff are offsets in the tile (RX, RX*RY).
 * CG: the source is read through L2 (ld.global.cg), for a field other blocks of the same launch
 * wrote (the persistent kernel's passes); else through the read-only path. */
template <typename T, int DIM, int H, bool C, bool CG = false>
__device__ __forceinline__ void op_tile_body(const T *__restrict__ src, T *__restrict__ dst, const op_dev<T> &o, const op_tile_args &a,
                                             uint3 blk, T *smem, int tx, int ty)
{
    typedef op_shape<DIM, H> S;
    static_assert(S::OX <= S::TX && S::OY * S::OZ % S::TY == 0 && (DIM == 2 || S::OY == S::TY),
                  "the last level: a column of x a thread, whole rows");
    const int L = a.levels, R = a.r, last = L - 1;
    const op_lbox bl = op_level(a, last);
    const int ox = bl.lo[0] + (int)blk.x * S::OX, oy = bl.lo[1] + (int)blk.y * S::OY;
    const int oz = DIM == 3 ? bl.lo[2] + (int)blk.z * S::OZ : 0;
    const int gx0 = ox - H, gy0 = oy - H, gz0 = DIM == 3 ? oz - H : 0;
    T *in = smem, *out = smem + S::CELLS;
    const bool inside = gx0 >= 0 && gy0 >= 0 && gz0 >= 0 && gx0 + S::RX <= a.alloc[0] && gy0 + S::RY <= a.alloc[1] && gz0 + S::RZ <= a.alloc[2];
    if (inside) op_tile_load_inside<T, DIM, H, CG>(src, in, a, gx0, gy0, gz0, tx, ty);
    else op_tile_load_edge<T, DIM, H, CG>(src, in, a, gx0, gy0, gz0, tx, ty);
    __syncthreads();
    /* levels 1 .. L-1 in shared memory, OP_K rows of a thread at once (op_eval_k) */
    for (int j = 0; j < last; j++) {
        const op_lbox bj = op_level(a, j);
        const int m = (j + 1) * R, mz = DIM == 3 ? m : 0;
        const int ny = S::RY - 2 * m, nz = S::RZ - 2 * mz, nx = S::RX - 2 * m, rows = ny * nz;
        /* not in the persistent kernel (CG): its registers are capped, and the second path spills */
        const bool level_inside = !CG && inside && gx0 + m >= bj.lo[0] && gx0 + S::RX - m <= bj.hi[0] && gy0 + m >= bj.lo[1] &&
                                  gy0 + S::RY - m <= bj.hi[1] && (DIM == 2 || (gz0 + m >= bj.lo[2] && gz0 + S::RZ - m <= bj.hi[2]));
        if (level_inside) op_level_inside<T, DIM, H, C>(o, in, out, a, m, gx0, gy0, gz0, tx, ty);
        /* the thread's first row of the group as (y, z), advanced without a division a group;
         * a row past the end repeats the last: computed, not stored */
        int ys = ty, zs = 0;
        const int ylast = DIM == 2 ? ny - 1 : (rows - 1) % ny, zlast = DIM == 2 ? 0 : (rows - 1) / ny;
        for (int r0 = ty; r0 < rows && !level_inside; r0 += S::TY * OP_K) {
            int y[OP_K], z[OP_K];
            {
                int yy = ys, zz = zs;
#pragma unroll
                for (int k = 0; k < OP_K; k++) {
                    const bool in_rows = r0 + S::TY * k < rows;
                    y[k] = m + (in_rows ? yy : ylast), z[k] = mz + (in_rows ? zz : zlast);
                    yy += S::TY;
                    if (DIM == 3)
                        while (yy >= ny) yy -= ny, zz++;
                }
                ys = yy, zs = zz;
            }
            for (int x = m + tx; x < m + nx; x += S::TX) {
                const int gx = gx0 + x;
                int i[OP_K];
                long f[OP_K], fc[OP_K];
#pragma unroll
                for (int k = 0; k < OP_K; k++) {
                    i[k] = x + S::RX * (y[k] + S::RY * z[k]);
                    f[k] = gx + a.sy * (gy0 + y[k]) + a.sz * (gz0 + z[k]);
                    /* coefficients of a tile cell near the allocation's edge are read at the cell
                     * clamped R cells inside it: such a cell lies outside box j and its value is
                     * replaced below, while every cell of box j is R or more inside already */
                    if (C) {
                        const int cx = min(max(gx, R), a.alloc[0] - 1 - R), cy = min(max(gy0 + y[k], R), a.alloc[1] - 1 - R);
                        const int cz = DIM == 3 ? min(max(gz0 + z[k], R), a.alloc[2] - 1 - R) : 0;
                        fc[k] = cx + a.sy * cy + a.sz * cz;
                    } else
                        fc[k] = f[k];
                }
                T v[OP_K];
                op_eval_k<T, C, OP_K>(o, in, i, fc, v);
#pragma unroll
                for (int k = 0; k < OP_K; k++) {
                    if (r0 + S::TY * k >= rows) break;
                    const int gy = gy0 + y[k], gz = gz0 + z[k];
                    /* outside box j the level holds the source, as a separate sweep leaves it */
                    if (!op_in(bj, gx, gy, gz)) v[k] = op_in_alloc(a, gx, gy, gz) ? (CG ? __ldcg(src + f[k]) : __ldg(src + f[k])) : (T)0;
                    out[i[k]] = v[k];
                }
            }
        }
        __syncthreads();
        T *t = in;
        in = out;
        out = t;
    }
    /* the last level: the output tile's cells in the last box, to dst; a thread's rows at once.
     * 2D: rows ty + TY k; 3D: row ty of planes k. */
    constexpr int KL = S::OY * S::OZ / S::TY;
    constexpr int SI = DIM == 2 ? S::TY * S::RX : S::RX * S::RY; /* tile cells between a thread's rows */
    const int x = H + tx, gx = gx0 + x;
    if (tx >= S::OX || gx >= bl.hi[0]) return;
    const int y0 = H + ty, z0 = DIM == 3 ? H : 0;
    const long sf = DIM == 2 ? S::TY * a.sy : a.sz, f0 = gx + a.sy * (gy0 + y0) + a.sz * (gz0 + z0);
    const bool whole = DIM == 2 ? gy0 + y0 + S::TY * (KL - 1) < bl.hi[1] : gy0 + y0 < bl.hi[1] && gz0 + z0 + KL - 1 < bl.hi[2];
    if (whole) {
        T v[KL];
        op_eval_s<T, C, KL, SI>(o, in + x + S::RX * (y0 + S::RY * z0), f0, sf, v);
#pragma unroll
        for (int k = 0; k < KL; k++) dst[f0 + sf * k] = v[k];
        return;
    }
    int i[KL];
    long f[KL];
    bool keep[KL];
    int n = 0;
#pragma unroll
    for (int k = 0; k < KL; k++) {
        const int r = ty + S::TY * k, y = H + r % S::OY, z = (DIM == 3 ? H : 0) + r / S::OY, gy = gy0 + y, gz = gz0 + z;
        keep[k] = gy < bl.hi[1] && gz < bl.hi[2];
        n += keep[k];
        /* a row outside the box is computed on the tile's first row (in the box), not stored */
        const int yy = keep[k] ? y : H, zz = keep[k] ? z : (DIM == 3 ? H : 0);
        i[k] = x + S::RX * (yy + S::RY * zz);
        f[k] = gx + a.sy * (gy0 + yy) + a.sz * (gz0 + zz);
    }
    if (n == 0) return;
    T v[KL];
    op_eval_k<T, C, KL>(o, in, i, f, v);
#pragma unroll
    for (int k = 0; k < KL; k++)
        if (keep[k]) dst[f[k]] = v[k];
}

/* The operator's device form for the tile kernel of halo H: values read from the tile, coefficients
 * from fields of allocation alloc (0, or -1 where an offset overflows an int) */
template <typename T, int DIM, int H>
static inline int op_tile_fill(op_dev<T> &o, const hx_operator *op, const void *const *coef, const int *alloc)
{
    typedef op_shape<DIM, H> S;
    return op_dev_fill(o, op, coef, S::RX, (long)S::RX * S::RY, alloc[0], DIM == 3 ? (long)alloc[0] * alloc[1] : 0);
}

/* The grid of a pass over the last box: one block per output tile */
template <int DIM, int H> __host__ __device__ inline dim3 op_tile_grid(const op_tile_args &a)
{
    typedef op_shape<DIM, H> S;
    const op_lbox b = op_level(a, a.levels - 1);
    const unsigned gx = (unsigned)((b.hi[0] - b.lo[0] + S::OX - 1) / S::OX);
    const unsigned gy = (unsigned)((b.hi[1] - b.lo[1] + S::OY - 1) / S::OY);
    const unsigned gz = DIM == 3 ? (unsigned)((b.hi[2] - b.lo[2] + S::OZ - 1) / S::OZ) : 1u;
    return dim3(gx, gy, gz);
}

/* The arguments of a pass of `levels` sweeps of radius r on boxes (levels <= HX_FUSE_MAX) */
__host__ __device__ inline op_tile_args op_tile_make(const hx_box *boxes, int levels, int r, const int *alloc, int dim)
{
    op_tile_args a;
#pragma unroll
    for (int j = 0; j < HX_FUSE_MAX; j++)
#pragma unroll
        for (int i = 0; i < 3; i++) {
            a.lo[j][i] = j < levels ? boxes[j].lo[i] : 0;
            a.hi[j][i] = j < levels ? boxes[j].hi[i] : 0;
        }
    a.levels = levels;
    a.r = r;
    a.alloc[0] = alloc[0];
    a.alloc[1] = alloc[1];
    a.alloc[2] = dim == 3 ? alloc[2] : 1;
    a.sy = alloc[0];
    a.sz = dim == 3 ? (long)alloc[0] * alloc[1] : 0;
    return a;
}

#endif
