/* hx_layout and fields: the decomposition of a global grid over a context's ranks, and the
 * arrays that live on it. */
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/field_io.h"
#include "core/objects.h"

static int check_desc(hx_context *ctx, const hx_layout_desc *s)
{
    if (s->dim != 2 && s->dim != 3) return hx_fail(ctx, HX_ERR_INPUT, "layout: dim is %d: use 2 or 3", s->dim);
    for (int a = 0; a < s->dim; a++)
        if (s->global[a] < 1) return hx_fail(ctx, HX_ERR_INPUT, "layout: global size %d on axis %d: give at least 1 cell", s->global[a], a);
    if (s->halo < 0) return hx_fail(ctx, HX_ERR_INPUT, "layout: halo width %d is negative", s->halo);
    if (s->dtype != HX_FLOAT && s->dtype != HX_DOUBLE) return hx_fail(ctx, HX_ERR_INPUT, "layout: unknown dtype %d", (int)s->dtype);
    if (s->boundary != HX_PERIODIC && s->boundary != HX_FIXED)
        return hx_fail(ctx, HX_ERR_INPUT, "layout: unknown boundary %d", (int)s->boundary);
    if (s->per_axis != 0 && s->per_axis != 1)
        return hx_fail(ctx, HX_ERR_INPUT, "layout: per_axis %d: give 0 (halo and boundary for every axis) or 1", s->per_axis);
    for (int a = 0; s->per_axis && a < s->dim; a++) {
        if (s->halo_axis[a] < 0)
            return hx_fail(ctx, HX_ERR_INPUT, "layout: halo_axis[%d] is %d: give 0 or more ghost cells", a, s->halo_axis[a]);
        if (s->boundary_axis[a] != HX_PERIODIC && s->boundary_axis[a] != HX_FIXED)
            return hx_fail(ctx, HX_ERR_INPUT, "layout: unknown boundary_axis[%d] %d", a, (int)s->boundary_axis[a]);
    }
    return HX_OK;
}

void hx_layout_axes(const hx_layout_desc *s, int halo[3], hx_boundary bnd[3])
{
    for (int a = 0; a < 3; a++) {
        const int on = a < s->dim;
        halo[a] = !on ? 0 : s->per_axis ? s->halo_axis[a] : s->halo;
        bnd[a] = !on ? HX_PERIODIC : s->per_axis ? s->boundary_axis[a] : s->boundary;
    }
}

/* the ghost cells a field keeps on every axis: the widest halo */
static int widest(const int halo[3])
{
    return halo[0] > halo[1] ? (halo[0] > halo[2] ? halo[0] : halo[2]) : (halo[1] > halo[2] ? halo[1] : halo[2]);
}

int hx_layout_create(hx_context *ctx, const hx_layout_desc *desc, hx_layout **out)
{
    hx_layout *l = calloc(1, sizeof *l);
    *out = l;
    int st = l ? check_desc(ctx, desc) : hx_fail(ctx, HX_ERR_RUNTIME, "out of host memory for a layout");
    if (st == HX_OK) {
        l->ctx = ctx;
        l->desc = *desc;
        int halo[3], ghost[3];
        hx_boundary bnd[3];
        hx_layout_axes(desc, halo, bnd);
        const int g = widest(halo);
        for (int a = 0; a < 3; a++) ghost[a] = a < desc->dim ? g : 0;
        if (desc->per_axis) l->desc.halo = g; /* what hx_layout_describe reports: the fields' ghost width */
        int global[3] = {desc->global[0], desc->global[1], desc->dim == 3 ? desc->global[2] : 1};
        int pgrid[3] = {desc->pgrid[0], desc->pgrid[1], desc->dim == 3 ? desc->pgrid[2] : 1};
        l->desc.global[2] = global[2];
        char why[256];
        if (!pgrid[0] && !pgrid[1] && (desc->dim == 2 || !desc->pgrid[2])) {
            if (hx_choose_grid(ctx->size, desc->dim, global, g > 0 ? g : 1, pgrid))
                st = hx_fail(ctx, HX_ERR_INPUT, "layout: %d ranks cannot split %dx%dx%d cells into blocks of at least "
                             "%d cell%s per axis: use fewer ranks or a larger grid", ctx->size, global[0], global[1],
                             global[2], g > 0 ? g : 1, g > 1 ? "s" : "");
        }
        /* every axis's blocks must hold its own halo; the fields keep the widest on every axis */
        hx_decomp check;
        if (st == HX_OK && hx_decomp_init_axes(&check, desc->dim, global, pgrid, ctx->rank, ctx->size, bnd, halo, why, sizeof why))
            st = hx_fail(ctx, HX_ERR_INPUT, "layout: %s", why);
        if (st == HX_OK && hx_decomp_init_axes(&l->d, desc->dim, global, pgrid, ctx->rank, ctx->size, bnd, ghost, why, sizeof why))
            st = hx_fail(ctx, HX_ERR_INPUT, "layout: %s", why);
        if (st == HX_OK && !desc->per_axis) l->d.boundary = desc->boundary;
        if (st == HX_OK) {
            memcpy(l->desc.pgrid, l->d.pgrid, sizeof l->d.pgrid);
            hx_backend_bind(&l->bk, &ctx->bk, &l->d, HX_JACOBI5, desc->dtype);
        }
    }
    return hx_agree(ctx, st);
}

