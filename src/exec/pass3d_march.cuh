/* The pass kernel's 3D sweep by marching register windows (faster than reading every neighbour
 * from L2): the scheme of the cycle schedule's 3D kernel
 * (src/compute/cuda/sweep3d.cuh: one vector of V cells per thread, the 2R+1 planes of its column
 * in registers, what a plane needs loaded planes ahead), the loads cached in L1 (hx_march_ld says
 * why that is safe). Work items are (blockDim.x columns of the box) x (a march of z planes), shared
 * by the grid's blocks in turn. The arithmetic is stencil_row3's, the expression tree of
 * halox/stencil.h in the argument order of hx_apply_cg, so the results are bit-identical to every
 * other schedule. Included by persistent_kernel.cuh after hx_pparams. */
#ifndef HALOX_PASS3D_MARCH_CUH
#define HALOX_PASS3D_MARCH_CUH

#include "compute/cuda/common.cuh"

/* The march's field loads. L1 (the pass kernel): ld.global.ca, cached in L1, so that the y
 * neighbours and the row ends, which the block's other threads loaded too, come from L1 instead of
 * L2 (from L2 they cost about five times the bytes of the cells swept, and L2's bandwidth bounded
 * the march). That is safe because a pass's source field is not written during the pass, and
 * every pass starts after a grid barrier whose fence invalidates the SM's L1 (CCTL.IVALL in the
 * SASS), as the memory model requires for the plain loads after a barrier. Without L1 (the role
 * kernel, whose receivers write ghost cells while its senders sweep): ld.global.cg. */
template <bool L1, typename T> __device__ __forceinline__ T hx_march_ld(const T *p)
{
    return L1 ? __ldca(p) : __ldcg(p);
}
template <bool L1, typename T> __device__ __forceinline__ cells<T> hx_march_ld_vec(const T *p)
{
    typedef typename vec16<T>::type V;
    cells<T> c;
    const V raw = L1 ? __ldca(reinterpret_cast<const V *>(p)) : __ldcg(reinterpret_cast<const V *>(p));
    memcpy(c.v, &raw, sizeof raw);
    return c;
}

/* Planes a march loads ahead (a tuning build may set -DHX_MARCH_AHEAD=N). */
#ifndef HX_MARCH_AHEAD
#define HX_MARCH_AHEAD 2
#endif

/* One vector's column of box b: cells x0 .. x0+V-1 of row y, planes z0 .. z1-1. Everything a plane
 * needs (the entering plane, the y neighbours, the two ends of the x row) is loaded A planes
 * ahead: the kernel holds few warps per SM (its registers), so one plane's arithmetic is far
 * shorter than a round trip to L2. */
template <typename T, int R, bool L1, int A = HX_MARCH_AHEAD>
__device__ __forceinline__ void hx_march_column(const hx_pparams &p, const T *src, T *dst, const hx_box &b, int x0, int y,
                                                int z0, int z1, bool norm, double &acc)
{
    const int V = vec16<T>::n;
    const long sy = p.sy, sz = p.sz;
    const T *base = src + x0 + (long)y * sy;
    int xoff[2 * R]; /* the row's ends, clamped as load_xrow's: those lanes store nothing */
#pragma unroll
    for (int i = 0; i < R; i++) {
        xoff[i] = max(x0 - R + i, 0) - x0;
        xoff[R + i] = min(x0 + V + i, (int)sy - 1) - x0;
    }
    /* what plane z+a needs, a = 0 .. A-1: the plane entering the window (z+a+R), its y neighbours
     * (y-R .. y-1, y+1 .. y+R) and its row's ends (x-R .. x-1, x+V .. x+V+R-1) */
    cells<T> enter[A], ys[A][2 * R];
    T xe[A][2 * R];
    auto fetch = [&](int a, int z) {
        const T *at = base + (long)z * sz;
        enter[a] = hx_march_ld_vec<L1>(at + (long)R * sz);
#pragma unroll
        for (int j = 0; j < R; j++) {
            ys[a][j] = hx_march_ld_vec<L1>(at - (long)(R - j) * sy);
            ys[a][R + j] = hx_march_ld_vec<L1>(at + (long)(j + 1) * sy);
        }
#pragma unroll
        for (int i = 0; i < 2 * R; i++) xe[a][i] = hx_march_ld<L1>(at + xoff[i]);
    };
    cells<T> win[2 * R + 1]; /* planes z-R .. z+R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = hx_march_ld_vec<L1>(base + (long)(z0 - R + k) * sz);
#pragma unroll
    for (int a = 0; a < A; a++)
        if (z0 + a < z1) fetch(a, z0 + a);
    const bool y_owned = y >= p.olo[1] && y < p.ohi[1];
    /* A planes a turn, slot a serving plane z+a and then taking plane z+a+A: the source never
     * rotates the slots, since moving a register waits for its load, which would bring the loads'
     * distance back to one plane (ptxas still adds some moves where the turn's branches merge; a
     * branch-free turn, which had none, was slower) */
    for (int z = z0; z < z1; z += A) {
#pragma unroll
        for (int a = 0; a < A; a++) {
            const int zz = z + a;
            if (zz >= z1) break;
            win[2 * R] = enter[a];
            cells<T> cur[2 * R];
            xrow<T, R> c;
#pragma unroll
            for (int j = 0; j < 2 * R; j++) cur[j] = ys[a][j];
#pragma unroll
            for (int i = 0; i < R; i++) {
                c.v[i] = xe[a][i];
                c.v[R + V + i] = xe[a][R + i];
            }
            if (zz + A < z1) fetch(a, zz + A);
#pragma unroll
            for (int i = 0; i < V; i++) c.v[R + i] = win[R].v[i];
            const cells<T> out = stencil_row3<T, R>(c, cur, win);
            store_cells(dst + x0 + (long)y * sy + (long)zz * sz, out, x0, b.lo[0], b.hi[0]);
            if (norm && y_owned && zz >= p.olo[2] && zz < p.ohi[2])
#pragma unroll
                for (int i = 0; i < V; i++)
                    if (x0 + i >= b.lo[0] && x0 + i < b.hi[0] && x0 + i >= p.olo[0] && x0 + i < p.ohi[0]) {
                        const double d = (double)out.v[i] - (double)win[R].v[i];
                        acc += d * d;
                    }
#pragma unroll
            for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
        }
    }
}

