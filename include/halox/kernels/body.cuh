/* The bodies of a functor's kernels (halox/kernels.cuh), host and device alike: a cell's value
 * from the functor, a plain sweep of a box, and the tile body of a fused pass. */
#ifndef HALOX_KERNELS_BODY_CUH
#define HALOX_KERNELS_BODY_CUH

#include <string.h>

#include "halox/custom.h"

#if !defined(__CUDACC__) && !defined(HALOX_EMULATE)
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#endif

namespace hx_kern {

/* What a functor reads: in(f, dx, dy[, dz]) is state field f at the cell's offset (dx, dy, dz),
 * from a field or a shared-memory tile alike, so both give the functor the same values. */
template <typename T, int NF> struct cells {
    const T *p[NF];
    long i, sy, sz;
    __host__ __device__ T operator()(int f, int dx, int dy, int dz = 0) const { return p[f][i + dx + sy * dy + sz * dz]; }
};

/* A launch as a kernel takes it, by value: the functor, the fields and the boxes */
template <class F, typename T> struct args {
    F fn;
    const T *src[F::nfields];
    T *dst[F::nfields];
    long sy, sz;
    int alloc[3];
    int levels;
    int lo[HX_FUSE_MAX][3], hi[HX_FUSE_MAX][3];
};

template <class F, typename T> inline args<F, T> make_args(const hx_custom_launch *l)
{
    args<F, T> a;
    memcpy((void *)&a.fn, l->params, sizeof(F));
    for (int f = 0; f < F::nfields; f++) {
        a.src[f] = (const T *)l->src[f];
        a.dst[f] = (T *)l->dst[f];
    }
    a.sy = l->sy;
    a.sz = l->sz;
    for (int i = 0; i < 3; i++) a.alloc[i] = l->alloc[i];
    a.levels = l->levels;
    for (int j = 0; j < HX_FUSE_MAX; j++)
        for (int i = 0; i < 3; i++) {
            a.lo[j][i] = j < l->levels ? l->box[j].lo[i] : 0;
            a.hi[j][i] = j < l->levels ? l->box[j].hi[i] : 0;
        }
    return a;
}

/* Cell (x, y, z) of a plain sweep: every field's new value from the source fields */
template <class F, typename T> __host__ __device__ inline void sweep_cell(const args<F, T> &a, int x, int y, int z)
{
    cells<T, F::nfields> c;
    for (int f = 0; f < F::nfields; f++) c.p[f] = a.src[f];
    c.i = x + a.sy * y + a.sz * z;
    c.sy = a.sy;
    c.sz = a.sz;
    T out[F::nfields];
    a.fn(c, out);
    for (int f = 0; f < F::nfields; f++) a.dst[f][c.i] = out[f];
}

/* A plain sweep of box 0 on the host */
template <class F, typename T> int sweep_host(const hx_custom_launch *l)
{
    const args<F, T> a = make_args<F, T>(l);
    const long ny = a.hi[0][1] - a.lo[0][1], rows = ny * (a.hi[0][2] - a.lo[0][2]);
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long r = 0; r < rows; r++)
        for (int x = a.lo[0][0]; x < a.hi[0][0]; x++) sweep_cell(a, x, a.lo[0][1] + (int)(r % ny), a.lo[0][2] + (int)(r / ny));
    return 0;
}

/* Fused tiles: blocks of TX x TY threads; a pass of halo H = levels x R has output tiles of
 * ox(H) x OY x OZ cells. ox(H) = TX - 2H, so that a tile row with its halo is one pass of the
 * lanes at every level (all of TX for halos beyond TX / 4). */
template <int DIM> struct tile {
    enum { TX = DIM == 2 ? 64 : 32, TY = DIM == 2 ? 4 : 8, OY = DIM == 2 ? 16 : 8, OZ = DIM == 2 ? 1 : 4 };
    __host__ __device__ static int ox(int H) { return 4 * H <= TX ? TX - 2 * H : TX; }
};

