/* halox mg: the direct bottom solver (--bottom direct; auto takes it wherever the coarsest level lives
 * on one rank, as it does with agglomeration). The coarsest operator as a dense matrix, built once
 * by applying the level's own operator (the kernel table's, boundary condition and all) to each unit
 * vector, its Cholesky factor (the operator is symmetric positive definite for both problems), and
 * per bottom solve one forward and one backward substitution on rank 0's host. Why: CG on an
 * elongated coarsest grid takes several iterations, each a few host-side steps and a global sum on
 * the critical path of every V-cycle; one substitution pair of at most MG_DIRECT_MAX^2 flops costs
 * less. Deterministic: one rank, a fixed order of operations. Public API only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

static long owned_cells(const mg_level *B) { return (long)B->g.n[0] * B->g.n[1] * B->g.n[2]; }

int mg_direct_possible(const mg_solver *s)
{
    int size = 0;
    if (MPI_Comm_size(s->comm, &size) != MPI_SUCCESS) return 0; /* then CG, or direct's refusal */
    return size == 1 && owned_cells(&s->lev[s->nlev - 1]) <= MG_DIRECT_MAX;
}

static int fail(mg_solver *s, const char *what)
{
    snprintf(s->err, sizeof s->err, "mg (rank %d): the direct bottom solver: %s: %s", s->rank, what,
             hx_context_error(s->ctx));
    return HX_ERR_RUNTIME;
}

int mg_direct_setup(mg_solver *s)
{
    mg_level *B = &s->lev[s->nlev - 1];
    const long n = owned_cells(B);
    double *a = calloc((size_t)(n * n), sizeof *a), *e = calloc((size_t)n, sizeof *e), *col = calloc((size_t)n, sizeof *col);
    s->chol = a;
    s->chol_work = e;
    if (!a || !e || !col) {
        free(col);
        snprintf(s->err, sizeof s->err, "mg: out of host memory for the direct bottom solver (%ld cells)", n);
        return HX_ERR_RUNTIME;
    }
    /* column j of A = A e_j, through p and q (the CG fields of the coarsest level) */
    int st = HX_OK;
    for (long j = 0; j < n && st == HX_OK; j++) {
        memset(e, 0, sizeof *e * (size_t)n);
        e[j] = 1;
        if (hx_field_set_owned(B->layout, &B->p, e) != HX_OK) st = fail(s, "setting a unit vector");
        else if ((st = mg_exchange(s, B, &B->p)) != HX_OK) break;
        else if (s->k->residual(&s->kc, &B->g, &B->A, mg_data(&B->q), mg_data(&B->p), NULL) || s->k->sync(&s->kc)) {
            snprintf(s->err, sizeof s->err, "mg (rank %d): the direct bottom solver's operator: %s", s->rank, s->kc.err);
            st = HX_ERR_RUNTIME;
        } else if (hx_field_get_owned(B->layout, &B->q, col) != HX_OK) st = fail(s, "reading a column");
        else
            for (long i = 0; i < n; i++) a[i * n + j] = col[i];
    }
    free(col);
    if (st != HX_OK) return st;
    /* Cholesky, lower triangle in place: A = L L^T */
    for (long j = 0; j < n; j++) {
        double d = a[j * n + j];
        for (long k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0)) {
            snprintf(s->err, sizeof s->err, "mg: the coarsest operator (%ld cells) is not positive definite at row %ld: "
                     "use --bottom cg", n, j);
            return HX_ERR_RUNTIME;
        }
        a[j * n + j] = sqrt(d);
        for (long i = j + 1; i < n; i++) {
            double v = a[i * n + j];
            for (long k = 0; k < j; k++) v -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = v / a[j * n + j];
        }
    }
    s->chol_n = n;
    return HX_OK;
}

int mg_direct_solve(mg_solver *s, mg_level *L)
{
    const long n = s->chol_n;
    const double *a = s->chol;
    double *x = s->chol_work;
    if (hx_field_get_owned(L->layout, &L->f, x) != HX_OK) return fail(s, "reading f");
    for (long i = 0; i < n; i++) { /* L y = f */
        double v = x[i];
        for (long k = 0; k < i; k++) v -= a[i * n + k] * x[k];
        x[i] = v / a[i * n + i];
    }
    for (long i = n - 1; i >= 0; i--) { /* L^T u = y */
        double v = x[i];
        for (long k = i + 1; k < n; k++) v -= a[k * n + i] * x[k];
        x[i] = v / a[i * n + i];
    }
    if (hx_field_set_owned(L->layout, &L->u, x) != HX_OK) return fail(s, "setting u");
    L->fresh = 0;
    return HX_OK;
}

void mg_direct_free(mg_solver *s)
{
    free(s->chol);
    free(s->chol_work);
    s->chol = s->chol_work = NULL;
    s->chol_n = 0;
}
