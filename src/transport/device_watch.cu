/* hx_dev_watch (device_watch.h) */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "transport/device_watch.h"

int hx_dev_watch_alloc(hx_dev_watch *w, int grid, char *err, size_t n)
{
    memset(w, 0, sizeof *w);
    HX_CUDA_TRY(cudaHostAlloc((void **)&w->host, sizeof(hx_watch), cudaHostAllocMapped));
    memset(w->host, 0, sizeof(hx_watch));
    HX_CUDA_TRY(cudaHostGetDevicePointer((void **)&w->dev, w->host, 0));
    HX_CUDA_TRY(cudaMalloc((void **)&w->abort_flag, sizeof(int)));
    HX_CUDA_TRY(cudaMemset(w->abort_flag, 0, sizeof(int)));
    if (grid) {
        HX_CUDA_TRY(cudaMalloc((void **)&w->cur_out, sizeof(int)));
        HX_CUDA_TRY(cudaMalloc((void **)&w->bar, 64 * sizeof(unsigned)));
        HX_CUDA_TRY(cudaMemset(w->bar, 0, 64 * sizeof(unsigned)));
    }
    /* the zeroing ran on the legacy stream, which non-blocking streams do not wait for */
    HX_CUDA_TRY(cudaDeviceSynchronize());
    return 0;
}

void hx_dev_watch_free(hx_dev_watch *w)
{
    cudaFreeHost(w->host);
    cudaFree(w->abort_flag);
    cudaFree(w->bar);
    cudaFree(w->cur_out);
    memset(w, 0, sizeof *w);
}
