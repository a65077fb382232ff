/* hx_custom: a user's functor kernels (halox/custom.h) swept over many state fields: one
 * many-field exchange per cycle, `depth` sweeps on shrinking boxes, passes of `fuse` sweeps. */
#include <stdlib.h>
#include <string.h>

#include "core/objects.h"
#include "exec/custom_device.h"
#include "exec/schedule.h"
#include "halox/custom.h"
#include "transport/exchange_many.h"

#ifndef HALOX_HAVE_CUDA
/* the device schedules need CUDA: hx_device_path_check refuses them before these are reached */
int hx_custom_dev_create(hx_exchange *x, long xoff, long sy, long sz, int nf, size_t elem, hx_custom_dev **out, char *err, size_t n)
{
    (void)x, (void)xoff, (void)sy, (void)sz, (void)nf, (void)elem;
    *out = NULL;
    return snprintf(err, n, "this halox was built without CUDA"), -1;
}
int hx_custom_dev_run(hx_custom_dev *dv, const hx_kernel_table *kt, hx_custom_run *r, int per_cycle, int *cur, char *err, size_t n)
{
    (void)dv, (void)kt, (void)r, (void)per_cycle, (void)cur;
    return snprintf(err, n, "this halox was built without CUDA"), -1;
}
void hx_custom_dev_destroy(hx_custom_dev *dv) { (void)dv; }
#endif

struct hx_custom {
    hx_layout *l;
    hx_exchange *x;
    hx_kernel_table kt;
    void *params;
    int depth, fuse, nf, cpu, cur;
    hx_schedule schedule;
    hx_custom_dev *dev; /* fused and persistent schedules: the kernel's device state */
    hx_field f[2][HX_CUSTOM_MAX_FIELDS];
    long sweeps;
};

hx_custom_options hx_custom_defaults(void)
{
    hx_custom_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.depth = 1;
    o.fuse = 1;
    return o;
}

/* The caller's options over the defaults, as far as its struct reaches */
static hx_custom_options take_options(const hx_custom_options *o)
{
    hx_custom_options r = hx_custom_defaults();
    if (!o) return r;
    const size_t n = o->struct_size && o->struct_size < sizeof r ? o->struct_size : sizeof r;
    memcpy(&r, o, n);
    r.struct_size = sizeof r;
    if (r.depth == 0) r.depth = 1;
    if (r.fuse == 0) r.fuse = 1;
    return r;
}

/* Whether the rank has a neighbour on side s (0 low, 1 high) of axis a */
static int has_neighbour(const hx_decomp *d, int a, int s)
{
    int o[3] = {0, 0, 0};
    o[a] = s ? 1 : -1;
    return d->neighbour[hx_dir_index(o[0], o[1], o[2])] != HX_NO_RANK;
}

