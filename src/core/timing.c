/* Segment accumulation through backend events. */
#include "core/timing.h"

#include "compute/backend.h"

const char *const hx_segment_names[HX_NUM_SEGS] = {"pack",    "message", "unpack", "inner", "outer",
                                                   "compute", "desync",  "norm",   "total"};

#define PENDING_CAP ((int)(sizeof(((hx_clock *)0)->pending) / sizeof(((hx_clock *)0)->pending[0])))

void hx_clock_init(hx_clock *c, struct hx_backend *bk, hx_times *acc)
{
    c->bk = bk;
    c->acc = acc;
    c->next_event = 0;
    c->npending = 0;
    c->paused = 0;
}

void hx_clock_pause(hx_clock *c, int paused) { c->paused = paused; }

/* Events are a ring; pending pairs are resolved long before the ring comes round to them. */
static int next_event(hx_clock *c)
{
    int e = c->next_event;
    c->next_event = (c->next_event + 1) % HX_MAX_EVENTS;
    return e;
}

int hx_clock_start(hx_clock *c, int stream)
{
    if (c->paused) return 0;
    int e = next_event(c);
    if (c->bk->ops->record(c->bk, stream, e)) return -1;
    return e;
}

int hx_clock_stop(hx_clock *c, int stream, int seg, int start_event)
{
    if (start_event < 0) return -1;
    if (c->paused) return 0;
    int e = next_event(c);
    if (c->bk->ops->record(c->bk, stream, e)) return -1;
    c->pending[c->npending].seg = seg;
    c->pending[c->npending].start = start_event;
    c->pending[c->npending].end = e;
    c->npending++;
    if (c->npending == PENDING_CAP) return hx_clock_flush(c);
    return 0;
}

int hx_clock_flush(hx_clock *c)
{
    for (int i = 0; i < c->npending; i++) {
        double s = 0;
        if (c->bk->ops->elapsed(c->bk, c->pending[i].start, c->pending[i].end, &s)) return -1;
        c->acc->t[c->pending[i].seg] += s;
    }
    c->npending = 0;
    return 0;
}
