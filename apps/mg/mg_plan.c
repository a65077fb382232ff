/* `halox mg`: the checks of the options that need the rank count, before any computation: the
 * global grid (--size N or NXxNYxNZ, or --size-per-rank N), the process grid, the hierarchy's
 * level count and the agglomeration level. Each failure is one line in err that names the fix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_app.h"
#include "options.h"

#define MG_EXTENT_MIN 4
#define MG_EXTENT_MAX (1 << 14)

const char *mg_shape_text(char *buf, size_t n, const int shape[3])
{
    if (shape[0] == shape[1] && shape[1] == shape[2]) snprintf(buf, n, "%d^3", shape[0]);
    else snprintf(buf, n, "%dx%dx%d", shape[0], shape[1], shape[2]);
    return buf;
}

static int min3(const int v[3]) { return v[0] < v[1] ? (v[0] < v[2] ? v[0] : v[2]) : (v[1] < v[2] ? v[1] : v[2]); }

/* the global grid of level l */
static void level_shape(const int shape[3], int l, int out[3])
{
    for (int a = 0; a < 3; a++) out[a] = shape[a] >> l;
}

static long long cells(const int shape[3], int l)
{
    return (long long)(shape[0] >> l) * (shape[1] >> l) * (shape[2] >> l);
}

/* Levels of one axis: its blocks start at b, halve exactly and keep at least 2 cells; the global
 * extent n stays at least `coarse` (with the smallest extent as n: the hierarchy's limit). */
static int axis_levels(int n, int coarse, int b)
{
    int L = 1;
    while (L < MG_MAX_LEVELS && (n >> L) >= coarse && b % 2 == 0 && b / 2 >= 2) b /= 2, L++;
    return L;
}

/* Levels of a hierarchy from the global grid n whose blocks start at b[3] and halve exactly, each
 * at least 2 cells per axis, and whose smallest global extent stays at least `coarse`. */
static int count_levels(const int n[3], int coarse, const int b[3])
{
    int L = MG_MAX_LEVELS;
    for (int a = 0; a < 3; a++) {
        const int La = axis_levels(min3(n), coarse, b[a]);
        if (La < L) L = La;
    }
    return L;
}

/* Ranks whose cells reach a middle rank of grid p in one exchange (edges and corners included):
 * 1, 2 or 3 positions a rank sees along each axis, less itself. */
static int grid_neighbours(const int p[3])
{
    int k = 1;
    for (int a = 0; a < 3; a++) k *= p[a] < 3 ? p[a] : 3;
    return k - 1;
}

static int grid_aspect(const int p[3])
{
    int lo = p[0], hi = p[0];
    for (int a = 1; a < 3; a++) lo = p[a] < lo ? p[a] : lo, hi = p[a] > hi ? p[a] : hi;
    return hi / lo + (hi % lo != 0);
}

/* --size-per-rank: the blocks are cubes whatever the grid, so every grid moves the same faces a rank
 * and differs in the ranks each exchange waits for. Start from the most cubic grid and take one whose
 * busiest rank has fewer neighbours, at most 4 ranks along an axis per rank along another (an
 * elongated coarsest grid slows CG), x first: 4 ranks get 4x1x1 (3 neighbours -> 2), which ran the
 * F-cycle faster than 2x2x1 (docs/performance.md). */
static void weak_grid(int nranks, int pgrid[3])
{
    int best[3] = {pgrid[0], pgrid[1], pgrid[2]};
    for (int px = nranks; px >= 1; px--)
        for (int py = nranks / px; py >= 1; py--) {
            if (nranks % px || (nranks / px) % py) continue;
            const int q[3] = {px, py, nranks / px / py};
            if (grid_aspect(q) > 4) continue;
            const int nq = grid_neighbours(q), nb = grid_neighbours(best);
            if (nq < nb || (nq == nb && grid_aspect(q) < grid_aspect(best) && nq < grid_neighbours(pgrid)))
                memcpy(best, q, sizeof best);
        }
    memcpy(pgrid, best, sizeof best);
}

