/* The device kernels of a functor and their launchers (nvcc only): a plain sweep, one thread a
 * cell, and a fused pass, one block a tile (kernels/body.cuh). */
#ifndef HALOX_KERNELS_LAUNCH_CUH
#define HALOX_KERNELS_LAUNCH_CUH

#include <stdio.h>

#include <cuda_runtime.h>

#include "halox/kernels/body.cuh"

namespace hx_kern {

template <class F, typename T> __global__ void sweep_kernel(const args<F, T> a)
{
    const int x = a.lo[0][0] + (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = a.lo[0][1] + (int)(blockIdx.y * blockDim.y + threadIdx.y);
    const int z = a.lo[0][2] + (int)blockIdx.z;
    if (x < a.hi[0][0] && y < a.hi[0][1]) sweep_cell(a, x, y, z);
}

template <class F, typename T> __global__ void __launch_bounds__(tile<F::dim>::TX *tile<F::dim>::TY) fused_kernel(const args<F, T> a)
{
    extern __shared__ unsigned char hx_kern_smem[];
    typedef tile<F::dim> S;
    fused_body(a, blockIdx.x, blockIdx.y, blockIdx.z, reinterpret_cast<T *>(hx_kern_smem), (int)(threadIdx.x + S::TX * threadIdx.y),
               S::TX * S::TY);
}

inline int launch_status(const hx_custom_launch *l, const char *what)
{
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return 0;
    if (l->err && l->errlen) snprintf(l->err, l->errlen, "%s: %s", what, cudaGetErrorString(e));
    return 1;
}

template <class F, typename T> int sweep_device(const hx_custom_launch *l)
{
    const args<F, T> a = make_args<F, T>(l);
    const int nx = a.hi[0][0] - a.lo[0][0], ny = a.hi[0][1] - a.lo[0][1], nz = a.hi[0][2] - a.lo[0][2];
    if (nx <= 0 || ny <= 0 || nz <= 0) return 0;
    const dim3 block(32, 8), grid((unsigned)(nx + 31) / 32, (unsigned)(ny + 7) / 8, (unsigned)nz);
    sweep_kernel<F, T><<<grid, block, 0, (cudaStream_t)l->stream>>>(a);
    return launch_status(l, "custom sweep kernel");
}

template <class F, typename T> int fused_device(const hx_custom_launch *l)
{
    typedef tile<F::dim> S;
    const args<F, T> a = make_args<F, T>(l);
    const int j = a.levels - 1;
    if (a.hi[j][0] <= a.lo[j][0] || a.hi[j][1] <= a.lo[j][1] || a.hi[j][2] <= a.lo[j][2]) return 0;
    unsigned g[3];
    tile_grid<F>(a.lo[j], a.hi[j], a.levels, g);
    const size_t smem = fused_smem<F, T>(a.levels);
    int dev = 0, most = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess && smem > (size_t)most) {
        if (l->err && l->errlen)
            snprintf(l->err, l->errlen, "a fused pass of %d sweeps needs %zu bytes of shared memory, the device has %d: fuse fewer sweeps",
                     a.levels, smem, most);
        return 1;
    }
    static size_t opted = 48 * 1024; /* the most this kernel was allowed so far (one device a process) */
    if (e == cudaSuccess && smem > opted) {
        e = cudaFuncSetAttribute(fused_kernel<F, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e == cudaSuccess) opted = smem;
    }
    if (e != cudaSuccess) {
        if (l->err && l->errlen) snprintf(l->err, l->errlen, "custom fused kernel set-up: %s", cudaGetErrorString(e));
        return 1;
    }
    fused_kernel<F, T><<<dim3(g[0], g[1], g[2]), dim3(S::TX, S::TY), smem, (cudaStream_t)l->stream>>>(a);
    return launch_status(l, "custom fused kernel");
}

} // namespace hx_kern

#endif
