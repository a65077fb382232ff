/* halox mg: agglomeration (docs/multigrid.md). When a V-cycle or the F-cycle reaches level s->agg,
 * the ranks' f is gathered and handed to the sub-solver of the coarse levels, which solves there:
 * every rank's CPU (MPI_Allgatherv; each rank then takes its own block of u, no message back), rank
 * 0's CPU (MPI_Gatherv, and u back by MPI_Scatterv), or an eighth of the ranks. Public API only: the
 * fields move through hx_field_get_owned / hx_field_set_owned and MPI. */
#include <stdio.h>
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