static int check(hx_layout *l, hx_exchange *x, const hx_custom_options *o, const hx_kernel_table *kt, const void *params)
{
    hx_context *ctx = l->ctx;
    if (!kt) return hx_fail(ctx, HX_ERR_INPUT, "custom: no kernel table: pass the table HX_DEFINE_KERNELS made");
    const char *nm = kt->name ? kt->name : "?";
    if (!x || x->layout != l) return hx_fail(ctx, HX_ERR_INPUT, "custom: the exchange is not of this layout: create it on the same layout");
    if (kt->dim != l->desc.dim)
        return hx_fail(ctx, HX_ERR_INPUT, "custom: kernels %s are %dD but the layout is %dD: use a %dD functor", nm, kt->dim, l->desc.dim,
                       l->desc.dim);
    if (kt->dtype != l->desc.dtype)
        return hx_fail(ctx, HX_ERR_INPUT, "custom: kernels %s are of %s but the layout is %s: instantiate them with the layout's dtype", nm,
                       hx_dtype_name(kt->dtype), hx_dtype_name(l->desc.dtype));
    if (kt->nfields < 1 || kt->nfields > HX_CUSTOM_MAX_FIELDS || kt->radius < 1)
        return hx_fail(ctx, HX_ERR_INPUT, "custom: kernels %s have %d fields and radius %d: 1 .. %d fields, radius >= 1", nm, kt->nfields,
                       kt->radius, HX_CUSTOM_MAX_FIELDS);
    if (kt->param_bytes && !params) return hx_fail(ctx, HX_ERR_INPUT, "custom: params is NULL: pass the functor object");
    if (o->depth < 1 || o->fuse < 1)
        return hx_fail(ctx, HX_ERR_INPUT, "custom: depth %d, fuse %d: both must be at least 1", o->depth, o->fuse);
    if (o->fuse > o->depth) return hx_fail(ctx, HX_ERR_INPUT, "custom: fuse %d exceeds depth %d: fuse at most depth sweeps", o->fuse, o->depth);
    const int most = l->desc.dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX;
    if (o->fuse > 1 && (o->fuse * kt->radius > most || o->fuse > HX_FUSE_MAX))
        return hx_fail(ctx, HX_ERR_INPUT, "custom: fuse %d x radius %d exceeds %d in %dD: fuse fewer sweeps", o->fuse, kt->radius, most,
                       l->desc.dim);
    const int xn = x->many ? x->many->nfields : 1;
    if (kt->nfields > xn)
        return hx_fail(ctx, HX_ERR_INPUT, "custom: kernels %s have %d state fields but the exchange moves %d: create it with nfields %d", nm,
                       kt->nfields, xn, kt->nfields);
    for (int i = 0; i < kt->nfields && x->many; i++)
        if (x->many->dtype[i] != l->desc.dtype)
            return hx_fail(ctx, HX_ERR_INPUT, "custom: the exchange's field %d is %s, the state fields %s: give it the layout's dtype", i,
                           hx_dtype_name(x->many->dtype[i]), hx_dtype_name(l->desc.dtype));
    int width[3];
    hx_boundary bnd[3];
    hx_layout_axes(&l->desc, width, bnd);
    const int need = o->depth * kt->radius;
    for (int a = 0; a < l->desc.dim; a++) {
        const int w = width[a] < x->halo ? width[a] : x->halo;
        if (w < need && (has_neighbour(&l->d, a, 0) || has_neighbour(&l->d, a, 1)))
            return hx_fail(ctx, HX_ERR_INPUT, "custom: halo %d on axis %d is below depth %d x radius %d: make the layout's and exchange's halo %d",
                           w, a, o->depth, kt->radius, need);
    }
    const int cpu = hx_context_backend(ctx) == HX_BACKEND_CPU;
    if (o->schedule != HX_SCHEDULE_CYCLE && !cpu && !kt->persistent)
        return hx_fail(ctx, HX_ERR_INPUT, "custom: kernels %s have no persistent kernel (compiled without nvcc): instantiate them "
                       "in a .cu file, or use the cycle schedule", nm);
    if (cpu && !kt->sweep_host) return hx_fail(ctx, HX_ERR_INPUT, "custom: kernels %s have no host sweep for the cpu backend", nm);
    if (!cpu && (!kt->sweep || !kt->fused))
        return hx_fail(ctx, HX_ERR_INPUT, "custom: kernels %s were compiled without nvcc: instantiate them in a .cu file for the cuda backend", nm);
    /* a fused pass holds every field's tile in one block's shared memory: refused here, not at the first sweep */
    const int smem_most = cpu ? 0 : hx_cuda_max_smem(hx_context_device(ctx));
    const size_t need_smem = o->fuse > 1 && kt->fused_smem ? kt->fused_smem(o->fuse) : 0;
    if (smem_most > 0 && need_smem > (size_t)smem_most)
        return hx_fail(ctx, HX_ERR_INPUT, "custom: passes of %d sweeps of kernels %s need %zu bytes of shared memory a block, the GPU has %d: "
                       "fuse fewer sweeps", o->fuse, nm, need_smem, smem_most);
    return HX_OK;
}

