/* Session 31 experiment (not part of the library): do the 3D marches read less and run faster
 * when every row's interior starts on a 128-byte line? The field's origin is shifted by 32 - R
 * cells, so that x = R (the first owned cell) is line-aligned, and the lanes start there instead
 * of at x = 0: a 512-cell row is then 128 vectors exactly (no one-lane tail), and the stores of a
 * row cover whole 32-byte sectors (no partial sectors for L2 to merge with DRAM).
 * The kernels are the library's march bodies, launched as cu_sweep launches them.
 *
 *   align3d CASE NX NY NZ [ROUNDS]       side by side, modes 0 (today) and 1 (shifted)
 *   align3d CASE NX NY NZ --once MODE    three sweeps of one mode (for ncu)
 * CASE: j7f32pair j7f64 s13f32 s13f32pair s13f64idx */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "compute/cuda/sweep3d.cuh"
#include "compute/cuda/sweep3d_pair.cuh"

#define BENCH_NAME "align3d"
#include "bench_check.h"

template <typename T, int R> constexpr int min_blocks() { return sizeof(T) == 4 ? (R == 1 ? 6 : 3) : (R == 1 ? 4 : 3); }

template <typename T, int R, int CH, int PF>
__global__ void __launch_bounds__(256, PF ? min_blocks<T, R>() : 0) k_march(const T *__restrict__ s, T *__restrict__ d, sweep_args a, march_grid g)
{
    sweep3d_body<T, R, CH, sweep3d_ahead<T, R>(), PF>(s, d, a, g, blockIdx);
}
template <int R>
__global__ void __launch_bounds__(256) k_pair(const float *__restrict__ s, float *__restrict__ d, sweep_args a, march_grid g, int chunk)
{
    sweep3d_pair_body<R>(s, d, a, g, blockIdx, chunk);
}
template <typename T> __global__ void k_init(T *p, int a0, int a1, int a2, int lx, long sy, long sz)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    long n = (long)a0 * a1 * a2;
    for (; i < n; i += (long)gridDim.x * blockDim.x) {
        int x = (int)(i % a0), y = (int)(i / a0 % a1), z = (int)(i / ((long)a0 * a1));
        unsigned h = (unsigned)(x * 73856093u) ^ (unsigned)(y * 19349663u) ^ (unsigned)(z * 83492791u);
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        p[x + y * sy + z * sz] = x < lx ? (T)((h & 0xffff) / 65536.0) : (T)0;
    }
}

struct field_set {
    void *base[2];
    void *p[2];
};

struct job {
    const char *name;
    int elem, R, pair, chunk, pf;
    int nx, ny, nz;
    int a0, a1, a2;
    long cells;
};

template <typename T> static void launch(const job &j, int mode, const T *s, T *d, cudaStream_t st)
{
    const int V = 16 / (int)sizeof(T);
    sweep_args a;
    for (int i = 0; i < 3; i++) a.lo[i] = j.R;
    a.hi[0] = j.R + j.nx;
    a.hi[1] = j.R + j.ny;
    a.hi[2] = j.R + j.nz;
    a.xbase = mode ? j.R : j.R / V * V;
    a.pitch = j.a0;
    a.sy = j.a0;
    a.sz = (long)j.a0 * j.a1;
    const int by = 8;
    if (j.pair) {
        const int pairs = (a.hi[0] - a.xbase + 1) / 2;
        const march_grid g = march_grid_for(pairs, j.R == 2);
        const dim3 grid = march_dim(g, j.ny, by, j.nz, j.chunk);
        if (j.R == 1) k_pair<1><<<grid, dim3(32, by), 0, st>>>((const float *)s, (float *)d, a, g, j.chunk);
        else k_pair<2><<<grid, dim3(32, by), 0, st>>>((const float *)s, (float *)d, a, g, j.chunk);
        return;
    }
    const int groups = (a.hi[0] - a.xbase + V - 1) / V;
    const march_grid g = march_grid_for(groups, j.R == 2);
    const dim3 grid = march_dim(g, j.ny, by, j.nz, j.chunk);
#define L(R_, CH, PF) k_march<T, R_, CH, PF><<<grid, dim3(32, by), 0, st>>>(s, d, a, g)
    if (j.R == 1 && j.chunk == 8 && j.pf == 2) L(1, 8, 2);
    else if (j.R == 1 && j.chunk == 8 && j.pf == 0) L(1, 8, 0);
    else if (j.R == 2 && j.chunk == 16 && j.pf == 2) L(2, 16, 2);
    else if (j.R == 2 && j.chunk == 16 && j.pf == 0) L(2, 16, 0);
    else {
        fprintf(stderr, "align3d: no kernel for R %d chunk %d pf %d\n", j.R, j.chunk, j.pf);
        exit(1);
    }
#undef L
}

static void sweep(const job &j, int mode, const void *s, void *d, cudaStream_t st)
{
    if (j.elem == 4) launch<float>(j, mode, (const float *)s, (float *)d, st);
    else launch<double>(j, mode, (const double *)s, (double *)d, st);
}

