/* Segment accumulation through backend events. */
#include "core/timing.h"

#include <string.h>

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

/* Charge the oldest n pending intervals (waiting for their events) and keep the rest. */
static int resolve(hx_clock *c, int n)
{
    for (int i = 0; i < n; i++) {
        double s = 0;
        if (c->bk->ops->elapsed(c->bk, c->pending[i].start, c->pending[i].end, &s)) return -1;
        c->acc->t[c->pending[i].seg] += s;
    }
    memmove(c->pending, c->pending + n, sizeof c->pending[0] * (size_t)(c->npending - n));
    c->npending -= n;
    return 0;
}

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
    /* a full list resolves its older half only: those intervals ended long ago, so the host does
     * not wait for the device mid-run (the newest ones may still be queued) */
    if (c->npending == PENDING_CAP) return resolve(c, PENDING_CAP / 2);
    return 0;
}

int hx_clock_flush(hx_clock *c) { return resolve(c, c->npending); }
