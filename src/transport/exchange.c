/* hx_exchange: a plan, a transport and the packed buffers that fill a layout's ghost cells.
 * Set-up is collective and agreed: every rank returns the same outcome. */
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "core/objects.h"
#include "transport/exchange_many.h"

/* "mpi, ipc, nccl", what this build holds */
const char *hx_transport_names(void)
{
    static char names[256];
    names[0] = 0;
    for (int i = 0; i < hx_transport_count(); i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", hx_transport_at(i)->name);
    }
    return names;
}

const char *hx_transport_absent_reason(const char *name)
{
    return hx_transport_find(name) ? NULL : hx_transport_missing(name);
}

unsigned hx_transport_paths(const char *name)
{
    const hx_transport_ops *o = hx_transport_find(name);
    return o ? o->caps & (HX_PATH_HOST | HX_PATH_STREAM | HX_PATH_DEVICE | HX_PATH_REPLAY) : 0;
}

static int find_ops(hx_context *ctx, const char *name, const hx_transport_ops **ops)
{
    *ops = name ? hx_transport_find(name) : NULL;
    if (*ops) return HX_OK;
    const char *why = name ? hx_transport_missing(name) : NULL;
    if (why) return hx_fail(ctx, HX_ERR_INPUT, "transport %s: %s (this build has %s)", name, why, hx_transport_names());
    return hx_fail(ctx, HX_ERR_INPUT, "unknown transport '%s': this build has %s", name ? name : "(null)", hx_transport_names());
}

/* Messages of a hand-made plan must address cells of the array, on both sides. */
static int check_plan(hx_context *ctx, const hx_decomp *d, const hx_plan *p)
{
    if (p->nphases < 1 || p->nphases > HX_MAX_PHASES) return hx_fail(ctx, HX_ERR_INPUT, "plan: %d phases (1 to %d)", p->nphases, HX_MAX_PHASES);
    for (int ph = 0; ph < p->nphases; ph++) {
        if (p->phase[ph].nmsg < 0 || p->phase[ph].nmsg > HX_MAX_MSGS)
            return hx_fail(ctx, HX_ERR_INPUT, "plan: phase %d has %d messages (0 to %d)", ph, p->phase[ph].nmsg, HX_MAX_MSGS);
        for (int m = 0; m < p->phase[ph].nmsg; m++) {
            const hx_message *msg = &p->phase[ph].msg[m];
            if (msg->peer < 0 || msg->peer >= d->nranks)
                return hx_fail(ctx, HX_ERR_INPUT, "plan: message %d of phase %d goes to rank %d, outside 0..%d", m, ph, msg->peer, d->nranks - 1);
            for (int a = 0; a < 3; a++)
                if (msg->send_box.lo[a] < 0 || msg->send_box.hi[a] > d->alloc[a] || msg->recv_box.lo[a] < 0 ||
                    msg->recv_box.hi[a] > d->alloc[a])
                    return hx_fail(ctx, HX_ERR_INPUT, "plan: message %d of phase %d has a box outside the array", m, ph);
            if (hx_box_cells(&msg->send_box) != msg->count || hx_box_cells(&msg->recv_box) != msg->count ||
                msg->offset < 0 || msg->offset + msg->count > p->max_phase_cells)
                return hx_fail(ctx, HX_ERR_INPUT, "plan: message %d of phase %d: count, boxes and offset disagree", m, ph);
        }
    }
    return HX_OK;
}

hx_exchange_options hx_exchange_defaults(void)
{
    hx_exchange_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.transport = "auto";
    o.pattern = HX_STAGED;
    o.ll_bytes = -1;
    o.nfields = 1;
    return o;
}

static int is_auto(const char *transport) { return !transport || !strcmp(transport, "auto"); }

