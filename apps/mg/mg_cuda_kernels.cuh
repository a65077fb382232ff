/* halox mg: the CUDA kernels' bodies (included by mg_cuda.cu, inside its anonymous namespace).
 * Each thread evaluates one expression of mg_cell.h, as the CPU loop of mg_cpu.c does. Unless
 * said otherwise, thread (x, y) of block (bx, by, bz) is owned cell i = bx * blockDim.x + x + 1,
 * j = by * blockDim.y + y + 1, k = bz + 1. */
#ifndef HALOX_MG_CUDA_KERNELS_CUH
#define HALOX_MG_CUDA_KERNELS_CUH

__device__ __forceinline__ long at(const mg_geom &g, int i, int j, int k)
{
    return (long)i + g.sy * (long)j + g.sz * (long)k;
}

/* Every ghost beyond a domain face in one launch: blockIdx.z = face (2 axis + side), thread (x, y)
 * = a cell of that face's extended plane (edges and corners too; the other axes over mg_box(ghost
 * - 1) and one more, as cpu_bc). A ghost beyond domain faces of
 * the axes in S is (-1)^|S| times the cell reflected inside along all of them: what the x, y, z
 * passes of mg_cpu.c leave there (negation is exact, so bit for bit). Its source is owned, or a
 * neighbour's ghost along the other axes, never a cell this kernel writes: so no order is needed,
 * and a cell on two faces is written twice with one value. */
__global__ void k_bc(mg_geom g, double *a)
{
    const int ax = (int)blockIdx.z >> 1, hi = (int)blockIdx.z & 1;
    if (!(hi ? g.bnd_hi[ax] : g.bnd_lo[ax])) return;
    const int u = ax == 0 ? 1 : 0, v = ax == 2 ? 1 : 2; /* the face's two axes */
    int lo[3], hb[3]; /* the face's extent: the ring's box and one more on each side */
    mg_box(&g, g.ghost - 1, lo, hb);
    const int cu = (int)(blockIdx.x * blockDim.x + threadIdx.x) + lo[u] - 1;
    const int cv = (int)(blockIdx.y * blockDim.y + threadIdx.y) + lo[v] - 1;
    if (cu > hb[u] + 1 || cv > hb[v] + 1) return;
    int c[3];
    c[ax] = hi ? g.n[ax] + 1 : 0;
    c[u] = cu;
    c[v] = cv;
    int s[3], neg = 0;
    for (int d = 0; d < 3; d++) {
        s[d] = c[d];
        if (c[d] == 0 && g.bnd_lo[d]) s[d] = 1, neg ^= 1;
        else if (c[d] == g.n[d] + 1 && g.bnd_hi[d]) s[d] = g.n[d], neg ^= 1;
    }
    const double x = a[at(g, s[0], s[1], s[2])];
    a[at(g, c[0], c[1], c[2])] = neg ? -x : x;
}

/* over mg_box: thread (x, y) of block (bx, by, bz) is row j = lo[1] + by * blockDim.y + y, plane
 * k = lo[2] + bz, and the (bx * blockDim.x + x)-th cell of colour c in that row */
__global__ void k_gsrb(mg_geom g, mg_op A, double *u, const double *f, int c, int ring)
{
    int lo[3], hi[3];
    mg_box(&g, ring, lo, hi);
    const int j = blockIdx.y * blockDim.y + threadIdx.y + lo[1], k = blockIdx.z + lo[2];
    if (j > hi[1]) return;
    const int i = lo[0] + ((g.off[0] + lo[0] - 1 + g.off[1] + j - 1 + g.off[2] + k - 1 + c) & 1) +
                  2 * (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i > hi[0]) return;
    const long p = at(g, i, j, k);
    mg_store_smoothed(&g, u, p, i, j, k, mg_gsrb_cell_calc(&A, u, f, p, g.sy, g.sz));
}

/* the same over the boxes of b, in one 1D grid of `total` threads: box q's rows (y fastest, then z)
 * of (hi[0] - lo[0] + 2) / 2 slots each (mg_box_slots), one cell of colour c per slot, boxes one
 * after another */