void hx_layout_destroy(hx_layout *l)
{
    if (l && l->stage) l->bk.ops->free_host(&l->bk, l->stage);
    free(l);
}
const hx_decomp *hx_layout_decomp(const hx_layout *l) { return &l->d; }
const hx_layout_desc *hx_layout_describe(const hx_layout *l) { return &l->desc; }

int hx_field_geometry(hx_context *ctx, const hx_decomp *d, const hx_field *f, size_t elem, hx_decomp *view, void **base)
{
    if (!f || !f->data) return hx_fail(ctx, HX_ERR_INPUT, "field: no data pointer");
    int g = 0;
    for (int a = 0; a < d->dim; a++) g = d->ghost[a] > g ? d->ghost[a] : g;
    if (f->ghost < g) return hx_fail(ctx, HX_ERR_INPUT, "field: %d ghost cells per side, but the exchange fills %d: allocate a wider ghost", f->ghost, g);
    /* the view's ghost width on each axis lies inside the field's: its origin moves by the difference */
    const int ex = f->ghost - d->ghost[0], ey = f->ghost - d->ghost[1], ez = d->dim == 3 ? f->ghost - d->ghost[2] : 0;
    int need0 = d->local[0] + 2 * f->ghost, need1 = d->local[1] + 2 * f->ghost;
    if (f->pitch[0] < need0 || (d->dim == 3 && f->pitch[1] < need1))
        return hx_fail(ctx, HX_ERR_INPUT, "field: pitch %dx%d is smaller than the local block with its ghosts (%dx%d)", f->pitch[0],
                       f->pitch[1], need0, need1);
    *view = *d;
    view->alloc[0] = f->pitch[0];
    view->alloc[1] = d->dim == 3 ? f->pitch[1] : d->local[1] + 2 * f->ghost;
    long shift = (long)ex + (long)ey * view->alloc[0] + (long)ez * view->alloc[0] * view->alloc[1];
    *base = (char *)f->data + (size_t)shift * elem;
    return HX_OK;
}

/* l's backend, bound to f's geometry with the layout's own ghost width; base gets f's origin. */
static int bind_field(hx_layout *l, const hx_field *f, hx_decomp *view, hx_backend *bk, void **base)
{
    int st = hx_field_geometry(l->ctx, &l->d, f, l->bk.elem, view, base);
    if (st == HX_OK) hx_backend_bind(bk, &l->ctx->bk, view, HX_JACOBI5, l->desc.dtype);
    return st;
}

int hx_field_alloc(hx_layout *l, hx_field *f)
{
    memset(f, 0, sizeof *f);
    size_t bytes = (size_t)hx_alloc_cells(&l->d) * l->bk.elem;
    f->data = l->bk.ops->alloc(&l->bk, bytes);
    if (!f->data) return hx_fail(l->ctx, HX_ERR_RUNTIME, "cannot allocate a field of %zu bytes: %s", bytes, l->bk.err);
    f->ghost = l->d.ghost[0];
    f->pitch[0] = l->d.alloc[0];
    f->pitch[1] = l->d.alloc[1];
    return HX_OK;
}

void hx_field_free(hx_layout *l, hx_field *f)
{
    if (f && f->data) l->bk.ops->free(&l->bk, f->data);
    if (f) f->data = NULL;
}

int hx_field_init(hx_layout *l, const hx_field *f, uint64_t seed)
{
    hx_decomp view;
    hx_backend bk;
    void *base = NULL;
    int st = bind_field(l, f, &view, &bk, &base);
    if (st) return st;
    /* the field's own geometry, all its ghost cells: init_field zeroes the whole allocation (the
     * exchange's view of a field with wider ghosts starts inside it and would end past it) */
    for (int a = 0; a < l->d.dim; a++) view.ghost[a] = f->ghost;
    view.alloc[1] = l->d.dim == 3 ? f->pitch[1] : l->d.local[1] + 2 * f->ghost;
    view.alloc[2] = l->d.dim == 3 ? l->d.local[2] + 2 * f->ghost : 1;
    hx_backend_bind(&bk, &l->ctx->bk, &view, HX_JACOBI5, l->desc.dtype);
    if (bk.ops->init_field(&bk, f->data, seed) || bk.ops->sync(&bk, HX_STREAM_MAIN))
        return hx_fail(l->ctx, HX_ERR_RUNTIME, "initialising a field: %s", bk.err);
    return HX_OK;
}