/* The transport fields of o, checked alike on every rank before any set-up. */
static int check_options(hx_context *ctx, const hx_exchange_options *o)
{
    char why[320];
    if (o->ll_bytes < -1)
        return hx_fail(ctx, HX_ERR_INPUT, "exchange: ll_bytes %ld: give a byte count, 0 for never, or -1 for automatic", o->ll_bytes);
    unsigned char *off = malloc((size_t)ctx->size);
    if (!off) return hx_fail(ctx, HX_ERR_RUNTIME, "out of host memory for an exchange");
    int bad = hx_ipc_fallback_parse(o->host_fallback, ctx->size, off, why, sizeof why);
    free(off);
    return bad ? hx_fail(ctx, HX_ERR_INPUT, "exchange: %s", why) : HX_OK;
}

static int build(hx_layout *l, const hx_exchange_options *o, const hx_plan *plan, hx_exchange **out)
{
    hx_context *ctx = l->ctx;
    hx_exchange *x = calloc(1, sizeof *x);
    *out = x;
    int st = x ? HX_OK : hx_fail(ctx, HX_ERR_RUNTIME, "out of host memory for an exchange");
    const hx_transport_ops *ops = NULL;
    const char *transport = o->transport;
    const int pattern = (int)o->pattern, halo = o->halo;
    char why[320] = "";
    /* "auto" is collective: every rank takes part when any rank asked for it */
    int want_auto = is_auto(transport), any_auto = 0;
    if (MPI_Allreduce(&want_auto, &any_auto, 1, MPI_INT, MPI_MAX, ctx->comm) != MPI_SUCCESS)
        st = hx_fail(ctx, HX_ERR_RUNTIME, "exchange: MPI_Allreduce failed");
    else if (any_auto) {
        const char *picked = hx_transport_auto(ctx, why, sizeof why);
        if (want_auto) transport = picked;
        if (want_auto && ctx->rank == 0) hx_logf(&ctx->log, HX_LOG_INFO, "transport auto: %s (%s)", picked, why);
    }
    if (st == HX_OK) st = check_options(ctx, o);
    int many = 0;
    st = hx_many_check(ctx, l, o, st, &many); /* collective */
    if (st == HX_OK) {
        x->ctx = ctx;
        x->layout = l;
        x->halo = halo > 0 ? halo : l->desc.halo;
        const hx_decomp *ld = &l->d;
        /* each axis exchanges its own width (a per-axis layout), at most the halo asked for */
        int width[3];
        hx_boundary bnd[3];
        hx_layout_axes(&l->desc, width, bnd);
        for (int a = 0; a < 3; a++) width[a] = width[a] < x->halo ? width[a] : x->halo;
        if (x->halo > l->desc.halo)
            st = hx_fail(ctx, HX_ERR_INPUT, "exchange: halo %d is wider than the layout's %d", x->halo, l->desc.halo);
        else if (hx_decomp_init_axes(&x->d, ld->dim, ld->global, ld->pgrid, ld->rank, ld->nranks, bnd, width, why, sizeof why))
            st = hx_fail(ctx, HX_ERR_INPUT, "exchange: %s", why);
        x->d.boundary = ld->boundary;
    }
    if (st == HX_OK && plan) {
        x->plan = *plan;
        st = check_plan(ctx, &x->d, plan);
    } else if (st == HX_OK) {
        if (pattern != HX_STAGED && pattern != HX_DIRECT) st = hx_fail(ctx, HX_ERR_INPUT, "exchange: unknown pattern %d", pattern);
        else hx_plan_build(&x->plan, &x->d, (hx_pattern)pattern);
    }
    if (st == HX_OK && many) st = hx_many_create(x, o);
    if (st == HX_OK) st = find_ops(ctx, transport, &ops);
    if (st == HX_OK) {
        x->fd = x->d;
        hx_backend_bind(&x->bk, &ctx->bk, &x->fd, HX_JACOBI5, l->desc.dtype);
        if (!ops->available(&x->bk, why, sizeof why)) st = hx_fail(ctx, HX_ERR_INPUT, "%s", why);
    }
    /* every rank goes into the transport's collective set-up, or none does */
    if ((st = hx_agree(ctx, st)) != HX_OK) return st;
    hx_clock_init(&x->clock, &x->bk, &x->times);
    hx_clock_pause(&x->clock, 1); /* device intervals are timed only by a sweeper's clock */
    /* many fields: the transport moves the word plan's messages (exchange_many.h) */
    hx_backend *tbk = x->many ? &x->many->wbk : &x->bk;
    const hx_plan *tplan = x->many ? &x->many->wplan : &x->plan;
    if (hx_transport_create(&x->tr, ops, ctx, tbk, tplan, o, ctx->comm, &x->clock, why, sizeof why))
        st = strncmp(why, "transport ", 10) ? hx_fail(ctx, HX_ERR_RUNTIME, "transport %s: %s", ops->name, why)
                                             : hx_fail(ctx, HX_ERR_RUNTIME, "%s", why);
    if (st != HX_OK && strstr(why, "another rank")) ctx->err_secondary = 1;
    x->have_transport = 1; /* released by every rank together, even after a failed set-up */
    if (st == HX_OK) st = hx_many_buffers(x);
    return hx_agree(ctx, st);
}