int hx_custom_create(hx_layout *l, hx_exchange *x, const hx_custom_options *opts, const hx_kernel_table *kt, const void *params,
                     hx_custom **out)
{
    if (out) *out = NULL;
    if (!l) return HX_ERR_INPUT;
    hx_context *ctx = l->ctx;
    const hx_custom_options o = take_options(opts);
    int st = out ? check(l, x, &o, kt, params) : hx_fail(ctx, HX_ERR_INPUT, "custom: out is NULL");
    const int dst = x ? hx_device_path_check(ctx, x, o.schedule, "custom", NULL) : HX_OK; /* collective */
    if (st == HX_OK) st = dst;
    st = hx_agree(ctx, st);
    if (st != HX_OK) return st;
    hx_custom *s = (hx_custom *)calloc(1, sizeof *s);
    if (!s) st = hx_fail(ctx, HX_ERR_RUNTIME, "custom: out of host memory");
    if (s) {
        s->l = l;
        s->x = x;
        s->kt = *kt;
        s->depth = o.depth;
        s->fuse = o.fuse;
        s->schedule = o.schedule;
        s->nf = kt->nfields;
        s->cpu = hx_context_backend(ctx) == HX_BACKEND_CPU;
        s->params = malloc(kt->param_bytes ? kt->param_bytes : 1);
        if (!s->params) st = hx_fail(ctx, HX_ERR_RUNTIME, "custom: out of host memory");
        else if (kt->param_bytes) memcpy(s->params, params, kt->param_bytes);
        for (int b = 0; b < 2 && st == HX_OK; b++)
            for (int i = 0; i < s->nf && st == HX_OK; i++) st = hx_field_alloc(l, &s->f[b][i]);
    }
    st = hx_device_path_prepare(ctx, x, o.schedule, "custom", st); /* collective */
    if (st == HX_OK && o.schedule != HX_SCHEDULE_CYCLE) {
        /* the exchange's boxes address a field from its origin, with the field's pitches */
        char err[320];
        hx_decomp view;
        void *base = NULL;
        st = hx_field_geometry(ctx, &x->d, &s->f[0][0], l->bk.elem, &view, &base);
        if (st == HX_OK) {
            const long xoff = (long)(((char *)base - (char *)s->f[0][0].data) / (long)l->bk.elem);
            const long sz = view.dim == 3 ? (long)view.alloc[0] * view.alloc[1] : 0;
            if (hx_custom_dev_create(x, xoff, view.alloc[0], sz, s->nf, l->bk.elem, &s->dev, err, sizeof err))
                st = hx_fail(ctx, HX_ERR_RUNTIME, "custom: schedule %s: %s", hx_schedule_name(o.schedule), err);
        }
    }
    st = hx_agree(ctx, st);
    if (st != HX_OK) {
        hx_custom_destroy(s);
        return st;
    }
    *out = s;
    return HX_OK;
}

void hx_custom_destroy(hx_custom *s)
{
    if (!s) return;
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < s->nf; i++)
            if (s->f[b][i].data) hx_field_free(s->l, &s->f[b][i]);
    hx_custom_dev_destroy(s->dev);
    free(s->params);
    free(s);
}

static int field_index(hx_custom *s, int i)
{
    if (!s) return HX_ERR_INPUT;
    if (i < 0 || i >= s->nf)
        return hx_fail(s->l->ctx, HX_ERR_INPUT, "custom: state field %d of %d: pass 0 .. %d", i, s->nf, s->nf - 1);
    return HX_OK;
}

int hx_custom_init_field(hx_custom *s, int i, uint64_t seed)
{
    int st = field_index(s, i);
    return st != HX_OK ? st : hx_field_init(s->l, &s->f[s->cur][i], seed);
}

int hx_custom_set_field(hx_custom *s, int i, const void *owned)
{
    int st = field_index(s, i);
    if (st == HX_OK && !owned) st = hx_fail(s->l->ctx, HX_ERR_INPUT, "custom: owned is NULL: pass the owned cells");
    return st != HX_OK ? st : hx_field_set_owned(s->l, &s->f[s->cur][i], owned);
}

const hx_field *hx_custom_field(const hx_custom *s, int i)
{
    return s && i >= 0 && i < s->nf ? &s->f[s->cur][i] : NULL;
}

long hx_custom_sweeps(const hx_custom *s) { return s ? s->sweeps : 0; }

/* Box of sweep k of a cycle of D sweeps: the owned box grown by (D - 1 - k) x radius towards
 * every neighbour (never past a fixed boundary) */
static void sweep_box(const hx_custom *s, int D, int k, hx_box *b)
{
    const hx_decomp *d = &s->l->d;
    const int g = (D - 1 - k) * s->kt.radius, gh = s->f[0][0].ghost;
    for (int a = 0; a < 3; a++) {
        if (a >= d->dim) {
            b->lo[a] = 0, b->hi[a] = 1;
            continue;
        }
        b->lo[a] = gh - (has_neighbour(d, a, 0) ? g : 0);
        b->hi[a] = gh + d->local[a] + (has_neighbour(d, a, 1) ? g : 0);
    }
}

