/* Shared by the standalone probes in scripts/bench (not part of the library): a CUDA call checked,
 * naming the probe (BENCH_NAME, defined before this header), the median of a set of timings, the
 * two fields a copy probe streams between, and the alternated timing of several kernels against
 * cudaMemcpyAsync with its report. */
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

/* Each of nk kinds timed in turn, `rounds` times over: launch(k, -1) prepares kind k (untimed), then
 * launch(k, i) for i = 0..9 issues its launches (i % 2: which field is the source). Returns each
 * kind's ms a launch, one entry a round. */
template <typename F> static inline std::vector<std::vector<float>> time_alternated(int nk, int rounds, F launch)
{
    std::vector<std::vector<float>> t(nk);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < nk; k++) {
            launch(k, -1);
            CK(cudaEventRecord(e0));
            for (int i = 0; i < 10; i++) launch(k, i);
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            t[k].push_back(ms / 10);
        }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return t;
}

/* One line a kind: its median time, its GB/s (bytes read and written) and its share of the first
 * kind's (cudaMemcpyAsync) rate; size labels the lines, name(k) names kind k */
template <typename N>
static inline void print_against_memcpy(const char *size, int nk, N name, const std::vector<std::vector<float>> &t, size_t bytes)
{
    const float copy = median(t[0]);
    for (int k = 0; k < nk; k++)
        printf("%s %-24s %8.1f us %7.1f GB/s %6.1f%% of memcpy\n", size, name(k), 1e3 * median(t[k]), 2e-6 * bytes / median(t[k]),
               100.0 * copy / median(t[k]));
}
#endif
