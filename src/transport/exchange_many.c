/* Many fields in one exchange: the word plan, and start/finish/run of n fields (exchange_many.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "transport/exchange_many.h"
#include "transport/word_plan.h"

int hx_many_check(hx_context *ctx, const hx_layout *l, const hx_exchange_options *o, int status, int *many)
{
    int st = status, n = o->nfields ? o->nfields : 1;
    *many = 0;
    if (st == HX_OK && (o->nfields < 0 || o->nfields > HX_MAX_FIELDS))
        st = hx_fail(ctx, HX_ERR_INPUT, "exchange: nfields %d: give 1 to %d fields (0 means 1)", o->nfields, HX_MAX_FIELDS);
    for (int i = 0; st == HX_OK && o->dtypes && i < n; i++)
        if (o->dtypes[i] != HX_FLOAT && o->dtypes[i] != HX_DOUBLE)
            st = hx_fail(ctx, HX_ERR_INPUT, "exchange: dtypes[%d] is %d: give HX_FLOAT or HX_DOUBLE", i, (int)o->dtypes[i]);
    /* every rank must pack the same messages: the count and the dtypes agree */
    long code[2] = {-1, -1}, lo[2], hi[2];
    if (st == HX_OK) {
        code[0] = n;
        code[1] = 0;
        for (int i = 0; i < n; i++)
            if ((o->dtypes ? o->dtypes[i] : l->desc.dtype) == HX_DOUBLE) code[1] |= 1L << i;
    }
    if (MPI_Allreduce(code, lo, 2, MPI_LONG, MPI_MIN, ctx->comm) != MPI_SUCCESS ||
        MPI_Allreduce(code, hi, 2, MPI_LONG, MPI_MAX, ctx->comm) != MPI_SUCCESS)
        return hx_fail(ctx, HX_ERR_RUNTIME, "exchange: MPI_Allreduce of nfields failed");
    if (st == HX_OK && lo[0] >= 0 && (lo[0] != hi[0] || lo[1] != hi[1]))
        st = hx_fail(ctx, HX_ERR_INPUT, "exchange: nfields or dtypes differ between ranks: give every rank the same");
    *many = n > 1 || (o->dtypes && o->dtypes[0] != l->desc.dtype);
    return st;
}

int hx_many_create(hx_exchange *x, const hx_exchange_options *o)
{
    hx_exchange_many *mf = calloc(1, sizeof *mf);
    if (!mf) return hx_fail(x->ctx, HX_ERR_RUNTIME, "out of host memory for an exchange");
    x->many = mf;
    mf->nfields = o->nfields ? o->nfields : 1;
    long pos = 0, widest = 4;
    for (int i = 0; i < mf->nfields; i++) {
        mf->dtype[i] = o->dtypes ? o->dtypes[i] : x->layout->desc.dtype;
        const long e = (long)hx_dtype_size(mf->dtype[i]);
        pos = (pos + e - 1) / e * e;
        mf->place[i] = pos;
        pos += e;
        if (e > widest) widest = e;
    }
    mf->stride = (pos + widest - 1) / widest * widest;
    const long half = x->plan.max_phase_cells * mf->stride / 4;
    if (x->plan.max_phase_cells > (INT_MAX / 2 - 1) / (mf->stride / 4))
        return hx_fail(x->ctx, HX_ERR_INPUT, "exchange: the halo messages of %d fields exceed 4 GiB a phase: use fewer fields, a "
                       "narrower halo or more ranks", mf->nfields);
    hx_word_plan(&mf->wplan, &x->plan, mf->stride);
    mf->nplan = mf->wplan;
    mf->nplan_n = mf->nfields;
    mf->kwords = half;
    mf->wd = x->d;
    mf->wd.alloc[0] = (int)(2 * half + 1);
    mf->wd.alloc[1] = mf->wd.alloc[2] = 1;
    hx_backend_bind(&mf->wbk, &x->ctx->bk, &mf->wd, HX_JACOBI5, HX_FLOAT);
    return HX_OK;
}

int hx_many_buffers(hx_exchange *x)
{
    hx_exchange_many *mf = x->many;
    if (!mf || !x->tr.ops->put) return HX_OK;
    size_t bytes = (size_t)mf->kwords * 8;
    mf->kbuf = x->bk.ops->alloc(&x->bk, bytes ? bytes : 1);
    if (!mf->kbuf) return hx_fail(x->ctx, HX_ERR_RUNTIME, "cannot allocate the %zu-byte packed buffer of %d fields: %s", bytes, mf->nfields, x->bk.err);
    return HX_OK;
}