/* One pass of `levels` sweeps, starting at sweep k of a cycle of D, from the current fields */
static int pass(hx_custom *s, int D, int k, int levels, void *stream)
{
    const hx_decomp *d = &s->l->d;
    const hx_field *f0 = &s->f[s->cur][0];
    hx_custom_launch c;
    char err[256] = "";
    memset(&c, 0, sizeof c);
    c.nfields = s->nf;
    for (int i = 0; i < s->nf; i++) {
        c.src[i] = s->f[s->cur][i].data;
        c.dst[i] = s->f[!s->cur][i].data;
    }
    c.sy = f0->pitch[0];
    c.sz = d->dim == 3 ? (long)f0->pitch[0] * f0->pitch[1] : 0;
    c.alloc[0] = f0->pitch[0];
    c.alloc[1] = d->dim == 3 ? f0->pitch[1] : d->local[1] + 2 * f0->ghost;
    c.alloc[2] = d->dim == 3 ? d->local[2] + 2 * f0->ghost : 1;
    c.levels = levels;
    for (int j = 0; j < levels; j++) sweep_box(s, D, k + j, &c.box[j]);
    c.params = s->params;
    c.stream = stream;
    c.err = err;
    c.errlen = sizeof err;
    int rc = s->cpu ? s->kt.sweep_host(&c) : levels > 1 ? s->kt.fused(&c) : s->kt.sweep(&c);
    if (rc) return hx_fail(s->l->ctx, HX_ERR_RUNTIME, "custom %s: %s", s->kt.name ? s->kt.name : "kernels", err[0] ? err : "failed");
    s->cur = !s->cur;
    return HX_OK;
}

/* The fused and persistent schedules: the table's persistent kernel, the exchange on the device */
static int iterate_device(hx_custom *s, long sweeps, void *stream)
{
    const hx_decomp *d = &s->l->d;
    const hx_field *f0 = &s->f[0][0];
    hx_custom_run r;
    char err[320] = "";
    memset(&r, 0, sizeof r);
    r.nfields = s->nf;
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < s->nf; i++) r.field[b][i] = s->f[b][i].data;
    r.alloc[0] = f0->pitch[0];
    r.alloc[1] = d->dim == 3 ? f0->pitch[1] : d->local[1] + 2 * f0->ghost;
    r.alloc[2] = d->dim == 3 ? d->local[2] + 2 * f0->ghost : 1;
    for (int a = 0; a < 3; a++) {
        r.own_lo[a] = a < d->dim ? f0->ghost : 0;
        r.own_hi[a] = a < d->dim ? f0->ghost + d->local[a] : 1;
        r.grow_lo[a] = a < d->dim && has_neighbour(d, a, 0);
        r.grow_hi[a] = a < d->dim && has_neighbour(d, a, 1);
    }
    r.depth = s->depth;
    r.fuse = s->fuse;
    r.sweeps = sweeps;
    r.rank = d->rank;
    r.params = s->params;
    r.stream = stream;
    if (hx_custom_dev_run(s->dev, &s->kt, &r, s->schedule == HX_SCHEDULE_FUSED, &s->cur, err, sizeof err))
        return hx_fail(s->l->ctx, HX_ERR_RUNTIME, "custom %s: schedule %s: %s", s->kt.name ? s->kt.name : "kernels",
                       hx_schedule_name(s->schedule), err);
    s->sweeps += sweeps;
    return HX_OK;
}

int hx_custom_iterate(hx_custom *s, long sweeps)
{
    if (!s) return HX_ERR_INPUT;
    hx_context *ctx = s->l->ctx;
    if (sweeps < 0) return hx_fail(ctx, HX_ERR_INPUT, "custom: %ld sweeps: pass 0 or more", sweeps);
    void *stream = hx_context_stream(ctx);
    if (s->schedule != HX_SCHEDULE_CYCLE) return hx_agree(ctx, sweeps ? iterate_device(s, sweeps, stream) : HX_OK);
    int st = HX_OK;
    for (long done = 0; done < sweeps && st == HX_OK;) {
        const int D = sweeps - done < s->depth ? (int)(sweeps - done) : s->depth;
        st = hx_exchange_run_many(s->x, s->nf, s->f[s->cur], NULL);
        for (int k = 0; k < D && st == HX_OK;) {
            const int lv = s->cpu ? 1 : (D - k < s->fuse ? D - k : s->fuse);
            st = pass(s, D, k, lv, stream);
            k += lv;
        }
        done += D;
        if (st == HX_OK) s->sweeps += D;
    }
    if (hx_context_sync(ctx) != HX_OK && st == HX_OK) st = HX_ERR_RUNTIME;
    return hx_agree(ctx, st);
}
