/* Message boxes for the staged and direct patterns, and sweep regions for deep halos. */
#include "halox/plan.h"

#include <string.h>

#define TAGS_PER_PHASE 32

enum axis_span { SPAN_OWNED, SPAN_FULL };

/* Extent along one axis of the cells sent toward offset o (o = 0: span decides). */
static void send_range(const hx_decomp *d, int a, int o, enum axis_span span, int *lo, int *hi)
{
    int g = d->ghost[a], n = d->local[a];
    if (o < 0) { *lo = g; *hi = 2 * g; }
    else if (o > 0) { *lo = n; *hi = n + g; }
    else if (span == SPAN_FULL) { *lo = 0; *hi = n + 2 * g; }
    else { *lo = g; *hi = g + n; }
}

/* Extent along one axis of the ghost cells on side o. */
static void recv_range(const hx_decomp *d, int a, int o, enum axis_span span, int *lo, int *hi)
{
    int g = d->ghost[a], n = d->local[a];
    if (o < 0) { *lo = 0; *hi = g; }
    else if (o > 0) { *lo = g + n; *hi = n + 2 * g; }
    else send_range(d, a, 0, span, lo, hi);
}

static void add_message(hx_phase *ph, const hx_decomp *d, int phase_index, int dir, const enum axis_span span[3])
{
    int peer = d->neighbour[dir];
    if (peer == HX_NO_RANK) return;
    int o[3];
    hx_dir_offset(dir, o);
    /* an axis of halo width 0 is never exchanged: no message toward its sides */
    for (int a = 0; a < 3; a++)
        if (o[a] && d->ghost[a] == 0) return;
    hx_message *m = &ph->msg[ph->nmsg++];
    memset(m, 0, sizeof *m);
    m->peer = peer;
    m->dir = dir;
    m->send_tag = phase_index * TAGS_PER_PHASE + dir;
    m->recv_tag = phase_index * TAGS_PER_PHASE + hx_dir_opposite(dir);
    for (int a = 0; a < 3; a++) {
        send_range(d, a, o[a], span[a], &m->send_box.lo[a], &m->send_box.hi[a]);
        recv_range(d, a, o[a], span[a], &m->recv_box.lo[a], &m->recv_box.hi[a]);
    }
    m->count = hx_box_cells(&m->send_box);
    m->offset = ph->cells;
    ph->cells += m->count;
}

void hx_plan_build(hx_plan *p, const hx_decomp *d, hx_pattern pattern)
{
    memset(p, 0, sizeof *p);
    p->pattern = pattern;
    if (pattern == HX_DIRECT) {
        /* One phase: every face, edge and corner neighbour. */
        enum axis_span span[3] = {SPAN_OWNED, SPAN_OWNED, SPAN_OWNED};
        p->nphases = 1;
        for (int dir = 0; dir < HX_NUM_DIRS; dir++) {
            int o[3];
            hx_dir_offset(dir, o);
            if (dir == hx_dir_index(0, 0, 0) || (d->dim == 2 && o[2] != 0)) continue;
            add_message(&p->phase[0], d, 0, dir, span);
        }
    } else {
        /* One phase per axis of nonzero width; later phases carry the ghost cells of earlier axes
         * along, which forwards edges and corners without diagonal messages. */
        for (int a = 0; a < d->dim; a++) {
            if (d->ghost[a] == 0) continue;
            enum axis_span span[3];
            for (int b = 0; b < 3; b++) span[b] = b < a ? SPAN_FULL : SPAN_OWNED;
            int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
            lo[a] = -1;
            hi[a] = 1;
            const int ph = p->nphases++;
            add_message(&p->phase[ph], d, ph, hx_dir_index(lo[0], lo[1], lo[2]), span);
            add_message(&p->phase[ph], d, ph, hx_dir_index(hi[0], hi[1], hi[2]), span);
        }
    }
    for (int i = 0; i < p->nphases; i++)
        if (p->phase[i].cells > p->max_phase_cells) p->max_phase_cells = p->phase[i].cells;
}

hx_box hx_owned_box(const hx_decomp *d)
{
    return hx_sweep_box(d, 0);
}

hx_box hx_sweep_box(const hx_decomp *d, int expand)
{
    hx_box b;
    for (int a = 0; a < 3; a++) {
        int g = d->ghost[a], n = d->local[a];
        int e = a < d->dim ? expand : 0;
        b.lo[a] = g - e;
        b.hi[a] = g + n + e;
        if (d->boundary_axis[a] == HX_FIXED && a < d->dim) {
            if (d->offset[a] == 0 && b.lo[a] < g) b.lo[a] = g;
            if (d->offset[a] + n == d->global[a] && b.hi[a] > g + n) b.hi[a] = g + n;
        }
    }
    return b;
}

int hx_split_interior(const hx_decomp *d, int radius, const hx_box *region, hx_box *inner,
                      hx_box outer[HX_MAX_OUTER_BOXES])
{
    hx_box in = *region;
    for (int a = 0; a < d->dim; a++) {
        int lo = d->ghost[a] + radius, hi = d->ghost[a] + d->local[a] - radius;
        if (in.lo[a] < lo) in.lo[a] = lo;
        if (in.hi[a] > hi) in.hi[a] = hi;
    }
    if (hx_box_cells(&in) == 0) {
        memset(inner, 0, sizeof *inner);
        outer[0] = *region;
        return hx_box_cells(region) ? 1 : 0;
    }
    *inner = in;
    /* Peel the shell axis by axis: x slabs span everything, y slabs the inner x range, and so on. */
    int n = 0;
    hx_box rest = *region;
    for (int a = 0; a < d->dim; a++) {
        hx_box low = rest, high = rest;
        low.hi[a] = in.lo[a];
        high.lo[a] = in.hi[a];
        if (hx_box_cells(&low)) outer[n++] = low;
        if (hx_box_cells(&high)) outer[n++] = high;
        rest.lo[a] = in.lo[a];
        rest.hi[a] = in.hi[a];
    }
    return n;
}
