/* halox mg's timing: each level operation is enclosed by two marks (CUDA events on the stream, or
 * the host clock), read later (mg_timers_flush), so the GPU stream is never stopped to time a kernel;
 * the marks of a solver and of its agglomeration sub-solvers add up per level of the hierarchy. */
#include <stdio.h>
#include <string.h>

#include "mg.h"

const char *const mg_op_names[MG_NTIMERS] = {"smooth",   "residual", "restrict",   "interpolate",
                                             "exchange", "bottom",   "agglomerate"};

/* a kernel call: on failure, its message */
#define K(call, what)                       \
    do {                                    \
        if (call) return mg_kfail(s, what); \
    } while (0)

/* the sub-solver's status, its message in s->err */
int mg_sub_status(mg_solver *s, int st)
{
    if (st != HX_OK) snprintf(s->err, sizeof s->err, "%s", s->ag.sub->err);
    return st;
}

int mg_timers_flush(mg_solver *s)
{
    if (s->ag.sub) TRY(mg_sub_status(s, mg_timers_flush(s->ag.sub)));
    if (!s->nmarks) return HX_OK;
    K(s->k->sync(&s->kc), "waiting for the kernels");
    for (int i = 0; i < s->nspans; i++) {
        const mg_span *sp = &s->span[i];
        double dt = 0;
        K(s->k->elapsed(&s->kc, sp->a, sp->b, &dt), "reading a timer");
        s->lev[sp->lev].tm.t[sp->op] += dt;
        s->lev[sp->lev].tm.n[sp->op] += sp->calls;
    }
    s->nmarks = s->nspans = 0;
    return HX_OK;
}

int mg_reset_timers(mg_solver *s)
{
    K(s->k->sync(&s->kc), "waiting for the kernels");
    s->nmarks = s->nspans = 0;
    for (int l = 0; l < s->nlev; l++) memset(&s->lev[l].tm, 0, sizeof s->lev[l].tm);
    s->bottom_iters = 0;
    return s->ag.sub ? mg_sub_status(s, mg_reset_timers(s->ag.sub)) : HX_OK;
}

void mg_level_timers(const mg_solver *s, int l, mg_timers *out)
{
    memset(out, 0, sizeof *out);
    if (l < s->nlev) *out = s->lev[l].tm;
    const mg_solver *q = s->ag.sub;
    if (!q || l < s->agg) return;
    mg_timers sub; /* the coarse levels' ranks (and their own coarse levels, recursively) */
    mg_level_timers(q, l - s->agg, &sub);
    for (int op = 0; op < MG_NTIMERS; op++) {
        out->t[op] += sub.t[op];
        out->n[op] += sub.n[op];
    }
}

long mg_bottom_iters(const mg_solver *s) { return s->bottom_iters + (s->ag.sub ? mg_bottom_iters(s->ag.sub) : 0); }

void mg_timing_marks(mg_solver *s, int on)
{
    s->marks_off = !on;
    if (s->ag.sub) mg_timing_marks(s->ag.sub, on);
}

int mg_span_begin(mg_solver *s, int *mark)
{
    if (s->marks_off) return *mark = -1, HX_OK;
    if (s->nmarks + 2 > MG_MARKS) TRY(mg_timers_flush(s));
    *mark = s->nmarks++;
    K(s->k->mark(&s->kc, *mark), "recording a timer");
    return HX_OK;
}

int mg_span_end(mg_solver *s, const mg_level *L, int op, int a, long calls)
{
    if (a < 0) return HX_OK;
    const int b = s->nmarks++;
    K(s->k->mark(&s->kc, b), "recording a timer");
    s->span[s->nspans++] = (mg_span){.lev = L->index, .op = op, .a = a, .b = b, .calls = calls};
    return HX_OK;
}
