/* halox mg: agglomeration (docs/multigrid.md). When a V-cycle or the F-cycle reaches level s->agg,
 * the ranks' f is gathered and handed to the sub-solver of the coarse levels, which solves there:
 * every rank's CPU (MPI_Allgatherv; each rank then takes its own block of u, no message back), rank
 * 0's CPU (MPI_Gatherv, and u back by MPI_Scatterv), or an eighth of the ranks. mg_agglom_create
 * makes the buffers and that sub-solver, on its own context. Public API only: the fields move
 * through hx_field_get_owned / hx_field_set_owned and MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

static int mpi_check(mg_solver *s, int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return HX_OK;
    snprintf(s->err, sizeof s->err, "mg: %s at level %d (agglomeration) failed", what, s->agg);
    return HX_ERR_RUNTIME;
}

static int owned_copy(mg_solver *s, hx_context *ctx, hx_layout *l, const hx_field *f, double *buf, int set)
{
    if ((set ? hx_field_set_owned(l, f, buf) : hx_field_get_owned(l, f, buf)) == HX_OK) return HX_OK;
    snprintf(s->err, sizeof s->err, "mg (rank %d): agglomeration at level %d: %s", s->rank, s->agg,
             hx_context_error(ctx));
    return HX_ERR_RUNTIME;
}

/* rank 0 (B->every: each rank): the blocks of ranks r0 .. r1-1 (in B->all, rank order, each x
 * fastest; or the one block `one` if not NULL) into the global array glob of N cells per axis (in
 * 1), or back */
static void place_blocks(const mg_blocks *B, int r0, int r1, double *one, double *glob, const int *N, int in)
{
    for (int r = r0; r < r1; r++) {
        const int *b = &B->box[6 * r];
        double *src = one ? one : B->all + B->displ[r];
        for (int z = 0; z < b[2]; z++)
            for (int y = 0; y < b[1]; y++, src += b[0]) {
                double *g = glob + ((long)(b[5] + z) * N[1] + b[4] + y) * N[0] + b[3];
                memcpy(in ? g : src, in ? src : g, sizeof(double) * (size_t)b[0]);
            }
    }
}

/* Collective over comm: field f of level geometry g between the ranks' blocks and rank 0's global
 * array glob (gather: blocks -> glob; else glob -> blocks), through B. B->every: every rank's glob,
 * gathered by MPI_Allgatherv; back, each rank takes its own block from its own glob, no message. */
static int hand_over(mg_solver *s, hx_context *ctx, hx_layout *layout, const hx_field *f, const mg_geom *g,
                     mg_blocks *B, MPI_Comm comm, double *glob, int gather)
{
    int rank, nr;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nr);
    const int mine = g->n[0] * g->n[1] * g->n[2];
    if (gather) {
        TRY(owned_copy(s, ctx, layout, f, B->mine, 0));
        if (B->every)
            TRY(mpi_check(s, MPI_Allgatherv(B->mine, mine, MPI_DOUBLE, B->all, B->count, B->displ, MPI_DOUBLE, comm),
                          "MPI_Allgatherv of a right-hand side"));
        else
            TRY(mpi_check(s, MPI_Gatherv(B->mine, mine, MPI_DOUBLE, B->all, B->count, B->displ, MPI_DOUBLE, 0, comm),
                          "MPI_Gatherv of a right-hand side"));
        if (rank == 0 || B->every) place_blocks(B, 0, nr, NULL, glob, s->shape[s->agg], 1);
        return HX_OK;
    }
    if (B->every) { /* every rank solved the same levels with the same arithmetic: its own block of its own u */
        place_blocks(B, rank, rank + 1, B->mine, glob, s->shape[s->agg], 0);
        return owned_copy(s, ctx, layout, f, B->mine, 1);
    }
    if (rank == 0) place_blocks(B, 0, nr, NULL, glob, s->shape[s->agg], 0);
    TRY(mpi_check(s, MPI_Scatterv(B->all, B->count, B->displ, MPI_DOUBLE, B->mine, mine, MPI_DOUBLE, 0, comm),
                  "MPI_Scatterv of a correction"));
    return owned_copy(s, ctx, layout, f, B->mine, 1);
}

/* The sub-solver's members: rank 0's global level-agg f into sub's level 0, one V-cycle from zero
 * or one F-cycle there, and its u back into the global array. */
