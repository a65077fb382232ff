/* halox mg: every per-cell expression of the solver, written once for the CPU loops (mg_cpu.c)
 * and the CUDA kernels (mg_cuda.cu). Both sides evaluate the same expression trees in the same
 * order, the host compiler with -ffp-contract=off and nvcc with -fmad=false, so the fields agree
 * bit for bit between backends. The manufactured solution uses its own sin(pi t) and cos(pi t)
 * (Taylor polynomials after an exact argument reduction) instead of libm / CUDA's sin, which
 * may differ in the last bit.
 *
 * Storage (mg_kernels.h, mg_geom): cell (i, j, k) of a level is a[i + sy j + sz k], i = 0 and
 * i = n + 1 are the ghosts; global cell index off + i - 1, centre (g + 0.5) h, normalised
 * coordinate (g + 0.5) h / L (mg_centre). */
#ifndef HALOX_MG_CELL_H
#define HALOX_MG_CELL_H

#include "mg_kernels.h"

#ifdef __CUDACC__
#define MG_HD __host__ __device__ __forceinline__
#else
#define MG_HD static inline
#endif

#define MG_PI 3.14159265358979323846

/* sin(y) and cos(y) for |y| <= pi/4: Taylor series in Horner form (the first omitted term is
 * below 1e-16 relative there). */
MG_HD double mg_sin_poly(double y)
{
    const double z = y * y;
    double p = -7.6471637318198164759e-13;     /* -1/15! */
    p = 1.6059043836821614599e-10 + z * p;     /*  1/13! */
    p = -2.5052108385441718775e-08 + z * p;    /* -1/11! */
    p = 2.7557319223985890653e-06 + z * p;     /*  1/9!  */
    p = -1.9841269841269841270e-04 + z * p;    /* -1/7!  */
    p = 8.3333333333333333333e-03 + z * p;     /*  1/5!  */
    p = -1.6666666666666666667e-01 + z * p;    /* -1/3!  */
    return y + (y * z) * p;
}

MG_HD double mg_cos_poly(double y)
{
    const double z = y * y;
    double p = 4.7794773323873852974e-14;      /*  1/16! */
    p = -1.1470745597729724714e-11 + z * p;    /* -1/14! */
    p = 2.0876756987868098979e-09 + z * p;     /*  1/12! */
    p = -2.7557319223985890653e-07 + z * p;    /* -1/10! */
    p = 2.4801587301587301587e-05 + z * p;     /*  1/8!  */
    p = -1.3888888888888888889e-03 + z * p;    /* -1/6!  */
    p = 4.1666666666666666667e-02 + z * p;     /*  1/4!  */
    p = -0.5 + z * p;                          /* -1/2!  */
    return 1.0 + z * p;
}

/* sin(pi t) and cos(pi t) for t in [-2, 2] (the solver needs [0, 2]). Each reduction step is
 * exact: t - 1 for t in [1, 2], 1 - t for t in [1/2, 1], 1/2 - t for t in [1/4, 1/2]. */
MG_HD double mg_sinpi(double t)
{
    double sg = 1.0;
    if (t < 0) t = -t, sg = -1.0;
    if (t >= 1.0) t = t - 1.0, sg = -sg;
    if (t > 0.5) t = 1.0 - t;
    const double v = t <= 0.25 ? mg_sin_poly(MG_PI * t) : mg_cos_poly(MG_PI * (0.5 - t));
    return sg * v;
}

MG_HD double mg_cospi(double t)
{
    double sg = 1.0;
    if (t < 0) t = -t;
    if (t >= 1.0) t = t - 1.0, sg = -1.0;
    if (t > 0.5) t = 1.0 - t, sg = -sg;
    const double v = t <= 0.25 ? mg_cos_poly(MG_PI * t) : mg_sin_poly(MG_PI * (0.5 - t));
    return sg * v;
}

/* Normalised coordinates t = x / L in [0, 1] along axis a (docs/multigrid.md): of the centre of
 * cell i (1 .. n[a], as stored) and of its low face; x = (global index + 1/2) h, or the global
 * index times h on the face. On the unit cube (cubic grids) L = 1 and t = x exactly. */
MG_HD double mg_centre(const mg_geom *g, int a, int i) { return ((g->off[a] + i - 0.5) * g->h) / g->L[a]; }
MG_HD double mg_face(const mg_geom *g, int a, int i) { return ((double)(g->off[a] + i - 1) * g->h) / g->L[a]; }

/* The cells a smoother colour updates: the owned ones, and `ring` ghost layers (ring < ghost) on
 * each side that faces another rank (not the domain's faces, whose ghosts the boundary condition
 * sets): lo[a] .. hi[a] inclusive. Such a ghost cell is a neighbour's owned cell, updated here by
 * the same expression from the same values, so the two copies agree bit for bit. */
