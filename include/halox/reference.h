/* Single-domain reference: the same problem on one process, with no decomposition and no halo
 * machinery (periodic wrap or zero cells filled directly each sweep). --verify and the tests
 * compare every decomposed run against it bit for bit. */
#ifndef HALOX_REFERENCE_H
#define HALOX_REFERENCE_H

#include "halox/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Computes cfg->iters sweeps of cfg's problem into out (NX*NY*NZ cells of cfg->dtype, x fastest).
 * Returns 0, or -1 when memory runs out. */
int hx_reference_run(const hx_config *cfg, void *out);

/* Compare two global fields of n cells: returns the number of cells whose bits differ and the
 * largest absolute difference; *first_bad gets the first differing index (or -1). */
long hx_compare_fields(hx_dtype t, const void *a, const void *b, long n, double *max_abs, long *first_bad);

#ifdef __cplusplus
}
#endif
#endif