static int agglom_sub_cycle(mg_solver *s, int fmg)
{
    mg_agglom *G = &s->ag;
    mg_solver *q = G->sub;
    mg_level *Q = &q->lev[0];
    TRY(hand_over(s, G->ctx, Q->layout, &Q->f, &Q->g, &G->coarse, q->comm, G->glob, 0));
    Q->f_fresh = 0; /* its ring is not handed over */
    if (fmg) TRY(mg_sub_status(s, mg_fmg(q, 0)));
    else {
        /* a coarse-grid correction: level agg is only entered from the finer level with u = 0 */
        TRY(mg_sub_status(s, mg_vcycle_correction(q, 0)));
    }
    TRY(mg_sub_status(s, mg_sync(q)));
    return hand_over(s, G->ctx, Q->layout, &Q->u, &Q->g, &G->coarse, q->comm, G->glob, 1);
}

int mg_agglom_cycle(mg_solver *s, int fmg)
{
    mg_agglom *G = &s->ag;
    mg_level *L = &s->lev[s->agg];
    TRY(mg_sync(s));
    const double t0 = MPI_Wtime();
    TRY(hand_over(s, s->ctx, L->layout, &L->f, &L->g, &G->job, s->comm, G->glob, 1));
    if (s->rank == 0) L->tm.t[MG_AGGLOM] += MPI_Wtime() - t0;
    if (G->sub) TRY(agglom_sub_cycle(s, fmg));
    const double t1 = MPI_Wtime();
    TRY(hand_over(s, s->ctx, L->layout, &L->u, &L->g, &G->job, s->comm, G->glob, 0));
    L->fresh = 0;
    if (s->rank == 0) { /* rank 0's own copies and messages; the other ranks' wait for the coarse solve is not counted */
        L->tm.t[MG_AGGLOM] += MPI_Wtime() - t1;
        L->tm.n[MG_AGGLOM]++;
    }
    return HX_OK;
}

/* Collective over comm (nr ranks): this rank's block g of a level of `cells` cells, and on rank 0
 * (every: on each rank) every rank's block and the buffers to gather them. 0, or -1 on every rank
 * with a line in msg on those that failed. */
static int blocks_create(mg_blocks *B, MPI_Comm comm, int rank, int nr, const mg_geom *g, long cells, int every,
                         char *msg, size_t n)
{
    const int mybox[6] = {g->n[0], g->n[1], g->n[2], g->off[0], g->off[1], g->off[2]};
    const int holder = every || rank == 0;
    int bad = !(B->mine = malloc(sizeof(double) * (size_t)g->n[0] * g->n[1] * g->n[2])), any = 0;
    B->every = every;
    if (holder) {
        B->count = malloc(sizeof(int) * nr);
        B->displ = malloc(sizeof(int) * nr);
        B->box = malloc(sizeof(int) * 6 * nr);
        B->all = malloc(sizeof(double) * cells);
        bad = bad || !B->count || !B->displ || !B->box || !B->all;
    }
    if (bad) snprintf(msg, n, "mg: out of host memory for the agglomeration buffers");
    if (MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS || any) return -1;
    if ((every ? MPI_Allgather(mybox, 6, MPI_INT, B->box, 6, MPI_INT, comm)
               : MPI_Gather(mybox, 6, MPI_INT, B->box, 6, MPI_INT, 0, comm)) != MPI_SUCCESS)
        return snprintf(msg, n, "mg: %s of the agglomeration level's blocks failed", every ? "MPI_Allgather" : "MPI_Gather"), -1;
    if (holder) {
        long sum = 0;
        for (int r = 0; r < nr; r++) {
            B->count[r] = B->box[6 * r] * B->box[6 * r + 1] * B->box[6 * r + 2];
            B->displ[r] = (int)sum;
            sum += B->count[r];
        }
        if (sum != cells) return snprintf(msg, n, "mg: the ranks' blocks do not tile the agglomeration level"), -1;
    }
    return 0;
}

static void blocks_free(mg_blocks *B)
{
    free(B->count), free(B->displ), free(B->box), free(B->mine), free(B->all);
    memset(B, 0, sizeof *B);
}

