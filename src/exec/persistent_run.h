/* The device state of a kernel-initiated schedule, shared by its set-up (persistent_setup.cu:
 * which kernel, its shape and buffers) and its run (persistent.cu: launch, wait, norms). CUDA C++
 * only. */
#ifndef HALOX_PERSISTENT_RUN_H
#define HALOX_PERSISTENT_RUN_H

#include <cuda_runtime.h>

#include <stdio.h>

#include "exec/persistent.h"
#include "exec/persistent_kernel.cuh"
#include "transport/device_watch.h"

struct hx_device_run {
    hx_dev_table *table;       /* on the device */
    hx_dev_watch w;            /* the watchdog's memory, the grid barrier and cur_out */
    double *norm_dev;
    long norm_cap;
    void *kernel;
    int grid, threads, levels, tx, ty, pitch;
    size_t smem;
    /* resident kernel: tiles stay in shared memory for the whole run */
    int resident, ntx, nty, ring, tz, ntz, inplace;
    int shmem_api; /* the pass kernel puts with the NVSHMEM device API */
    int roles;     /* the role-based fused kernel (roles_kernel.cuh) */
    int march2d;   /* the 2D passes march register windows (pass2d_march.cuh) */
    int fused3d;   /* the 3D passes fuse r->levels sweeps (persistent_fused3d.cu) */
    hx_f3params f3; /* their kernel's parameters: the plans (one per sweeps left in a cycle) filled at set-up, p at a launch */
    unsigned long long *ll_mail[2]; /* device, per parity: the mailbox of flagged words ([0] owns the allocation) */
    unsigned long long *prof;       /* device, opt.profile: four counters a block */
    void *opq; /* a user operator's pass kernel (persistent_op.cu): its hx_op_pparams, p filled at a launch */
};

/* In a function of an hx_sim *s returning int: a failed CUDA call records itself in s->err and
 * returns -1. */
#define HX_DEV_TRY(call)                                                                                     \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            snprintf(s->err, sizeof s->err, "%s: %s", #call, cudaGetErrorString(e_));                        \
            return -1;                                                                                       \
        }                                                                                                    \
    } while (0)

#endif
