/* Session 35 probe (not part of the library): what a plain streaming copy costs the L2 partitions'
 * fabric. Nsight Compute put the 512^3 fp32 sweeps at 95% of lts__ltcfabric2ltc (call 6); this
 * gives the same counters for a copy kernel (16-byte loads and stores, grid-stride, four loads in
 * flight a thread) of the same bytes, beside cudaMemcpyAsync's bandwidth.
 *
 *   fabric MIB            times cudaMemcpyAsync and the copy kernel (medians of 21, alternated)
 *   fabric MIB --once     three launches of the copy kernel (for ncu) */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define BENCH_NAME "fabric"
#include "bench_check.h"

__global__ void __launch_bounds__(256) copy4(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        float4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2 * stride] = c;
        dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) dst[i] = src[i];
}

int main(int argc, char **argv)
{
    if (argc < 2 || atol(argv[1]) < 1) {
        fprintf(stderr, "usage: fabric MIB [--once]\n");
        return 2;
    }
    const size_t bytes = (size_t)atol(argv[1]) << 20, n = bytes / sizeof(float4);
    float4 *a, *b;
    const int sms = copy_fields(bytes, &a, &b);
    const unsigned blocks = (unsigned)sms * 8;
    if (argc > 2 && !strcmp(argv[2], "--once")) {
        for (int i = 0; i < 3; i++) copy4<<<blocks, 256>>>(a, b, n);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        return 0;
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> tm, tk;
    for (int r = 0; r < 21; r++) {
        for (int k = 0; k < 2; k++) {
            CK(cudaEventRecord(e0));
            for (int i = 0; i < 10; i++) {
                if (k == 0) CK(cudaMemcpyAsync(i % 2 ? a : b, i % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice));
                else copy4<<<blocks, 256>>>(i % 2 ? b : a, i % 2 ? a : b, n);
            }
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            (k ? tk : tm).push_back(ms / 10);
        }
    }
    printf("%zu MiB: cudaMemcpyAsync %.1f us %.1f GB/s; copy kernel %.1f us %.1f GB/s\n", bytes >> 20, 1e3 * median(tm),
           2e-6 * bytes / median(tm), 1e3 * median(tk), 2e-6 * bytes / median(tk));
    return 0;
}
