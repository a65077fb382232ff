/* The pass kernel over the NVSHMEM device API (persistent_shmem.cu; only in builds configured with
 * -DHALOX_NVSHMEM_DEVICE=ON, which define HALOX_HAVE_NVSHMEM_DEVICE). */
#ifndef HALOX_PERSISTENT_SHMEM_H
#define HALOX_PERSISTENT_SHMEM_H

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel (a __global__ function taking hx_pparams) for this dtype and stencil; NULL for an
 * unknown stencil. */
void *hx_shmem_pass_kernel(int is_double, int stencil);

#ifdef __cplusplus
}
#endif

#endif
