/* hx_sweeper: the whole stencil loop of halox's own stencils or a user's operator over an exchange,
 * driven by the schedules of schedule.c (deep-halo cycles, overlap, fused sweeps, graphs). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/node.h"
#include "core/objects.h"
#include "exec/persistent.h"
#include "exec/sweeper_op.h"

#ifndef HALOX_HAVE_CUDA
/* the kernel-initiated schedules need CUDA; check_options refuses them before these are reached */
int hx_device_setup(hx_sim *s)
{
    snprintf(s->err, sizeof s->err, "this halox was built without CUDA");
    return -1;
}
int hx_device_iterate(hx_sim *s, long sweeps)
{
    (void)sweeps;
    return hx_device_setup(s);
}
void hx_device_release(hx_sim *s) { (void)s; }
int hx_device_fused3d_max_depth(int fuse) { return fuse; }
const char *hx_device_kernel(const hx_sim *s)
{
    (void)s;
    return NULL;
}
#endif

hx_tuning hx_tuning_defaults(void)
{
    hx_tuning t;
    memset(&t, 0, sizeof t);
    t.inplace = t.prefetch = t.pdl = t.tma = HX_AUTO;
    return t;
}

const char *hx_kernel_name(hx_kernel k)
{
    switch (k) {
    case HX_KERNEL_AUTO: return "auto";
    case HX_KERNEL_RESIDENT: return "resident";
    case HX_KERNEL_PASSES: return "passes";
    case HX_KERNEL_ROLES: return "roles";
    }
    return "?";
}

hx_sweep_options hx_sweep_defaults(hx_stencil_id s)
{
    hx_sweep_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.stencil = s;
    o.depth = 1;
    o.fuse = 1;
    o.tuning = hx_tuning_defaults();
    return o;
}

static int check_switch(hx_context *ctx, const char *name, int v)
{
    if (v == HX_AUTO || v == 0 || v == 1) return HX_OK;
    return hx_fail(ctx, HX_ERR_INPUT, "sweeper: tuning.%s %d: use 1 (on), 0 (off) or HX_AUTO", name, v);
}

static int check_range(hx_context *ctx, const char *name, int v, int lo, int hi)
{
    if (v == 0 || (v >= lo && v <= hi)) return HX_OK;
    return hx_fail(ctx, HX_ERR_INPUT, "sweeper: tuning.%s %d: use %d to %d, or 0 (automatic)", name, v, lo, hi);
}

/* The launch shapes' ranges (halox/sweeper.h); what each does is the backend's. */
static int check_tuning(hx_context *ctx, const hx_tuning *t)
{
    int st = check_range(ctx, "block_rows", t->block_rows, 1, 8);
    if (!st) st = check_range(ctx, "march", t->march, 2, 64);
    if (!st) st = check_range(ctx, "zsplit", t->zsplit, 1, 1024);
    if (!st && t->lanes != 0 && t->lanes != 16 && t->lanes != 32)
        st = hx_fail(ctx, HX_ERR_INPUT, "sweeper: tuning.lanes %d: use 16, 32 or 0 (automatic)", t->lanes);
    if (!st) st = check_switch(ctx, "inplace", t->inplace);
    if (!st) st = check_switch(ctx, "prefetch", t->prefetch);
    if (!st) st = check_switch(ctx, "pdl", t->pdl);
    if (!st) st = check_switch(ctx, "tma", t->tma);
    return st;
}

/* What the sweeper sweeps: the operator (its radius and name), else the built-in stencil. */
static int sweep_radius(const hx_sweep_options *o) { return o->op ? hx_operator_radius(o->op) : hx_stencil_get(o->stencil)->radius; }
static const char *sweep_name(const hx_sweep_options *o)
{
    return o->op ? hx_operator_describe(o->op)->name : hx_stencil_get(o->stencil)->name;
}