/* The process grid: --grid, or for --size-per-rank the most cubic one unless weak_grid finds one
 * with fewer neighbours (then the global grid is the block times the grid), or the one with the
 * most cubic blocks of the global grid. */
static int plan_grid(mg_config *c, int nranks, int pgrid[3], char *err, size_t n)
{
    if (c->grid_n) {
        if (c->grid_n != 3) {
            snprintf(err, n, "--grid needs three numbers (PXxPYxPZ): mg is 3D");
            return -1;
        }
        long prod = (long)c->grid[0] * c->grid[1] * c->grid[2];
        if (prod != nranks) {
            snprintf(err, n, "--grid %dx%dx%d has %ld ranks but the job has %d: pass a grid whose product is %d",
                     c->grid[0], c->grid[1], c->grid[2], prod, nranks, nranks);
            return -1;
        }
        memcpy(pgrid, c->grid, 3 * sizeof(int));
    } else if (c->size_per_rank) {
        const int cube[3] = {2 * nranks, 2 * nranks, 2 * nranks};
        if (hx_choose_grid(nranks, 3, cube, 2, pgrid)) {
            snprintf(err, n, "no process grid for %d ranks: give --grid PXxPYxPZ", nranks);
            return -1;
        }
        weak_grid(nranks, pgrid);
    }
    if (c->size_per_rank)
        for (int a = 0; a < 3; a++) {
            const long long e = (long long)c->size_per_rank * pgrid[a];
            if (e > MG_EXTENT_MAX) {
                snprintf(err, n, "--size-per-rank %d over grid %dx%dx%d gives %s %c extent of %lld, above %d: use "
                         "a smaller N or fewer ranks along %c", c->size_per_rank, pgrid[0], pgrid[1], pgrid[2],
                         a ? "a" : "an", "xyz"[a], e, MG_EXTENT_MAX, "xyz"[a]);
                return -1;
            }
            c->shape[a] = (int)e;
        }
    else if (!c->grid_n && hx_choose_grid(nranks, 3, c->shape, 2, pgrid)) {
        snprintf(err, n, "no process grid of %d ranks leaves every block at least 2 cells wide: use a larger --size "
                 "or fewer ranks", nranks);
        return -1;
    }
    return 0;
}

/* --transport NAME[,NAME...], auto or all (every transport of this build, mpi first) into c->transports (a
 * name given twice runs twice: the spread of one transport's times beside the others');
 * --schedule: the device schedules belong to halox's own sweeps */
static int plan_exchange(mg_config *c, char *err, size_t n)
{
    if (c->schedule != HX_SCHEDULE_CYCLE) {
        snprintf(err, n, "--schedule %s: the fused and persistent schedules run halox's own stencil sweeps (halox run); "
                 "mg's smoothers call hx_exchange_run between their kernels, which is the cycle schedule: use --schedule "
                 "cycle", hx_schedule_name((hx_schedule)c->schedule));
        return -1;
    }
    char list[256];
    c->transports_all = !strcmp(c->transport, "all");
    snprintf(list, sizeof list, "%s", c->transports_all ? hx_transport_names() : c->transport);
    c->ntransports = 0;
    char *save = NULL;
    for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (c->ntransports == MG_MAX_TRANSPORTS) {
            snprintf(err, n, "--transport %s: at most %d transports in one job", c->transport, MG_MAX_TRANSPORTS);
            return -1;
        }
        if (!strcmp(t, "auto")) { /* resolved on the context (mg_main.c): every rank picks the same */
            snprintf(c->transports[c->ntransports++], sizeof c->transports[0], "%s", t);
            continue;
        }
        if (!strcmp(t, "all")) {
            snprintf(err, n, "--transport %s: all stands alone: give all, or a list of names (%s)", c->transport,
                     hx_transport_names());
            return -1;
        }
        if (!hx_transport_paths(t)) {
            const char *why = hx_transport_absent_reason(t);
            if (why) snprintf(err, n, "--transport %s: %s (this build has %s)", t, why, hx_transport_names());
            else snprintf(err, n, "unknown --transport '%s': give a name of this build (%s), auto, a comma list of "
                          "them, or all", t, hx_transport_names());
            return -1;
        }
        snprintf(c->transports[c->ntransports++], sizeof c->transports[0], "%s", t);
    }
    if (!c->ntransports) {
        snprintf(err, n, "--transport '%s': give a transport name (%s), auto, a comma list of them, or all",
                 c->transport, hx_transport_names());
        return -1;
    }
    return 0;
}

