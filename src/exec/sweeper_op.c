/* A sweeper's user operator (halox/operator.h): its checks against the layout, and the
 * coefficient fields the sweeper copies and exchanges once. */
#include <stdlib.h>
#include <string.h>

#include "core/objects.h"
#include "exec/sweeper_op.h"

/* The operator against the layout, and its coefficient fields against the layout's geometry. */
int hx_sweeper_check_operator(hx_context *ctx, const hx_layout *l, const hx_sweep_options *o)
{
    const hx_operator_desc *od = hx_operator_describe(o->op);
    const hx_decomp *d = &l->d;
    if (od->dim != l->desc.dim)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: operator %s is %dD but the layout is %dD: use a %dD operator", od->name, od->dim,
                       l->desc.dim, l->desc.dim);
    if (od->dtype != l->desc.dtype)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: dtype mismatch: operator %s is %s but the layout is %s: create the operator with "
                       "the layout's dtype", od->name, hx_dtype_name(od->dtype), hx_dtype_name(l->desc.dtype));
    if (o->ncoef != od->ncoef)
        return hx_fail(ctx, HX_ERR_INPUT, "sweeper: operator %s takes %d coefficient field%s but ncoef is %d: pass exactly its fields",
                       od->name, od->ncoef, od->ncoef == 1 ? "" : "s", o->ncoef);
    if (o->ncoef > 0 && !o->coef) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: ncoef %d but coef is NULL: pass the coefficient fields", o->ncoef);
    for (int c = 0; c < o->ncoef; c++) {
        const hx_field *f = &o->coef[c];
        const int g = d->ghost[0], need0 = d->local[0] + 2 * f->ghost, need1 = d->local[1] + 2 * f->ghost;
        if (!f->data) return hx_fail(ctx, HX_ERR_INPUT, "sweeper: coefficient field %d has no data: allocate it with hx_field_alloc", c);
        if (f->ghost < g || f->pitch[0] < need0 || (d->dim == 3 && f->pitch[1] < need1))
            return hx_fail(ctx, HX_ERR_INPUT, "sweeper: coefficient field %d of another layout (ghost %d, pitch %dx%d; this layout needs "
                           "ghost >= %d and pitch >= %dx%d): allocate it with hx_field_alloc on the sweeper's layout", c, f->ghost,
                           f->pitch[0], f->pitch[1], g, need0 > d->local[0] + 2 * g ? need0 : d->local[0] + 2 * g,
                           d->dim == 3 ? need1 : f->pitch[1]);
    }
    return HX_OK;
}

/* Copies of the caller's coefficient fields with exactly the swept fields' geometry (ghost,
 * pitch, lead), their ghosts exchanged once; the view then sweeps the operator. Collective. */
int hx_sweeper_take_coefficients(hx_sweeper *s, hx_layout *l, hx_exchange *x, const hx_sweep_options *o, int st)
{
    hx_context *ctx = l->ctx;
    if (!s || !o->op) return hx_agree(ctx, st);
    const size_t owned = (size_t)l->d.local[0] * l->d.local[1] * l->d.local[2] * l->bk.elem;
    void *host = st == HX_OK && o->ncoef ? malloc(owned ? owned : 1) : NULL;
    if (st == HX_OK && o->ncoef && !host) st = hx_fail(ctx, HX_ERR_RUNTIME, "out of host memory copying coefficient fields");
    for (int c = 0; c < o->ncoef && st == HX_OK; c++) {
        hx_field *f = &s->coef[c];
        f->data = hx_backend_alloc_field(&s->bk, (size_t)hx_alloc_cells(&x->d) * s->bk.elem, s->lead);
        f->ghost = s->field[0].ghost;
        f->pitch[0] = s->field[0].pitch[0];
        f->pitch[1] = s->field[0].pitch[1];
        if (!f->data) st = hx_fail(ctx, HX_ERR_RUNTIME, "cannot allocate coefficient field %d: %s", c, s->bk.err);
        else s->ncoef = c + 1;
        if (st == HX_OK) st = hx_field_get_owned(l, &o->coef[c], host);
        if (st == HX_OK) st = hx_field_set_owned(l, f, host);
    }
    free(host);
    st = hx_agree(ctx, st);
    for (int c = 0; c < s->ncoef && st == HX_OK; c++) st = hx_exchange_run(x, &s->coef[c], NULL);
    if (st == HX_OK && hx_context_sync(ctx)) st = HX_ERR_RUNTIME;
    if (st == HX_OK) {
        s->bk.op = o->op;
        for (int c = 0; c < s->ncoef; c++) s->bk.coef[c] = s->coef[c].data;
    }
    return st;
}

