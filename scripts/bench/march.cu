/* Session 36 probe (not part of the library): how much of a plain 3D sweep's shortfall against a
 * copy comes from its march's order and halo reads rather than its arithmetic. Every kernel copies
 * a float field of NX x NY x NZ (16-byte vectors) into another; the march kernels do it as
 * halox's register march does (blocks of 32 vectors x BY rows, 8 unless the name says by16, each
 * thread marching CH planes along z with its entering plane 3 ahead and, with "pf", an L2 prefetch
 * 2 planes beyond), and may also read what a radius-R stencil's march reads besides its own cells
 * (R = 2 unless the name says R1): the R planes below and above its march (zh) and the R rows
 * above and below its block (yh), added in with a factor that is zero at run time (so nothing is
 * optimised away and the output is still the copy); "reads" kernels read all that the real march
 * reads (kernel reads, below). "copy" is a grid-stride kernel, "memcpy"
 * cudaMemcpyAsync (what `halox roofline` calls copy).
 *
 *   march NX NY NZ        each one's median time of 21 (alternated) and its bandwidth against memcpy */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define BENCH_NAME "march"
#include "bench_check.h"

__global__ void __launch_bounds__(256) copy4(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

__device__ __forceinline__ float4 add(float4 a, float4 b, float k)
{
    return make_float4(a.x + k * b.x, a.y + k * b.y, a.z + k * b.z, a.w + k * b.w);
}

/* nx4: vectors a row; ny, nz: rows and planes; CH: planes a march; PF: L2 prefetch 2 planes beyond
 * the entering one; ZH / YH: also read the stencil's z / y halo (2 planes / rows each side) */
template <int CH, bool PF, bool ZH, bool YH, int R = 2>
__global__ void __launch_bounds__(512) march(const float4 *__restrict__ src, float4 *__restrict__ dst, int nx4, int ny, int nz,
                                             float zero)
{
    constexpr int AHEAD = 3;
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z0 = blockIdx.z * CH;
    if (x >= nx4 || y >= ny || z0 >= nz) return;
    const long sy = nx4, sz = (long)nx4 * ny;
    const float4 *p = src + x + y * sy;
    const int z1 = min(z0 + CH, nz);
    float4 extra = make_float4(0, 0, 0, 0);
    if (ZH)
        for (int k = 1; k <= R; k++) {
            if (z0 - k >= 0) extra = add(extra, p[(z0 - k) * sz], zero);
            if (z1 - 1 + k < nz) extra = add(extra, p[(z1 - 1 + k) * sz], zero);
        }
    float4 ahead[AHEAD];
#pragma unroll
    for (int i = 0; i < AHEAD; i++)
        if (z0 + i < z1) ahead[i] = p[(z0 + i) * sz];
    for (int z = z0; z < z1; z++) {
        float4 v = ahead[0];
#pragma unroll
        for (int i = 0; i + 1 < AHEAD; i++) ahead[i] = ahead[i + 1];
        if (z + AHEAD < z1) ahead[AHEAD - 1] = p[(z + AHEAD) * sz];
        if (PF && z + AHEAD + 2 < z1) asm volatile("prefetch.global.L2 [%0];" ::"l"(p + (z + AHEAD + 2) * sz));
        if (YH) {
            /* warps 0 .. R-1: rows y0-R .. y0-1; the last R: y0+by .. y0+by+R-1 */
            const int t = threadIdx.y, by = blockDim.y, y0 = blockIdx.y * by;
            const int row = t < R ? y0 - R + t : t >= by - R ? y0 + by + (t - (by - R)) : -1;
            if (row >= 0 && row < ny) v = add(v, src[x + row * sy + z * sz], zero);
        }
        dst[x + y * sy + z * sz] = add(v, extra, zero);
    }
}

/* What the real march reads, without its arithmetic: the window of 2R+1 planes (the entering one 3
 * ahead, the first output waiting for the R planes below), the 2R y neighbours' vectors one plane
 * ahead, and the 2R x neighbours beyond the vector as scalars, all summed with a factor of zero */
template <int CH, bool PF, int R>
__global__ void __launch_bounds__(256, R == 2 ? 3 : 4) reads(const float4 *__restrict__ src, float4 *__restrict__ dst, int nx4, int ny, int nz,
                                             float zero)
{
    constexpr int AHEAD = 3;
    const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z0 = blockIdx.z * CH;
    if (x >= nx4 || y >= ny || z0 >= nz) return;
    const long sy = nx4, sz = (long)nx4 * ny;
    const float *s1 = (const float *)src;
    const int z1 = min(z0 + CH, nz);
    auto at = [&](int yy, int zz) { return src[x + min(max(yy, 0), ny - 1) * sy + min(max(zz, 0), nz - 1) * sz]; };
    float4 win[2 * R + 1];
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = at(y, z0 - R + k);
    float4 ahead[AHEAD];
#pragma unroll
    for (int i = 0; i < AHEAD; i++) ahead[i] = at(y, z0 + R + i);
    float4 ys[2 * R];
#pragma unroll
    for (int j = 0; j < R; j++) {
        ys[j] = at(y - R + j, z0);
        ys[R + j] = at(y + 1 + j, z0);
    }
    for (int z = z0; z < z1; z++) {
        win[2 * R] = ahead[0];
#pragma unroll
        for (int i = 0; i + 1 < AHEAD; i++) ahead[i] = ahead[i + 1];
        if (z + AHEAD < z1) ahead[AHEAD - 1] = at(y, z + AHEAD + R);
        if (PF && z + AHEAD + 2 < z1) asm volatile("prefetch.global.L2 [%0];" ::"l"(&src[x + y * sy + min(z + AHEAD + R + 2, nz - 1) * sz]));
        float4 acc = win[R];
#pragma unroll
        for (int k = 0; k < 2 * R + 1; k++)
            if (k != R) acc = add(acc, win[k], zero);
#pragma unroll
        for (int j = 0; j < 2 * R; j++) acc = add(acc, ys[j], zero);
        if (z + 1 < z1) {
#pragma unroll
            for (int j = 0; j < R; j++) {
                ys[j] = at(y - R + j, z + 1);
                ys[R + j] = at(y + 1 + j, z + 1);
            }
        }
        const long row = (long)y * sy * 4 + (long)z * sz * 4, xl = 4L * x, xmax = 4L * nx4 - 1;
        float xs = 0;
#pragma unroll
        for (int k = 1; k <= R; k++) xs += s1[row + max(xl - k, 0L)] + s1[row + min(xl + 3 + k, xmax)];
        acc.x += zero * xs;
        dst[x + y * sy + z * sz] = acc;
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
}

/* Session 37: "reads" with the y neighbours from shared memory. Each thread puts its own vector of
 * a plane into a two-plane ring two steps before the plane is swept; its rows' y neighbours come
 * from that ring: its own block's rows, and with CY > 1 the edge rows of the blocks beside it in a
 * cluster of CY blocks along y (distributed shared memory), so that only a cluster's edge rows are
 * read from L2. One cluster barrier a step (arrive after the plane's store, wait before the next
 * step's reads) orders the ring; the barrier alternates arrive and wait, so every thread of the
 * cluster runs every step. */
template <int CH, bool PF, int R, int CY, bool RELAXED = false>
__global__ void __launch_bounds__(256, R == 2 ? 3 : 4) dsm(const float4 *__restrict__ src, float4 *__restrict__ dst, int nx4, int ny, int nz,
                                                       float zero)
{
    constexpr int AHEAD = 3, BY = 8;
    __shared__ float4 ring[2][BY][32];
    const int x = blockIdx.x * 32 + threadIdx.x, t = threadIdx.y, y = blockIdx.y * BY + t, z0 = blockIdx.z * CH;
    const long sy = nx4, sz = (long)nx4 * ny;
    const float *s1 = (const float *)src;
    const int z1 = min(z0 + CH, nz), n = z1 - z0;
    unsigned rank = 0;
    if (CY > 1) asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    auto at = [&](int yy, int zz) { return src[min(x, nx4 - 1) + min(max(yy, 0), ny - 1) * sy + min(max(zz, 0), nz - 1) * sz]; };
    auto arrive = [] {
        if (CY > 1 && RELAXED) asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
        else if (CY > 1) asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
        else __syncthreads();
    };
    auto wait = [] {
        if (CY > 1) asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    };
    /* row t + d's vector of the plane in ring slot k: this block's, a neighbour's or from L2 */
    auto ys_at = [&](int d, int k, int zz) -> float4 {
        const int r = t + d;
        if (r >= 0 && r < BY) return ring[k][r][threadIdx.x];
        if (CY > 1 && r < 0 && rank > 0) {
            const float4 *p = &ring[k][r + BY][threadIdx.x];
            unsigned long long q;
            asm("mapa.u64 %0, %1, %2;" : "=l"(q) : "l"(p), "r"(rank - 1));
            return *(const float4 *)q;
        }
        if (CY > 1 && r >= BY && rank + 1 < CY) {
            const float4 *p = &ring[k][r - BY][threadIdx.x];
            unsigned long long q;
            asm("mapa.u64 %0, %1, %2;" : "=l"(q) : "l"(p), "r"(rank + 1));
            return *(const float4 *)q;
        }
        return at(y + d, zz);
    };
    float4 win[2 * R + 1];
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = at(y, z0 - R + k);
    float4 ahead[AHEAD];
#pragma unroll
    for (int i = 0; i < AHEAD; i++) ahead[i] = at(y, z0 + R + i);
    float4 ys[2 * R];
    ring[0][t][threadIdx.x] = win[R];
    arrive();
    wait();
#pragma unroll
    for (int j = 0; j < R; j++) {
        ys[j] = ys_at(j - R, 0, z0);
        ys[R + j] = ys_at(j + 1, 0, z0);
    }
    ring[1][t][threadIdx.x] = R == 2 ? win[R + 1] : ahead[0];
    arrive();
    for (int s = 0; s < n; s++) {
        const int z = z0 + s;
        win[2 * R] = ahead[0];
#pragma unroll
        for (int i = 0; i + 1 < AHEAD; i++) ahead[i] = ahead[i + 1];
        if (s + AHEAD < n) ahead[AHEAD - 1] = at(y, z + AHEAD + R);
        if (PF && s + AHEAD + 2 < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(&src[min(x, nx4 - 1) + y * sy + min(z + AHEAD + R + 2, nz - 1) * sz]));
        float4 cur[2 * R];
#pragma unroll
        for (int j = 0; j < 2 * R; j++) cur[j] = ys[j];
        wait();
        if (s + 1 < n) {
#pragma unroll
            for (int j = 0; j < R; j++) {
                ys[j] = ys_at(j - R, (s + 1) & 1, z + 1);
                ys[R + j] = ys_at(j + 1, (s + 1) & 1, z + 1);
            }
        }
        ring[s & 1][t][threadIdx.x] = R == 2 ? win[2 * R] : ahead[0];
        arrive();
        float4 acc = win[R];
#pragma unroll
        for (int k = 0; k < 2 * R + 1; k++)
            if (k != R) acc = add(acc, win[k], zero);
#pragma unroll
        for (int j = 0; j < 2 * R; j++) acc = add(acc, cur[j], zero);
        const long row = (long)y * sy * 4 + (long)z * sz * 4, xl = 4L * x, xmax = 4L * nx4 - 1;
        float xs = 0;
#pragma unroll
        for (int k = 1; k <= R; k++) xs += s1[row + max(xl - k, 0L)] + s1[row + min(xl + 3 + k, xmax)];
        acc.x += zero * xs;
        if (x < nx4 && y < ny) dst[x + y * sy + z * sz] = acc;
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
    wait(); /* no block leaves while another may still read its ring */
}

static float g_zero = 0.0f; /* 1 in the check: the reads then count */

template <int CH, bool PF, int R, int CY, bool RELAXED = false> static void run_dsm(const float4 *a, float4 *b, int nx4, int ny, int nz)
{
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3((nx4 + 31) / 32, (ny + 7) / 8, (nz + CH - 1) / CH);
    c.blockDim = dim3(32, 8);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 1;
    at[0].val.clusterDim.y = CY;
    at[0].val.clusterDim.z = 1;
    c.attrs = at;
    c.numAttrs = CY > 1 ? 1 : 0;
    CK(cudaLaunchKernelEx(&c, dsm<CH, PF, R, CY, RELAXED>, a, b, nx4, ny, nz, g_zero));
}

template <int CH, bool PF, int R> static void run_reads(const float4 *a, float4 *b, int nx4, int ny, int nz)
{
    reads<CH, PF, R><<<dim3((nx4 + 31) / 32, (ny + 7) / 8, (nz + CH - 1) / CH), dim3(32, 8)>>>(a, b, nx4, ny, nz, g_zero);
}

typedef void (*launcher)(const float4 *, float4 *, int, int, int);

template <int CH, bool PF, bool ZH, bool YH, int R = 2, int BY = 8>
static void run_march(const float4 *a, float4 *b, int nx4, int ny, int nz)
{
    march<CH, PF, ZH, YH, R><<<dim3((nx4 + 31) / 32, (ny + BY - 1) / BY, (nz + CH - 1) / CH), dim3(32, BY)>>>(a, b, nx4, ny, nz, 0.0f);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: march NX NY NZ (NX a multiple of 4)\n");
        return 2;
    }
    const int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]), nx4 = nx / 4;
    const size_t n = (size_t)nx4 * ny * nz, bytes = n * sizeof(float4);
    float4 *a, *b;
    const int sms = copy_fields(bytes, &a, &b);
    struct kind { const char *name; launcher f; } kinds[] = {
        {"memcpy", nullptr},
        {"copy", nullptr},
        {"march16", run_march<16, false, false, false>},
        {"march16 pf", run_march<16, true, false, false>},
        {"march8 pf", run_march<8, true, false, false>},
        {"march16 pf zh", run_march<16, true, true, false>},
        {"march16 pf yh", run_march<16, true, false, true>},
        {"march16 pf zh yh", run_march<16, true, true, true>},
        {"march8 pf zh yh", run_march<8, true, true, true>},
        {"march16 pf zh yh by16", run_march<16, true, true, true, 2, 16>},
        {"march8 pf zh yh by16", run_march<8, true, true, true, 2, 16>},
        {"march8 zh yh R1", run_march<8, false, true, true, 1>},
        {"march16 zh yh R1", run_march<16, false, true, true, 1>},
        {"reads16 pf", run_reads<16, true, 2>},
        {"reads8 pf", run_reads<8, true, 2>},
        {"reads8 R1", run_reads<8, false, 1>},
        {"reads16 R1", run_reads<16, false, 1>},
        {"dsm16 pf smem", run_dsm<16, true, 2, 1>},
        {"dsm16 pf cy2", run_dsm<16, true, 2, 2>},
        {"dsm16 pf cy4", run_dsm<16, true, 2, 4>},
        {"dsm16 pf cy8", run_dsm<16, true, 2, 8>},
        {"dsm8 pf cy4", run_dsm<8, true, 2, 4>},
        {"dsm8 R1 cy4", run_dsm<8, false, 1, 4>},
        {"dsm16 pf cy2 relaxed", run_dsm<16, true, 2, 2, true>},
        {"dsm16 pf cy4 relaxed", run_dsm<16, true, 2, 4, true>},
    };
    const int nk = sizeof kinds / sizeof kinds[0];
    /* the dsm kernels read what the reads kernels of the same march read: with the factor 1 and a
     * field of distinct values, their outputs must agree bit for bit */
    {
        std::vector<float> h(4 * n), r1(4 * n), r2(4 * n);
        for (size_t i = 0; i < h.size(); i++) h[i] = (float)((i * 2654435761u) % 1000003) * 1e-3f;
        CK(cudaMemcpy(a, h.data(), bytes, cudaMemcpyHostToDevice));
        g_zero = 1.0f;
        struct pair { const char *name; launcher ref, f; } checks[] = {
            {"dsm16 pf smem", run_reads<16, true, 2>, run_dsm<16, true, 2, 1>},
            {"dsm16 pf cy4", run_reads<16, true, 2>, run_dsm<16, true, 2, 4>},
            {"dsm8 R1 cy4", run_reads<8, false, 1>, run_dsm<8, false, 1, 4>},
            {"dsm16 cy4 relaxed", run_reads<16, true, 2>, run_dsm<16, true, 2, 4, true>},
        };
        for (const pair &c : checks) {
            c.ref(a, b, nx4, ny, nz);
            CK(cudaMemcpy(r1.data(), b, bytes, cudaMemcpyDeviceToHost));
            c.f(a, b, nx4, ny, nz);
            CK(cudaMemcpy(r2.data(), b, bytes, cudaMemcpyDeviceToHost));
            size_t bad = 0;
            for (size_t i = 0; i < r1.size(); i++) bad += memcmp(&r1[i], &r2[i], 4) != 0;
            printf("check %-16s %zu of %zu values differ from reads\n", c.name, bad, r1.size());
        }
        g_zero = 0.0f;
        CK(cudaMemset(a, 0, bytes));
    }
    const auto t = time_alternated(nk, 21, [&](int k, int i) {
        if (i < 0) return;
        const float4 *s = i % 2 ? b : a;
        float4 *d = i % 2 ? a : b;
        if (k == 0) CK(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice));
        else if (!kinds[k].f) copy4<<<sms * 8, 256>>>(s, d, n);
        else kinds[k].f(s, d, nx4, ny, nz);
    });
    char size[64];
    snprintf(size, sizeof size, "%dx%dx%d", nx, ny, nz);
    print_against_memcpy(size, nk, [&](int k) { return kinds[k].name; }, t, bytes);
    return 0;
}
