/* Test support: the few CUDA built-ins that halox's register-only sweep bodies use
 * (src/compute/cuda/common.cuh, sweep3d.cuh), for the host compiler. A test puts this folder first
 * on the include path, so `#include <cuda_runtime.h>` lands here, then runs a body for every block
 * and thread in turn (hx_emu_launch). Bodies with barriers, shared memory or inline PTX cannot run
 * this way and are not included by the tests that use it. */
#ifndef HALOX_TEST_EMU_CUDA_RUNTIME_H
#define HALOX_TEST_EMU_CUDA_RUNTIME_H

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline

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

template <typename T> static inline T __ldg(const T *p) { return *p; }
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

#endif
