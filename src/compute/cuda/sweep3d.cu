/* 3D sweep kernels (the register window, its march of two floats a thread, and the cp.async pipelined one) and their launch. */
#include "compute/cuda/ops.h"
#include "compute/cuda/sweep3d.cuh"
#include "compute/cuda/sweep3d_pair.cuh"
#include "compute/cuda/sweep3d_pipe.cuh"

/* The prefetching kernels keep the blocks a multiprocessor holds without the prefetches (their
 * registers by ptxas: fp32 radius 1 40, radius 2 76; fp64 56, 74). Without prefetches, no minimum:
 * ptxas then takes star13 fp32 in 84 registers (with a minimum of 3 blocks, in 76). */
template <typename T, int R> constexpr int sweep3d_min_blocks()
{
    return sizeof(T) == 4 ? (R == 1 ? 6 : 3) : (R == 1 ? 4 : 3);
}

template <typename T, int R, int ZCHUNK, int PF>
__global__ void __launch_bounds__(256, PF ? sweep3d_min_blocks<T, R>() : 0) sweep3d(const T *__restrict__ src, T *__restrict__ dst, sweep_args a,
                                                                                    march_grid g, int flip)
{
    grid_dep_enter();
    sweep3d_body<T, R, ZCHUNK, sweep3d_ahead<T, R>(PF > 0), PF>(src, dst, a, g, sweep_tile<true>(flip));
}

template <int R>
__global__ void __launch_bounds__(256) sweep3d_pair(const float *__restrict__ src, float *__restrict__ dst, sweep_args a, march_grid g, int chunk,
                                                   int flip)
{
    grid_dep_enter();
    sweep3d_pair_body<R>(src, dst, a, g, sweep_tile<true>(flip), chunk);
}

template <typename T, int R, int P>
__global__ void __launch_bounds__(256) sweep3d_pipe(const T *__restrict__ src, T *__restrict__ dst, pipe_args pa, int flip)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    grid_dep_enter();
    sweep3d_pipe_body<T, R, P>(src, dst, pa, sweep_tile<true>(flip), reinterpret_cast<T *>(smem_raw));
}

typedef void (*launch_fn)(const sweep_launch &);

/* The pipelined march keeps 2 planes in flight ahead of the one it computes */
enum { PIPE_AHEAD = 2 };

template <typename T, int R> static void launch_pipe(const sweep_launch &l)
{
    const hx_box *b = l.b;
    const int by = l.by, chunk = l.chunk, groups = l.groups;
    pipe_args pa;
    pa.s = *l.a;
    pa.rows = l.d->alloc[1];
    pa.chunk = chunk;
    const size_t smem = sweep3d_pipe_smem<R, PIPE_AHEAD>(by);
    /* at most 5 slots x 12 rows x 544 bytes: below the 48 KiB that needs no opt-in */
    dim3 block(32, by);
    /* the register launch's grid, one row per thread (tests/test_sweep3d_pipe_emu.cpp uses it too) */
    const dim3 grid = sweep3d_grid(groups, b->hi[1] - b->lo[1], b->hi[2] - b->lo[2], by, chunk);
    launch_sweep_kernel(sweep3d_pipe<T, R, PIPE_AHEAD>, grid, block, smem, l.st, l.pdl, (const T *)l.src, (T *)l.dst, pa, l.flip);
}

template <typename T, int R, int CHUNK> static void launch_chunk3d(const sweep_launch &l)
{
    const hx_box *b = l.b;
    const int rows = b->hi[1] - b->lo[1];
    const march_grid g = march_grid_for(l.groups, march_tail_column<R>());
    const dim3 grid = march_dim(g, rows, l.by, b->hi[2] - b->lo[2], CHUNK);
    constexpr int PF = sweep3d_prefetch<T, R>();
    launch_sweep_kernel(PF && l.prefetch ? sweep3d<T, R, CHUNK, PF> : sweep3d<T, R, CHUNK, 0>, grid, dim3(32, l.by), 0, l.st, l.pdl,
                        (const T *)l.src, (T *)l.dst, *l.a, g, l.flip);
}

