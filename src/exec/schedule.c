/* The serial and overlap schedules of one exchange cycle, for any backend and any host-path or
 * stream-path transport. Order on the device is expressed with streams and events only. */
#include "exec/schedule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "exec/persistent.h"

#define TRY_BK(call)                                                                          \
    do {                                                                                      \
        if (call) {                                                                           \
            snprintf(s->err, sizeof s->err, "%s backend: %s", s->bk->ops->name, s->bk->err); \
            return -1;                                                                        \
        }                                                                                     \
    } while (0)
#define TRY_TR(call)                                                                             \
    do {                                                                                         \
        if (call) {                                                                              \
            snprintf(s->err, sizeof s->err, "%s transport: %s", s->tr->ops->name, s->tr->err); \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)
#define TRY_CLOCK(call)                                                                          \
    do {                                                                                         \
        if ((call) < 0) {                                                                        \
            snprintf(s->err, sizeof s->err, "timing events failed: %s", s->bk->err);            \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)

static void *cur_field(hx_sim *s) { return s->field[s->cur]; }
static void *next_field(hx_sim *s) { return s->field[1 - s->cur]; }

static int timed_sweep(hx_sim *s, int stream, int seg, const hx_box *box)
{
    int ev = hx_clock_start(&s->clock, stream);
    TRY_CLOCK(ev);
    TRY_BK(s->bk->ops->sweep(s->bk, stream, box, cur_field(s), next_field(s)));
    TRY_CLOCK(hx_clock_stop(&s->clock, stream, seg, ev));
    return 0;
}

static int silent(const hx_sim *s);

/* A transport with a kernel path (ipc-put) packs in its put and unpacks in its get, which also
 * send and wait: pack time includes the put, unpack time the wait; message time is none. */
static int pack_phase(hx_sim *s, int p)
{
    int ev = hx_clock_start(&s->clock, HX_STREAM_MAIN);
    TRY_CLOCK(ev);
    if (s->tr->ops->put) {
        if (!silent(s)) TRY_TR(s->tr->ops->put(s->tr, p, HX_STREAM_MAIN, cur_field(s)));
    } else {
        TRY_BK(s->bk->ops->pack(s->bk, HX_STREAM_MAIN, &s->plan->phase[p], cur_field(s), s->tr->send_buf[p]));
    }
    TRY_CLOCK(hx_clock_stop(&s->clock, HX_STREAM_MAIN, HX_SEG_PACK, ev));
    return 0;
}

static int unpack_phase(hx_sim *s, int p)
{
    int ev = hx_clock_start(&s->clock, HX_STREAM_MAIN);
    TRY_CLOCK(ev);
    if (s->tr->ops->get) {
        if (!silent(s)) TRY_TR(s->tr->ops->get(s->tr, p, HX_STREAM_MAIN, cur_field(s)));
    } else {
        TRY_BK(s->bk->ops->unpack(s->bk, HX_STREAM_MAIN, &s->plan->phase[p], s->tr->recv_buf[p], cur_field(s)));
    }
    TRY_CLOCK(hx_clock_stop(&s->clock, HX_STREAM_MAIN, HX_SEG_UNPACK, ev));
    return 0;
}

/* Host path: the transport charges the message segment itself, since only it knows which of
 * its host time is message passing and which is waiting for staging copies.
 * Stream path: the exchange is enqueued on the main stream after the pack and before the unpack,
 * the host goes on at once, and the segment is the device time between two events. */
/* Fault injection for the tests (HALOX_FAULT_SILENT_RANK=r): from the third exchange on, rank r
 * neither sends nor receives, so its neighbours must end with a timeout that names it. */
static int silent(const hx_sim *s)
{
#if HALOX_FAULT_INJECTION
    static int rank = -2;
    if (rank == -2) {
        const char *e = getenv("HALOX_FAULT_SILENT_RANK");
        rank = e ? atoi(e) : -1;
    }
    return rank == s->d->rank && s->sweeps_done >= 2L * s->opt.depth;
#else
    (void)s;
    return 0;
#endif
}

static int post_phase(hx_sim *s, int p)
{
    if (silent(s) || s->tr->ops->put) return 0;
    if (s->tr->ops->caps & HX_PATH_HOST) {
        TRY_TR(s->tr->ops->post(s->tr, p, HX_STREAM_MAIN));
        return 0;
    }
    int ev = hx_clock_start(&s->clock, HX_STREAM_MAIN);
    TRY_CLOCK(ev);
    TRY_TR(s->tr->ops->enqueue(s->tr, p, HX_STREAM_MAIN));
    TRY_CLOCK(hx_clock_stop(&s->clock, HX_STREAM_MAIN, HX_SEG_MESSAGE, ev));
    return 0;
}

static int wait_phase(hx_sim *s, int p)
{
    if (silent(s)) return 0;
    if (s->tr->ops->caps & HX_PATH_HOST) TRY_TR(s->tr->ops->wait(s->tr, p, HX_STREAM_MAIN));
    return 0;
}

static int desync_barrier(hx_sim *s)
{
    if (!s->opt.desync_barrier) return 0;
    double t0 = MPI_Wtime();
    HX_MPI_TRY(MPI_Barrier(s->comm), s->err, sizeof s->err);
    s->times.t[HX_SEG_DESYNC] += MPI_Wtime() - t0;
    return 0;
}

/* Every norm_every sweeps, reduce the update norm over ranks. */
static int norm_if_due(hx_sim *s)
{
    long k = s->opt.norm_every;
    if (k <= 0 || s->sweeps_done % k || s->clock.paused) return 0;
    double t0 = MPI_Wtime(), local = 0, global = 0;
    hx_box owned = hx_owned_box(s->d);
    TRY_BK(s->bk->ops->diff_norm2(s->bk, HX_STREAM_MAIN, &owned, cur_field(s), next_field(s), &local));
    TRY_BK(s->bk->ops->sync(s->bk, HX_STREAM_MAIN));
    HX_MPI_TRY(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, s->comm), s->err, sizeof s->err);
    s->last_norm = sqrt(global);
    s->times.t[HX_SEG_NORM] += MPI_Wtime() - t0;
    if (s->norm_fn) s->norm_fn(s->sweeps_done, s->last_norm, s->norm_user);
    return 0;
}

/* After a sweep: swap buffers, then the norm if one is due. */
static int finish_sweep(hx_sim *s)
{
    s->cur = 1 - s->cur;
    s->sweeps_done++;
    return norm_if_due(s);
}

static int exchange_all(hx_sim *s, int first_phase)
{
    for (int p = first_phase; p < s->plan->nphases; p++) {
        if (s->tr->ops->putget) { /* a kernel path's phase in one launch: its pack and unpack count as message time */
            if (silent(s)) continue;
            int ev = hx_clock_start(&s->clock, HX_STREAM_MAIN);
            TRY_CLOCK(ev);
            TRY_TR(s->tr->ops->putget(s->tr, p, HX_STREAM_MAIN, cur_field(s)));
            TRY_CLOCK(hx_clock_stop(&s->clock, HX_STREAM_MAIN, HX_SEG_MESSAGE, ev));
            continue;
        }
        if (pack_phase(s, p) || post_phase(s, p) || wait_phase(s, p) || unpack_phase(s, p)) return -1;
    }
    return 0;
}

/* The first sweep of a cycle, split: the interior runs on its own stream while phase 0 is in
 * flight; later phases (staged) and the shell follow on the main stream.
 * Order of issue: pack first, so the interior cannot starve the packing. On an asynchronous
 * backend the interior is launched before the host blocks in post (staging copies, MPI); on
 * a synchronous one it must come after post, or nothing would be in flight while it runs. */
static int overlapped_first_sweep(hx_sim *s, const hx_box *region)
{
    hx_box inner, outer[HX_MAX_OUTER_BOXES];
    int nouter = hx_split_interior(s->d, s->radius, region, &inner, outer);
    hx_backend *bk = s->bk;

    TRY_BK(bk->ops->record(bk, HX_STREAM_MAIN, HX_EVENT_CYCLE_START));
    if (pack_phase(s, 0)) return -1;
    if (!bk->async && post_phase(s, 0)) return -1;
    TRY_BK(bk->ops->wait_event(bk, HX_STREAM_INNER, HX_EVENT_CYCLE_START));
    if (hx_box_cells(&inner) && timed_sweep(s, HX_STREAM_INNER, HX_SEG_INNER, &inner)) return -1;
    TRY_BK(bk->ops->record(bk, HX_STREAM_INNER, HX_EVENT_INNER_DONE));
    if (bk->async && post_phase(s, 0)) return -1;
    if (wait_phase(s, 0) || unpack_phase(s, 0) || exchange_all(s, 1)) return -1;

    int ev = hx_clock_start(&s->clock, HX_STREAM_MAIN);
    TRY_CLOCK(ev);
    TRY_BK(bk->ops->sweep_shell(bk, HX_STREAM_MAIN, nouter, outer, cur_field(s), next_field(s)));
    TRY_CLOCK(hx_clock_stop(&s->clock, HX_STREAM_MAIN, HX_SEG_OUTER, ev));
    TRY_BK(bk->ops->wait_event(bk, HX_STREAM_MAIN, HX_EVENT_INNER_DONE));
    return 0;
}

/* fuse: how many of the `left` sweeps to compute in one pass. A norm compares the last two
 * iterates, so a pass never ends on a sweep that is followed by a norm (that sweep runs alone). */
static int fused_levels(const hx_sim *s, int left)
{
    int levels = s->opt.fuse < left ? s->opt.fuse : left;
    long every = s->opt.norm_every;
    if (levels > 1 && every > 0) {
        long until = every - s->sweeps_done % every; /* sweeps until the next norm */
        if (until <= levels) levels = (int)until - 1;
    }
    return levels;
}

/* Sweeps k .. k+levels-1 of a cycle of m in one pass. Only the last level is written, into
 * next_field: the buffers then hold the newest iterate and the one `levels` sweeps older, and
 * nothing reads the older one before it is overwritten. */
static int fused_sweeps(hx_sim *s, int k, int levels, int m)
{
    hx_box boxes[HX_FUSE_MAX];
    for (int j = 0; j < levels; j++) boxes[j] = hx_sweep_box(s->d, (m - 1 - k - j) * s->radius);
    int ev = hx_clock_start(&s->clock, HX_STREAM_MAIN);
    TRY_CLOCK(ev);
    TRY_BK(s->bk->ops->sweep_fused(s->bk, HX_STREAM_MAIN, levels, boxes, cur_field(s), next_field(s)));
    TRY_CLOCK(hx_clock_stop(&s->clock, HX_STREAM_MAIN, HX_SEG_COMPUTE, ev));
    s->cur = 1 - s->cur;
    s->sweeps_done += levels;
    return norm_if_due(s);
}

/* Sweeps k0 .. m-1 of a cycle of m: sweep k updates the owned block grown by (m-1-k)*r, so each
 * sweep consumes r ghost layers. */
static int later_sweeps(hx_sim *s, int k0, int m)
{
    for (int k = k0; k < m;) {
        int levels = fused_levels(s, m - k);
        if (levels > 1) {
            if (fused_sweeps(s, k, levels, m)) return -1;
            k += levels;
            continue;
        }
        hx_box box = hx_sweep_box(s->d, (m - 1 - k) * s->radius);
        if (timed_sweep(s, HX_STREAM_MAIN, HX_SEG_COMPUTE, &box) || finish_sweep(s)) return -1;
        k++;
    }
    return 0;
}

/* The exchange and the first sweep of a cycle, its interior overlapped with the exchange when
 * asked; the buffers are not swapped yet. */
static int exchange_and_first_sweep(hx_sim *s, int sweeps)
{
    hx_box first = hx_sweep_box(s->d, (sweeps - 1) * s->radius);
    if (s->opt.overlap) return overlapped_first_sweep(s, &first);
    return exchange_all(s, 0) || timed_sweep(s, HX_STREAM_MAIN, HX_SEG_COMPUTE, &first) ? -1 : 0;
}

static int plain_cycle(hx_sim *s, int sweeps)
{
    /* without overlap the first sweep may start a fused pass too */
    if (!s->opt.overlap) return exchange_all(s, 0) || later_sweeps(s, 0, sweeps) ? -1 : 0;
    if (exchange_and_first_sweep(s, sweeps) || finish_sweep(s)) return -1;
    return later_sweeps(s, 1, sweeps);
}

/* Graphs. With a replayable stream transport the whole cycle (pack, exchange, unpack, sweeps,
 * overlap included) is one graph; with a host-path transport the host must take part in the
 * exchange, so the graph holds the sweeps after the first. The graph is captured the first
 * time a cycle starts from field[cur], with the clock paused (events inside a capture time
 * nothing), and replayed from then on; its device time is charged as one interval: to compute
 * for the sweeps alone, to no segment for a whole cycle (only total covers it). */
static int captured(hx_sim *s, int whole, int sweeps)
{
    hx_backend *bk = s->bk;
    const int slot = s->cur, cur0 = s->cur;
    const long done0 = s->sweeps_done;
    if (!s->graph_ready[slot]) {
        hx_clock_pause(&s->clock, 1);
        TRY_BK(bk->ops->capture_begin(bk, HX_STREAM_MAIN));
        int rc = whole ? plain_cycle(s, sweeps) : later_sweeps(s, 1, sweeps);
        /* end the capture even after a failure, or the stream stays unusable */
        int rc_end = bk->ops->capture_end(bk, HX_STREAM_MAIN, slot);
        hx_clock_pause(&s->clock, 0);
        if (rc) return -1;
        TRY_BK(rc_end);
        /* the capture did the buffer swaps (one per pass when fused): keep where they ended */
        s->graph_ready[slot] = 1;
        s->graph_end_cur[slot] = s->cur;
        s->cur = cur0;
        s->sweeps_done = done0;
    }
    if (whole) {
        TRY_BK(bk->ops->graph_launch(bk, HX_STREAM_MAIN, slot));
    } else {
        int ev = hx_clock_start(&s->clock, HX_STREAM_MAIN);
        TRY_CLOCK(ev);
        TRY_BK(bk->ops->graph_launch(bk, HX_STREAM_MAIN, slot));
        TRY_CLOCK(hx_clock_stop(&s->clock, HX_STREAM_MAIN, HX_SEG_COMPUTE, ev));
    }
    s->cur = s->graph_end_cur[slot];
    s->sweeps_done += whole ? sweeps : sweeps - 1;
    return norm_if_due(s);
}

static int graph_cycle(hx_sim *s, int sweeps)
{
    if (s->tr->ops->caps & HX_PATH_HOST) {
        if (exchange_and_first_sweep(s, sweeps) || finish_sweep(s)) return -1;
        return sweeps > 1 ? captured(s, 0, sweeps) : 0;
    }
    return captured(s, 1, sweeps);
}

int hx_cycle(hx_sim *s, int sweeps)
{
    if (desync_barrier(s)) return -1;
    /* a shorter last cycle is not worth a graph of its own */
    if (s->opt.graph && sweeps == s->opt.depth) return graph_cycle(s, sweeps);
    return plain_cycle(s, sweeps);
}

/* A failed wait is usually a neighbour that never delivered: name this rank's neighbours. */
static int with_neighbours(hx_sim *s)
{
    char peers[128] = "", msg[sizeof s->err];
    int seen[HX_MAX_PHASES * HX_MAX_MSGS], nseen = 0;
    for (int p = 0; p < s->plan->nphases; p++)
        for (int m = 0; m < s->plan->phase[p].nmsg; m++) {
            int q = s->plan->phase[p].msg[m].peer, known = 0;
            for (int k = 0; k < nseen; k++) known |= seen[k] == q;
            if (known) continue;
            seen[nseen++] = q;
            char one[16];
            snprintf(one, sizeof one, "%s%d", peers[0] ? "," : "", q);
            if (strlen(peers) + strlen(one) < sizeof peers) strcat(peers, one);
        }
    snprintf(msg, sizeof msg, "%s (rank %d exchanges with ranks %s)", s->err, s->d->rank, peers);
    memcpy(s->err, msg, sizeof msg);
    return -1;
}

int hx_iterate(hx_sim *s, long sweeps)
{
    if (s->opt.schedule != HX_SCHEDULE_CYCLE) return hx_device_iterate(s, sweeps) ? with_neighbours(s) : 0;
    long left = sweeps;
    while (left > 0) {
        int m = left < s->opt.depth ? (int)left : s->opt.depth;
        if (hx_cycle(s, m)) return with_neighbours(s);
        left -= m;
    }
    if (s->bk->ops->sync(s->bk, HX_STREAM_MAIN) || s->bk->ops->sync(s->bk, HX_STREAM_INNER)) {
        snprintf(s->err, sizeof s->err, "%s", s->bk->err);
        return with_neighbours(s);
    }
    if (s->tr->ops->check && s->tr->ops->check(s->tr)) { /* a device wait of the kernel path gave up */
        snprintf(s->err, sizeof s->err, "%s transport: %s", s->tr->ops->name, s->tr->err);
        return with_neighbours(s);
    }
    if (hx_clock_flush(&s->clock)) {
        snprintf(s->err, sizeof s->err, "timing events failed: %s", s->bk->err);
        return with_neighbours(s);
    }
    return 0;
}

const char *hx_schedule_name(hx_schedule s)
{
    return s == HX_SCHEDULE_PERSISTENT ? "persistent" : s == HX_SCHEDULE_FUSED ? "fused" : "cycle";
}
