/* The 3D pass kernel whose passes fuse sweeps (--fuse > 1 in 3D under --schedule fused and
 * persistent): its instances, their block shape, and the plans of their passes. C++ (CUDA) only:
 * hx_f3plan is persistent_kernel.cuh's. */
#ifndef HALOX_PERSISTENT_FUSED3D_H
#define HALOX_PERSISTENT_FUSED3D_H

#include <stddef.h>

#include "exec/persistent_kernel.cuh"
#include "halox/decomp.h"
#include "halox/stencil.h"

typedef struct {
    void *kernel; /* hx_persistent_f3_kernel<T, ST, levels, S>, whose parameter is an hx_f3params */
    int lanes;    /* S: the lanes of a tile row (fused3d_tile; 16 only for floats) */
    int threads;  /* a block: the fused body's S x BY / RY */
    size_t smem;  /* dynamic shared memory a block: the fused body's */
    /* the plans of its passes for a cycle of `depth` sweeps over `slots` blocks: depth - levels + 1
     * (at most HX_F3_PLANS) */
    void (*plans)(const hx_decomp *d, int depth, long slots, hx_f3plan *out);
    /* the cost model's figure for a cycle's passes (hx_f3_cost), to choose S */
    double (*cost)(const hx_decomp *d, int depth, long slots);
} hx_f3_kernel;

/* The instance for `levels` sweeps of stencil st (3D: jacobi7, star13) in dtype t with tile rows of
 * `lanes` lanes (32, or 16 for floats); 0, or -1 where none exists (levels x radius beyond
 * HX_FUSE_MAX_3D, a 2D stencil, 16 lanes of doubles). */
int hx_f3_pick(hx_dtype t, hx_stencil_id st, int levels, int lanes, hx_f3_kernel *out);

#endif
