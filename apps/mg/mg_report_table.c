/* `halox mg`'s report as a table for people: the problem and hierarchy, each solve's residual
 * history and per-level timers, then errors and observed orders side by side (mg_report.c holds
 * the same results as CSV and JSON fields). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mg_app.h"

static double fine_cells(const mg_result *q) { return (double)q->shape[0] * q->shape[1] * q->shape[2]; }
static int is_cube(const int n[3]) { return n[0] == n[1] && n[1] == n[2]; }
static int min3(const int v[3]) { return v[0] < v[1] ? (v[0] < v[2] ? v[0] : v[2]) : (v[1] < v[2] ? v[1] : v[2]); }

void mg_report_table(FILE *out, const mg_report *r)
{
    const mg_config *c = r->c;
    const mg_solver *s = r->s;
    if (c->problem)
        fprintf(out, "halox mg: a alpha u - b div(beta grad u) = f (a = b = 1, alpha = 1 + xyz, beta = 1 + "
                     "sin(2 pi x) sin(2 pi y) sin(2 pi z) / 4 on faces)\n");
    else fprintf(out, "halox mg: -lap(u) = f\n");
    const int *n0 = s->shape[0];
    char sh[48];
    if (is_cube(n0))
        fprintf(out, "          on the unit cube, cell-centred finite volumes, homogeneous Dirichlet,\n"
                     "          u = sin(pi x) sin(pi y) sin(pi z), double precision\n");
    else /* a box of cubic cells (docs/multigrid.md) */
        fprintf(out, "          on [0, Lx] x [0, Ly] x [0, Lz] = [0, %g] x [0, %g] x [0, %g] (cubes of width h = 1/%d),\n"
                     "          cell-centred finite volumes, homogeneous Dirichlet,\n"
                     "          u = sin(pi x/Lx) sin(pi y/Ly) sin(pi z/Lz)%s, double precision\n",
                s->lev[0].g.L[0], s->lev[0].g.L[1], s->lev[0].g.L[2], min3(n0),
                c->problem ? " (alpha, beta: x, y, z as x/Lx, y/Ly, z/Lz)" : "");
    fprintf(out, "  %s cells, %d rank%s (grid %dx%dx%d), %d levels:", mg_shape_text(sh, sizeof sh, n0), r->nranks,
            r->nranks == 1 ? "" : "s", r->pgrid[0], r->pgrid[1], r->pgrid[2], s->ntot);
    for (int l = 0; l < s->ntot; l++)
        fprintf(out, " %s%s", mg_shape_text(sh, sizeof sh, s->shape[l]),
                mg_level_on_cpu(s, l) ? "*" : s->agg2 && l >= s->agg ? "+" : "");
    if (s->agg2)
        fprintf(out, "\n  + on %d rank%s (--agglomerate-ranks %ld: f of %s gathered and handed to them, the correction "
                     "back)", mg_level_ranks(r, s->agg), mg_level_ranks(r, s->agg) == 1 ? "" : "s", c->agglomerate_ranks,
                mg_shape_text(sh, sizeof sh, s->shape[s->agg]));
    if (s->agg && s->redundant && !s->agg2)
        fprintf(out, "\n  * on the CPU, the same solve on every rank (--agglomerate %ld, --coarse-solve all: f of %s "
                     "gathered onto every rank, each takes its own block of the correction)",
                c->agglomerate, mg_shape_text(sh, sizeof sh, s->shape[s->agg]));
    else if (s->agg)
        fprintf(out, "\n  * on %s, on the CPU (--agglomerate %ld: f of %s gathered, its correction scattered)",
                s->agg2 && s->redundant ? "each of those ranks alone" : "rank 0 alone", c->agglomerate,
                mg_shape_text(sh, sizeof sh, s->shape[s->agg2 ? s->agg2 : s->agg]));
    fprintf(out, "\n  backend %s%s%s, transport %s, pattern %s\n", r->backend, r->gpu ? " " : "", r->gpu ? r->gpu : "",
            c->transport, hx_pattern_name((hx_pattern)c->pattern));
    if (c->smoother == MG_SMOOTHER_CHEBY)
        fprintf(out, "  V-cycle: %d+%d Chebyshev smoothings of degree %d (interval [%g/%g, %g] of D^-1 A)", c->nu, c->nu,
                c->cheby_degree, s->lambda_max, s->cheby_ratio, s->lambda_max);
    else
        fprintf(out, "  V-cycle: %d+%d red-black Gauss-Seidel sweeps (%s)", c->nu, c->nu,
                c->ghosts > 1 ? "deep ghosts: an exchange serves up to --ghosts colours" : "an exchange before each colour");
    fprintf(out, ", piecewise-constant restriction and interpolation; bottom %s",
            c->bottom == MG_BOTTOM_CG       ? "CG (relative residual 1e-12)"
            : c->bottom == MG_BOTTOM_DIRECT ? "direct (Cholesky)"
            : c->bottom == MG_BOTTOM_AUTO   ? "direct (Cholesky) on one rank, else CG"
                                            : "smoother");
    if (c->bottom == MG_BOTTOM_SMOOTH) fprintf(out, " (%d)", c->bottom_sweeps);
    fprintf(out, "\n  FMG (F-cycle): trilinear interpolation, one V-cycle per level; %d timed solves after 1 warm-up\n",
            c->repeat);
    for (int i = 0; i < r->nres; i++) {
        const mg_result *q = &r->res[i];
        fprintf(out, "\nsolve %s (%dh): one F-cycle, then V-cycles to ||r||/||f|| < %.3g\n",
                mg_shape_text(sh, sizeof sh, q->shape), 1 << i, r->tol);
        fprintf(out, "  %5s %14s %10s\n", "cycle", "||r||/||f||", "reduction");
        double rel = q->fmg_first;
        fprintf(out, "  %5s %14.3e %10.4f   (the F-cycle from u = 0)\n", "FMG", rel, rel);
        for (int k = 0; k < q->cycles && k < MG_MAX_CYCLES_KEPT; k++) {
            rel *= q->red[k];
            fprintf(out, "  %5d %14.3e %10.4f\n", k + 1, rel, q->red[k]);
        }
        fprintf(out, "  %s after %d V-cycles, max reduction %.4f; error vs exact: L2 %.6e  max %.6e; checksum 0x%016llx\n",
                q->converged ? "converged" : "NOT converged", q->cycles, q->max_red, q->err_l2, q->err_max,
                (unsigned long long)q->checksum);
        fprintf(out, "  FMG: %.6f s median (min %.6f, max %.6f) over %d, %.4g DOF/s; error L2 %.6e (%.2fx the converged), "
                     "||r||/||f|| %.3e\n",
                q->fmg_med, q->fmg_min, q->fmg_max, c->repeat, fine_cells(q) / q->fmg_med, q->fmg_err_l2,
                q->fmg_err_l2 / q->err_l2, q->fmg_rel);
        const int nops = s->agg ? MG_NTIMERS : MG_NOPS; /* the agglomerate column only when it is used */
        const int mw = s->agg2 ? 12 : s->agg ? 9 : 0; /* the "(CPU)" and "(N ranks)" marks */
        const int cw = (int)strlen(mg_shape_text(sh, sizeof sh, q->shape)) > 8 ? (int)strlen(sh) : 8;
        fprintf(out, "  %-6s %*s%*s", "level", cw, "cells", mw, "");
        for (int op = 0; op < nops; op++) fprintf(out, " %20s", mg_op_names[op]);
        fprintf(out, "\n  %-6s %*s%*s", "", cw, "", mw, "");
        for (int op = 0; op < nops; op++) fprintf(out, " %20s", "s / calls");
        fprintf(out, "\n");
        mg_timers tot;
        memset(&tot, 0, sizeof tot);
        for (int l = q->fine; l < s->ntot; l++) {
            char mark[24] = "";
            if (mg_level_on_cpu(s, l)) snprintf(mark, sizeof mark, " (CPU)");
            else if (s->agg2 && l >= s->agg) snprintf(mark, sizeof mark, " (%d rank%s)", mg_level_ranks(r, l), mg_level_ranks(r, l) == 1 ? "" : "s");
            fprintf(out, "  %-6d %*s%*s", l - q->fine, cw, mg_shape_text(sh, sizeof sh, s->shape[l]), mw, mark);
            for (int op = 0; op < nops; op++) {
                fprintf(out, " %11.6f / %6ld", q->tm[l].t[op], q->tm[l].n[op]);
                tot.t[op] += q->tm[l].t[op];
                tot.n[op] += q->tm[l].n[op];
            }
            fprintf(out, "\n");
        }
        fprintf(out, "  %-6s %*s%*s", "total", cw, "", mw, "");
        for (int op = 0; op < nops; op++) fprintf(out, " %11.6f / %6ld", tot.t[op], tot.n[op]);
        fprintf(out, "\n  (summed over %d solves run after the timed ones, timed step by step; max over ranks; "
                     "bottom includes its own exchanges%s; "
                     "CG iterations %ld%s)\n",
                c->repeat, c->bottom == MG_BOTTOM_SMOOTH ? " and smoothing" : "", q->bottom_iters,
                s->agg2  ? "; (N ranks), (CPU): those ranks' time, the first such level also the finer ranks' "
                           "restriction and exchange into it; agglomerate: rank 0's gather and hand-back"
                : s->agg ? "; (CPU): one rank's CPU solve, the first such level also the ranks' restriction and "
                           "exchange into it; agglomerate: rank 0's gather and hand-back" : "");
    }
    const int sw = (int)strlen(mg_shape_text(sh, sizeof sh, n0)) > 8 ? (int)strlen(sh) : 8;
    fprintf(out, "\n%-*s %14s %14s %10s %10s %8s %10s %12s %14s\n", sw, "size", "error L2", "error max", "order L2",
            "order max", "cycles", "max red.", "FMG s", "DOF/s");
    for (int i = 0; i < r->nres; i++) {
        const mg_result *q = &r->res[i];
        const double o2 = i + 1 < r->nres && q->err_l2 > 0 ? log2(r->res[i + 1].err_l2 / q->err_l2) : NAN;
        const double om = i + 1 < r->nres ? log2(r->res[i + 1].err_max / q->err_max) : NAN;
        fprintf(out, "%-*s %14.6e %14.6e %10.4f %10.4f %8d %10.4f %12.6f %14.4g\n", sw,
                mg_shape_text(sh, sizeof sh, q->shape), q->err_l2, q->err_max, o2, om, q->cycles, q->max_red,
                q->fmg_med, fine_cells(q) / q->fmg_med);
    }
    fprintf(out, "(order: log2(e_2h / e_h) from the next coarser solve; expected about 2)\n");
}