/* Cells of a tile of a pass of `levels` sweeps, its halo levels x R on every side */
template <class F> __host__ __device__ inline long tile_cells(int levels)
{
    typedef tile<F::dim> S;
    const int H = levels * F::radius;
    return (long)(S::ox(H) + 2 * H) * (S::OY + 2 * H) * (F::dim == 3 ? S::OZ + 2 * H : 1);
}

/* Shared memory of a pass: every field's tile, two buffers to ping-pong when levels > 1 */
template <class F, typename T> inline size_t fused_smem(int levels)
{
    return (size_t)(levels > 1 ? 2 : 1) * F::nfields * tile_cells<F>(levels) * sizeof(T);
}

/* The blocks of a pass of `levels` sweeps over the box lo .. hi of its last level */
template <class F> __host__ __device__ inline void tile_grid(const int lo[3], const int hi[3], int levels, unsigned g[3])
{
    typedef tile<F::dim> S;
    const int ox = S::ox(levels * F::radius);
    g[0] = (unsigned)((hi[0] - lo[0] + ox - 1) / ox);
    g[1] = (unsigned)((hi[1] - lo[1] + S::OY - 1) / S::OY);
    g[2] = F::dim == 3 ? (unsigned)((hi[2] - lo[2] + S::OZ - 1) / S::OZ) : 1u;
}

#if defined(__CUDACC__) || defined(HALOX_EMULATE)
/* Whether (x, y, z) lies in lo .. hi, or (one bound) in 0 .. hi */
__host__ __device__ inline bool in_range(const int lo[3], const int hi[3], int x, int y, int z)
{
    return x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2];
}
__host__ __device__ inline bool in_range(const int hi[3], int x, int y, int z)
{
    return x >= 0 && x < hi[0] && y >= 0 && y < hi[1] && z >= 0 && z < hi[2];
}

/* A field's cell: CG reads through L2 (ld.global.cg), for the persistent kernel, where other
 * blocks wrote the fields during the launch and L1 is not coherent between SMs. */
template <bool CG, typename T> __device__ __forceinline__ T load(const T *p)
{
    if constexpr (CG) return __ldcg(p);
    else return *p;
}

/* The functor at cell i of a tile whose fields lie n cells apart from t (rows sy, planes sz apart) */
template <class F, typename T>
__device__ __forceinline__ void tile_cell(const F &fn, const T *t, int n, long i, long sy, long sz, T (&o)[F::nfields])
{
    cells<T, F::nfields> v;
    for (int f = 0; f < F::nfields; f++) v.p[f] = t + (long)f * n;
    v.i = i;
    v.sy = sy;
    v.sz = sz;
    fn(v, o);
}

/* The block at tile blk of the last box: the tile grown by H = levels x R loaded once, levels
 * 1 .. L-1 computed in shared memory over the tile shrunk by (j + 1) R (a cell outside box j
 * holding the source value, as a separate sweep on box j leaves it), the last level straight to
 * dst. Every cell's value comes from the same functor on the same values as a separate sweep's,
 * so a pass is bit-identical to separate sweeps. t: the thread's index, n: the block's threads. */
