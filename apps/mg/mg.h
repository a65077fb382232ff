/* halox mg: a geometric multigrid solver (HPGMG-FV style) written on halox's public API only.
 * 3D cell-centred finite volumes on the unit cube, or on a box of cubic cells for a non-cubic grid
 * (docs/multigrid.md), homogeneous Dirichlet boundaries: Poisson
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
#define MG_MAX_GHOSTS 9 /* ghost layers (--ghosts) */

/* return a failed halox status (HX_OK or an HX_ERR_* code) to the caller */
#define TRY(x)                            \
    do {                                  \
        int st_ = (x);                    \
        if (st_ != HX_OK) return st_;     \
    } while (0)

/* Timed operations, per level (HPGMG's table). Smooth, residual, restrict and interpolate time
 * their kernels only; exchange is every hx_exchange_run plus the boundary condition; bottom is the
 * whole bottom solve, its exchanges included (they are also counted under exchange). MG_AGGLOM
 * (after the MG_NOPS columns) is rank 0's gather of the right-hand side and
 * scatter of the correction at the agglomeration level. */
enum { MG_SMOOTH = 0, MG_RESIDUAL, MG_RESTRICT, MG_INTERP, MG_EXCHANGE, MG_BOTTOM, MG_NOPS, MG_AGGLOM = MG_NOPS, MG_NTIMERS };
extern const char *const mg_op_names[MG_NTIMERS];

typedef struct {
    double t[MG_NTIMERS];
    long n[MG_NTIMERS];
} mg_timers;

typedef struct {
    int index;         /* level number, 0 = finest */
    hx_layout *layout;
    hx_exchange *xch;
    mg_geom g;         /* this rank's block */
    mg_op A;           /* the operator of this level (Helmholtz: pointers into the fields below) */
    hx_field u, f, r;  /* solution (correction on coarse levels), right-hand side, residual */
    hx_field cd, ct;   /* Chebyshev: direction, and the next iterate (swapped with u) */
    hx_field alpha, bx, by, bz, dinv; /* Helmholtz coefficients (bx/by/bz on the low faces) */
    hx_field p, q;     /* CG work fields, coarsest level only */
    mg_timers tm;
    int fresh;         /* ghost layers of u up to date (exchanged, or zeroed, and not smoothed past since) */
    int f_fresh;       /* f's ring up to date: exchanged, or set with it (mg_setup_problem), since f was written */
} mg_level;

/* MG_BOTTOM_AUTO: direct where the coarsest level is on one rank and small enough (mg_direct.c),
 * else CG; resolved per solver by mg_create */
typedef enum { MG_BOTTOM_CG = 0, MG_BOTTOM_SMOOTH = 1, MG_BOTTOM_DIRECT = 2, MG_BOTTOM_AUTO = 3 } mg_bottom_kind;
typedef enum { MG_SMOOTHER_GSRB = 0, MG_SMOOTHER_CHEBY = 1 } mg_smoother_kind;
/* --fuse-colours: GSRB sweeps in one pass (the backend's gsrb2) on no level, every level, or the
 * levels whose block on this rank has at least MG_FUSE_AUTO_CELLS cells (below, the two colour
 * launches were faster on an H200: docs/performance.md) */
typedef enum { MG_FUSE_OFF = 0, MG_FUSE_ON = 1, MG_FUSE_AUTO = 2 } mg_fuse_kind;
#define MG_FUSE_AUTO_CELLS (1L << 24)

typedef struct {
    int lev, op, a, b; /* marks a and b enclose one timed operation */
    long calls;
} mg_span;

typedef struct mg_solver mg_solver;

/* Agglomeration (docs/multigrid.md): the distributed levels end at level `agg`, whose right-hand
 * side is gathered and handed to `sub`, a solver of levels agg.. on fewer ranks: one rank's CPU on a
 * context of MPI_COMM_SELF (one step), or an eighth of the ranks on the job's backend and transport,
 * whose own hierarchy agglomerates again onto CPUs (two steps); the correction comes back into
 * level agg. The CPU step is redundant by default (`redundant`): every rank gathers the level with
 * MPI_Allgatherv and solves it on its own CPU with the same arithmetic, then takes its own block of
 * the result, so no correction is scattered back; else rank 0 alone solves and scatters. The
 * sub-solver's members are job ranks 0 .. P'-1 (or every rank, each alone), so job rank 0 is a
 * member. */
/* One level's blocks over one communicator, as its rank 0 (or, `every`, each rank) gathers them. */
typedef struct {
    int every;              /* 1: every rank holds count, displ, box and all (MPI_Allgatherv) */
    int *count, *displ;     /* rank 0 (every: each rank): each rank's cells, and their offsets in `all` */
    int *box;               /* rank 0 (every: each rank): each rank's n[3], off[3] */
    double *mine;           /* this rank's owned cells (x fastest) */
    double *all;            /* rank 0 (every: each rank): the ranks' blocks in rank order */
} mg_blocks;