__global__ void k_gsrb_boxes(mg_geom g, mg_op A, double *u, const double *f, int c, mg_boxes b, long total)
{
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    int q = 0;
    for (; q < b.n && t >= mg_box_slots(&b, q); q++) t -= mg_box_slots(&b, q);
    if (q == b.n) return;
    const long w = (b.hi[q][0] - b.lo[q][0] + 2) / 2, row = t / w;
    const int h = b.hi[q][1] - b.lo[q][1] + 1;
    const int j = b.lo[q][1] + (int)(row % h), k = b.lo[q][2] + (int)(row / h);
    const int i = b.lo[q][0] + ((g.off[0] + b.lo[q][0] - 1 + g.off[1] + j - 1 + g.off[2] + k - 1 + c) & 1) + 2 * (int)(t - row * w);
    if (i > b.hi[q][0]) return;
    const long p = at(g, i, j, k);
    mg_store_smoothed(&g, u, p, i, j, k, mg_gsrb_cell_calc(&A, u, f, p, g.sy, g.sz));
}

__global__ void k_residual(mg_geom g, mg_op A, double *r, const double *u, const double *f)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1, k = blockIdx.z + 1;
    if (i > g.n[0] || j > g.n[1]) return;
    const long p = at(g, i, j, k);
    r[p] = f ? f[p] - mg_apply(&A, u, p, g.sy, g.sz) : mg_apply(&A, u, p, g.sy, g.sz);
}

/* over mg_box(ring), from its low corner */
__global__ void k_cheby(mg_geom g, mg_op A, double *unew, double *d, const double *u, const double *f, double c1,
                        double c2, int first, int ring)
{
    int lo[3], hi[3];
    mg_box(&g, ring, lo, hi);
    const int i = blockIdx.x * blockDim.x + threadIdx.x + lo[0], j = blockIdx.y * blockDim.y + threadIdx.y + lo[1];
    const int k = blockIdx.z + lo[2];
    if (i > hi[0] || j > hi[1]) return;
    const long p = at(g, i, j, k);
    const double dn = mg_cheby_dir(&A, u, f, d, p, g.sy, g.sz, c1, c2, first);
    d[p] = dn;
    mg_store_smoothed(&g, unew, p, i, j, k, u[p] + dn);
}

/* over coarse cells */
__global__ void k_restrict8(mg_geom F, const double *r, mg_geom C, double *fc)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1, k = blockIdx.z + 1;
    if (i > C.n[0] || j > C.n[1]) return;
    fc[at(C, i, j, k)] = mg_restrict_cell(r, at(F, 2 * i - 1, 2 * j - 1, 2 * k - 1), F.sy, F.sz);
}

/* over fine cells */
__global__ void k_interp_pc(mg_geom F, double *u, mg_geom C, const double *uc)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1, k = blockIdx.z + 1;
    if (i > F.n[0] || j > F.n[1]) return;
    u[at(F, i, j, k)] += uc[at(C, (i + 1) / 2, (j + 1) / 2, (k + 1) / 2)];
}

/* over mg_box(ring), from its low corner */
__global__ void k_interp_linear(mg_geom F, double *u, mg_geom C, const double *uc, int ring)
{
    int lo[3], hi[3];
    mg_box(&F, ring, lo, hi);
    const int i = blockIdx.x * blockDim.x + threadIdx.x + lo[0], j = blockIdx.y * blockDim.y + threadIdx.y + lo[1];
    const int k = blockIdx.z + lo[2];
    if (i > hi[0] || j > hi[1]) return;
    const long di = (i & 1) ? -1 : 1, dj = (j & 1) ? -C.sy : C.sy, dk = (k & 1) ? -C.sz : C.sz;
    u[at(F, i, j, k)] = mg_interp_linear_cell(uc, at(C, mg_parent(i), mg_parent(j), mg_parent(k)), di, dj, dk);
}

__global__ void k_axpy2(mg_geom g, double *u, double *r, const double *p, const double *q, double alpha)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1, k = blockIdx.z + 1;
    if (i > g.n[0] || j > g.n[1]) return;
    const long c = at(g, i, j, k);
    u[c] += alpha * p[c];
    r[c] -= alpha * q[c];
}

