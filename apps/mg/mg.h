/* halox mg: a geometric multigrid solver (HPGMG-FV style) written on halox's public API only.
 * 3D cell-centred finite-volume Poisson -lap(u) = f on the unit cube, homogeneous Dirichlet
 * boundaries, one hx_layout and one hx_exchange per level of a 2:1 hierarchy, CPU backend
 * (the fields live in host memory, so these loops read and write hx_field data directly).
 * docs/multigrid.md describes the method and what is missing. */
#ifndef HALOX_MG_H
#define HALOX_MG_H

#include <halox/halox.h>

#define MG_MAX_LEVELS 24

/* Timed operations, per level (HPGMG's table). Smooth, residual, restrict and interpolate time
 * their loops only; exchange is every hx_exchange_run plus the boundary condition; bottom is the
 * whole bottom solve, its exchanges included (they are also counted under exchange). */
enum { MG_SMOOTH = 0, MG_RESIDUAL, MG_RESTRICT, MG_INTERP, MG_EXCHANGE, MG_BOTTOM, MG_NOPS };
extern const char *const mg_op_names[MG_NOPS];

typedef struct {
    double t[MG_NOPS];
    long n[MG_NOPS];
} mg_timers;

typedef struct {
    hx_layout *layout;
    hx_exchange *xch;
    const hx_decomp *d;
    int N;             /* global cells per axis */
    int n[3];          /* owned cells per axis */
    int off[3];        /* global index of the first owned cell */
    int bnd_lo[3], bnd_hi[3]; /* 1 where this side is the domain boundary (neighbour HX_NO_RANK) */
    double h, h2, inv_h2;
    long sy, sz;       /* strides of y and z in cells (x is 1) */
    hx_field u, f, r;  /* solution (correction on coarse levels), right-hand side, residual */
    hx_field p, q;     /* CG work fields, coarsest level only */
    int has_cg;
    mg_timers tm;
} mg_level;

typedef enum { MG_BOTTOM_CG = 0, MG_BOTTOM_SMOOTH = 1 } mg_bottom_kind;

typedef struct {
    hx_context *ctx;
    MPI_Comm comm;
    int rank;
    int nlev;
    mg_level lev[MG_MAX_LEVELS];
    int nu;                 /* red-black sweeps before and after the coarse-grid correction */
    mg_bottom_kind bottom;
    int bottom_sweeps;      /* MG_BOTTOM_SMOOTH: red-black sweeps */
    double bottom_tol;      /* MG_BOTTOM_CG: relative residual reduction */
    int bottom_maxit;
    long bottom_iters;      /* CG iterations, summed */
} mg_solver;

/* Collective. Levels 0..nlev-1 of global size N >> l over the process grid pgrid (the same at
 * every level). Returns HX_OK, or a status with a one-line message in err (agreed on every rank). */
int mg_create(mg_solver *s, hx_context *ctx, int N, const int pgrid[3], int nlev, const char *transport,
              hx_pattern pattern, char *err, size_t errlen);
void mg_destroy(mg_solver *s);

/* The manufactured problem: exact u at a cell centre, and f = -lap(u). */
double mg_exact(double x, double y, double z);
double mg_rhs(double x, double y, double z);

/* f of level l from the formula at its cell centres; u = 0. */
void mg_setup_problem(mg_solver *s, int l);
/* Collective: r = f - A u on level l; returns ||r||_2 over every rank (no h scaling). */
double mg_residual_norm(mg_solver *s, int l);
/* Collective: ||f||_2 of level l. */
double mg_rhs_norm(mg_solver *s, int l);
/* Collective: one V-cycle on A u = f at level l (u is the current iterate). */
void mg_vcycle(mg_solver *s, int l);
/* Collective: one full-multigrid F-cycle from zero for the f of level l (coarser f restricted
 * from it): bottom solve, then on each finer level linear interpolation and one V-cycle. */
void mg_fmg(mg_solver *s, int l);
/* Collective: discrete L2 norm (sqrt(h^3 sum e^2)) and max norm of u - exact on level l. */
void mg_error(mg_solver *s, int l, double *l2, double *linf);
void mg_reset_timers(mg_solver *s);

#endif
