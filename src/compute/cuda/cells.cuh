/* The per-cell sweep body over a set of thin boxes (the boundary shell of an overlapped sweep). */
#ifndef HALOX_CUDA_CELLS_CUH
#define HALOX_CUDA_CELLS_CUH

#include "compute/backend.h"
#include "compute/cuda/common.cuh"

/* Thin boxes: one thread per cell, every box of the set in one launch. Same arithmetic through
 * the pointer forms of halox/stencil.h. */
struct box_set {
    int n;
    int lo[HX_MAX_OUTER_BOXES][3], ext[HX_MAX_OUTER_BOXES][3];
    long first[HX_MAX_OUTER_BOXES + 1]; /* prefix sums of cell counts */
};

/* A grid-stride loop over the cells of the set: block is this block's index and nblocks the number
 * of blocks striding together (blockIdx.x and gridDim.x of a 1D launch). */
template <typename T>
__device__ __forceinline__ void sweep_cells_body(const T *__restrict__ src, T *__restrict__ dst, const box_set &set,
                                                 int stencil, long sy, long sz, unsigned block, unsigned nblocks)
{
    for (long i = block * (long)blockDim.x + threadIdx.x; i < set.first[set.n]; i += (long)nblocks * blockDim.x) {
        int b = 0;
        while (i >= set.first[b + 1]) b++;
        const long j = i - set.first[b], row = j / set.ext[b][0];
        const int x = set.lo[b][0] + (int)(j - row * set.ext[b][0]);
        const int y = set.lo[b][1] + (int)(row % set.ext[b][1]), z = set.lo[b][2] + (int)(row / set.ext[b][1]);
        const long f = x + sy * y + sz * z;
        if (sizeof(T) == 8) dst[f] = (T)hx_stencil_apply_f64(stencil, (const double *)src + f, sy, sz);
        else dst[f] = (T)hx_stencil_apply_f32(stencil, (const float *)src + f, sy, sz);
    }
}

#endif
