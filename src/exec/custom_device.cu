/* hx_custom's device schedules (custom_device.h): the functor's kernel, instantiated in the user's
 * own .cu file (halox/kernels/persistent.cuh), runs whole cycles with the exchange on the device;
 * this side gives it the exchange's tables and watches it. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "compute/backend.h"
#include "exec/custom_device.h"
#include "exec/persistent.h"
#include "halox/kernels/detail/exchange.cuh"
#include "transport/device_area.h"
#include "transport/device_watch.h"
#include "transport/fault.h"

struct hx_custom_dev {
    hx_exchange *x;
    int nf, device;
    long xoff, sy, sz;
    hx_dev_table *tables; /* device: nf of them */
    hx_dev_watch w;
};

static int setup(hx_custom_dev *dv, size_t elem, char *err, size_t n)
{
    hx_exchange *x = dv->x;
    hx_dev_table base_table;
    if (!x->tr.ops->device_table || x->tr.ops->device_table(&x->tr, &base_table))
        return snprintf(err, n, "transport %s: %s", x->tr.ops->name, x->tr.ops->device_table ? x->tr.err : "no device path"), -1;
    hx_dev_table *t = (hx_dev_table *)malloc((size_t)dv->nf * sizeof *t);
    if (!t) return snprintf(err, n, "out of host memory for the device tables"), -1;
    if (hx_dev_tables_fields(&base_table, x->tr.bk->elem, &x->plan, dv->nf, elem, t, err, n)) return free(t), -1;
    cudaError_t e = cudaMalloc((void **)&dv->tables, (size_t)dv->nf * sizeof *t);
    if (e == cudaSuccess) e = cudaMemcpy(dv->tables, t, (size_t)dv->nf * sizeof *t, cudaMemcpyHostToDevice);
    free(t);
    HX_CUDA_TRY(e);
    HX_CUDA_TRY(cudaGetDevice(&dv->device));
    return hx_dev_watch_alloc(&dv->w, 1, err, n);
}

int hx_custom_dev_create(hx_exchange *x, long xoff, long sy, long sz, int nf, size_t elem, hx_custom_dev **out, char *err, size_t n)
{
    hx_custom_dev *dv = (hx_custom_dev *)calloc(1, sizeof *dv);
    *out = dv;
    if (!dv) return snprintf(err, n, "out of host memory"), -1;
    dv->x = x;
    dv->nf = nf;
    dv->xoff = xoff;
    dv->sy = sy;
    dv->sz = sz;
    return setup(dv, elem, err, n);
}

void hx_custom_dev_destroy(hx_custom_dev *dv)
{
    if (!dv) return;
    cudaFree(dv->tables);
    hx_dev_watch_free(&dv->w);
    free(dv);
}

int hx_custom_dev_run(hx_custom_dev *dv, const hx_kernel_table *kt, hx_custom_run *r, int per_cycle, int *cur, char *err, size_t n)
{
    cudaStream_t st = (cudaStream_t)r->stream;
    hx_transport *tr = &dv->x->tr;
    r->xoff = dv->xoff;
    r->sy = dv->sy;
    r->sz = dv->sz;
    r->tables = dv->tables;
    r->skip_from = hx_fault_skip_puts(r->rank); /* test builds: this rank stops putting */
    r->timeout_ns = (unsigned long long)(hx_timeout_seconds() * 1e9);
    r->watch = dv->w.dev;
    r->abort_flag = dv->w.abort_flag;
    r->bar = dv->w.bar;
    r->cur_out = dv->w.cur_out;
    r->err = err;
    r->errlen = n;
    HX_CUDA_TRY(cudaMemcpyAsync(dv->w.cur_out, cur, sizeof(int), cudaMemcpyHostToDevice, st));
    const long sweeps = r->sweeps;
    for (long done = 0; done < sweeps;) {
        /* a fused schedule: a launch a cycle, queued back to back (the kernel keeps cur on the device) */
        const long m = per_cycle && sweeps - done > r->depth ? r->depth : sweeps - done;
        r->sweeps = m;
        r->exch0 = tr->dev_exchanges;
        if (kt->persistent(r)) return -1;
        tr->dev_exchanges += (unsigned long long)((m + r->depth - 1) / r->depth); /* a cycle an exchange */
        done += m;
    }
    r->sweeps = sweeps;
    if (hx_device_wait(st, dv->w.host, "custom persistent", dv->device, err, n)) return -1;
    HX_CUDA_TRY(cudaMemcpy(cur, dv->w.cur_out, sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}
