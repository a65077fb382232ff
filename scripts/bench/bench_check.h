/* Shared by the standalone probes in scripts/bench (not part of the library): a CUDA call checked,
 * naming the probe (BENCH_NAME, defined before this header), the median of a set of timings, and
 * the two fields a copy probe streams between. */
#ifndef HALOX_BENCH_CHECK_H
#define HALOX_BENCH_CHECK_H
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                          \
    do {                                                                                               \
        cudaError_t e_ = (x);                                                                          \
        if (e_ != cudaSuccess) {                                                                       \
            fprintf(stderr, "%s: %s: %s (line %d)\n", BENCH_NAME, #x, cudaGetErrorString(e_), __LINE__); \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

static inline float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/* Two device fields of `bytes` each, the first zeroed; returns the GPU's multiprocessors */
static inline int copy_fields(size_t bytes, float4 **a, float4 **b)
{
    CK(cudaMalloc(a, bytes));
    CK(cudaMalloc(b, bytes));
    CK(cudaMemset(*a, 0, bytes));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    return sms;
}
#endif