static int check_options(hx_context *ctx, const hx_layout *l, const hx_exchange *x, const hx_sweep_options *o)
{
    if (o->op) {
        int st = hx_sweeper_check_operator(ctx, l, o);
        if (st) return st;
    } else {
        if ((int)o->stencil < 0 || o->stencil >= HX_NUM_STENCILS) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: unknown stencil %d", (int)o->stencil);
        const hx_stencil_info *st = hx_stencil_get(o->stencil);
        if (st->dim != l->desc.dim)
            return hx_fail(ctx, HX_ERR_INPUT, "sweeper: stencil %s is %dD but the layout is %dD", st->name, st->dim, l->desc.dim);
        if (o->ncoef) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: ncoef %d without an operator: coefficient fields belong to an operator (op)", o->ncoef);
    }
    const int radius = sweep_radius(o);
    const char *name = sweep_name(o);
    if (x->layout != l) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: the exchange belongs to another layout");
    if (l->desc.per_axis)
        for (int a = 1; a < l->desc.dim; a++)
            if (l->desc.halo_axis[a] != l->desc.halo_axis[0] || l->desc.boundary_axis[a] != l->desc.boundary_axis[0])
                return hx_fail(ctx, HX_ERR_INPUT, "sweeper: the layout's halo widths or boundaries differ by axis, and the sweeper "
                               "takes one of each: exchange such fields with hx_exchange_run and sweep them with your own kernel");
    if (x->many)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: its exchange was made for several fields or another dtype: give it an exchange "
                       "of one field of the layout's dtype");
    if (x->halo != l->desc.halo)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: its exchange must fill the layout's whole halo (%d cells, not %d)", l->desc.halo, x->halo);
    if (o->depth < 1) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: depth %d: use 1 or more", o->depth);
    if (o->depth * radius > x->halo)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: depth %d of stencil %s (radius %d) needs a halo of %d cells; the layout has %d",
                       o->depth, name, radius, o->depth * radius, x->halo);
    if (o->fuse < 1) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: fuse %d: use 1 (off) or more", o->fuse);
    if (o->fuse > 1 && o->schedule == HX_SCHEDULE_CYCLE) {
        if (ctx->kind != HX_BACKEND_CUDA || !ctx->bk.ops->sweep_fused)
            return hx_fail(ctx, HX_ERR_INPUT, "sweeper: fused sweeps (fuse %d) run on the cuda backend: use it, or fuse 1", o->fuse);
        const int max = l->desc.dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX;
        if (o->fuse * radius > max)
            return hx_fail(ctx, HX_ERR_INPUT, "sweeper: fuse %d x radius %d exceeds %d in %dD: use fuse %d or less", o->fuse,
                           radius, max, l->desc.dim, max / radius);
    }
    if (o->graph) {
        if (ctx->kind != HX_BACKEND_CUDA) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: graphs replay CUDA graphs: use the cuda backend, or no graph");
        if (!(x->tr.ops->caps & HX_PATH_HOST) && !(x->tr.ops->caps & HX_CAP_REPLAY))
            return hx_fail(ctx, HX_ERR_INPUT, "sweeper: transport %s enqueues different work every exchange, so a captured exchange "
                           "cannot be replayed: use transport nccl, ipc-put or a host transport, or no graph", x->tr.ops->name);
    }
    if (o->norm_every < 0) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: norm_every %ld: use 0 (never) or more", o->norm_every);
    if ((int)o->kernel < HX_KERNEL_AUTO || o->kernel > HX_KERNEL_ROLES) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: unknown kernel %d", (int)o->kernel);
    if (o->kernel != HX_KERNEL_AUTO && o->schedule == HX_SCHEDULE_CYCLE)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: kernel %s is a device schedule's: use schedule fused or persistent, or kernel auto",
                       hx_kernel_name(o->kernel));
    if (o->kernel == HX_KERNEL_ROLES && o->schedule != HX_SCHEDULE_FUSED)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: the roles kernel runs one cycle a launch: use schedule fused");
    if (o->kernel == HX_KERNEL_ROLES && o->depth != 1)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: the roles kernel exchanges before every sweep: use depth 1 (asked %d)", o->depth);
    return check_tuning(ctx, &o->tuning);
}

/* The kernel-initiated schedules: a device path, one GPU per rank, tiles that fit. Collective. */
static int check_device_schedule(hx_context *ctx, const hx_layout *l, const hx_exchange *x, const hx_sweep_options *o, int *shared_out)
{
    const int st = hx_device_path_check(ctx, x, o->schedule, "sweeper", shared_out); /* collective */
    if (st != HX_OK || o->schedule == HX_SCHEDULE_CYCLE) return st;
    const char *name = hx_schedule_name(o->schedule);
    if (o->graph) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: schedule %s launches its own kernels: leave graphs off", name);
    const int r = sweep_radius(o);
    /* the fused 3D pass kernel's plans (an operator's pass kernel has none) */
    if (!o->op && l->desc.dim == 3 && o->fuse > 1 && o->depth > hx_device_fused3d_max_depth(o->fuse))
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: schedule %s with fused 3D passes of %d sweeps takes depth %d at most (asked %d): use "
                       "a smaller depth, or the cycle schedule", name, o->fuse, hx_device_fused3d_max_depth(o->fuse), o->depth);
    /* 2D: the pass kernel's own limit; 3D: the fused body's, as in the cycle schedule */
    const int most = l->desc.dim == 3 ? HX_FUSE_MAX_3D : 8;
    if (o->fuse * r > most)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: schedule %s: fuse %d x radius %d exceeds %d in %dD: use fuse %d or less", name,
                       o->fuse, r, most, l->desc.dim, most / r);
    return HX_OK;
}

