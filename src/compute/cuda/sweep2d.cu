/* 2D sweep kernels (one per dtype, radius and march length) and their launch. */
#include "compute/cuda/ops.h"
#include "compute/cuda/sweep2d.cuh"

template <typename T, int R, int ROWS, int PF>
__global__ void __launch_bounds__(256) sweep2d(const T *__restrict__ src, T *__restrict__ dst, sweep_args a, int flip)
{
    grid_dep_enter();
    sweep2d_body<T, R, ROWS, PF>(src, dst, a, sweep_tile<false>(flip));
}

template <typename T, int R, int CHUNK> static void launch_chunk2d(const sweep_launch &l)
{
    const hx_box *b = l.b;
    dim3 block(32, l.by);
    dim3 grid((l.groups + block.x - 1) / block.x, ((b->hi[1] - b->lo[1]) + block.y * CHUNK - 1) / (block.y * CHUNK));
    constexpr int PF = sweep2d_prefetch<T, R>();
    launch_sweep_kernel(PF && l.prefetch ? sweep2d<T, R, CHUNK, PF> : sweep2d<T, R, CHUNK, 0>, grid, block, 0, l.st, l.pdl,
                        (const T *)l.src, (T *)l.dst, *l.a, l.flip);
}

typedef void (*launch_fn)(const sweep_launch &);

#define CHUNKS2D(T, R)                                                                                                 \
    {launch_chunk2d<T, R, 2>, launch_chunk2d<T, R, 4>, launch_chunk2d<T, R, 8>, launch_chunk2d<T, R, 16>,                \
     launch_chunk2d<T, R, 32>, launch_chunk2d<T, R, 64>}
/* [dtype: float, double][radius 1, 2][chunk 2, 4, 8, 16, 32, 64: chunk_slot] */
static const launch_fn sweep2d_table[2][2][6] = {
    {CHUNKS2D(float, 1), CHUNKS2D(float, 2)},
    {CHUNKS2D(double, 1), CHUNKS2D(double, 2)},
};
#undef CHUNKS2D

int cu_launch_sweep2d(const sweep_launch &l, int dslot, int radius)
{
    const int c = chunk_slot(l.chunk);
    if (dslot < 0 || dslot > 1 || radius < 1 || radius > 2 || c < 0) return -1;
    sweep2d_table[dslot][radius - 1][c](l);
    return 0;
}