MG_HD void mg_box(const mg_geom *g, int ring, int lo[3], int hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = 1 - (g->bnd_lo[a] ? 0 : ring);
        hi[a] = g->n[a] + (g->bnd_hi[a] ? 0 : ring);
    }
}

/* A smoother colour split around an exchange of u (--overlap): `inner`, the owned cells that read no
 * ghost and that no message sends (at least `ghost` cells from each side facing another rank, one
 * from each domain face), computed while the halos travel; `shell`, the rest of mg_box(ring) as up
 * to six boxes (z, then y, then x slabs), computed after. One colour never reads its own cells, so
 * the two parts give the bits of one pass. Returns the inner box's cells (0: nothing to overlap). */
static inline long mg_split_boxes(const mg_geom *g, int ring, mg_boxes *inner, mg_boxes *shell)
{
    int lo[3], hi[3], in_lo[3], in_hi[3];
    long cells = 1;
    mg_box(g, ring, lo, hi);
    for (int a = 0; a < 3; a++) {
        in_lo[a] = g->bnd_lo[a] ? 2 : 1 + g->ghost;
        in_hi[a] = g->bnd_hi[a] ? g->n[a] - 1 : g->n[a] - g->ghost;
        cells *= in_hi[a] >= in_lo[a] ? in_hi[a] - in_lo[a] + 1 : 0;
    }
    inner->n = shell->n = 0;
    if (cells == 0) return 0;
    inner->n = 1;
    for (int a = 0; a < 3; a++) inner->lo[0][a] = in_lo[a], inner->hi[0][a] = in_hi[a];
    for (int a = 2; a >= 0; a--) { /* peel the slabs below and above the inner box along a */
        for (int side = 0; side < 2; side++) {
            int *bl = shell->lo[shell->n], *bh = shell->hi[shell->n];
            for (int b = 0; b < 3; b++) bl[b] = lo[b], bh[b] = hi[b];
            if (side == 0) bh[a] = in_lo[a] - 1;
            else bl[a] = in_hi[a] + 1;
            if (bl[a] <= bh[a]) shell->n++;
        }
        lo[a] = in_lo[a], hi[a] = in_hi[a];
    }
    return cells;
}

/* Cells of one colour box q of b may hold at most: (hi[0] - lo[0] + 2) / 2 slots a row, times its rows. */
MG_HD long mg_box_slots(const mg_boxes *b, int q)
{
    return (long)((b->hi[q][0] - b->lo[q][0] + 2) / 2) * (b->hi[q][1] - b->lo[q][1] + 1) * (b->hi[q][2] - b->lo[q][2] + 1);
}

/* The manufactured problem (docs/multigrid.md), in the normalised coordinates t = x / L:
 * u = sin(pi tx) sin(pi ty) sin(pi tz); Helmholtz coefficients alpha = 1 + tx ty tz (cells),
 * beta = 1 + 1/4 sin(2 pi tx) sin(2 pi ty) sin(2 pi tz) (faces); f = -lap u, or
 * f = a alpha u - b div(beta grad u), derivatives in x (d/dx = 1/Lx d/dtx): il2 = 1 / L^2. */
MG_HD double mg_exact_u(double x, double y, double z) { return (mg_sinpi(x) * mg_sinpi(y)) * mg_sinpi(z); }
MG_HD double mg_alpha_at(double x, double y, double z) { return 1.0 + (x * y) * z; }
MG_HD double mg_beta_at(double x, double y, double z)
{
    return 1.0 + 0.25 * ((mg_sinpi(2.0 * x) * mg_sinpi(2.0 * y)) * mg_sinpi(2.0 * z));
}

/* Every 1/L^2 factor is 1 on the unit cube, where these are the unit cube's operations exactly
 * (k2 = 3, products by 1.0), so cubic grids keep their bits. */