/* The caller's options over the defaults: a caller compiled against an older, shorter
 * hx_sweep_options passes its struct_size, and the fields it does not know keep their defaults. */
static int copy_options(hx_context *ctx, const hx_sweep_options *in, hx_sweep_options *o)
{
    const size_t need = offsetof(hx_sweep_options, stencil) + sizeof in->stencil;
    size_t n = in->struct_size ? in->struct_size : sizeof *o;
    if (n < need) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: struct_size %zu is too small: fill the options with hx_sweep_defaults", n);
    if (n > sizeof *o) n = sizeof *o;
    *o = hx_sweep_defaults(in->stencil);
    memcpy(o, in, n);
    o->struct_size = sizeof *o;
    return HX_OK;
}

int hx_sweeper_create(hx_layout *l, hx_exchange *x, const hx_sweep_options *given, hx_sweeper **out)
{
    hx_context *ctx = l->ctx;
    hx_sweeper *s = calloc(1, sizeof *s);
    *out = s;
    hx_sweep_options opt;
    const hx_sweep_options *o = &opt;
    int st = s ? copy_options(ctx, given, &opt) : hx_fail(ctx, HX_ERR_RUNTIME, "out of host memory for a sweeper");
    if (st != HX_OK) opt = hx_sweep_defaults(HX_JACOBI5), opt.schedule = given->schedule; /* the collective checks still run */
    if (st == HX_OK) st = check_options(ctx, l, x, o);
    int shared = 0, dst = check_device_schedule(ctx, l, x, o, &shared); /* collective: every rank takes part */
    if (st == HX_OK) st = dst;
    if (st == HX_OK) {
        s->ctx = ctx;
        s->layout = l;
        s->x = x;
        s->opt = *o;
        hx_backend_bind(&s->bk, &ctx->bk, &x->d, o->stencil, l->desc.dtype);
        if (hx_backend_set_tuning(&s->bk, &o->tuning)) st = hx_fail(ctx, HX_ERR_INPUT, "sweeper: %s", s->bk.err);
        size_t bytes = (size_t)hx_alloc_cells(&x->d) * s->bk.elem;
        /* the first owned cell on a 128-byte line where plain sweeps alone touch the fields (the
         * device schedules' kernels take x = 0 on a vector) */
        if (o->schedule == HX_SCHEDULE_CYCLE && o->fuse <= 1)
            s->lead = hx_field_lead(&s->bk, &x->d, sweep_radius(o));
        for (int i = 0; i < 2 && st == HX_OK; i++) {
            s->field[i].data = hx_backend_alloc_field(&s->bk, bytes, s->lead);
            s->field[i].ghost = x->halo;
            s->field[i].pitch[0] = x->d.alloc[0];
            s->field[i].pitch[1] = x->d.alloc[1];
            if (!s->field[i].data)
                st = hx_fail(ctx, HX_ERR_RUNTIME, "cannot allocate two fields of %zu bytes: %s", bytes, s->bk.err);
        }
    }
    st = hx_sweeper_take_coefficients(s, l, x, o, st); /* collective: every rank, operator or not */
    st = hx_device_path_prepare(ctx, x, o->schedule, "sweeper", st); /* collective */
    if (st == HX_OK) {
        hx_sim *sim = &s->sim;
        sim->opt = *o;
        sim->d = &x->d;
        sim->plan = &x->plan;
        sim->bk = &s->bk;
        sim->tr = &x->tr;
        sim->comm = ctx->comm;
        sim->radius = hx_backend_radius(&s->bk);
        sim->shared_gpu = shared;
        sim->field[0] = s->field[0].data;
        sim->field[1] = s->field[1].data;
        hx_clock_init(&sim->clock, &s->bk, &sim->times);
        /* the transport charges its message and staging times to this loop */
        x->tr.clock = &sim->clock;
        /* the device schedule's kernel is chosen here: one asked for that cannot run is bad input */
        if (o->schedule != HX_SCHEDULE_CYCLE) {
            const int dev = hx_device_setup(sim);
            if (dev == HX_DEVICE_REFUSED)
                st = hx_fail(ctx, HX_ERR_INPUT, "sweeper: schedule %s: %s", hx_schedule_name(o->schedule), sim->err);
            else if (dev)
                st = hx_fail(ctx, HX_ERR_RUNTIME, "sweeper: schedule %s: %s", hx_schedule_name(o->schedule), sim->err);
            else if (ctx->rank == 0)
                hx_logf(&ctx->log, HX_LOG_INFO, "schedule %s: kernel %s (asked %s)", hx_schedule_name(o->schedule),
                        hx_device_kernel(sim), hx_kernel_name(o->kernel));
        }
    }
    return hx_agree(ctx, st);
}