typedef struct {
    hx_context *ctx;        /* members: sub's context */
    mg_solver *sub;         /* members: levels agg .. ntot-1 as its levels 0 .. */
    mg_blocks job;          /* level agg over the job's ranks */
    mg_blocks coarse;       /* members: level agg over sub's ranks (its level 0) */
    double *glob;           /* rank 0 (redundant: every rank): the global level-agg array */
} mg_agglom;

/* The process grid of the two-step agglomeration's first step: halved along each even axis. */
static inline void mg_fewer_grid(const int pg[3], int out[3])
{
    for (int a = 0; a < 3; a++) out[a] = pg[a] % 2 == 0 ? pg[a] / 2 : pg[a];
}

struct mg_solver {
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
    int agg;                /* > 0: levels agg.. are solved on fewer ranks (docs/multigrid.md); 0: none */
    int redundant;          /* 1: the CPU's levels solved by every rank (see mg_agglom); 0: by rank 0 alone */
    int agg2;               /* 0: levels agg.. on rank 0's CPU; > agg: agg .. agg2-1 on an eighth of the ranks
                               (mg_fewer_grid, the job's backend and transport), agg2.. on rank 0's CPU */
    int graphs;             /* 1: F-cycles replayed from CUDA graphs where they can be (mg_graphs.c) */
    int overlap;            /* 1: a GSRB colour after an exchange of u computes the cells that read no ghost
                               while the halos travel (levels where they are at least half the block) */
    mg_fuse_kind fuse_colours; /* GSRB sweeps of both colours in one pass where the backend can (gsrb2) */
    int ghosts;             /* ghost layers of the fields (at most each level's block): G > 1 lets GSRB run G
                               colours between exchanges, colour t also updating G-1-t ghost layers facing
                               other ranks (docs/multigrid.md); 1: an exchange before each colour */

    /* set by mg_create */
    hx_context *ctx;
    MPI_Comm comm;
    int rank;
    int pgrid[3];           /* the process grid of levels 0 .. nlev-1 */
    int nlev;               /* levels of this solver's ranks: 0 .. agg with agglomeration, else ntot */
    int ntot;               /* levels of the whole hierarchy */
    int shape[MG_MAX_LEVELS][3]; /* global cells per axis of every level 0 .. ntot-1 (level 0's >> l) */
    mg_level lev[MG_MAX_LEVELS];
    mg_agglom ag;
    const mg_kernels *k;
    mg_kctx kc;
    int kc_ready;
    double lambda_max;      /* bound of the spectrum of D^-1 A (every level) */
    double cheby_c1[MG_MAX_DEGREE], cheby_c2[MG_MAX_DEGREE];
    long bottom_iters;      /* CG iterations, summed */
    mg_bottom_kind bottom_used; /* the bottom solver it runs, AUTO resolved (set by mg_create where the solver
                                   solves its coarsest level itself; with agglomeration its sub-solver does) */
    double *chol, *chol_work; /* MG_BOTTOM_DIRECT: the coarsest operator's Cholesky factor (chol_n^2), a vector */
    long chol_n;
    char err[400];

    /* mg_graphs.c: how GPU work is issued now (MG_EAGER outside mg_fmg), whether this transport's
     * exchanges replay, graphs recorded (1; -1: never again), for an F-cycle from level gl0 with
     * gsegs stretches; the stretch now, one open, eager work inside one (the bottom solve) */
    int gmode, greplay, gready, gl0, gsegs, gseg, gopen, gsusp;

    /* timing marks not yet read (mg_timers_flush); none while marks_off (mg_timing_marks) */
    int nmarks, nspans, marks_off;
    mg_span span[MG_MARKS / 2];
};

/* Collective. Levels 0..nlev-1 of global size shape >> l (per axis) over the process grid pgrid
 * (the same at every level), cubic cells of width 1 / (min(shape) >> l) on the domain of size
 * shape / min(shape), the kernels of the context's backend; with s->agg > 0, levels 0..agg over pgrid
 * and levels agg..nlev-1 on rank 0's CPU, or with s->agg2 too, agg..agg2 on an eighth of the ranks
 * and agg2..nlev-1 on rank 0's CPU. Returns HX_OK, or a status with a one-line
 * message in s->err (agreed on every rank). mg_destroy releases what was made, either way. */