template <int R> static void launch_pair3d(const sweep_launch &l)
{
    const hx_box *b = l.b;
    const int pairs = (b->hi[0] - l.a->xbase + 1) / 2, rows = b->hi[1] - b->lo[1];
    const march_grid g = march_grid_for(pairs, march_tail_column<R>());
    const dim3 grid = march_dim(g, rows, l.by, b->hi[2] - b->lo[2], l.chunk);
    launch_sweep_kernel(sweep3d_pair<R>, grid, dim3(32, l.by), 0, l.st, l.pdl, (const float *)l.src, (float *)l.dst, *l.a, g, l.chunk, l.flip);
}

/* no 2-plane marches in 3D: the window's 2R + 1 planes would be loaded for two */
#define CHUNKS3D(T, R)                                                                                                 \
    {NULL, launch_chunk3d<T, R, 4>, launch_chunk3d<T, R, 8>, launch_chunk3d<T, R, 16>, launch_chunk3d<T, R, 32>,         \
     launch_chunk3d<T, R, 64>}
/* [dtype: float, double][radius 1, 2][chunk 2, 4, 8, 16, 32, 64: chunk_slot] */
static const launch_fn sweep3d_table[2][2][6] = {
    {CHUNKS3D(float, 1), CHUNKS3D(float, 2)},
    {CHUNKS3D(double, 1), CHUNKS3D(double, 2)},
};
#undef CHUNKS3D

/* Blocks of 32 x by threads of one kernel a multiprocessor holds (0: unknown) */
template <typename K> static int blocks_per_sm(K kernel, int by, size_t smem)
{
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, 32 * by, smem) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

template <typename T, int R> static int per_sm_of(int by, int pipe, int prefetch)
{
    constexpr int PF = sweep3d_prefetch<T, R>();
    if (pipe) return blocks_per_sm(sweep3d_pipe<double, 2, PIPE_AHEAD>, by, sweep3d_pipe_smem<2, PIPE_AHEAD>(by));
    return PF && prefetch ? blocks_per_sm(sweep3d<T, R, 16, PF>, by, 0) : blocks_per_sm(sweep3d<T, R, 16, 0>, by, 0);
}

int cu_sweep3d_per_sm(int dslot, int radius, int by, int pipe, int prefetch)
{
    if (dslot < 0 || dslot > 1 || radius < 1 || radius > 2 || by < 1 || by > 8 || (pipe && (dslot != 1 || radius != 2))) return 0;
    /* by launch: [dtype][radius][by - 1][kernel: register, prefetching, pipelined], the count plus
     * one (0: not asked yet) */
    static int cache[2][2][8][3];
    const int kind = pipe ? 2 : prefetch ? 1 : 0;
    int &c = cache[dslot][radius - 1][by - 1][kind];
    if (c == 0) {
        if (dslot == 0) c = 1 + (radius == 1 ? per_sm_of<float, 1>(by, pipe, prefetch) : per_sm_of<float, 2>(by, pipe, prefetch));
        else c = 1 + (radius == 1 ? per_sm_of<double, 1>(by, pipe, prefetch) : per_sm_of<double, 2>(by, pipe, prefetch));
    }
    return c - 1;
}

int cu_pdl_compiled(void)
{
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, sweep3d<float, 1, 8, 0>) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return fa.ptxVersion >= 90;
}

int cu_launch_sweep3d(const sweep_launch &l, int dslot, int radius)
{
    const int c = chunk_slot(l.chunk);
    if (dslot < 0 || dslot > 1 || radius < 1 || radius > 2 || l.chunk < 1) return -1;
    if (l.pair && dslot == 0) { /* any march length: a kernel argument */
        if (radius == 1) launch_pair3d<1>(l);
        else launch_pair3d<2>(l);
        return 0;
    }
    const launch_fn f = c < 0 ? NULL : sweep3d_table[dslot][radius - 1][c];
    if (!f) return -1;
    f(l);
    return 0;
}

int cu_launch_sweep3d_pipe(const sweep_launch &l, int dslot, int radius)
{
    if (dslot != 1 || radius != 2 || l.chunk < 1) return -1;
    launch_pipe<double, 2>(l);
    return 0;
}