MG_HD double mg_rhs_at(const mg_pde *P, const double il2[3], double x, double y, double z)
{
    const double sx = mg_sinpi(x), sy = mg_sinpi(y), sz = mg_sinpi(z);
    const double u = (sx * sy) * sz;
    const double k2 = (il2[0] + il2[1]) + il2[2]; /* lap u = -pi^2 (1/Lx^2 + 1/Ly^2 + 1/Lz^2) u */
    const double lap = -k2 * MG_PI * MG_PI * u;
    if (!P->helm) return -lap;
    const double cx = mg_cospi(x), cy = mg_cospi(y), cz = mg_cospi(z);
    const double s2x = mg_sinpi(2.0 * x), s2y = mg_sinpi(2.0 * y), s2z = mg_sinpi(2.0 * z);
    const double c2x = mg_cospi(2.0 * x), c2y = mg_cospi(2.0 * y), c2z = mg_cospi(2.0 * z);
    const double beta = 1.0 + 0.25 * ((s2x * s2y) * s2z);
    /* grad beta = pi/2 (c2x s2y s2z / Lx, s2x c2y s2z / Ly, s2x s2y c2z / Lz),
     * grad u = pi (cx sy sz / Lx, sx cy sz / Ly, sx sy cz / Lz) */
    const double gbgu = (il2[0] * (((c2x * s2y) * s2z) * ((cx * sy) * sz)) +
                         il2[1] * (((s2x * c2y) * s2z) * ((sx * cy) * sz))) +
                        il2[2] * (((s2x * s2y) * c2z) * ((sx * sy) * cz));
    const double div = beta * lap + (0.5 * MG_PI * MG_PI) * gbgu;
    return (P->a * mg_alpha_at(x, y, z)) * u - P->b * div;
}

/* ---- the operator A and its pieces -------------------------------------------------------- */

/* What the operator and the smoother read at cell p besides u: f and the Helmholtz coefficients
 * (beta of the low face of cell p stored at p, of the high faces at p + 1, p + sy, p + sz). Loaded
 * apart so that the fused GSRB sweep can fetch them early (mg_cuda_gsrb2.cuh); f NULL: not read. */
typedef struct {
    double f, alpha, dinv, bx0, bx1, by0, by1, bz0, bz1;
} mg_cellc;

/* f and the coefficients but 1 / diagonal (mg_cellc_at reads it, mg_cellc_calc computes it) */
MG_HD mg_cellc mg_cellc_coefs(const mg_op *A, const double *f, long p, long sy, long sz)
{
    mg_cellc k = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (f) k.f = f[p];
    if (A->helm) {
        k.alpha = A->alpha[p];
        k.bx0 = A->bx[p], k.bx1 = A->bx[p + 1];
        k.by0 = A->by[p], k.by1 = A->by[p + sy];
        k.bz0 = A->bz[p], k.bz1 = A->bz[p + sz];
    }
    return k;
}

MG_HD mg_cellc mg_cellc_at(const mg_op *A, const double *f, long p, long sy, long sz)
{
    mg_cellc k = mg_cellc_coefs(A, f, p, sy, sz);
    if (A->helm) k.dinv = A->dinv_f[p];
    return k;
}

/* (A u) at a cell from u's value c there, its six neighbours' (x-, x+, y-, y+, z-, z+) and its
 * coefficients: Poisson (6 u - neighbours) / h^2; Helmholtz a alpha u - b/h^2 (sum of face fluxes) */
MG_HD double mg_apply_c(const mg_op *A, const mg_cellc *k, double c, double xm, double xp, double ym, double yp,
                        double zm, double zp)
{
    if (!A->helm) return (6.0 * c - (((xm + xp) + (ym + yp)) + (zm + zp))) * A->ih2;
    const double fx = k->bx1 * (xp - c) - k->bx0 * (c - xm);
    const double fy = k->by1 * (yp - c) - k->by0 * (c - ym);
    const double fz = k->bz1 * (zp - c) - k->bz0 * (c - zm);
    return (A->a * k->alpha) * c - A->b_ih2 * ((fx + fy) + fz);
}

MG_HD double mg_apply(const mg_op *A, const double *u, long p, long sy, long sz)
{
    const mg_cellc k = mg_cellc_coefs(A, NULL, p, sy, sz);
    return mg_apply_c(A, &k, u[p], u[p - 1], u[p + 1], u[p - sy], u[p + sy], u[p - sz], u[p + sz]);
}

/* the diagonal of the interior stencil (Helmholtz), from a cell's coefficients */
MG_HD double mg_diag_c(const mg_op *A, const mg_cellc *k)
{
    return A->a * k->alpha + A->b_ih2 * (((k->bx0 + k->bx1) + (k->by0 + k->by1)) + (k->bz0 + k->bz1));
}

MG_HD double mg_diag(const mg_op *A, long p, long sy, long sz)
{
    const mg_cellc k = mg_cellc_coefs(A, NULL, p, sy, sz);
    return mg_diag_c(A, &k);
}

/* mg_cellc_at with 1 / diagonal computed from the coefficients instead of read: the GPU's colour
 * kernels read one array fewer (the fused sweep, bound by latency more than by bytes, reads it);
 * the stored dinv_f is the same expression (set_coefs), so the same bits */
MG_HD mg_cellc mg_cellc_calc(const mg_op *A, const double *f, long p, long sy, long sz)
{
    mg_cellc k = mg_cellc_coefs(A, f, p, sy, sz);
    if (A->helm) k.dinv = 1.0 / mg_diag_c(A, &k);
    return k;
}

