/* C helpers of the Fortran module: the functions a libhalox may lack (declared weak, so that
 * libhalox_fortran loads against an older libhalox and reports the lack instead of failing to
 * load), and the decimal text of an unsigned 64-bit checksum (Fortran has no unsigned type). */
#include <halox/halox.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#pragma weak hx_exchange_run_many
#pragma weak hx_operator_create
#pragma weak hx_operator_named
#pragma weak hx_operator_load
#pragma weak hx_operator_destroy
#pragma weak hx_operator_radius

#define HXF_ABSENT (-1)

/* 1 when the loaded libhalox has the named function of those above. */
int hxf_has(const char *name)
{
    if (!strcmp(name, "hx_exchange_run_many")) return hx_exchange_run_many != NULL;
    if (!strcmp(name, "hx_operator_create")) return hx_operator_create != NULL;
    if (!strcmp(name, "hx_operator_named")) return hx_operator_named != NULL;
    if (!strcmp(name, "hx_operator_load")) return hx_operator_load != NULL;
    return 1;
}

int hxf_exchange_run_many(hx_exchange *x, int n, const hx_field *f, void *stream)
{
    return hx_exchange_run_many ? hx_exchange_run_many(x, n, f, stream) : HXF_ABSENT;
}
int hxf_operator_create(hx_context *ctx, const hx_operator_desc *d, hx_operator **out)
{
    return hx_operator_create ? hx_operator_create(ctx, d, out) : HXF_ABSENT;
}
int hxf_operator_named(hx_context *ctx, const char *name, int dtype, hx_operator **out)
{
    return hx_operator_named ? hx_operator_named(ctx, name, (hx_dtype)dtype, out) : HXF_ABSENT;
}
int hxf_operator_load(hx_context *ctx, const char *path, int dtype, hx_operator **out)
{
    return hx_operator_load ? hx_operator_load(ctx, path, (hx_dtype)dtype, out) : HXF_ABSENT;
}
void hxf_operator_destroy(hx_operator *op)
{
    if (hx_operator_destroy) hx_operator_destroy(op);
}
int hxf_operator_radius(const hx_operator *op) { return hx_operator_radius ? hx_operator_radius(op) : -1; }

/* v's decimal digits, NUL-terminated, in buf (at least 21 bytes). */
void hxf_u64_text(uint64_t v, char *buf) { snprintf(buf, 21, "%" PRIu64, v); }