#define HX_STAGE_KEEP ((size_t)16 << 20)

/* Owned cells of f to (in = 0) or from (in = 1) a contiguous host array. */
static int move_owned(hx_layout *l, const hx_field *f, void *owned, int in)
{
    hx_decomp view;
    hx_backend bk;
    void *base = NULL;
    char why[256];
    int st = bind_field(l, f, &view, &bk, &base);
    if (st) return st;
    const size_t need = hx_owned_stage_bytes(&view, bk.elem);
    void *stage = l->stage;
    if (need > l->stage_bytes) {
        /* a stage of up to HX_STAGE_KEEP bytes stays with the layout for the next call (mg moves its
         * small levels every cycle); a larger one (a whole big field, e.g. for .npy) is released */
        const int keep = need <= HX_STAGE_KEEP;
        if (keep && l->stage) {
            l->bk.ops->free_host(&l->bk, l->stage);
            l->stage = NULL, l->stage_bytes = 0;
        }
        if (!(stage = l->bk.ops->alloc_host(&l->bk, need)))
            return hx_fail(l->ctx, HX_ERR_RUNTIME, "out of host memory staging a field (%zu bytes): %s", need, l->bk.err);
        if (keep) l->stage = stage, l->stage_bytes = need;
    }
    st = in ? hx_owned_from_host(&bk, base, owned, stage, why, sizeof why) : hx_owned_to_host(&bk, base, owned, stage, why, sizeof why);
    if (stage != l->stage) l->bk.ops->free_host(&l->bk, stage);
    return st ? hx_fail(l->ctx, HX_ERR_RUNTIME, "%s", why) : HX_OK;
}

int hx_field_get_owned(hx_layout *l, const hx_field *f, void *owned) { return move_owned(l, f, owned, 0); }
int hx_field_set_owned(hx_layout *l, const hx_field *f, const void *owned) { return move_owned(l, f, (void *)owned, 1); }

/* The owned cells of f on the host, or NULL with ctx->err. */
static void *owned_copy(hx_layout *l, const hx_field *f)
{
    const hx_decomp *d = &l->d;
    size_t bytes = (size_t)d->local[0] * d->local[1] * d->local[2] * l->bk.elem;
    void *owned = malloc(bytes ? bytes : 1);
    if (!owned) return hx_fail(l->ctx, HX_ERR_RUNTIME, "out of host memory copying a field (%zu bytes)", bytes), NULL;
    if (hx_field_get_owned(l, f, owned)) return free(owned), NULL;
    return owned;
}

int hx_field_write_npy(hx_layout *l, const hx_field *f, const char *path)
{
    void *owned = owned_copy(l, f);
    int st = owned ? HX_OK : HX_ERR_RUNTIME;
    char why[256];
    if (owned && hx_write_npy(l->ctx->comm, path, &l->d, l->desc.dtype, owned, why, sizeof why))
        st = hx_fail(l->ctx, HX_ERR_RUNTIME, "%s", why);
    free(owned);
    return hx_agree(l->ctx, st);
}

int hx_field_gather(hx_layout *l, const hx_field *f, void *global)
{
    void *owned = owned_copy(l, f);
    int st = owned ? HX_OK : HX_ERR_RUNTIME;
    if ((st = hx_agree(l->ctx, st)) != HX_OK) return free(owned), st;
    char why[256];
    if (hx_gather_global(l->ctx->comm, &l->d, l->desc.dtype, owned, global, why, sizeof why))
        st = hx_fail(l->ctx, HX_ERR_RUNTIME, "%s", why);
    free(owned);
    return hx_agree(l->ctx, st);
}

int hx_field_checksum(hx_layout *l, const hx_field *f, uint64_t *sum)
{
    const hx_decomp *d = &l->d;
    void *owned = owned_copy(l, f);
    int st = owned ? HX_OK : HX_ERR_RUNTIME;
    uint64_t mine = owned ? hx_checksum_cells(l->desc.dtype, owned, (long)d->local[0] * d->local[1] * d->local[2]) : 0;
    free(owned);
    if ((st = hx_agree(l->ctx, st)) != HX_OK) return st;
    if (MPI_Allreduce(&mine, sum, 1, MPI_UINT64_T, MPI_SUM, l->ctx->comm) != MPI_SUCCESS)
        return hx_fail(l->ctx, HX_ERR_RUNTIME, "MPI_Allreduce of the checksum failed");
    return HX_OK;
}