/* Planes of one march: for r = 1 .. 8 rounds of work items over the nb blocks, the shortest march
 * that needs no more than r rounds; the one that minimises r x (planes + the A + 2 planes' worth of
 * latency a march spends before its first store). Every block gets work where the box allows. */
__host__ __device__ __forceinline__ int hx_march_chunk(long sets, int nz, int nb)
{
    int best = nz;
    long best_cost = -1;
    for (int r = 1; r <= 8; r++) {
        const long most = (long)r * nb / sets; /* marches per column set that fit in r rounds */
        if (most < 1) continue;
        const int n = (int)(most < nz ? most : nz), chunk = (nz + n - 1) / n;
        const long rounds = (sets * ((nz + chunk - 1) / chunk) + nb - 1) / nb;
        const long cost = rounds * (chunk + HX_MARCH_AHEAD + 2);
        if (best_cost < 0 || cost < best_cost) best_cost = cost, best = chunk;
        if (n == nz) break; /* a plane per march already */
    }
    return best;
}

/* 3D: one sweep of box b by the k-th of nb blocks (the pass kernel: every block of the grid; the
 * role kernel: its senders' interior), marching in z; acc gets the squared change of the owned
 * cells when `norm`. The box's columns (a vector of V cells in x, one row) are numbered row by
 * row and dealt to the block's threads in sets of blockDim.x, so no lane idles when the box is not
 * a multiple of 32 vectors wide (a deep halo's boxes never are); a work item is a set marching
 * over hx_march_chunk planes. */
template <typename T, int ST, bool L1>
__device__ void hx_march_box(const hx_pparams &p, const T *src, T *dst, const hx_box &b, int k, int nb, bool norm,
                             double &acc)
{
    constexpr int R = ST == HX_STAR13 ? 2 : 1;
    const int V = vec16<T>::n, threads = (int)blockDim.x;
    const int xbase = b.lo[0] / V * V, groups = (b.hi[0] - xbase + V - 1) / V;
    const int ny = b.hi[1] - b.lo[1], nz = b.hi[2] - b.lo[2];
    if (b.hi[0] <= b.lo[0] || ny <= 0 || nz <= 0) return;
    const long columns = (long)groups * ny, sets = (columns + threads - 1) / threads;
    const int chunk = hx_march_chunk(sets, nz, nb), nzt = (nz + chunk - 1) / chunk;
    const long items = sets * nzt;
    for (long it = k; it < items; it += nb) {
        const long c = (it % sets) * threads + threadIdx.x;
        if (c >= columns) continue;
        const int tz = (int)(it / sets), g = (int)(c % groups), y = b.lo[1] + (int)(c / groups);
        const int z0 = b.lo[2] + tz * chunk, z1 = min(z0 + chunk, b.hi[2]);
        hx_march_column<T, R, L1>(p, src, dst, b, xbase + g * V, y, z0, z1, norm, acc);
    }
}

/* 3D: one sweep of box b by the whole grid, marching in z; norm as hx_pass3d. */
template <typename T, int ST>
__device__ void hx_pass3d_march(const hx_pparams &p, const T *src, T *dst, const hx_box &b, double *norm)
{
    double acc = 0;
    hx_march_box<T, ST, true>(p, src, dst, b, (int)blockIdx.x, (int)gridDim.x, norm != NULL, acc);
    if (norm) hx_block_add(acc, norm);
}

#endif
