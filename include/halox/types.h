/* Basic types shared by every layer of halox: boxes, enums, status codes. */
#ifndef HALOX_TYPES_H
#define HALOX_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HX_MAX_DIM 3
#define HX_MAX_PHASES 3
#define HX_MAX_MSGS 26 /* per phase */
#define HX_MAX_OUTER_BOXES 6

typedef enum { HX_OK = 0, HX_ERR_INPUT = 2, HX_ERR_RUNTIME = 3, HX_ERR_VERIFY = 4 } hx_status;

typedef enum { HX_FLOAT = 0, HX_DOUBLE = 1 } hx_dtype;
typedef enum { HX_STAGED = 0, HX_DIRECT = 1 } hx_pattern;
typedef enum { HX_PERIODIC = 0, HX_FIXED = 1 } hx_boundary;

static inline size_t hx_dtype_size(hx_dtype t) { return t == HX_DOUBLE ? 8 : 4; }

/* A half-open box [lo, hi) in local array coordinates (ghost cells included, x fastest).
 * Unused dimensions span [0, 1). */
typedef struct {
    int lo[HX_MAX_DIM];
    int hi[HX_MAX_DIM];
} hx_box;

static inline long hx_box_cells(const hx_box *b)
{
    long n = 1;
    for (int a = 0; a < HX_MAX_DIM; a++) {
        int e = b->hi[a] - b->lo[a];
        if (e <= 0) return 0;
        n *= e;
    }
    return n;
}

#ifdef __cplusplus
}
#endif
#endif
