/* hx_operator: a user's own stencil, described as data.
 *
 * An operator is a dimension, a dtype and an ordered list of terms. Each term reads the field at
 * an offset (dx, dy, dz) from the cell being updated, optionally multiplies it by a read-only
 * coefficient field sampled at its own offset, and scales it by a weight:
 *
 *     term_t = w_t * u[x + d_t]                      (coef_t < 0)
 *     term_t = w_t * (a_{coef_t}[x + c_t] * u[x + d_t])   (coef_t >= 0)
 *     u'[x]  = ((term_0 + term_1) + term_2) + ...    (list order, left to right)
 *
 * The weight is rounded to the operator's dtype once. The sum is evaluated in exactly this order
 * by every backend and kernel (FMA contraction is off in halox's builds), so an operator gives
 * bit-identical fields across backends, transports, patterns, schedules, depths, fuse levels and
 * rank counts, and against hx_reference_run driven by the same operator.
 *
 * Offsets lie within radius 4 per axis in 2D and 2 in 3D (dz and c[2] are 0 in 2D). Any shape is
 * allowed: star, box, one-sided. The operator's radius is the largest |offset| over every axis,
 * coefficient offsets included; a sweeper of depth D needs a halo of at least D x radius.
 *
 * Coefficient fields (0..HX_OP_MAX_COEF) have the layout and dtype of the swept field; the sweeper
 * takes them at set-up, exchanges their ghosts once and never writes them. */
#ifndef HALOX_OPERATOR_H
#define HALOX_OPERATOR_H

#include "halox/context.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HX_OP_MAX_TERMS 128    /* a 3D radius-2 box has 125 terms */
#define HX_OP_MAX_COEF 4
#define HX_OP_MAX_RADIUS_2D 4
#define HX_OP_MAX_RADIUS_3D 2

typedef struct {
    int d[3];      /* offset of the cell read: dx, dy, dz */
    double weight; /* rounded to the operator's dtype */
    int coef;      /* -1: no coefficient; else which coefficient field multiplies the value */
    int c[3];      /* offset of the coefficient cell (ignored when coef < 0) */
} hx_term;

typedef struct {
    size_t struct_size;   /* sizeof(hx_operator_desc) as the caller was compiled; 0 = this version */
    const char *name;     /* shown in reports; NULL: "custom" */
    int dim;              /* 2 or 3 */
    hx_dtype dtype;
    int nterms;           /* 1..HX_OP_MAX_TERMS */
    const hx_term *terms; /* copied */
    int ncoef;            /* coefficient fields the terms may name (0..HX_OP_MAX_COEF) */
} hx_operator_desc;

typedef struct hx_operator hx_operator;

/* Collective over ctx (every rank passes the same description). HX_ERR_INPUT on every rank, with
 * one line in hx_context_error, for: no terms, too many, an offset beyond the radius limit, a
 * non-zero z offset in 2D, a coefficient index outside 0..ncoef-1, a weight that is not finite. */
int hx_operator_create(hx_context *ctx, const hx_operator_desc *desc, hx_operator **out);
/* Collective: halox's named operators as data: "box9" (2D, the 3x3 box, weights 1/9) and "box27"
 * (3D, the 3x3x3 box, weights 1/27), and the four built-ins written as terms ("jacobi5",
 * "jacobi7", "star9", "star13": the same weights, summed in list order, so not the built-ins' bits). */
int hx_operator_named(hx_context *ctx, const char *name, hx_dtype dtype, hx_operator **out);
/* Collective: an operator from a text file (format: docs/operators.md). Every rank reads it; a bad
 * file is HX_ERR_INPUT on every rank, the message naming the file, line and fix. */
int hx_operator_load(hx_context *ctx, const char *path, hx_dtype dtype, hx_operator **out);
void hx_operator_destroy(hx_operator *op);

/* What the operator is: its description (terms included; valid while op lives) and its radius. */
const hx_operator_desc *hx_operator_describe(const hx_operator *op);
int hx_operator_radius(const hx_operator *op);

#ifdef __cplusplus
}
#endif
#endif
