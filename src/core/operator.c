/* hx_operator: a user's stencil as data (include/halox/operator.h). Creation checks every term and
 * agrees the outcome over the context, so every rank fails alike with one line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/objects.h"
#include "core/operator_file.h"
#include "core/operator_priv.h"

int hx_operator_check_term(const hx_term *t, int dim, int ncoef, char *why, size_t n)
{
    const int lim = dim == 3 ? HX_OP_MAX_RADIUS_3D : HX_OP_MAX_RADIUS_2D;
    for (int a = 0; a < 3; a++) {
        if (a == 2 && dim == 2 && t->d[2] != 0)
            return snprintf(why, n, "offset dz %d in a 2D operator: write dz 0 (leave it out in a file)", t->d[2]), -1;
        if (t->d[a] < -lim || t->d[a] > lim)
            return snprintf(why, n, "offset d%c %d is beyond radius %d of %dD operators: keep each offset within -%d..%d",
                            "xyz"[a], t->d[a], lim, dim, lim, lim), -1;
    }
    if (!isfinite(t->weight)) return snprintf(why, n, "weight is not a finite number: give a finite weight"), -1;
    if (t->coef < -1 || t->coef >= ncoef) {
        if (ncoef == 0)
            return snprintf(why, n, "coefficient %d, but the operator has no coefficient fields: declare ncoef >= %d, or use coef -1",
                            t->coef, t->coef + 1), -1;
        return snprintf(why, n, "coefficient %d is outside 0..%d (ncoef %d): name one of the operator's coefficient fields, or -1",
                        t->coef, ncoef - 1, ncoef), -1;
    }
    if (t->coef < 0) return 0;
    for (int a = 0; a < 3; a++) {
        if (a == 2 && dim == 2 && t->c[2] != 0)
            return snprintf(why, n, "coefficient offset cz %d in a 2D operator: write 0", t->c[2]), -1;
        if (t->c[a] < -lim || t->c[a] > lim)
            return snprintf(why, n, "coefficient offset c%c %d is beyond radius %d of %dD operators: keep it within -%d..%d",
                            "xyz"[a], t->c[a], lim, dim, lim, lim), -1;
    }
    return 0;
}

int hx_operator_check_desc(const hx_operator_desc *d, char *why, size_t n)
{
    if (d->dim != 2 && d->dim != 3) return snprintf(why, n, "dim %d: operators are 2D or 3D", d->dim), -1;
    if (d->dtype != HX_FLOAT && d->dtype != HX_DOUBLE) return snprintf(why, n, "unknown dtype %d: use HX_FLOAT or HX_DOUBLE", (int)d->dtype), -1;
    if (d->ncoef < 0 || d->ncoef > HX_OP_MAX_COEF)
        return snprintf(why, n, "ncoef %d: an operator takes 0 to %d coefficient fields", d->ncoef, HX_OP_MAX_COEF), -1;
    if (d->nterms < 1 || !d->terms) return snprintf(why, n, "no terms: give at least one term"), -1;
    if (d->nterms > HX_OP_MAX_TERMS)
        return snprintf(why, n, "%d terms: at most %d (split the operator, or merge terms of equal offset)", d->nterms, HX_OP_MAX_TERMS), -1;
    for (int i = 0; i < d->nterms; i++) {
        char w[300];
        if (hx_operator_check_term(&d->terms[i], d->dim, d->ncoef, w, sizeof w))
            return snprintf(why, n, "term %d: %s", i, w), -1;
    }
    return 0;
}

/* The operator for a checked description: terms copied (z offsets of unused coefficients cleared),
 * radius over every offset. NULL when out of memory. */
static hx_operator *build(const hx_operator_desc *d)
{
    hx_operator *op = calloc(1, sizeof *op);
    if (!op) return NULL;
    op->desc = *d;
    op->desc.struct_size = sizeof op->desc;
    snprintf(op->name, sizeof op->name, "%s", d->name && d->name[0] ? d->name : "custom");
    op->desc.name = op->name;
    for (int i = 0; i < d->nterms; i++) {
        hx_term t = d->terms[i];
        if (t.coef < 0) t.coef = -1, memset(t.c, 0, sizeof t.c);
        op->terms[i] = t;
        for (int a = 0; a < 3; a++) {
            int r = abs(t.d[a]);
            if (t.coef >= 0 && abs(t.c[a]) > r) r = abs(t.c[a]);
            if (r > op->radius_axis[a]) op->radius_axis[a] = r;
            if (r > op->radius) op->radius = r;
        }
    }
    op->desc.terms = op->terms;
    return op;
}