__global__ void k_xpby(mg_geom g, double *p, const double *r, double beta)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, j = blockIdx.y * blockDim.y + threadIdx.y + 1, k = blockIdx.z + 1;
    if (i > g.n[0] || j > g.n[1]) return;
    const long c = at(g, i, j, k);
    p[c] = r[c] + beta * p[c];
}

/* thread (x, y) = column (i, k): the sum over j in order, as mg_cpu.c's cpu_dot */
__global__ void k_dot(mg_geom g, const double *a, const double *b, double *part)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, k = blockIdx.y + 1;
    if (i > g.n[0]) return;
    double s = 0;
    for (int j = 1; j <= g.n[1]; j++) {
        const long p = at(g, i, j, k);
        s += a[p] * b[p];
    }
    part[(long)(k - 1) * g.n[0] + (i - 1)] = s;
}

__global__ void k_error(mg_geom g, const double *u, double *part, double *pmax)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1, k = blockIdx.y + 1;
    if (i > g.n[0]) return;
    double s = 0, mx = 0;
    for (int j = 1; j <= g.n[1]; j++) {
        const double e = u[at(g, i, j, k)] - mg_exact_u(mg_centre(&g, 0, i), mg_centre(&g, 1, j), mg_centre(&g, 2, k));
        s += e * e;
        if (fabs(e) > mx) mx = fabs(e);
    }
    part[(long)(k - 1) * g.n[0] + (i - 1)] = s;
    pmax[(long)(k - 1) * g.n[0] + (i - 1)] = mx;
}

/* over mg_box(ghost - 1), from its low corner */
__global__ void k_set_rhs(mg_geom g, mg_pde P, double *f)
{
    int lo[3], hi[3];
    mg_box(&g, g.ghost - 1, lo, hi);
    const int i = blockIdx.x * blockDim.x + threadIdx.x + lo[0], j = blockIdx.y * blockDim.y + threadIdx.y + lo[1];
    const int k = blockIdx.z + lo[2];
    if (i > hi[0] || j > hi[1]) return;
    f[at(g, i, j, k)] = mg_rhs_at(&P, g.il2, mg_centre(&g, 0, i), mg_centre(&g, 1, j), mg_centre(&g, 2, k));
}

/* k_set_beta and k_set_dinv: over mg_box(ghost - 1), from its low corner (k_set_beta: and the high
 * faces of its last cells) */
__global__ void k_set_beta(mg_geom g, double *alpha, double *bx, double *by, double *bz)
{
    int lo[3], hi[3];
    mg_box(&g, g.ghost - 1, lo, hi);
    const int i = blockIdx.x * blockDim.x + threadIdx.x + lo[0], j = blockIdx.y * blockDim.y + threadIdx.y + lo[1];
    const int k = blockIdx.z + lo[2];
    if (i > hi[0] + 1 || j > hi[1] + 1) return;
    const long p = at(g, i, j, k);
    const double xc = mg_centre(&g, 0, i), yc = mg_centre(&g, 1, j), zc = mg_centre(&g, 2, k);
    const double xf = mg_face(&g, 0, i), yf = mg_face(&g, 1, j), zf = mg_face(&g, 2, k);
    const int in_x = i <= hi[0], in_y = j <= hi[1], in_z = k <= hi[2];
    if (in_x && in_y && in_z) alpha[p] = mg_alpha_at(xc, yc, zc);
    if (in_y && in_z) bx[p] = mg_beta_at(xf, yc, zc);
    if (in_x && in_z) by[p] = mg_beta_at(xc, yf, zc);
    if (in_x && in_y) bz[p] = mg_beta_at(xc, yc, zf);
}

__global__ void k_set_dinv(mg_geom g, mg_op A, double *dinv)
{
    int lo[3], hi[3];
    mg_box(&g, g.ghost - 1, lo, hi);
    const int i = blockIdx.x * blockDim.x + threadIdx.x + lo[0], j = blockIdx.y * blockDim.y + threadIdx.y + lo[1];
    const int k = blockIdx.z + lo[2];
    if (i > hi[0] || j > hi[1]) return;
    const long p = at(g, i, j, k);
    dinv[p] = 1.0 / mg_diag(&A, p, g.sy, g.sz);
}

#endif
