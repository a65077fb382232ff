/* Single-domain reference: halox's stencil problem on one process, with no decomposition and no
 * halo machinery (periodic wrap or zero cells filled directly each sweep). Every decomposed run
 * is compared with it bit for bit. */
#ifndef HALOX_REFERENCE_H
#define HALOX_REFERENCE_H

#include "halox/stencil.h"
#include "halox/operator.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int dim;
    int size[3];     /* global cells per axis (size[2] = 1 in 2D) */
    hx_stencil_id stencil;
    hx_dtype dtype;
    hx_boundary boundary;
    uint64_t seed;   /* initial field: hx_initial_value(seed, global index) */
    long iters;      /* sweeps */
    const hx_operator *op;    /* a user operator instead of `stencil` (NULL: the stencil) */
    const void *const *coef;  /* op's coefficient fields as global arrays of NX*NY*NZ cells of the
                                 dtype; NULL: each from hx_initial_value(seed + 1 + c, index) */
} hx_problem;

/* Computes p->iters sweeps into out (NX*NY*NZ cells of p->dtype, x fastest).
 * Returns 0, or -1 when memory runs out or p->op's dim or dtype is not the problem's. */
int hx_reference_run(const hx_problem *p, void *out);

/* Compare two global fields of n cells: returns the number of cells whose bits differ and the
 * largest absolute difference; *first_bad gets the first differing index (or -1). */
long hx_compare_fields(hx_dtype t, const void *a, const void *b, long n, double *max_abs, long *first_bad);

/* The order-independent checksum of hx_field_checksum over a contiguous array of n cells. */
uint64_t hx_checksum_cells(hx_dtype t, const void *cells, long n);

#ifdef __cplusplus
}
#endif
#endif