void hx_sweeper_destroy(hx_sweeper *s)
{
    if (!s) return;
    hx_device_release(&s->sim);
    /* graphs may hold the transport's resources: release them while it still lives */
    if (s->bk.ops && s->bk.ops->drop_graphs) s->bk.ops->drop_graphs(&s->bk);
    for (int i = 0; i < 2; i++)
        hx_backend_free_field(&s->bk, s->field[i].data, s->lead);
    for (int c = 0; c < s->ncoef; c++)
        hx_backend_free_field(&s->bk, s->coef[c].data, s->lead);
    if (s->x && s->x->tr.clock == &s->sim.clock) s->x->tr.clock = &s->x->clock;
    free(s);
}

int hx_sweeper_init(hx_sweeper *s, uint64_t seed)
{
    hx_sim *sim = &s->sim;
    for (int i = 0; i < 2; i++)
        if (s->bk.ops->init_field(&s->bk, sim->field[i], seed)) return hx_fail(s->ctx, HX_ERR_RUNTIME, "%s", s->bk.err);
    if (s->bk.ops->sync(&s->bk, HX_STREAM_MAIN)) return hx_fail(s->ctx, HX_ERR_RUNTIME, "%s", s->bk.err);
    sim->cur = 0;
    sim->sweeps_done = 0;
    sim->last_norm = -1;
    memset(&sim->times, 0, sizeof sim->times);
    hx_clock_init(&sim->clock, &s->bk, &sim->times);
    return HX_OK;
}

int hx_sweeper_iterate(hx_sweeper *s, long sweeps)
{
    if (sweeps < 0) return hx_fail(s->ctx, HX_ERR_INPUT, "sweeper: %ld sweeps: use 0 or more", sweeps);
    /* The schedule calls the transport directly, and kernel-path transports (ipc-put) take their
     * pitches from the exchange's bound geometry: a caller's own exchange of a field of other
     * pitches in between must not leave those behind. The sweeper's fields have the layout's. */
    s->x->fd = s->x->d;
    double t0 = MPI_Wtime();
    if (hx_iterate(&s->sim, sweeps)) return hx_fail(s->ctx, HX_ERR_RUNTIME, "%s", s->sim.err);
    s->sim.times.t[HX_SEG_TOTAL] += MPI_Wtime() - t0;
    return HX_OK;
}

hx_field hx_sweeper_field(const hx_sweeper *s) { return s->field[s->sim.cur]; }
long hx_sweeper_sweeps(const hx_sweeper *s) { return s->sim.sweeps_done; }
double hx_sweeper_last_norm(const hx_sweeper *s) { return s->sim.last_norm; }
void hx_sweeper_on_norm(hx_sweeper *s, hx_norm_fn fn, void *user)
{
    s->sim.norm_fn = fn;
    s->sim.norm_user = user;
}

int hx_sweeper_times(const hx_sweeper *s, hx_times *t)
{
    *t = s->sim.times;
    return HX_OK;
}

const char *hx_sweeper_kernel(const hx_sweeper *s)
{
    return s->opt.schedule == HX_SCHEDULE_CYCLE ? NULL : hx_device_kernel(&s->sim);
}

int hx_sweeper_whole_graph(const hx_sweeper *s)
{
    /* device schedules time only the whole loop, as whole-cycle graphs do */
    return s->opt.schedule != HX_SCHEDULE_CYCLE || (s->opt.graph && !(s->x->tr.ops->caps & HX_PATH_HOST));
}
