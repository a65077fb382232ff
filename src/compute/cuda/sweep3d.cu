/* 3D sweep kernels (register window of one or RY rows per thread, of two floats a thread, and the cp.async pipelined one) and their launch. */
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

template <typename T, int R, int ZCHUNK, int RY>
__global__ void __launch_bounds__(256) sweep3d_rows(const T *__restrict__ src, T *__restrict__ dst, sweep_args a, int flip)
{
    grid_dep_enter();
    sweep3d_rows_body<T, R, ZCHUNK, RY>(src, dst, a, sweep_tile<true>(flip));
}

typedef void (*launch_fn)(const sweep_launch &);

template <typename T, int R, int P> static void launch_pipe(const sweep_launch &l)
{
    const hx_box *b = l.b;
    const int by = l.by, chunk = l.chunk, groups = l.groups;
    pipe_args pa;
    pa.s = *l.a;
    pa.rows = l.d->alloc[1];
    pa.chunk = chunk;
    const size_t smem = sweep3d_pipe_smem<R, P>(by);
    /* at most 6 slots x 12 rows x 544 bytes: below the 48 KiB that needs no opt-in */
    dim3 block(32, by);
    /* the register launch's grid, one row per thread (tests/test_sweep3d_pipe_emu.cpp uses it too) */
    const dim3 grid = sweep3d_grid(groups, b->hi[1] - b->lo[1], b->hi[2] - b->lo[2], by, 1, chunk);
    launch_sweep_kernel(sweep3d_pipe<T, R, P>, grid, block, smem, l.st, l.pdl, (const T *)l.src, (T *)l.dst, pa, l.flip);
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

template <typename T, int R, int CHUNK, int RY> static void launch_rows3d(const sweep_launch &l)
{
    const hx_box *b = l.b;
    const dim3 grid = sweep3d_grid(l.groups, b->hi[1] - b->lo[1], b->hi[2] - b->lo[2], l.by, RY, CHUNK);
    launch_sweep_kernel(sweep3d_rows<T, R, CHUNK, RY>, grid, dim3(32, l.by), 0, l.st, l.pdl, (const T *)l.src, (T *)l.dst, *l.a,
                        l.flip);
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

#define ROWS_CHUNKS(T, R, RY) \
    {NULL, launch_rows3d<T, R, 4, RY>, launch_rows3d<T, R, 8, RY>, launch_rows3d<T, R, 16, RY>, launch_rows3d<T, R, 32, RY>, \
     launch_rows3d<T, R, 64, RY>}
/* [dtype: float, double][radius 1, 2][rows per thread 2, 4][chunk 2, 4, 8, 16, 32, 64: chunk_slot] */
static const launch_fn rows3d_table[2][2][2][6] = {
    {{ROWS_CHUNKS(float, 1, 2), ROWS_CHUNKS(float, 1, 4)}, {ROWS_CHUNKS(float, 2, 2), ROWS_CHUNKS(float, 2, 4)}},
    {{ROWS_CHUNKS(double, 1, 2), ROWS_CHUNKS(double, 1, 4)}, {ROWS_CHUNKS(double, 2, 2), ROWS_CHUNKS(double, 2, 4)}},
};
#undef ROWS_CHUNKS

/* [dtype: float, double][radius 1, 2][planes ahead 1, 2, 3] */
static const launch_fn pipe_table[2][2][3] = {
    {{launch_pipe<float, 1, 1>, launch_pipe<float, 1, 2>, launch_pipe<float, 1, 3>},
     {launch_pipe<float, 2, 1>, launch_pipe<float, 2, 2>, launch_pipe<float, 2, 3>}},
    {{launch_pipe<double, 1, 1>, launch_pipe<double, 1, 2>, launch_pipe<double, 1, 3>},
     {launch_pipe<double, 2, 1>, launch_pipe<double, 2, 2>, launch_pipe<double, 2, 3>}},
};

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

template <typename T, int R> static int per_sm_of(int by, int rows, int pipe, int prefetch)
{
    constexpr int PF = sweep3d_prefetch<T, R>();
    if (pipe == 1) return blocks_per_sm(sweep3d_pipe<T, R, 1>, by, sweep3d_pipe_smem<R, 1>(by));
    if (pipe == 2) return blocks_per_sm(sweep3d_pipe<T, R, 2>, by, sweep3d_pipe_smem<R, 2>(by));
    if (pipe == 3) return blocks_per_sm(sweep3d_pipe<T, R, 3>, by, sweep3d_pipe_smem<R, 3>(by));
    if (rows == 2) return blocks_per_sm(sweep3d_rows<T, R, 16, 2>, by, 0);
    if (rows == 4) return blocks_per_sm(sweep3d_rows<T, R, 16, 4>, by, 0);
    return PF && prefetch ? blocks_per_sm(sweep3d<T, R, 16, PF>, by, 0) : blocks_per_sm(sweep3d<T, R, 16, 0>, by, 0);
}

int cu_sweep3d_per_sm(int dslot, int radius, int by, int rows, int pipe, int prefetch)
{
    if (dslot < 0 || dslot > 1 || radius < 1 || radius > 2 || by < 1 || by > 8 || pipe < 0 || pipe > 3) return 0;
    /* by launch: [dtype][radius][by - 1][kernel: register, prefetching, rows 2, rows 4, pipe 1..3],
     * the count plus one (0: not asked yet) */
    static int cache[2][2][8][7];
    const int kind = pipe ? 3 + pipe : rows == 2 ? 2 : rows == 4 ? 3 : prefetch ? 1 : 0;
    int &c = cache[dslot][radius - 1][by - 1][kind];
    if (c == 0) {
        if (dslot == 0) c = 1 + (radius == 1 ? per_sm_of<float, 1>(by, rows, pipe, prefetch) : per_sm_of<float, 2>(by, rows, pipe, prefetch));
        else c = 1 + (radius == 1 ? per_sm_of<double, 1>(by, rows, pipe, prefetch) : per_sm_of<double, 2>(by, rows, pipe, prefetch));
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

int cu_launch_sweep3d(const sweep_launch &l, int dslot, int radius, int rows)
{
    const int c = chunk_slot(l.chunk);
    if (dslot < 0 || dslot > 1 || radius < 1 || radius > 2 || l.chunk < 1 || (rows != 1 && rows != 2 && rows != 4)) return -1;
    if (rows == 1 && l.pair && dslot == 0) { /* any march length: a kernel argument */
        if (radius == 1) launch_pair3d<1>(l);
        else launch_pair3d<2>(l);
        return 0;
    }
    const launch_fn f = c < 0 ? NULL : rows == 1 ? sweep3d_table[dslot][radius - 1][c] : rows3d_table[dslot][radius - 1][rows / 4][c];
    if (!f) return -1;
    f(l);
    return 0;
}

int cu_launch_sweep3d_pipe(const sweep_launch &l, int dslot, int radius, int pipe)
{
    if (dslot < 0 || dslot > 1 || radius < 1 || radius > 2 || pipe < 1 || pipe > 3) return -1;
    pipe_table[dslot][radius - 1][pipe - 1](l);
    return 0;
}