/* Collective: the agglomeration buffers, and on the sub-solver's members the solver of levels
 * s->agg .. ntot-1: on a CPU context of MPI_COMM_SELF (transport mpi: no neighbour to talk to), on
 * every rank (s->redundant) or on rank 0 alone, or, with s->agg2, job ranks 0 .. P'-1 over
 * mg_fewer_grid on the job's backend and transport, agglomerating again at agg2 onto CPUs. */
int mg_agglom_create(mg_solver *s, const char *transport, hx_pattern pattern)
{
    mg_agglom *G = &s->ag;
    const int *NA = s->shape[s->agg];
    const long cells = (long)NA[0] * NA[1] * NA[2];
    const int redundant = s->redundant && !s->agg2;
    char msg[400] = "";
    int bad = blocks_create(&G->job, s->comm, s->rank, hx_context_size(s->ctx), &s->lev[s->agg].g, cells, redundant,
                            msg, sizeof msg);
    if (!bad && (s->rank == 0 || redundant) && !(G->glob = malloc(sizeof(double) * cells)))
        bad = 1, snprintf(msg, sizeof msg, "mg: out of host memory for the agglomeration level");
    if (mg_fail_agreed(s, bad, msg)) return HX_ERR_RUNTIME;

    /* the members: job ranks 0 .. P'-1 (P' = 1 in one step), or every rank on its own */
    int sub[3] = {1, 1, 1};
    if (s->agg2) mg_fewer_grid(s->pgrid, sub);
    const int member = redundant || s->rank < sub[0] * sub[1] * sub[2];
    MPI_Comm comm = MPI_COMM_NULL;
    bad = MPI_Comm_split(s->comm, member ? (redundant ? s->rank : 0) : MPI_UNDEFINED, s->rank, &comm) != MPI_SUCCESS;
    if (mg_fail_agreed(s, bad, "mg: MPI_Comm_split for the coarse levels' ranks failed")) return HX_ERR_RUNTIME;
    if (member) {
        hx_context_options o = hx_context_defaults();
        o.backend = s->agg2 ? hx_context_backend(s->ctx) : HX_BACKEND_CPU;
        o.threads = hx_context_threads(s->ctx); /* its share of the node, not every core of it */
        o.log = hx_log_to_file;
        o.log_user = stderr;
        o.log_level = HX_LOG_WARN;
        if (hx_context_create(comm, &o, &G->ctx) != HX_OK) {
            bad = 1;
            snprintf(msg, sizeof msg, "mg: the context of the coarse levels' ranks: %s", hx_context_error(G->ctx));
        } else if (!(G->sub = calloc(1, sizeof *G->sub))) {
            bad = 1;
            snprintf(msg, sizeof msg, "mg: out of host memory for the coarse levels");
        } else {
            mg_solver *q = G->sub;
            q->nu = s->nu, q->smoother = s->smoother, q->cheby_degree = s->cheby_degree, q->cheby_ratio = s->cheby_ratio;
            q->pde = s->pde, q->bottom = s->bottom, q->bottom_sweeps = s->bottom_sweeps, q->bottom_tol = s->bottom_tol;
            q->bottom_maxit = s->bottom_maxit, q->agg = s->agg2 ? s->agg2 - s->agg : 0, q->agg2 = 0;
            q->ghosts = s->ghosts, q->overlap = s->overlap, q->redundant = s->redundant;
            if (mg_create(q, G->ctx, NA, sub, s->ntot - s->agg, s->agg2 ? transport : "mpi", pattern) != HX_OK)
                bad = 1, snprintf(msg, sizeof msg, "%s (the coarse levels)", q->err);
            else if (blocks_create(&G->coarse, q->comm, q->rank, hx_context_size(q->ctx), &q->lev[0].g, cells, 0,
                                   msg, sizeof msg))
                bad = 1;
        }
        MPI_Comm_free(&comm);
    }
    return mg_fail_agreed(s, bad, msg) ? HX_ERR_RUNTIME : HX_OK;
}

void mg_agglom_destroy(mg_solver *s)
{
    mg_agglom *G = &s->ag;
    if (G->sub) mg_destroy(G->sub);
    free(G->sub);
    hx_context_destroy(G->ctx);
    blocks_free(&G->job);
    blocks_free(&G->coarse);
    free(G->glob);
    memset(G, 0, sizeof *G);
}
