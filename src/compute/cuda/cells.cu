/* The sweep_shell op: one launch of the per-cell kernel over up to HX_MAX_OUTER_BOXES thin boxes. */
#include "compute/cuda/cells.cuh"
#include "compute/cuda/ops.h"

template <typename T>
__global__ void sweep_cells(const T *__restrict__ src, T *__restrict__ dst, box_set set, int stencil, long sy, long sz)
{
    sweep_cells_body<T>(src, dst, set, stencil, sy, sz, blockIdx.x, gridDim.x);
}

template <typename T>
static void launch_cells(unsigned blocks, cudaStream_t st, const void *src, void *dst, const box_set &set, int stencil,
                         long sy, long sz)
{
    sweep_cells<T><<<blocks, 256, 0, st>>>((const T *)src, (T *)dst, set, stencil, sy, sz);
}

typedef void (*cells_fn)(unsigned, cudaStream_t, const void *, void *, const box_set &, int, long, long);
static const cells_fn cells_table[2] = {launch_cells<float>, launch_cells<double>}; /* [dtype] */

int cu_sweep_shell(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst)
{
    if (bk->op) return cu_op_sweep_shell(bk, stream, nbox, boxes, src, dst);
    const hx_decomp *d = bk->decomp;
    box_set set;
    set.n = 0;
    set.first[0] = 0;
    for (int i = 0; i < nbox && i < HX_MAX_OUTER_BOXES; i++) {
        long n = hx_box_cells(&boxes[i]);
        if (n == 0) continue;
        for (int a = 0; a < 3; a++) {
            set.lo[set.n][a] = boxes[i].lo[a];
            set.ext[set.n][a] = boxes[i].hi[a] - boxes[i].lo[a];
        }
        set.first[set.n + 1] = set.first[set.n] + n;
        set.n++;
    }
    if (set.n == 0) return 0;
    long blocks = (set.first[set.n] + 255) / 256;
    if (blocks > 8192) blocks = 8192;
    const long sy = d->alloc[0], sz = (long)d->alloc[0] * d->alloc[1];
    cells_table[dtype_slot(bk)]((unsigned)blocks, state(bk)->stream[stream], src, dst, set, bk->stencil, sy, sz);
    CU_LAUNCHED(bk);
    return 0;
}