MG_HD double mg_dinv(const mg_op *A, long p) { return A->helm ? A->dinv_f[p] : A->dinv; }

/* Gauss-Seidel update of one cell (its neighbours have the other colour), from the values as in
 * mg_apply_c */
MG_HD double mg_gsrb_c(const mg_op *A, const mg_cellc *k, double c, double xm, double xp, double ym, double yp,
                       double zm, double zp)
{
    if (!A->helm) return ((((xm + xp) + (ym + yp)) + (zm + zp)) + A->h2 * k->f) * (1.0 / 6.0);
    return c + (k->f - mg_apply_c(A, k, c, xm, xp, ym, yp, zm, zp)) * k->dinv;
}

MG_HD double mg_gsrb_cell(const mg_op *A, const double *u, const double *f, long p, long sy, long sz)
{
    const mg_cellc k = mg_cellc_at(A, f, p, sy, sz);
    return mg_gsrb_c(A, &k, u[p], u[p - 1], u[p + 1], u[p - sy], u[p + sy], u[p - sz], u[p + sz]);
}

/* the same with 1 / diagonal computed (mg_cellc_calc): the GPU's colour kernels */
MG_HD double mg_gsrb_cell_calc(const mg_op *A, const double *u, const double *f, long p, long sy, long sz)
{
    const mg_cellc k = mg_cellc_calc(A, f, p, sy, sz);
    return mg_gsrb_c(A, &k, u[p], u[p - 1], u[p + 1], u[p - sy], u[p + sy], u[p - sz], u[p + sz]);
}

/* Stores a smoothed value v of cell (i, j, k) at p, and -v into its ghost beyond each domain face
 * the cell touches: what the boundary condition would write there next. So the face ghosts stay
 * right through several colours between two exchanges (each is read by its own cell alone, the
 * thread that writes it; edge and corner ghosts go stale until the next boundary condition). */
MG_HD void mg_store_smoothed(const mg_geom *g, double *u, long p, int i, int j, int k, double v)
{
    u[p] = v;
    if (i == 1 && g->bnd_lo[0]) u[p - 1] = -v;
    if (i == g->n[0] && g->bnd_hi[0]) u[p + 1] = -v;
    if (j == 1 && g->bnd_lo[1]) u[p - g->sy] = -v;
    if (j == g->n[1] && g->bnd_hi[1]) u[p + g->sy] = -v;
    if (k == 1 && g->bnd_lo[2]) u[p - g->sz] = -v;
    if (k == g->n[2] && g->bnd_hi[2]) u[p + g->sz] = -v;
}

/* Chebyshev step: the new direction d' = c1 d + c2 D^-1 (f - A u) (first step: c2 D^-1 (f - A u)) */
MG_HD double mg_cheby_dir(const mg_op *A, const double *u, const double *f, const double *d, long p, long sy, long sz,
                          double c1, double c2, int first)
{
    const double z = mg_dinv(A, p) * (f[p] - mg_apply(A, u, p, sy, sz));
    return first ? c2 * z : c1 * d[p] + c2 * z;
}

/* the average of the 8 fine children whose first (lowest) cell is p */
MG_HD double mg_restrict_cell(const double *r, long p, long sy, long sz)
{
    const double a = (r[p] + r[p + 1]) + (r[p + sy] + r[p + sy + 1]);
    const double b = (r[p + sz] + r[p + sz + 1]) + (r[p + sz + sy] + r[p + sz + sy + 1]);
    return (a + b) * 0.125;
}

/* trilinear (cell-centred: 3/4 toward the parent, 1/4 toward the neighbour on the child's side)
 * from the parent at pc; di = +-1, dj = +-sy, dk = +-sz of the coarse level point to the child's side */
/* The coarse parent of fine cell i along an axis (local indices from 1, ghosts at 0, -1, ...): a floor
 * division (for i > -64: ghost layers are far fewer), for the ghosts of an interpolation over a ring */
MG_HD int mg_parent(int i) { return (i + 65) / 2 - 32; }

MG_HD double mg_interp_linear_cell(const double *uc, long pc, long di, long dj, long dk)
{
    const double w0 = 0.75, w1 = 0.25;
    double v = 0;
    for (int c = 0; c < 2; c++)
        for (int b = 0; b < 2; b++) {
            const long q = pc + b * dj + c * dk;
            v += (c ? w1 : w0) * (b ? w1 : w0) * (w0 * uc[q] + w1 * uc[q + di]);
        }
    return v;
}

/* Reductions are made deterministic and backend-independent: each (i, k) column sums its cells
 * over j in order, and the host adds the columns in order (k outer, i inner). */
MG_HD double mg_sum_partials(const double *part, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += part[i];
    return s;
}

#endif
