/* What a kernel that waits on the device waits with (device_watch.cu): the host-mapped hx_watch
 * where a wait that gives up says what it waited for, the abort flag that then makes every other
 * block leave, and for a cooperative grid its barrier's counters and the number of the buffer that
 * holds the iterate. Shared by the persistent kernels (halox's and a functor's) and ipc-put's
 * get kernels. CUDA C++ only. */
#ifndef HALOX_DEVICE_WATCH_H
#define HALOX_DEVICE_WATCH_H

#include <stddef.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "halox/kernels/detail/exchange.cuh"

/* In a function with `char *err, size_t n` that returns int: a failed CUDA call writes itself and
 * its error into err and returns -1. */
#define HX_CUDA_TRY(call)                                                                           \
    do {                                                                                            \
        cudaError_t e_ = (call);                                                                    \
        if (e_ != cudaSuccess) return snprintf(err, n, "%s: %s", #call, cudaGetErrorString(e_)), -1; \
    } while (0)

typedef struct {
    hx_watch *host, *dev; /* one hx_watch, host-mapped: the host's and the device's address */
    int *abort_flag;      /* device, 0 */
    unsigned *bar;        /* device, 64 words of 0 (hx_grid_sync's counters); NULL unless asked */
    int *cur_out;         /* device; NULL unless asked */
} hx_dev_watch;

/* All of it zeroed and synchronized (grid: also bar and cur_out). Returns 0, or -1 with err; free
 * it either way. */
int hx_dev_watch_alloc(hx_dev_watch *w, int grid, char *err, size_t n);
void hx_dev_watch_free(hx_dev_watch *w);

#endif