/* The two-step agglomeration's first step (--agglomerate-ranks): levels A1 .. A2-1 on an eighth of
 * the ranks (mg_fewer_grid), A2 .. on rank 0's CPU; agg[0] is already the one-step level A2. */
static int plan_fewer(const mg_config *c, int nranks, const int pgrid[3], int ntot, int reach, int agg[2], char *err,
                      size_t n)
{
    int sub[3], s[3], b[3];
    char sh[48];
    mg_fewer_grid(pgrid, sub);
    if (sub[0] * sub[1] * sub[2] == nranks) {
        snprintf(err, n, "--agglomerate-ranks over grid %dx%dx%d: the first step halves the process grid along its even "
                 "axes, and this one has none: use a rank count with a factor of 2, or only --agglomerate",
                 pgrid[0], pgrid[1], pgrid[2]);
        return -1;
    }
    int A1 = 0;
    while (A1 < ntot && cells(c->shape, A1) > c->agglomerate_ranks) A1++;
    const int A2 = agg[0];
    if (A1 < 3) {
        level_shape(c->shape, 2, s);
        snprintf(err, n, "--agglomerate-ranks %ld: mg solves at h, 2h and 4h on every rank: give --agglomerate-ranks "
                 "below %lld (the %s grid's cells)", c->agglomerate_ranks, cells(c->shape, 2), mg_shape_text(sh, sizeof sh, s));
        return -1;
    }
    if (A1 >= A2) {
        level_shape(c->shape, A1, s);
        snprintf(err, n, "--agglomerate-ranks %ld and --agglomerate %ld reach the same level (%s): give "
                 "--agglomerate-ranks at least %lld, or --agglomerate below %lld", c->agglomerate_ranks, c->agglomerate,
                 mg_shape_text(sh, sizeof sh, s), cells(c->shape, A2 - 1), cells(c->shape, A1));
        return -1;
    }
    if (A1 > reach) {
        level_shape(c->shape, reach, s);
        snprintf(err, n, "--agglomerate-ranks %ld over grid %dx%dx%d: the ranks' blocks stop halving before it: give "
                 "--agglomerate-ranks at least %lld (the %s grid), or use fewer ranks", c->agglomerate_ranks, pgrid[0],
                 pgrid[1], pgrid[2], cells(c->shape, reach), mg_shape_text(sh, sizeof sh, s));
        return -1;
    }
    /* the eighth's blocks at A1 must halve exactly down to A2 */
    level_shape(c->shape, A1, s);
    for (int a = 0; a < 3; a++) b[a] = s[a] / sub[a];
    const int sub_reach = A1 + count_levels(s, 1, b) - 1;
    if ((s[0] % sub[0]) || (s[1] % sub[1]) || (s[2] % sub[2]) || sub_reach < A2) {
        snprintf(err, n, "--agglomerate-ranks %ld over grid %dx%dx%d: the %dx%dx%d ranks of the first step cannot halve "
                 "their blocks of the %s grid down to --agglomerate %ld: give --agglomerate at least %lld",
                 c->agglomerate_ranks, pgrid[0], pgrid[1], pgrid[2], sub[0], sub[1], sub[2], mg_shape_text(sh, sizeof sh, s),
                 c->agglomerate, cells(c->shape, sub_reach < A1 ? A1 : sub_reach));
        return -1;
    }
    agg[0] = A1;
    agg[1] = A2;
    return 0;
}

static int plan_agglomerate(const mg_config *c, int nranks, const int pgrid[3], const int b[3], int *nlev, int agg[2],
                            char *err, size_t n);

