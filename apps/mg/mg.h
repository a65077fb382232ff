/* halox mg: a geometric multigrid solver (HPGMG-FV style) written on halox's public API only.
 * 3D cell-centred finite volumes on the unit cube, homogeneous Dirichlet boundaries: Poisson
 * -lap(u) = f, or Helmholtz a alpha u - b div(beta grad u) = f; one hx_layout and one hx_exchange
 * per level of a 2:1 hierarchy. The fields live where the context's backend puts them (host or
 * device memory); the level operations go through a table of kernels (mg_kernels.h: CPU loops or
 * CUDA kernels), so the cycles (mg_cycles.c) are shared. docs/multigrid.md describes the method.
 *
 * Errors: the functions return HX_OK or a status with a one-line message in s->err; they never
 * exit. After a run-time failure other ranks may be blocked in an exchange: abort the job. */
#ifndef HALOX_MG_H
#define HALOX_MG_H

#include <halox/halox.h>

#include "mg_kernels.h"

#define MG_MAX_LEVELS 24
#define MG_MAX_DEGREE 32

/* Timed operations, per level (HPGMG's table). Smooth, residual, restrict and interpolate time
 * their kernels only; exchange is every hx_exchange_run plus the boundary condition; bottom is the
 * whole bottom solve, its exchanges included (they are also counted under exchange). */
enum { MG_SMOOTH = 0, MG_RESIDUAL, MG_RESTRICT, MG_INTERP, MG_EXCHANGE, MG_BOTTOM, MG_NOPS };
extern const char *const mg_op_names[MG_NOPS];

typedef struct {
    double t[MG_NOPS];
    long n[MG_NOPS];
} mg_timers;

typedef struct {
    int index;         /* level number, 0 = finest */
    hx_layout *layout;
    hx_exchange *xch;
    int N;             /* global cells per axis */
    mg_geom g;         /* this rank's block */
    mg_op A;           /* the operator of this level (Helmholtz: pointers into the fields below) */
    hx_field u, f, r;  /* solution (correction on coarse levels), right-hand side, residual */
    hx_field cd, ct;   /* Chebyshev: direction, and the next iterate (swapped with u) */
    hx_field alpha, bx, by, bz, dinv; /* Helmholtz coefficients (bx/by/bz on the low faces) */
    hx_field p, q;     /* CG work fields, coarsest level only */
    mg_timers tm;
} mg_level;

typedef enum { MG_BOTTOM_CG = 0, MG_BOTTOM_SMOOTH = 1 } mg_bottom_kind;
typedef enum { MG_SMOOTHER_GSRB = 0, MG_SMOOTHER_CHEBY = 1 } mg_smoother_kind;

typedef struct {
    int lev, op, a, b; /* marks a and b enclose one timed operation */
    long calls;
} mg_span;

typedef struct {
    /* set by the caller before mg_create */
    int nu;                 /* smoother applications before and after the coarse-grid correction */
    mg_smoother_kind smoother;
    int cheby_degree;       /* steps of one Chebyshev application */
    double cheby_ratio;     /* the Chebyshev interval is [lambda_max / ratio, lambda_max] */
    mg_pde pde;
    mg_bottom_kind bottom;
    int bottom_sweeps;      /* MG_BOTTOM_SMOOTH: smoother applications */
    double bottom_tol;      /* MG_BOTTOM_CG: relative residual reduction */
    int bottom_maxit;

    /* set by mg_create */
    hx_context *ctx;
    MPI_Comm comm;
    int rank;
    int nlev;
    mg_level lev[MG_MAX_LEVELS];
    const mg_kernels *k;
    mg_kctx kc;
    int kc_ready;
    double lambda_max;      /* bound of the spectrum of D^-1 A (every level) */
    double cheby_c1[MG_MAX_DEGREE], cheby_c2[MG_MAX_DEGREE];
    long bottom_iters;      /* CG iterations, summed */
    char err[400];

    /* timing marks not yet read (mg_timers_flush) */
    int nmarks, nspans;
    mg_span span[MG_MARKS / 2];
} mg_solver;

/* Collective. Levels 0..nlev-1 of global size N >> l over the process grid pgrid (the same at
 * every level), the kernels of the context's backend. Returns HX_OK, or a status with a one-line
 * message in s->err (agreed on every rank). mg_destroy releases what was made, either way. */
int mg_create(mg_solver *s, hx_context *ctx, int N, const int pgrid[3], int nlev, const char *transport,
              hx_pattern pattern);
void mg_destroy(mg_solver *s);

/* f of level l from the formula at its cell centres; u = 0. */
int mg_setup_problem(mg_solver *s, int l);
/* Collective: r = f - A u on level l; *norm = ||r||_2 over every rank (no h scaling). */
int mg_residual_norm(mg_solver *s, int l, double *norm);
/* Collective: ||f||_2 of level l. */
int mg_rhs_norm(mg_solver *s, int l, double *norm);
/* Collective: one V-cycle on A u = f at level l (u is the current iterate). */
int mg_vcycle(mg_solver *s, int l);
/* Collective: one full-multigrid F-cycle from zero for the f of level l (coarser f restricted
 * from it): bottom solve, then on each finer level linear interpolation and one V-cycle. */
int mg_fmg(mg_solver *s, int l);
/* Collective: discrete L2 norm (sqrt(h^3 sum e^2)) and max norm of u - exact on level l. */
int mg_error(mg_solver *s, int l, double *l2, double *linf);
/* Wait for the backend's work. */
int mg_sync(mg_solver *s);
/* Read the pending timing marks into the levels' timers (waits for the backend). */
int mg_timers_flush(mg_solver *s);
/* Zero the timers and the CG iteration count (pending marks are dropped). */
int mg_reset_timers(mg_solver *s);

/* cycles (mg_cycles.c), for mg_levels.c */
int mg_kfail(mg_solver *s, const char *what);

#endif
