/* Test support: the CUDA built-ins that halox's kernel bodies use (the .cuh files of
 * src/compute/cuda), for the host compiler. A test puts this folder first on the include path, so
 * `#include <cuda_runtime.h>` lands here, then runs a body for every block and thread:
 * hx_emu_launch one thread after the other (bodies without barriers or shuffles: the
 * register-window sweeps), hx_emu_launch_block with the threads of a block as fibers that wait for
 * each other (emu_block.h: __syncthreads, warp shuffles, shared memory, cp.async). */
#ifndef HALOX_TEST_EMU_CUDA_RUNTIME_H
#define HALOX_TEST_EMU_CUDA_RUNTIME_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
/* a static __shared__ variable is one per block while blocks run one after another */
#define __shared__ static
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

static uint3 blockIdx, threadIdx;
static dim3 blockDim, gridDim;

/* 16-byte loads (float4, double2) fault on a GPU when misaligned: so here */
template <typename T> static inline T __ldg(const T *p)
{
    if (sizeof(T) == 16 && ((uintptr_t)p & 15)) {
        fprintf(stderr, "hx_emu: a 16-byte __ldg from an address not 16-byte aligned\n");
        abort();
    }
    return *p;
}
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }

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

static inline void __syncthreads() { hx_emu::barrier(); }
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
