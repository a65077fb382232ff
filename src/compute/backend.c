/* Backend selection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/backend.h"
#include "core/operator_priv.h"

int hx_backend_create(hx_backend *bk, hx_backend_kind kind, const hx_decomp *d, hx_stencil_id stencil,
                      hx_dtype dtype, int device, char *err, size_t errlen)
{
    memset(bk, 0, sizeof *bk);
    bk->decomp = d;
    bk->stencil = stencil;
    bk->dtype = dtype;
    bk->elem = hx_dtype_size(dtype);
    if (kind == HX_BACKEND_CUDA) return hx_cuda_backend_create(bk, device, err, errlen);
    return hx_cpu_backend_create(bk, err, errlen);
}

void hx_backend_bind(hx_backend *view, const hx_backend *base, const hx_decomp *d, hx_stencil_id stencil, hx_dtype dtype)
{
    *view = *base;
    view->decomp = d;
    view->stencil = stencil;
    view->dtype = dtype;
    view->elem = hx_dtype_size(dtype);
    view->op = NULL;
    memset(view->coef, 0, sizeof view->coef);
    view->err[0] = 0;
}

int hx_backend_radius(const hx_backend *bk)
{
    if (bk->op) return bk->op->radius;
    const hx_stencil_info *st = hx_stencil_get(bk->stencil);
    return st ? st->radius : 0;
}

int hx_field_lead(hx_backend *bk, const hx_decomp *d, int radius)
{
    return bk->ops->field_lead ? bk->ops->field_lead(bk, d, radius) : 0;
}

void *hx_backend_alloc_field(hx_backend *bk, size_t bytes, int lead)
{
    if (lead == 0) return bk->ops->alloc(bk, bytes);
    char *p = bk->ops->alloc(bk, bytes + (size_t)(lead + 2 * HX_ROW_ALIGN) * bk->elem);
    return p ? p + (size_t)lead * bk->elem : NULL;
}

void hx_backend_free_field(hx_backend *bk, void *origin, int lead)
{
    if (origin) bk->ops->free(bk, (char *)origin - (size_t)lead * bk->elem);
}

double hx_timeout_seconds(void)
{
    const char *e = getenv("HALOX_TIMEOUT");
    double v = e ? atof(e) : 0;
    return v > 0 ? v : 60.0;
}

#ifndef HALOX_HAVE_CUDA
int hx_cuda_built(void) { return 0; }
int hx_cuda_device_count(void) { return 0; }
int hx_cuda_max_smem(int device)
{
    (void)device;
    return 0;
}
void hx_cuda_device_name(int device, char *name, size_t n)
{
    (void)device;
    if (n) name[0] = 0;
}
void hx_cuda_device_pci(int device, char *bus, size_t n)
{
    (void)device;
    if (n) bus[0] = 0;
}
void hx_cuda_print_info(FILE *out)
{
    fprintf(out, "cuda       not built (no nvcc at configure time, or -DHALOX_CUDA=OFF)\n");
}
int hx_cuda_backend_create(hx_backend *bk, int device, char *err, size_t errlen)
{
    (void)bk;
    (void)device;
    snprintf(err, errlen, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use the cpu backend");
    return -1;
}
#endif