static field_set make(const job &j, int mode)
{
    field_set f;
    const long shift = mode ? 32 - j.R : 0;
    for (int k = 0; k < 2; k++) {
        CK(cudaMalloc(&f.base[k], (j.cells + 128) * j.elem));
        CK(cudaMemset(f.base[k], 0, (j.cells + 128) * j.elem));
        f.p[k] = (char *)f.base[k] + shift * j.elem;
        if (j.elem == 4) k_init<float><<<1024, 256>>>((float *)f.p[k], j.a0, j.a1, j.a2, j.nx + 2 * j.R, j.a0, (long)j.a0 * j.a1);
        else k_init<double><<<1024, 256>>>((double *)f.p[k], j.a0, j.a1, j.a2, j.nx + 2 * j.R, j.a0, (long)j.a0 * j.a1);
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    return f;
}

static float time_sweeps(const job &j, int mode, field_set &f, int n, cudaStream_t st)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    sweep(j, mode, f.p[0], f.p[1], st);
    sweep(j, mode, f.p[1], f.p[0], st);
    CK(cudaEventRecord(e0, st));
    for (int i = 0; i < n; i++) sweep(j, mode, f.p[i % 2], f.p[(i + 1) % 2], st);
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return ms * 1000.0f / n;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: align3d CASE NX NY NZ [ROUNDS | --once MODE]\n");
        return 2;
    }
    job j = {};
    j.name = argv[1];
    const struct { const char *n; int elem, R, pair, chunk, pf; } cases[] = {
        {"j7f32pair", 4, 1, 1, 8, 0}, {"j7f64", 8, 1, 0, 8, 2}, {"s13f32", 4, 2, 0, 16, 2},
        {"s13f32pair", 4, 2, 1, 16, 0}, {"s13f64idx", 8, 2, 0, 16, 0}};
    int found = 0;
    for (auto &c : cases)
        if (!strcmp(c.n, j.name)) {
            j.elem = c.elem, j.R = c.R, j.pair = c.pair, j.chunk = c.chunk, j.pf = c.pf;
            found = 1;
        }
    if (!found) {
        fprintf(stderr, "align3d: unknown case %s\n", j.name);
        return 2;
    }
    j.nx = atoi(argv[2]), j.ny = atoi(argv[3]), j.nz = atoi(argv[4]);
    j.a0 = (j.nx + 2 * j.R + 31) / 32 * 32;
    j.a1 = j.ny + 2 * j.R;
    j.a2 = j.nz + 2 * j.R;
    j.cells = (long)j.a0 * j.a1 * j.a2;
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    if (argc >= 7 && !strcmp(argv[5], "--once")) {
        const int mode = atoi(argv[6]);
        field_set f = make(j, mode);
        for (int i = 0; i < 3; i++) sweep(j, mode, f.p[i % 2], f.p[(i + 1) % 2], st);
        CK(cudaStreamSynchronize(st));
        CK(cudaGetLastError());
        printf("%s mode %d: 3 sweeps done\n", j.name, mode);
        return 0;
    }
    const int rounds = argc > 5 ? atoi(argv[5]) : 7;
    field_set f[2] = {make(j, 0), make(j, 1)};
    /* bit-identical: one sweep from the same logical field in both layouts */
    sweep(j, 0, f[0].p[0], f[0].p[1], st);
    sweep(j, 1, f[1].p[0], f[1].p[1], st);
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    {
        std::vector<char> h0(j.cells * j.elem), h1(j.cells * j.elem);
        CK(cudaMemcpy(h0.data(), f[0].p[1], j.cells * j.elem, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h1.data(), f[1].p[1], j.cells * j.elem, cudaMemcpyDeviceToHost));
        long bad = 0;
        for (int z = j.R; z < j.R + j.nz; z++)
            for (int y = j.R; y < j.R + j.ny; y++) {
                const long o = ((long)z * j.a1 + y) * j.a0 + j.R;
                if (memcmp(&h0[o * j.elem], &h1[o * j.elem], (size_t)j.nx * j.elem)) bad++;
            }
        printf("%s %dx%dx%d: shifted layout %s (%ld rows differ)\n", j.name, j.nx, j.ny, j.nz, bad ? "DIFFERS" : "bit-identical", bad);
    }
    /* copy bandwidth: the field's bytes, device to device */
    void *ca, *cb;
    const size_t bytes = (size_t)j.cells * j.elem;
    CK(cudaMalloc(&ca, bytes));
    CK(cudaMalloc(&cb, bytes));
    std::vector<double> tc, t[2];
    for (int r = 0; r < rounds; r++) {
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaMemcpyAsync(cb, ca, bytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaEventRecord(e0, st));
        for (int i = 0; i < 10; i++) CK(cudaMemcpyAsync(i % 2 ? ca : cb, i % 2 ? cb : ca, bytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        tc.push_back(2.0 * bytes * 10 / (ms * 1e-3) / 1e9);
        for (int m = 0; m < 2; m++) {
            const int mode = r % 2 ? 1 - m : m;
            t[mode].push_back(time_sweeps(j, mode, f[mode], 20, st));
        }
    }
    const double bw = median(tc), cellbytes = 2.0 * j.elem * (double)j.nx * j.ny * j.nz;
    for (int m = 0; m < 2; m++) {
        const double us = median(t[m]);
        printf("%-11s %dx%dx%d mode %d (%s): %8.2f us  %.1f%% of copy (%.0f GB/s)\n", j.name, j.nx, j.ny, j.nz, m,
               m ? "interior line-aligned" : "today", us, 100.0 * cellbytes / (us * 1e-6) / 1e9 / bw, bw);
    }
    return 0;
}