int mg_create(mg_solver *s, hx_context *ctx, const int shape[3], const int pgrid[3], int nlev,
              const char *transport, hx_pattern pattern);
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
/* Per-level timing marks on (the default) or off, on s and its coarse levels' solvers: each mark is
 * a CUDA event recorded on the stream, which costs host time between kernels, so the figure of
 * merit is timed without them. */
void mg_timing_marks(mg_solver *s, int on);
/* Read the pending timing marks into the levels' timers (waits for the backend). */
int mg_timers_flush(mg_solver *s);
/* Zero the timers and the CG iteration count (pending marks are dropped). */
int mg_reset_timers(mg_solver *s);
/* This rank's timers of level l of the whole hierarchy (rank 0: its agglomerated levels too). */
void mg_level_timers(const mg_solver *s, int l, mg_timers *out);
/* CG iterations of this rank's solvers, since the last reset. */
long mg_bottom_iters(const mg_solver *s);

/* mg_graphs.c: F-cycles from CUDA graphs. mg_fmg runs fmg through mg_fmg_graphed, which records
 * or replays where mg_graphs_possible (s->graphs, a transport that replays, the CUDA kernels, timing
 * marks off); mg_seg_issue before each GPU operation of the cycles, mg_seg_close before the host
 * waits for the GPU. mg_graphs_used: F-cycles have been replayed from graphs. */
enum { MG_EAGER = 0, MG_RECORD = 1, MG_REPLAY = 2 };
int mg_graphs_possible(const mg_solver *s);
int mg_fmg_graphed(mg_solver *s, int l0, int (*fmg)(mg_solver *, int));
int mg_seg_issue(mg_solver *s, int *issue);
int mg_seg_close(mg_solver *s);
int mg_graphs_used(const mg_solver *s);

/* A field's cell (0, 0, 0) in the numbering of mg_geom (one ghost layer before the first owned
 * cell), which the kernels index from: past the allocation's start by mg_geom.base. */
static inline double *mg_data(const hx_field *f)
{
    const long sy = f->pitch[0], sz = (long)f->pitch[0] * f->pitch[1];
    return (double *)f->data + (long)(f->ghost - 1) * (1 + sy + sz);
}

/* for mg_levels.c and mg_cycles.c */
int mg_kfail(mg_solver *s, const char *what);
int mg_fail_agreed(mg_solver *s, int bad, const char *msg);
/* Collective: a coarse-grid correction on level l: u = 0 (ghosts too, so its first smoothing needs
 * no exchange), then one V-cycle. */
int mg_vcycle_correction(mg_solver *s, int l);
/* st, with the agglomeration sub-solver's message copied into s->err when it failed */
int mg_sub_status(mg_solver *s, int st);
/* Collective (mg_agglom.c): the agglomeration's buffers and sub-solver (mg_agglom), made by
 * mg_create when s->agg > 0, released by mg_destroy */
int mg_agglom_create(mg_solver *s, const char *transport, hx_pattern pattern);
void mg_agglom_destroy(mg_solver *s);
/* Collective: gather f of level s->agg onto rank 0 and hand it to the sub-solver's ranks, run there
 * one V-cycle from zero (fmg 0) or one F-cycle (fmg 1), bring its u back into u of level s->agg. */
int mg_agglom_cycle(mg_solver *s, int fmg);
/* mg_timing.c: a timed operation of level L begins (*mark: its first mark, -1 with the marks off)
 * and ends (op: its timer; calls: operations it counts as) */
int mg_span_begin(mg_solver *s, int *mark);
int mg_span_end(mg_solver *s, const mg_level *L, int op, int a, long calls);
/* --fuse-colours asks for fused GSRB sweeps on a level whose block on this rank is n */
static inline int mg_fuse_wanted(const mg_solver *s, const int n[3])
{
    const long cells = (long)n[0] * n[1] * n[2];
    return s->smoother == MG_SMOOTHER_GSRB && s->k->gsrb2 &&
           (s->fuse_colours == MG_FUSE_ON || (s->fuse_colours == MG_FUSE_AUTO && cells >= MG_FUSE_AUTO_CELLS));
}
/* ghosts of fld on level L from the neighbours, and the boundary condition (mg_cycles.c) */
int mg_exchange(mg_solver *s, mg_level *L, hx_field *fld);
/* the direct bottom solver (mg_direct.c): the largest coarsest level it factors (a factor of n^2
 * doubles: 8 MiB), whether this solver's coarsest level can have it, its
 * factorisation (collective over the solver's one rank), a solve of level L (the coarsest) */
#define MG_DIRECT_MAX 1024
int mg_direct_possible(const mg_solver *s);
int mg_direct_setup(mg_solver *s);
int mg_direct_solve(mg_solver *s, mg_level *L);
void mg_direct_free(mg_solver *s);

#endif