void hx_many_destroy(hx_exchange *x)
{
    if (!x->many) return;
    if (x->many->kbuf) x->bk.ops->free(&x->bk, x->many->kbuf);
    free(x->many);
    x->many = NULL;
}

static int transport_failed(hx_exchange *x) { return hx_fail(x->ctx, HX_ERR_RUNTIME, "transport %s: %s", x->tr.ops->name, x->tr.err); }

/* Point the exchange at n fields and the stream; the transport at the messages of n fields. */
static int bind_many(hx_exchange *x, int n, const hx_field *fields, void *stream, int *slot)
{
    hx_exchange_many *mf = x->many;
    const int most = mf ? mf->nfields : 1;
    if (n < 1 || n > most)
        return hx_fail(x->ctx, HX_ERR_INPUT, "exchange: %d fields in one call: give 1 to %d (the exchange's nfields)", n, most);
    if (!fields) return hx_fail(x->ctx, HX_ERR_INPUT, "exchange: no fields given");
    for (int i = 0; i < n; i++) {
        int st = hx_field_geometry(x->ctx, &x->d, &fields[i], hx_dtype_size(mf->dtype[i]), &mf->view[i], &mf->base[i]);
        if (st) return st;
        hx_backend_bind(&mf->fbk[i], &x->ctx->bk, &mf->view[i], HX_JACOBI5, mf->dtype[i]);
        mf->pf.field[i] = mf->base[i];
        mf->pf.sy[i] = mf->view[i].alloc[0];
        mf->pf.sz[i] = (long)mf->view[i].alloc[0] * mf->view[i].alloc[1];
        mf->pf.place[i] = mf->place[i];
        mf->pf.esize[i] = (int)hx_dtype_size(mf->dtype[i]);
    }
    mf->pf.n = n;
    mf->pf.stride = mf->stride;
    *slot = HX_STREAM_MAIN;
    if (stream && x->bk.ops->use_stream) {
        if (x->bk.ops->use_stream(&x->bk, HX_STREAM_USER, stream)) return hx_fail(x->ctx, HX_ERR_RUNTIME, "exchange: %s", x->bk.err);
        *slot = HX_STREAM_USER;
    }
    /* the transports that read counts per call (not the kernel path, whose table is fixed) send
     * only the boxes of the n fields: each message keeps its offset, its count shrinks */
    if (!x->tr.ops->put && mf->nplan_n != n) {
        const long bytes = mf->place[n - 1] + (long)hx_dtype_size(mf->dtype[n - 1]);
        for (int p = 0; p < x->plan.nphases; p++)
            for (int m = 0; m < x->plan.phase[p].nmsg; m++) mf->nplan.phase[p].msg[m].count = x->plan.phase[p].msg[m].count * bytes / 4;
        mf->nplan_n = n;
    }
    x->tr.plan = x->tr.ops->put ? &mf->wplan : &mf->nplan;
    return HX_OK;
}

/* Pack (to = 1) or unpack field i of phase p between the field and the packed buffer buf. */
static int move_field(hx_exchange *x, int p, int i, int slot, void *buf, int to)
{
    hx_exchange_many *mf = x->many;
    const hx_phase *c = &x->plan.phase[p];
    const long e = (long)hx_dtype_size(mf->dtype[i]);
    mf->ph = *c;
    for (int m = 0; m < c->nmsg; m++) mf->ph.msg[m].offset = (c->msg[m].offset * mf->stride + c->msg[m].count * mf->place[i]) / e;
    hx_backend *bk = &mf->fbk[i];
    int rc = to ? bk->ops->pack(bk, slot, &mf->ph, mf->base[i], buf) : bk->ops->unpack(bk, slot, &mf->ph, buf, mf->base[i]);
    return rc ? hx_fail(x->ctx, HX_ERR_RUNTIME, "%s backend: %s", bk->ops->name, bk->err) : HX_OK;
}

static int pack_all(hx_exchange *x, int n, int p, int slot, void *buf, int to)
{
    hx_backend *bk = &x->many->fbk[0];
    if (bk->ops->pack_many) /* one launch for every field */
        return bk->ops->pack_many(bk, slot, &x->plan.phase[p], &x->many->pf, buf, to)
                   ? hx_fail(x->ctx, HX_ERR_RUNTIME, "%s backend: %s", bk->ops->name, bk->err) : HX_OK;
    for (int i = 0; i < n; i++) {
        int st = move_field(x, p, i, slot, buf, to);
        if (st) return st;
    }
    return HX_OK;
}