int hx_operator_create(hx_context *ctx, const hx_operator_desc *desc, hx_operator **out)
{
    *out = NULL;
    hx_operator_desc d;
    memset(&d, 0, sizeof d);
    int st = HX_OK;
    char why[400];
    if (!desc) st = hx_fail(ctx, HX_ERR_INPUT, "operator: no description: pass an hx_operator_desc");
    else {
        size_t n = desc->struct_size ? desc->struct_size : sizeof d;
        if (n < offsetof(hx_operator_desc, terms) + sizeof d.terms)
            st = hx_fail(ctx, HX_ERR_INPUT, "operator: struct_size %zu is too small: set it to sizeof(hx_operator_desc)", n);
        else memcpy(&d, desc, n < sizeof d ? n : sizeof d);
    }
    if (st == HX_OK && hx_operator_check_desc(&d, why, sizeof why))
        st = hx_fail(ctx, HX_ERR_INPUT, "operator %s: %s", d.name && d.name[0] ? d.name : "custom", why);
    hx_operator *op = NULL;
    if (st == HX_OK && !(op = build(&d))) st = hx_fail(ctx, HX_ERR_RUNTIME, "out of host memory for an operator");
    st = hx_agree(ctx, st);
    if (st != HX_OK) {
        free(op);
        return st;
    }
    *out = op;
    return HX_OK;
}

/* halox's named shapes as terms: boxes of side 3, and the built-in stencils' weights. */
static int named_terms(const char *name, int *dim, hx_term *t)
{
    int n = 0;
    memset(t, 0, sizeof(hx_term) * HX_OP_MAX_TERMS);
    if (!strcmp(name, "box9") || !strcmp(name, "box27")) {
        *dim = name[3] == '9' ? 2 : 3;
        const int zr = *dim == 3 ? 1 : 0;
        const double w = *dim == 3 ? 1.0 / 27.0 : 1.0 / 9.0;
        for (int z = -zr; z <= zr; z++)
            for (int y = -1; y <= 1; y++)
                for (int x = -1; x <= 1; x++) t[n].d[0] = x, t[n].d[1] = y, t[n].d[2] = z, t[n].weight = w, t[n++].coef = -1;
        return n;
    }
    int r;
    double near_w, far_w = 0;
    if (!strcmp(name, "jacobi5")) *dim = 2, r = 1, near_w = 0.25;
    else if (!strcmp(name, "jacobi7")) *dim = 3, r = 1, near_w = 1.0 / 6.0;
    else if (!strcmp(name, "star9")) *dim = 2, r = 2, near_w = 16.0 / 60.0, far_w = -1.0 / 60.0;
    else if (!strcmp(name, "star13")) *dim = 3, r = 2, near_w = 16.0 / 90.0, far_w = -1.0 / 90.0;
    else return 0;
    /* W E S N [D U], then the same at distance 2: the built-ins' argument order */
    for (int k = 1; k <= r; k++)
        for (int a = 0; a < *dim; a++)
            for (int s = -1; s <= 1; s += 2) {
                t[n].d[a] = s * k;
                t[n].weight = k == 1 ? near_w : far_w;
                t[n++].coef = -1;
            }
    return n;
}

int hx_operator_named(hx_context *ctx, const char *name, hx_dtype dtype, hx_operator **out)
{
    hx_term terms[HX_OP_MAX_TERMS];
    int dim = 0, n = name ? named_terms(name, &dim, terms) : 0;
    if (n == 0) {
        *out = NULL;
        int st = hx_fail(ctx, HX_ERR_INPUT, "operator: unknown name '%s': use box9, box27, jacobi5, jacobi7, star9 or star13, "
                         "or load a file", name ? name : "(null)");
        return hx_agree(ctx, st);
    }
    hx_operator_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.name = name;
    d.dim = dim;
    d.dtype = dtype;
    d.nterms = n;
    d.terms = terms;
    return hx_operator_create(ctx, &d, out);
}

void hx_operator_destroy(hx_operator *op) { free(op); }
const hx_operator_desc *hx_operator_describe(const hx_operator *op) { return op ? &op->desc : NULL; }
int hx_operator_radius(const hx_operator *op) { return op ? op->radius : 0; }
