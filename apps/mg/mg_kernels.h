/* halox mg: the operations of one level behind a table of function pointers, so that the cycles
 * (mg_cycles.c) are written once over the CPU loops (mg_cpu.c) and the CUDA kernels (mg_cuda.cu).
 * Plain C (the .cu includes it too). Fields are arrays of doubles in the memory of the context's
 * backend (device memory on cuda); work is ordered on the stream given to init (the halox
 * context's stream, where hx_exchange_run leaves the ghosts), and only sync, dot and error wait
 * for it. Every operation returns 0, or -1 with a one-line message in k->err.
 *
 * The per-cell arithmetic of both backends is mg_cell.h: the results are bit-identical. */
#ifndef HALOX_MG_KERNELS_H
#define HALOX_MG_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/* One level's block on this rank: cell (i, j, k), 1 <= i <= n[0] owned, 0 and n + 1 the first ghost
 * layer (-1 and n + 2 the second, with ghost 2), is element i + sy j + sz k of a field, counted from
 * the pointer the cycles pass (allocation + base). Cells are cubes of width h; the global grid
 * NX x NY x NZ covers [0, NX h] x [0, NY h] x [0, NZ h] (docs/multigrid.md). */
typedef struct {
    int n[3];                 /* owned cells per axis */
    int off[3];               /* global index of the first owned cell */
    int bnd_lo[3], bnd_hi[3]; /* 1 where that side of the block is the domain boundary */
    int ghost;                /* ghost layers per side (> 1: the GSRB ring, mg_box; docs/multigrid.md) */
    long sy, sz;              /* strides of y and z, in cells */
    long base;                /* cell (0, 0, 0) from the allocation's start: (ghost - 1)(1 + sy + sz) */
    long cells;               /* allocated cells of a field: sz * (n[2] + 2 ghost) */
    double h, h2, ih2;        /* the cell width 1/min(NX, NY, NZ) of this level, h^2, 1/h^2 */
    double L[3];              /* the domain [0, L[0]] x [0, L[1]] x [0, L[2]], L = N_a h (the unit cube: 1) */
    double il2[3];            /* 1 / L^2 per axis */
} mg_geom;

/* Up to six boxes of cells, lo[b][a] .. hi[b][a] inclusive (a shell around an inner box, or the inner box). */
#define MG_MAX_BOXES 6
typedef struct {
    int n;
    int lo[MG_MAX_BOXES][3], hi[MG_MAX_BOXES][3];
} mg_boxes;

/* The problem: -lap u = f (helm 0), or a alpha u - b div(beta grad u) = f (helm 1). */
typedef struct {
    int helm;
    double a, b;
} mg_pde;

/* The operator of one level. Poisson reads no field; Helmholtz reads alpha (cells), bx/by/bz
 * (beta on the low x/y/z face of each cell, so the high face of cell p is bx[p + 1], by[p + sy],
 * bz[p + sz]) and dinv_f (1 / the diagonal). */
typedef struct {
    int helm;
    double ih2, h2;     /* Poisson */
    double dinv;        /* Poisson: the inverse diagonal h^2 / 6 */
    double a, b_ih2;    /* Helmholtz: a, b / h^2 */
    const double *alpha, *bx, *by, *bz, *dinv_f;
} mg_op;

/* Timing marks: a backend records mark `slot` (0 <= slot < MG_MARKS) where the work issued so far
 * ends (a CUDA event on the stream; the host clock on the CPU); after sync, elapsed gives the
 * seconds between two marks. */
#define MG_MARKS 8192
/* CUDA graphs of one F-cycle's stretches between host synchronisations (mg_graphs.c) */
#define MG_GRAPHS 64

typedef struct {
    void *stream; /* cudaStream_t, NULL on the CPU */
    long max_partials;
    void *impl;   /* the backend's buffers and events */
    char err[256];
} mg_kctx;

