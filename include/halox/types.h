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

/* In a fused pass (fuse > 1, cuda backend), fused sweeps x stencil radius is at most HX_FUSE_MAX in
 * 2D (one thread's registers hold 2R+1 rows of every level) and HX_FUSE_MAX_3D in 3D (a block's x-y
 * tile recomputes a halo of fuse x radius cells on every side, and its registers and shared memory
 * hold 2R+1 planes of every level) */
#define HX_FUSE_MAX 8
#define HX_FUSE_MAX_3D 4

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