static int send_phase(hx_exchange *x, int n, int p, int slot)
{
    hx_exchange_many *mf = x->many;
    int st;
    if (x->tr.ops->put) {
        if ((st = pack_all(x, n, p, slot, mf->kbuf, 1)) != HX_OK) return st;
        return x->tr.ops->put(&x->tr, p, slot, mf->kbuf) ? transport_failed(x) : HX_OK;
    }
    if ((st = pack_all(x, n, p, slot, x->tr.send_buf[p], 1)) != HX_OK) return st;
    int rc = x->tr.ops->caps & HX_PATH_HOST ? x->tr.ops->post(&x->tr, p, slot) : x->tr.ops->enqueue(&x->tr, p, slot);
    return rc ? transport_failed(x) : HX_OK;
}

static int receive_phase(hx_exchange *x, int n, int p, int slot)
{
    hx_exchange_many *mf = x->many;
    if (x->tr.ops->get) {
        if (x->tr.ops->get(&x->tr, p, slot, mf->kbuf)) return transport_failed(x);
        return pack_all(x, n, p, slot, (char *)mf->kbuf + mf->kwords * 4, 0);
    }
    if ((x->tr.ops->caps & HX_PATH_HOST) && x->tr.ops->wait(&x->tr, p, slot)) return transport_failed(x);
    return pack_all(x, n, p, slot, x->tr.recv_buf[p], 0);
}

static int no_messages(const hx_exchange *x)
{
    for (int p = 0; p < x->plan.nphases; p++)
        if (x->plan.phase[p].nmsg) return 0;
    return 1;
}

/* One field, on an exchange set up for one: the single-field calls. */
static int single(const hx_exchange *x, int n, const hx_field *fields)
{
    return !x->many && n == 1 && fields;
}

int hx_exchange_start_many(hx_exchange *x, int n, const hx_field *fields, void *stream)
{
    int slot, st;
    if (single(x, n, fields)) return hx_exchange_start(x, fields, stream);
    if (x->started) return hx_fail(x->ctx, HX_ERR_INPUT, "exchange: start called twice without finish");
    if (!x->many) return bind_many(x, n, fields, stream, &slot); /* says what n may be */
    if ((st = bind_many(x, n, fields, stream, &slot)) != HX_OK) return st;
    if (!no_messages(x) && (st = send_phase(x, n, 0, slot)) != HX_OK) return st;
    x->started = 1;
    return HX_OK;
}

int hx_exchange_finish_many(hx_exchange *x, int n, const hx_field *fields, void *stream)
{
    int slot, st;
    if (single(x, n, fields)) return hx_exchange_finish(x, fields, stream);
    if (!x->started) return hx_fail(x->ctx, HX_ERR_INPUT, "exchange: finish called without start");
    x->started = 0;
    if ((st = bind_many(x, n, fields, stream, &slot)) != HX_OK || no_messages(x)) return st;
    for (int p = 0; p < x->plan.nphases; p++) {
        if (p > 0 && (st = send_phase(x, n, p, slot)) != HX_OK) return st;
        if ((st = receive_phase(x, n, p, slot)) != HX_OK) return st;
    }
    return HX_OK;
}

int hx_exchange_run_many(hx_exchange *x, int n, const hx_field *fields, void *stream)
{
    int slot, st;
    if (single(x, n, fields)) return hx_exchange_run(x, fields, stream);
    if (!x->many) return bind_many(x, n, fields, stream, &slot);
    if (no_messages(x) && !x->started) return bind_many(x, n, fields, stream, &slot);
    if (x->tr.ops->putget && !x->started) { /* a kernel path: pack, one launch a phase, unpack */
        hx_exchange_many *mf = x->many;
        if ((st = bind_many(x, n, fields, stream, &slot)) != HX_OK) return st;
        for (int p = 0; p < x->plan.nphases; p++) {
            if ((st = pack_all(x, n, p, slot, mf->kbuf, 1)) != HX_OK) return st;
            if (x->tr.ops->putget(&x->tr, p, slot, mf->kbuf)) return transport_failed(x);
            if ((st = pack_all(x, n, p, slot, (char *)mf->kbuf + mf->kwords * 4, 0)) != HX_OK) return st;
        }
        return HX_OK;
    }
    st = hx_exchange_start_many(x, n, fields, stream);
    return st ? st : hx_exchange_finish_many(x, n, fields, stream);
}