typedef struct {
    const char *name;
    /* max_partials: the largest n[0] * n[2] of any level (the reductions' column count) */
    int (*init)(mg_kctx *k, void *stream, long max_partials);
    void (*fini)(mg_kctx *k);
    int (*sync)(mg_kctx *k);
    int (*mark)(mg_kctx *k, int slot);
    int (*elapsed)(mg_kctx *k, int a, int b, double *seconds);

    /* whole allocated arrays (from a - g->base) */
    int (*zero)(mg_kctx *k, const mg_geom *g, double *a);
    int (*copy)(mg_kctx *k, const mg_geom *g, double *dst, const double *src);
    /* homogeneous Dirichlet: every ghost beyond a domain face (the first layer) = minus the cell
     * inside, x then y then z, each over the other axes' cells of mg_box(ghost - 1) and one more
     * on each side (edges and corners too) */
    int (*bc)(mg_kctx *k, const mg_geom *g, double *a);

    /* owned cells, and `ring` (< ghost) ghost layers on the sides that face another rank (mg_box),
     * whose cells then need u one layer further, f and the coefficients */
    int (*gsrb)(mg_kctx *k, const mg_geom *g, const mg_op *A, double *u, const double *f, int colour, int ring);
    /* the same colour over the cells of a few boxes (inclusive bounds) in one launch: the parts of
     * a colour split around an exchange (mg_cycles.c, --overlap) */
    int (*gsrb_boxes)(mg_kctx *k, const mg_geom *g, const mg_op *A, double *u, const double *f, int colour,
                      const mg_boxes *b);
    /* one sweep, both colours in one pass, out of place (NULL where the backend has none): colour 0
     * over mg_box(ring), then colour 1 over mg_box(ring - 1) (ring >= 1), read from uo; un receives
     * what the two gsrb calls would leave in uo, on mg_box(ring) and one layer around it (uo is not
     * written) */
    int (*gsrb2)(mg_kctx *k, const mg_geom *g, const mg_op *A, double *un, const double *uo, const double *f,
                 int ring);
    /* r = f - A u; f NULL: r = A u */
    int (*residual)(mg_kctx *k, const mg_geom *g, const mg_op *A, double *r, const double *u, const double *f);
    /* d = c1 d + c2 D^-1 (f - A u) (first: d = c2 D^-1 (f - A u), d not read); unew = u + d; over
     * mg_box(ring) as gsrb */
    int (*cheby)(mg_kctx *k, const mg_geom *g, const mg_op *A, double *unew, double *d, const double *u,
                 const double *f, double c1, double c2, int first, int ring);
    /* fc (coarse owned) = the average of the 8 children in r (fine) */
    int (*restrict8)(mg_kctx *k, const mg_geom *fine, const double *r, const mg_geom *coarse, double *fc);
    /* u (fine owned) += its parent in uc (piecewise constant) */
    int (*interp_pc)(mg_kctx *k, const mg_geom *fine, double *u, const mg_geom *coarse, const double *uc);
    /* u = trilinear interpolation of uc over mg_box(ring) of the fine level: a fine ghost layer k reads
     * uc's ghost layers up to k / 2 + 1, which must be valid */
    int (*interp_linear)(mg_kctx *k, const mg_geom *fine, double *u, const mg_geom *coarse, const double *uc, int ring);
    /* CG: u += alpha p, r -= alpha q; p = r + beta p */
    int (*axpy2)(mg_kctx *k, const mg_geom *g, double *u, double *r, const double *p, const double *q, double alpha);
    int (*xpby)(mg_kctx *k, const mg_geom *g, double *p, const double *r, double beta);
    /* this rank's sum of a * b over the owned cells, in the deterministic order of mg_cell.h */
    int (*dot)(mg_kctx *k, const mg_geom *g, const double *a, const double *b, double *sum);

    /* f = the manufactured right-hand side at the cell centres, over mg_box(ghost - 1): the ring's f
     * is the neighbours' owned f by the same expression at the same global cells, so a level whose f
     * is set needs no exchange of it */
    int (*set_rhs)(mg_kctx *k, const mg_geom *g, const mg_pde *P, double *f);
    /* Helmholtz coefficients: alpha at cell centres, beta at the low faces of cells 1..n+1 of
     * each axis, then dinv = 1 / diagonal on the owned cells; with ghost > 1 the same over
     * mg_box(ghost - 1) (alpha, dinv) and the faces of its cells */
    int (*set_coefs)(mg_kctx *k, const mg_geom *g, const mg_pde *P, double *alpha, double *bx, double *by,
                     double *bz, double *dinv);
    /* sum of (u - exact)^2 (deterministic order) and max |u - exact| over the owned cells */
    int (*error)(mg_kctx *k, const mg_geom *g, const double *u, double *sum2, double *maxabs);

    /* CUDA graphs (all NULL where the backend has none): capture the work issued on the stream
     * from graph_begin on; graph_end ends the capture into graph `slot` (0 <= slot < MG_GRAPHS,
     * replacing what was there) and launches it; graph_launch launches graph `slot` again;
     * graph_abort ends a capture left open by a failure and drops it. */
    int (*graph_begin)(mg_kctx *k);
    int (*graph_end)(mg_kctx *k, int slot);
    int (*graph_launch)(mg_kctx *k, int slot);
    void (*graph_abort)(mg_kctx *k);
} mg_kernels;

extern const mg_kernels mg_cpu_kernels;
/* The CUDA kernels, or NULL when this build has none (HALOX_MG_CUDA unset). */
const mg_kernels *mg_cuda_kernels(void);

#ifdef __cplusplus
}
#endif
#endif
