/* Test support: the CUDA built-ins that halox's kernel bodies use (the .cuh files of
 * src/compute/cuda and src/exec), for the host compiler. A test puts this folder first on the
 * include path, so `#include <cuda_runtime.h>` lands here, then runs a body for every block and
 * thread: hx_emu_launch one thread after the other (bodies without barriers or shuffles: the
 * register-window sweeps), hx_emu_launch_block with the threads of a block as fibers that wait for
 * each other (emu_block.h: __syncthreads, warp shuffles, shared memory, cp.async), and
 * hx_emu_launch_grid with every block resident at once, as a cooperative launch (emu_grid.h: the
 * kernels whose blocks wait for each other; hx_emu_launch_grids: several such grids at once). One fiber runs at a time: atomics and fences are
 * plain accesses, and every write is visible at once. */
#ifndef HALOX_TEST_EMU_CUDA_RUNTIME_H
#define HALOX_TEST_EMU_CUDA_RUNTIME_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
/* A static __shared__ variable is one per OS thread: hx_emu_launch_grid runs each block on its own
 * (one copy per block, zeroed at the start); blocks that run one after another share one. */
#define __shared__ static thread_local
/* cp_async.cuh then calls hx_emu::cp_async16 and friends instead of its PTX */
#define HALOX_EMULATE 1

struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    operator uint3() const { return uint3{x, y, z}; }
};
struct float4 {
    float x, y, z, w;
};
struct double2 {
    double x, y;
};
struct alignas(8) float2 {
    float x, y;
};

static uint3 blockIdx, threadIdx;
static dim3 blockDim, gridDim;

/* 16- and 8-byte loads (float4, double2, float2) fault on a GPU when misaligned: so here */
template <typename T> static inline T __ldg(const T *p)
{
    if ((sizeof(T) == 16 || sizeof(T) == 8) && ((uintptr_t)p & (sizeof(T) - 1))) {
        fprintf(stderr, "hx_emu: a %zu-byte __ldg from an address not %zu-byte aligned\n", sizeof(T), sizeof(T));
        abort();
    }
    return *p;
}
template <typename T> static inline T __ldcg(const T *p) { return __ldg(p); }
template <typename T> static inline T __ldca(const T *p) { return __ldg(p); }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline long min(long a, long b) { return a < b ? a : b; }
static inline long max(long a, long b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }

/* bits of one type as another */
template <typename To, typename From> static inline To hx_emu_bits(From v)
{
    static_assert(sizeof(To) == sizeof(From), "same size");
    To r;
    memcpy(&r, &v, sizeof r);
    return r;
}
static inline unsigned __float_as_uint(float v) { return hx_emu_bits<unsigned>(v); }
static inline float __uint_as_float(unsigned v) { return hx_emu_bits<float>(v); }
static inline long long __double_as_longlong(double v) { return hx_emu_bits<long long>(v); }
static inline double __longlong_as_double(long long v) { return hx_emu_bits<double>(v); }
static inline int __ffs(int v) { return __builtin_ffs(v); }

/* One fiber runs at a time, and it switches only at a barrier, shuffle or spin point: an atomic
 * is a plain read-modify-write, a fence nothing. */
template <typename T> static inline T atomicAdd(T *a, T v)
{
    const T old = *a;
    *a = old + v;
    return old;
}
template <typename T> static inline T atomicExch(T *a, T v)
{
    const T old = *a;
    *a = v;
    return old;
}
template <typename T> static inline T atomicCAS(T *a, T expect, T v)
{
    const T old = *a;
    if (old == expect) *a = v;
    return old;
}
static inline unsigned atomicInc(unsigned *a, unsigned wrap) /* CUDA's: 0 after wrap, else + 1 */
{
    const unsigned old = *a;
    *a = old >= wrap ? 0 : old + 1;
    return old;
}
static inline void __threadfence() {}
static inline void __threadfence_system() {}

/* every thread of every block, one after the other */
template <class F> static void hx_emu_launch(dim3 grid, dim3 block, F body)
{
    gridDim = grid;
    blockDim = block;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++)
                for (unsigned tz = 0; tz < block.z; tz++)
                    for (unsigned ty = 0; ty < block.y; ty++)
                        for (unsigned tx = 0; tx < block.x; tx++) {
                            blockIdx = uint3{bx, by, bz};
                            threadIdx = uint3{tx, ty, tz};
                            body();
                        }
}

#include "emu_block.h"
#include "emu_grid.h"

static inline void __syncthreads() { hx_emu::barrier(); }
static inline int __syncthreads_and(int pred) { return hx_emu::barrier(pred).all; }
static inline int __syncthreads_or(int pred) { return hx_emu::barrier(pred).any; }
static inline long long clock64() { return (long long)hx_emu_now_ns(); }
template <typename T> static inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return hx_emu::shuffle(hx_emu::UP, mask, v, delta, width);
}
template <typename T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return hx_emu::shuffle(hx_emu::DOWN, mask, v, delta, width);
}
template <typename T> static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
    return hx_emu::shuffle(hx_emu::XOR, mask, v, (unsigned)lane_mask, width);
}
template <typename T> static inline T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32)
{
    return hx_emu::shuffle(hx_emu::IDX, mask, v, (unsigned)src_lane, width);
}

#endif