int mg_plan(mg_config *c, int nranks, int pgrid[3], int *nlev, int agg[2], double *tol, char *err, size_t n)
{
    if (plan_exchange(c, err, n)) return -1;
    char *end = NULL;
    *tol = strtod(c->tol, &end);
    if (!end || *end || !(*tol > 0) || !(*tol < 1)) {
        snprintf(err, n, "--tol %s: give a relative residual norm between 0 and 1, e.g. 1e-10", c->tol);
        return -1;
    }
    if (c->backend == HX_BACKEND_CUDA && (!hx_backend_built(HX_BACKEND_CUDA) || !mg_cuda_kernels())) {
        snprintf(err, n, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use --backend cpu");
        return -1;
    }
    if (c->backend == HX_BACKEND_CUDA && hx_gpu_count() == 0) {
        snprintf(err, n, "no CUDA GPU is visible to this rank: use --backend cpu, or check CUDA_VISIBLE_DEVICES and the "
                 "driver");
        return -1;
    }
    int cubic = 0; /* --size N: the messages of the cubic grid */
    const int given = c->size_per_rank ? 0 : hx_parse_cube(c->size, MG_EXTENT_MIN, MG_EXTENT_MAX, c->shape);
    if (c->size_seen && c->size_per_rank) {
        snprintf(err, n, "--size and --size-per-rank both given: give one (--size N or NXxNYxNZ: the global grid; "
                 "--size-per-rank N: N^3 cells per rank)");
        return -1;
    }
    cubic = given == 1;
    if (given < 0) {
        snprintf(err, n, "bad --size '%s': give the global grid as N (N^3 cells) or NXxNYxNZ (mg is 3D), each number "
                 "from %d to %d", c->size, MG_EXTENT_MIN, MG_EXTENT_MAX);
        return -1;
    }
    if (plan_grid(c, nranks, pgrid, err, n)) return -1;
    char what[96], sh[80];
    if (c->size_per_rank)
        snprintf(what, sizeof what, "--size-per-rank %d (the global grid %dx%dx%d)", c->size_per_rank, c->shape[0],
                 c->shape[1], c->shape[2]);
    else snprintf(what, sizeof what, "--size %s", c->size);
    int b[3], pmax = 1;
    for (int a = 0; a < 3; a++) {
        if (c->shape[a] % pgrid[a]) {
            const char ax = "xyz"[a];
            if (cubic)
                snprintf(sh, sizeof sh, "a multiple of %d", 8 * pgrid[a]);
            else snprintf(sh, sizeof sh, "%s %c extent that is a multiple of %d", a ? "a" : "an", ax, 8 * pgrid[a]);
            snprintf(err, n, "%s does not split evenly over %d ranks along %c (grid %dx%dx%d): every level's blocks "
                     "must halve exactly: use %s", what, pgrid[a], ax, pgrid[0], pgrid[1], pgrid[2], sh);
            return -1;
        }
        b[a] = c->shape[a] / pgrid[a];
        if (pgrid[a] > pmax) pmax = pgrid[a];
    }
    const int L = count_levels(c->shape, c->coarse, b), nmin = min3(c->shape);
    if (L < 3) {
        int lim = 0; /* the axis whose blocks stop halving first */
        for (int a = 1; a < 3; a++)
            if (axis_levels(nmin, 1, b[a]) < axis_levels(nmin, 1, b[lim])) lim = a;
        if (cubic)
            snprintf(sh, sizeof sh, "a --size that is a multiple of %d (and --coarse at most N/4)", 8 * pmax);
        else if (count_levels(c->shape, 1, b) >= 3) /* only --coarse stops it */
            snprintf(sh, sizeof sh, "--coarse at most %d (the smallest extent / 4)", nmin / 4);
        else if (c->size_per_rank) snprintf(sh, sizeof sh, "a --size-per-rank that is a multiple of 8");
        else snprintf(sh, sizeof sh, "%s %c extent that is a multiple of %d", lim ? "a" : "an", "xyz"[lim],
                      8 * pgrid[lim]);
        snprintf(err, n, "%s over grid %dx%dx%d%s gives %d level%s: mg solves at h, 2h and 4h, so it needs 3 levels "
                 "whose blocks halve exactly down to at least 2 cells: use %s", what, pgrid[0], pgrid[1], pgrid[2],
                 c->coarse > 2 ? " and --coarse" : "", L, L == 1 ? "" : "s", sh);
        return -1;
    }
    *nlev = L;
    agg[0] = agg[1] = 0;
    if (c->agglomerate_ranks && !c->agglomerate) {
        snprintf(err, n, "--agglomerate-ranks %ld is the first of two steps: give --agglomerate too (the smaller cell "
                 "count from which rank 0's CPU takes over), or leave --agglomerate-ranks out", c->agglomerate_ranks);
        return -1;
    }
    if (c->agglomerate_ranks && c->agglomerate_ranks <= c->agglomerate) {
        snprintf(err, n, "--agglomerate-ranks %ld must exceed --agglomerate %ld: the eighth of the ranks takes the "
                 "finer levels, rank 0's CPU the coarser ones", c->agglomerate_ranks, c->agglomerate);
        return -1;
    }
    if (!c->agglomerate_seen && !c->agglomerate_ranks) { /* automatic: on where the grid allows it */
        if (nranks == 1) return 0; /* one rank: already the one-rank hierarchy, and its GPU levels were faster */
        c->agglomerate = MG_AUTO_AGGLOMERATE;
        if (plan_agglomerate(c, nranks, pgrid, b, nlev, agg, err, n) == 0) return 0;
        c->agglomerate = 0, agg[0] = agg[1] = 0, *nlev = L, err[0] = 0;
        return 0;
    }
    return plan_agglomerate(c, nranks, pgrid, b, nlev, agg, err, n);
}

/* --agglomerate's levels (mg_plan). */
static int plan_agglomerate(const mg_config *c, int nranks, const int pgrid[3], const int b[3], int *nlev, int agg[2],
                            char *err, size_t n)
{
    char sh[80], sh2[48];
    if (!c->agglomerate) return 0;
    /* agglomeration: the one-rank hierarchy; the ranks keep levels 0 .. A, A the first of at most
     * c->agglomerate cells; none such: nothing to agglomerate */
    const int ntot = count_levels(c->shape, c->coarse, c->shape), reach = count_levels(c->shape, 1, b) - 1;
    int A = 0, s[3];
    while (A < ntot && cells(c->shape, A) > c->agglomerate) A++;
    if (A == ntot) return 0;
    if (A < 3) {
        level_shape(c->shape, A, s);
        snprintf(err, n, "--agglomerate %ld: the %s grid (%lld cells) is already at or below it, but mg solves at h, 2h "
                 "and 4h on every rank: give --agglomerate below %lld (the 4h grid's cells), or 0",
                 c->agglomerate, mg_shape_text(sh, sizeof sh, s), cells(c->shape, A), cells(c->shape, 2));
        return -1;
    }
    if (nranks > 1 && A > reach && !c->agglomerate_ranks) { /* two steps: plan_fewer checks both grids */
        if (reach < 3) {
            level_shape(c->shape, 3, s);
            snprintf(err, n, "--agglomerate %ld over grid %dx%dx%d: agglomeration needs the ranks' blocks to halve down "
                     "to the %s grid (the first after h, 2h, 4h), at least 2 cells each: use a larger --size or fewer "
                     "ranks", c->agglomerate, pgrid[0], pgrid[1], pgrid[2], mg_shape_text(sh, sizeof sh, s));
        } else {
            level_shape(c->shape, A, s);
            mg_shape_text(sh, sizeof sh, s);
            level_shape(c->shape, reach, s);
            snprintf(err, n, "--agglomerate %ld over grid %dx%dx%d: the first level at or below it, %s, leaves blocks "
                     "below 2 cells: give --agglomerate at least %lld (the %s grid), or use fewer ranks",
                     c->agglomerate, pgrid[0], pgrid[1], pgrid[2], sh, cells(c->shape, reach),
                     mg_shape_text(sh2, sizeof sh2, s));
        }
        return -1;
    }
    *nlev = ntot;
    agg[0] = A; /* one rank too: its coarse levels then run on its CPU (kernel launches cost more there) */
    if (!c->agglomerate_ranks || nranks == 1) return 0;
    return plan_fewer(c, nranks, pgrid, ntot, reach, agg, err, n);
}
