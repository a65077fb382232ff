/* The per-cell body of an operator over a set of thin boxes (the boundary shell of an overlapped
 * sweep): one thread a cell, the terms read from the field itself (o.uoff in the field's cells). */
#ifndef HALOX_CUDA_OP_CELLS_CUH
#define HALOX_CUDA_OP_CELLS_CUH

#include "compute/cuda/cells.cuh"
#include "compute/cuda/op_dev.cuh"

/* A grid-stride loop over the cells of the set, as sweep_cells_body */
template <typename T, bool C>
__device__ __forceinline__ void op_cells_body(const T *__restrict__ src, T *__restrict__ dst, const box_set &set, const op_dev<T> &o,
                                              long sy, long sz, unsigned block, unsigned nblocks, unsigned thread, unsigned nthreads)
{
    for (long i = block * (long)nthreads + thread; i < set.first[set.n]; i += (long)nblocks * nthreads) {
        int b = 0;
        while (i >= set.first[b + 1]) b++;
        const long j = i - set.first[b], row = j / set.ext[b][0];
        const int x = set.lo[b][0] + (int)(j - row * set.ext[b][0]);
        const int y = set.lo[b][1] + (int)(row % set.ext[b][1]), z = set.lo[b][2] + (int)(row / set.ext[b][1]);
        const long f = x + sy * y + sz * z;
        dst[f] = op_eval<T, C>(o, src + f, f);
    }
}

/* The set of the non-empty boxes among boxes[0 .. nbox-1] (at most HX_MAX_OUTER_BOXES) */
static inline box_set op_box_set(int nbox, const hx_box *boxes)
{
    box_set set;
    set.n = 0;
    set.first[0] = 0;
    for (int i = 0; i < nbox && i < HX_MAX_OUTER_BOXES; i++) {
        const long n = hx_box_cells(&boxes[i]);
        if (n == 0) continue;
        for (int a = 0; a < 3; a++) {
            set.lo[set.n][a] = boxes[i].lo[a];
            set.ext[set.n][a] = boxes[i].hi[a] - boxes[i].lo[a];
        }
        set.first[set.n + 1] = set.first[set.n] + n;
        set.n++;
    }
    return set;
}

#endif