template <class F, typename T, bool CG = false>
__device__ inline void fused_body(const args<F, T> &a, unsigned bx, unsigned by, unsigned bz, T *smem, int t, int n)
{
    typedef tile<F::dim> S;
    enum { NF = F::nfields, D = F::dim };
    /* what every cell reads of a, in registers: a may sit in shared memory (the persistent kernel),
     * where each of the tile's stores could alias it and force a reload */
    const F fn = a.fn;
    const long sy = a.sy, sz = a.sz;
    const int al[3] = {a.alloc[0], a.alloc[1], a.alloc[2]};
    const T *src[NF];
    for (int f = 0; f < NF; f++) src[f] = a.src[f];
    const int L = a.levels, R = F::radius, H = L * R, last = L - 1, OX = S::ox(H);
    const int RX = OX + 2 * H, RY = S::OY + 2 * H, RZ = D == 3 ? S::OZ + 2 * H : 1;
    const int N = RX * RY * RZ;
    const int gx0 = a.lo[last][0] + (int)bx * OX - H, gy0 = a.lo[last][1] + (int)by * S::OY - H;
    const int gz0 = D == 3 ? a.lo[last][2] + (int)bz * S::OZ - H : 0;
    T *in = smem, *out = smem + NF * N;
    /* a thread takes lanes tx, tx + TX, ... of rows ty, ty + RS, ... (n = TX x RS threads); a row's
     * (y, z) advances without a division */
    const int tx = t % S::TX, ty = t / S::TX, RS = n / S::TX;
    {
        int y = ty % RY, z = ty / RY;
        for (int r = ty; r < RY * RZ; r += RS) {
            const int gy = gy0 + y, gz = gz0 + z;
            const long g0 = sy * gy + sz * gz;
            for (int x = tx; x < RX; x += S::TX) {
                const int gx = gx0 + x;
                const bool ok = in_range(al, gx, gy, gz);
                const int c = x + RX * (y + RY * z);
                for (int f = 0; f < NF; f++) in[f * N + c] = ok ? load<CG>(src[f] + g0 + gx) : (T)0;
            }
            for (y += RS; y >= RY;) y -= RY, z++;
        }
    }
    __syncthreads();
    for (int j = 0; j < last; j++) {
        const int m = (j + 1) * R, mz = D == 3 ? m : 0;
        const int nx = RX - 2 * m, ny = RY - 2 * m, nz = RZ - 2 * mz;
        const int blo[3] = {a.lo[j][0], a.lo[j][1], a.lo[j][2]}, bhi[3] = {a.hi[j][0], a.hi[j][1], a.hi[j][2]};
        int y = ty % ny, z = ty / ny;
        for (int r = ty; r < ny * nz; r += RS) {
            const int yy = m + y, zz = mz + z, gy = gy0 + yy, gz = gz0 + zz;
            for (int x = m + tx; x < m + nx; x += S::TX) {
                const int gx = gx0 + x;
                const int i = x + RX * (yy + RY * zz);
                if (in_range(blo, bhi, gx, gy, gz)) {
                    T o[NF];
                    tile_cell(fn, in, N, i, RX, D == 3 ? (long)RX * RY : 0, o);
                    for (int f = 0; f < NF; f++) out[f * N + i] = o[f];
                } else {
                    const bool ok = in_range(al, gx, gy, gz);
                    const long g = gx + sy * gy + sz * gz;
                    for (int f = 0; f < NF; f++) out[f * N + i] = ok ? load<CG>(src[f] + g) : (T)0;
                }
            }
            for (y += RS; y >= ny;) y -= ny, z++;
        }
        __syncthreads();
        T *s = in;
        in = out;
        out = s;
    }
    const int blo[3] = {a.lo[last][0], a.lo[last][1], a.lo[last][2]}, bhi[3] = {a.hi[last][0], a.hi[last][1], a.hi[last][2]};
    T *dst[NF];
    for (int f = 0; f < NF; f++) dst[f] = a.dst[f];
    int y = ty % S::OY, z = ty / S::OY;
    for (int r = ty; r < S::OY * S::OZ; r += RS) {
        const int yy = H + y, zz = (D == 3 ? H : 0) + z, gy = gy0 + yy, gz = gz0 + zz;
        for (int x = H + tx; x < H + OX; x += S::TX) {
            const int gx = gx0 + x;
            if (!in_range(blo, bhi, gx, gy, gz)) continue;
            T o[NF];
            tile_cell(fn, in, N, x + RX * (yy + RY * zz), RX, D == 3 ? (long)RX * RY : 0, o);
            const long g = gx + sy * gy + sz * gz;
            for (int f = 0; f < NF; f++) dst[f][g] = o[f];
        }
        for (y += RS; y >= S::OY;) y -= S::OY, z++;
    }
}

#endif

} // namespace hx_kern

#endif