/* A refused or failed exchange has no transport ops to run with: release it here, on every rank
 * together (the outcome is agreed), so that a caller never holds a half-built one (*out NULL). */
static int create(hx_layout *l, const hx_exchange_options *o, const hx_plan *plan, hx_exchange **out)
{
    const int st = build(l, o, plan, out);
    if (st != HX_OK) {
        hx_exchange_destroy(*out);
        *out = NULL;
    }
    return st;
}

int hx_exchange_create(hx_layout *l, const char *transport, hx_pattern pattern, int halo, hx_exchange **out)
{
    hx_exchange_options o = hx_exchange_defaults();
    o.transport = transport;
    o.pattern = pattern;
    o.halo = halo;
    return create(l, &o, NULL, out);
}

int hx_exchange_create_opts(hx_layout *l, const hx_exchange_options *opts, hx_exchange **out)
{
    /* a caller built with a shorter struct gets the defaults for the fields it lacks */
    hx_exchange_options o = hx_exchange_defaults();
    if (opts) memcpy(&o, opts, opts->struct_size && opts->struct_size < sizeof o ? opts->struct_size : sizeof o);
    o.struct_size = sizeof o;
    return create(l, &o, NULL, out);
}

int hx_exchange_create_plan(hx_layout *l, const char *transport, const hx_plan *plan, hx_exchange **out)
{
    if (!plan) {
        *out = NULL;
        return hx_fail(l->ctx, HX_ERR_INPUT, "exchange: no plan given");
    }
    hx_exchange_options o = hx_exchange_defaults();
    o.transport = transport;
    o.pattern = plan->pattern;
    return create(l, &o, plan, out);
}

void hx_exchange_destroy(hx_exchange *x)
{
    if (!x) return;
    if (x->have_transport) hx_transport_destroy(&x->tr);
    hx_many_destroy(x);
    free(x);
}

const hx_plan *hx_exchange_plan(const hx_exchange *x) { return &x->plan; }
const char *hx_exchange_transport(const hx_exchange *x) { return x->tr.ops ? x->tr.ops->name : ""; }

/* Point the exchange at field f and stream; returns the backend stream slot to use. */
static int bind(hx_exchange *x, const hx_field *f, void *stream, int *slot)
{
    int st = hx_field_geometry(x->ctx, &x->d, f, x->bk.elem, &x->fd, &x->base);
    if (st) return st;
    *slot = HX_STREAM_MAIN;
    if (stream && x->bk.ops->use_stream) {
        if (x->bk.ops->use_stream(&x->bk, HX_STREAM_USER, stream))
            return hx_fail(x->ctx, HX_ERR_RUNTIME, "exchange: %s", x->bk.err);
        *slot = HX_STREAM_USER;
    }
    return HX_OK;
}

static int backend_failed(hx_exchange *x) { return hx_fail(x->ctx, HX_ERR_RUNTIME, "%s backend: %s", x->bk.ops->name, x->bk.err); }
static int transport_failed(hx_exchange *x) { return hx_fail(x->ctx, HX_ERR_RUNTIME, "transport %s: %s", x->tr.ops->name, x->tr.err); }

