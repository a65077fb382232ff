/* The pass kernel over the NVSHMEM device API (built only with -DHALOX_NVSHMEM_DEVICE=ON, which
 * compiles this file as relocatable device code and links NVSHMEM's device library). The kernel is
 * persistent_kernel.cuh's, instantiated with HX_NET_SHMEM: threads pack each message into its local
 * stage, and after the grid barrier one block per message calls nvshmemx_putmem_signal_block, which
 * copies the stage into the neighbour's slot and then sets the neighbour's flag to the exchange
 * number. Waiting and unpacking are unchanged (flags polled with acquire loads under halox's
 * watchdog: NVSHMEM's own signal waits have no timeout). The put returns once the stage may be
 * reused, so the next exchange's pack cannot overwrite a message still in flight. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "exec/persistent_kernel.cuh"
#include "exec/persistent_shmem.h"

__device__ void hx_shmem_put_block(const hx_dev_msg &dm, int par, unsigned long long e, size_t bytes)
{
    nvshmemx_putmem_signal_block(dm.put_dst[par], dm.stage, bytes, (uint64_t *)dm.put_sig, (uint64_t)e, NVSHMEM_SIGNAL_SET,
                                 dm.peer);
}

typedef void (*shmem_kernel_fn)(hx_pparams);

/* 2D stencils tile shared memory; 3D ones march register windows (the default pass) */
extern "C" void *hx_shmem_pass_kernel(int is_double, int stencil)
{
    static const shmem_kernel_fn table[2][HX_NUM_STENCILS] = {
        {hx_persistent_kernel<float, HX_JACOBI5, false, HX_NET_SHMEM>, hx_persistent_kernel<float, HX_JACOBI7, true, HX_NET_SHMEM>,
         hx_persistent_kernel<float, HX_STAR9, false, HX_NET_SHMEM>, hx_persistent_kernel<float, HX_STAR13, true, HX_NET_SHMEM>},
        {hx_persistent_kernel<double, HX_JACOBI5, false, HX_NET_SHMEM>, hx_persistent_kernel<double, HX_JACOBI7, true, HX_NET_SHMEM>,
         hx_persistent_kernel<double, HX_STAR9, false, HX_NET_SHMEM>, hx_persistent_kernel<double, HX_STAR13, true, HX_NET_SHMEM>},
    };
    if (stencil < 0 || stencil >= HX_NUM_STENCILS) return NULL;
    return (void *)table[is_double ? 1 : 0][stencil];
}
