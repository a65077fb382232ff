/* The pass kernel's 3D sweep by marching register windows (the default; HALOX_PASS3D=rows switches to reading rows from L2): the scheme of the
 * cycle schedule's 3D kernel (src/compute/cuda/sweep3d.cuh, one vector of V cells per thread, the
 * 2R+1 planes of its column in registers, y neighbours one plane ahead), with every load through
 * L2 (ld.global.cg), since other blocks of the same launch wrote the field in the pass before and
 * L1 is not coherent between SMs. A cell costs about one load from L2 instead of the 7 or 13 of
 * hx_sweep_rows. Work items are (32 vectors in x) x (blockDim.x / 32 rows) x (a march of z planes),
 * shared by the grid's blocks in turn. The arithmetic is stencil_row3's, the expression tree of
 * halox/stencil.h in the argument order of hx_apply_cg, so the results are bit-identical to every
 * other schedule. Included by persistent_kernel.cuh after hx_pparams. */
#ifndef HALOX_PASS3D_MARCH_CUH
#define HALOX_PASS3D_MARCH_CUH

#include "compute/cuda/common.cuh"

template <typename T> __device__ __forceinline__ cells<T> hx_ldcg_vec(const T *p)
{
    cells<T> c;
    typename vec16<T>::type raw = __ldcg(reinterpret_cast<const typename vec16<T>::type *>(p));
    memcpy(c.v, &raw, sizeof raw);
    return c;
}

/* One vector's column of box b: cells x0 .. x0+V-1 of row y, planes z0 .. z1-1. */
template <typename T, int R>
__device__ __forceinline__ void hx_march_column(const hx_pparams &p, const T *src, T *dst, const hx_box &b, int x0, int y,
                                                int z0, int z1, bool norm, double &acc)
{
    const int V = vec16<T>::n;
    const long sy = p.sy, sz = p.sz;
    const T *base = src + x0 + (long)y * sy;
    cells<T> win[2 * R + 1]; /* planes z-R .. z+R */
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = hx_ldcg_vec(base + (long)(z0 - R + k) * sz);
    cells<T> ahead = hx_ldcg_vec(base + (long)(z0 + R) * sz);
    cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R of the next plane */
#pragma unroll
    for (int j = 0; j < R; j++) {
        ys[j] = hx_ldcg_vec(base + (long)z0 * sz - (long)(R - j) * sy);
        ys[R + j] = hx_ldcg_vec(base + (long)z0 * sz + (long)(j + 1) * sy);
    }
    const bool y_owned = y >= p.olo[1] && y < p.ohi[1];
    for (int z = z0; z < z1; z++) {
        win[2 * R] = ahead;
        cells<T> cur[2 * R];
#pragma unroll
        for (int j = 0; j < 2 * R; j++) cur[j] = ys[j];
        if (z + 1 < z1) {
            ahead = hx_ldcg_vec(base + (long)(z + 1 + R) * sz);
#pragma unroll
            for (int j = 0; j < R; j++) {
                ys[j] = hx_ldcg_vec(base + (long)(z + 1) * sz - (long)(R - j) * sy);
                ys[R + j] = hx_ldcg_vec(base + (long)(z + 1) * sz + (long)(j + 1) * sy);
            }
        }
        const T *row = base - x0 + (long)z * sz;
        xrow<T, R> c;
#pragma unroll
        for (int i = 0; i < R; i++) { /* the row's ends are clamped as load_xrow's: those lanes store nothing */
            c.v[i] = __ldcg(row + max(x0 - R + i, 0));
            c.v[R + V + i] = __ldcg(row + min(x0 + V + i, (int)sy - 1));
        }
#pragma unroll
        for (int i = 0; i < V; i++) c.v[R + i] = win[R].v[i];
        const cells<T> out = stencil_row3<T, R>(c, cur, win);
        store_cells(dst + x0 + (long)y * sy + (long)z * sz, out, x0, b.lo[0], b.hi[0]);
        if (norm && y_owned && z >= p.olo[2] && z < p.ohi[2])
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

/* 3D: one sweep of box b by the k-th of nb blocks (the pass kernel: every block of the grid; the
 * role kernel: its senders' interior), marching in z; acc gets the squared change of the owned
 * cells when `norm`. */
template <typename T, int ST>
__device__ void hx_march_box(const hx_pparams &p, const T *src, T *dst, const hx_box &b, int k, int nb, bool norm,
                             double &acc)
{
    constexpr int R = ST == HX_STAR13 ? 2 : 1;
    const int V = vec16<T>::n, rows = (int)(blockDim.x >> 5);
    const int xbase = b.lo[0] / V * V, groups = (b.hi[0] - xbase + V - 1) / V;
    const int nxt = (groups + 31) / 32, nyt = (b.hi[1] - b.lo[1] + rows - 1) / rows, nz = b.hi[2] - b.lo[2];
    if (b.hi[0] <= b.lo[0] || nyt <= 0 || nz <= 0) return;
    /* the march: 32 planes, halved while the items would leave blocks idle */
    int chunk = 32;
    while (chunk > 4 && (long)nxt * nyt * ((nz + chunk - 1) / chunk) < 2L * nb) chunk /= 2;
    const int nzt = (nz + chunk - 1) / chunk;
    const long items = (long)nxt * nyt * nzt;
    for (long it = k; it < items; it += nb) {
        const int tx = (int)(it % nxt), ty = (int)(it / nxt % nyt), tz = (int)(it / ((long)nxt * nyt));
        const int x0 = xbase + (tx * 32 + (int)(threadIdx.x & 31)) * V, y = b.lo[1] + ty * rows + (int)(threadIdx.x >> 5);
        const int z0 = b.lo[2] + tz * chunk, z1 = min(z0 + chunk, b.hi[2]);
        if (x0 < b.hi[0] && y < b.hi[1]) hx_march_column<T, R>(p, src, dst, b, x0, y, z0, z1, norm, acc);
    }
}

/* 3D: one sweep of box b by the whole grid, marching in z; norm as hx_pass3d. */
template <typename T, int ST>
__device__ void hx_pass3d_march(const hx_pparams &p, const T *src, T *dst, const hx_box &b, double *norm)
{
    double acc = 0;
    hx_march_box<T, ST>(p, src, dst, b, (int)blockIdx.x, (int)gridDim.x, norm != NULL, acc);
    if (norm) hx_block_add(acc, norm);
}

#endif
