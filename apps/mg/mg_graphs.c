/* halox mg: F-cycles replayed from CUDA graphs. A coarse level's work is a few microseconds of GPU
 * time per kernel, but each launch costs the host about as much, so the host, not the GPU, sets the
 * pace there. With s->graphs, the first F-cycle records every
 * stretch of GPU work between two host synchronisations (the agglomeration's gather, the bottom
 * solve, a norm) as one CUDA graph, kernels and exchanges alike; later F-cycles from the same level
 * run the same host code but, instead of issuing each operation, launch each stretch's graph where
 * the stretch ends. This needs transports whose exchanges replay (HX_PATH_REPLAY: ipc-put, nccl),
 * the CUDA kernels (graph_begin), and no timing marks. The bottom solve and everything outside
 * mg_fmg stay eager (CG's iteration count depends on the data). A Chebyshev smoother swaps u and
 * its next iterate: when an F-cycle ends with the fields swapped, its graphs would read the wrong
 * ones next time, so they are not replayed (graphs stay off for it). */
#include <stdio.h>
#include <string.h>

#include "mg.h"

int mg_graphs_possible(const mg_solver *s)
{
    return s->graphs && s->greplay && s->marks_off && s->k->graph_begin && s->gready >= 0;
}

/* Before a level operation's GPU work: opens a stretch where none is (recording: the capture
 * begins) and says whether to issue the work (replaying: no, the stretch's graph holds it). */
int mg_seg_issue(mg_solver *s, int *issue)
{
    *issue = 1;
    if (s->gmode == MG_EAGER || s->gsusp) return HX_OK;
    if (!s->gopen) {
        if (s->gseg >= MG_GRAPHS) {
            snprintf(s->err, sizeof s->err, "mg: an F-cycle of more than %d stretches between synchronisations: "
                     "run it with --graph off", MG_GRAPHS);
            return HX_ERR_RUNTIME;
        }
        if (s->gmode == MG_RECORD && s->k->graph_begin(&s->kc)) return mg_kfail(s, "beginning a CUDA graph");
        s->gopen = 1;
    }
    *issue = s->gmode == MG_RECORD;
    return HX_OK;
}

/* Where the host is about to wait for the GPU: the open stretch ends (recording: its graph is
 * made and launched; replaying: its graph is launched). */
int mg_seg_close(mg_solver *s)
{
    if (!s->gopen) return HX_OK;
    s->gopen = 0;
    const int slot = s->gseg++;
    if (s->gmode == MG_RECORD ? s->k->graph_end(&s->kc, slot) : s->k->graph_launch(&s->kc, slot))
        return mg_kfail(s, s->gmode == MG_RECORD ? "recording a CUDA graph" : "launching a CUDA graph");
    return HX_OK;
}

/* the fields that the smoother may swap, per level */
static void field_pointers(const mg_solver *s, void *p[MG_MAX_LEVELS][2])
{
    for (int l = 0; l < s->nlev; l++) p[l][0] = s->lev[l].u.data, p[l][1] = s->lev[l].ct.data;
}

int mg_fmg_graphed(mg_solver *s, int l0, int (*fmg)(mg_solver *, int))
{
    if (!mg_graphs_possible(s)) return fmg(s, l0);
    void *before[MG_MAX_LEVELS][2], *after[MG_MAX_LEVELS][2];
    field_pointers(s, before);
    const int replay = s->gready > 0 && s->gl0 == l0;
    s->gmode = replay ? MG_REPLAY : MG_RECORD;
    s->gseg = s->gopen = s->gsusp = 0;
    int st = fmg(s, l0);
    if (st == HX_OK) st = mg_seg_close(s);
    if (st == HX_OK && replay && s->gseg != s->gsegs) {
        snprintf(s->err, sizeof s->err, "mg: a replayed F-cycle had %d stretches, its recording %d", s->gseg, s->gsegs);
        st = HX_ERR_RUNTIME;
    }
    if (st != HX_OK) {
        if (s->gopen && s->gmode == MG_RECORD && s->k->graph_abort) s->k->graph_abort(&s->kc);
        s->gready = -1; /* no more graphs for this solver */
    } else if (!replay) {
        field_pointers(s, after);
        s->gsegs = s->gseg;
        s->gl0 = l0;
        s->gready = memcmp(before, after, sizeof(void *) * 2 * (size_t)s->nlev) == 0 ? 1 : -1;
    }
    s->gmode = MG_EAGER;
    s->gopen = s->gsusp = 0;
    return st;
}

int mg_graphs_used(const mg_solver *s) { return s->gready > 0; }
