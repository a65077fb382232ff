/* Test support: just enough of the CUDA runtime, on the host, to compile mg_cuda.cu as plain C++
 * (MG_CUDA_EMULATE) and run its kernels sequentially, block by block and thread by thread, on host
 * memory. tests/mg.sh uses it on machines without a GPU to check the kernels' index arithmetic,
 * launch geometry and reductions bit for bit against the CPU kernels. It says nothing about
 * timing, streams or races on a real GPU (mg's kernels have none by construction: a GSRB colour
 * reads only the other colour, Chebyshev steps are out of place). */
#ifndef HALOX_MG_CUDA_EMU_H
#define HALOX_MG_CUDA_EMU_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_runtime.h" /* dim3, threadIdx, ..., hx_emu_launch: the stand-ins the kernel tests share */

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef double cudaEvent_t; /* the host clock when recorded */
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };

static inline const char *cudaGetErrorString(cudaError_t e) { return e ? "emulated error" : "no error"; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *d) { return *d = 0, cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n) { return (*p = calloc(1, n)) ? cudaSuccess : cudaErrorMemoryAllocation; }
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFree(void *p) { return free(p), cudaSuccess; }
static inline cudaError_t cudaFreeHost(void *p) { return free(p), cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t)
{
    return memmove(d, s, n), cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) { return memset(d, v, n), cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { return *e = 0, cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t &e, cudaStream_t)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return e = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec, cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    return *ms = (float)(1e3 * (b - a)), cudaSuccess;
}

#define LAUNCH(kernel, grid, block, stream, ...) \
    ((void)(stream), hx_emu_launch(dim3(grid), dim3(block), [&] { kernel(__VA_ARGS__); }))
/* a kernel whose threads meet at __syncthreads: the threads of a block run as fibers */
#define LAUNCH_BLOCKS(kernel, grid, block, stream, ...) \
    ((void)(stream), hx_emu_launch_block(dim3(grid), dim3(block), 0, [&] { kernel(__VA_ARGS__); }))

#endif