static int send_phase(hx_exchange *x, int p, int slot)
{
    if (x->tr.ops->put) return x->tr.ops->put(&x->tr, p, slot, x->base) ? transport_failed(x) : HX_OK;
    if (x->bk.ops->pack(&x->bk, slot, &x->plan.phase[p], x->base, x->tr.send_buf[p])) return backend_failed(x);
    int rc = x->tr.ops->caps & HX_PATH_HOST ? x->tr.ops->post(&x->tr, p, slot) : x->tr.ops->enqueue(&x->tr, p, slot);
    return rc ? transport_failed(x) : HX_OK;
}

static int receive_phase(hx_exchange *x, int p, int slot)
{
    if (x->tr.ops->get) return x->tr.ops->get(&x->tr, p, slot, x->base) ? transport_failed(x) : HX_OK;
    if ((x->tr.ops->caps & HX_PATH_HOST) && x->tr.ops->wait(&x->tr, p, slot)) return transport_failed(x);
    if (x->bk.ops->unpack(&x->bk, slot, &x->plan.phase[p], x->tr.recv_buf[p], x->base)) return backend_failed(x);
    return HX_OK;
}

/* 1 when no phase has a message: a block that faces no other rank (one rank, no periodic axis)
 * has nothing to send or wait for, and its exchanges return once the field is checked; otherwise
 * the host transports' fixed cost (pack, post and wait of nothing: about 2 us on a CPU) would fall
 * on every call, e.g. each iteration of a solver's coarse, agglomerated level. */
static int no_messages(const hx_exchange *x)
{
    for (int p = 0; p < x->plan.nphases; p++)
        if (x->plan.phase[p].nmsg) return 0;
    return 1;
}

int hx_exchange_start(hx_exchange *x, const hx_field *f, void *stream)
{
    int slot, st;
    if (x->many) return hx_exchange_start_many(x, 1, f, stream);
    if (x->started) return hx_fail(x->ctx, HX_ERR_INPUT, "exchange: start called twice without finish");
    if ((st = bind(x, f, stream, &slot)) != HX_OK) return st;
    if (!no_messages(x) && (st = send_phase(x, 0, slot)) != HX_OK) return st;
    x->started = 1;
    return HX_OK;
}

int hx_exchange_finish(hx_exchange *x, const hx_field *f, void *stream)
{
    int slot, st;
    if (x->many) return hx_exchange_finish_many(x, 1, f, stream);
    if (!x->started) return hx_fail(x->ctx, HX_ERR_INPUT, "exchange: finish called without start");
    x->started = 0;
    if ((st = bind(x, f, stream, &slot)) != HX_OK || no_messages(x)) return st;
    for (int p = 0; p < x->plan.nphases; p++) {
        if (p > 0 && (st = send_phase(x, p, slot)) != HX_OK) return st;
        if ((st = receive_phase(x, p, slot)) != HX_OK) return st;
    }
    return HX_OK;
}

int hx_exchange_run(hx_exchange *x, const hx_field *f, void *stream)
{
    int slot, st;
    if (x->many) return hx_exchange_run_many(x, 1, f, stream);
    if (no_messages(x) && !x->started) return bind(x, f, stream, &slot);
    if (x->tr.ops->putget && !x->started) { /* a kernel path: each phase in one launch */
        if ((st = bind(x, f, stream, &slot)) != HX_OK) return st;
        for (int p = 0; p < x->plan.nphases; p++)
            if (x->tr.ops->putget(&x->tr, p, slot, x->base)) return transport_failed(x);
        return HX_OK;
    }
    st = hx_exchange_start(x, f, stream);
    return st ? st : hx_exchange_finish(x, f, stream);
}

int hx_exchange_check(hx_exchange *x)
{
    if (x->tr.ops->check && x->tr.ops->check(&x->tr)) return transport_failed(x);
    return HX_OK;
}
