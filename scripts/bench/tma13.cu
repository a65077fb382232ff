/* Session 37 probe (not part of the library): does a star13 fp32 sweep fed by the Tensor Memory
 * Accelerator reach the copy bandwidth that halox's register march (81% of memcpy at 512^3) does
 * not? A block of 8 computing warps and one loading warp marches CH planes along z over a tile of
 * 128 x TY cells. The loading warp's first lane streams each plane's tile with its halo (136 x
 * (TY + 4) floats, x from 4 before the tile so that the cells stay on 16-byte vectors) into a ring
 * of S shared-memory slots with one bulk tensor copy, which signals a "full" barrier of the slot;
 * the computing warps read every neighbour from the ring (ZREG: the z neighbours from a window in
 * registers, filled as each plane enters) and signal the slot's "empty" barrier when its plane
 * leaves their window; the loader waits for that before it refills the slot. No barrier holds the
 * block's warps together, and no register holds a byte in flight. Cells outside the field read as
 * zero (the copy's out-of-bounds fill), as in the reference kernel, and the check compares the
 * two bit for bit (one expression, every operation rounded as written).
 *
 * Build: nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Iinclude scripts/bench/tma13.cu -o build/tma13
 *
 *   tma13 NX NY NZ     NX a multiple of 128, NY of 32: the check, then each kernel's median time
 *                      of 21 (alternated; ROUNDS=N sets another count) against cudaMemcpyAsync of
 *                      the field. CHECK=0 skips the check.
 *
 * Session 38 added variants as template flags (bulk tensor stores, zigzag layers, wider tiles, the
 * halo's alignment, the centre copy as a ceiling) and the library's field layouts (lib_layout).
 * The kinds in main are the last call's (session 39 call 4); each earlier call's kinds are in its
 * raw output (docs/results/session37/, session38/). Longer than 400 lines on purpose: one kernel
 * with its variants, the host harness and the layouts, built by one nvcc line. */
#include <cstring>
#include <vector>

#include "compute/cuda/sweep3d_tma.cuh" /* build with -Isrc -Iinclude */

#define BENCH_NAME "tma13"
#include "bench_check.h"

/* star13 with fixed weights; x: the 5 cells along x (x-2 .. x+2), likewise y and z (centre in each) */
__device__ __forceinline__ float star13(float c, float xm2, float xm1, float xp1, float xp2, float ym2, float ym1, float yp1,
                                        float yp2, float zm2, float zm1, float zp1, float zp2)
{
    const float s1 = __fadd_rn(__fadd_rn(__fadd_rn(xm1, xp1), __fadd_rn(ym1, yp1)), __fadd_rn(zm1, zp1));
    const float s2 = __fadd_rn(__fadd_rn(__fadd_rn(xm2, xp2), __fadd_rn(ym2, yp2)), __fadd_rn(zm2, zp2));
    return __fadd_rn(__fadd_rn(__fmul_rn(0.25f, c), __fmul_rn(0.1f, s1)), __fmul_rn(0.025f, s2));
}

__global__ void reference(const float *__restrict__ src, float *__restrict__ dst, int nx, int ny, int nz)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= nx) return;
    auto at = [&](int i, int j, int k) {
        return i < 0 || i >= nx || j < 0 || j >= ny || k < 0 || k >= nz ? 0.0f : src[i + (long)nx * (j + (long)ny * k)];
    };
    dst[x + (long)nx * (y + (long)ny * z)] = star13(at(x, y, z), at(x - 2, y, z), at(x - 1, y, z), at(x + 1, y, z), at(x + 2, y, z),
                                                    at(x, y - 2, z), at(x, y - 1, z), at(x, y + 1, z), at(x, y + 2, z), at(x, y, z - 2),
                                                    at(x, y, z - 1), at(x, y, z + 1), at(x, y, z + 2));
}

/* The barriers and the copy are the library's (src/compute/cuda/sweep3d_tma.cuh): a wait gives up
 * after 10 s, saying which block waited for what */
#define PROBE_WAIT_NS 10000000000ull

/* Session 38: the outputs through shared memory and bulk tensor stores (global <- shared::cta).
 * The computing threads' plain stores are made visible to the copy engine's proxy first. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void proxy_fence() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

__device__ __forceinline__ void tma_store_plane(const CUtensorMap *map, int x, int y, int z, const void *src)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(map), "r"(x), "r"(y), "r"(z),
                 "r"(tma_smem(src))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* every bulk store but the newest N has read its shared memory */
template <int N> __device__ __forceinline__ void tma_stores_read() { asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory"); }
__device__ __forceinline__ void tma_stores_done() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
#endif

/* ---------------------------------------------------------------- the TMA-fed march */
/* Session 38: where the cells lie. The probe's own fields: rows of nx cells, planes of ny rows,
 * nothing around them (the map reads outside as zeros). The library's (compute/backend.h): 2
 * ghost cells on every side, rows of a pitch rounded up to 32 cells, the allocation's first 30
 * cells a lead that puts the first owned cell on a 128-byte line. */
struct layout {
    int pitch, ny2;  /* cells a row, rows a plane */
    int ox, oy, oz;  /* the interior's (0,0,0) in the field (from the pointer the kernel gets) */
    int mx, my, mz;  /* ... and in the map */
};

/* XH, YH (session 38): the cells of halo a slot row takes on either side in x, the rows on either side in y */
template <int TY, int TX_ = 128, int XH = 4, int YH = 2> struct tile {
    enum { TX = TX_, NH = TX / 128, BW = TX + 2 * XH, BH = TY + 2 * YH, FLOATS = BW * BH, BYTES = FLOATS * 4 };
    /* a read box wider than the copy engine's 256 elements takes the floats in pairs (8-byte elements) */
    enum { WIDE = BW > 256 };
};

/* Tiles: x fastest, then y, then the L layers of z (layer l: planes l*nz/L .. (l+1)*nz/L - 1),
 * the order of a plain launch; a block takes tiles blockIdx.x, + gridDim.x, ... so that a grid
 * of the resident blocks marches on without starting again (the loader fills the next tile's
 * planes while the computing warps finish this one). CW: computing warps, TY / CW rows each.
 * EARLY (with ZREG): a plane's slot is freed once it has been the centre plane (its z neighbour
 * role is played by the registers), so the ring holds the centre, the two above it and the
 * planes ahead: S - 3 planes ahead instead of S - 5. */
/* Session 38: MODE 1 writes each cell's centre instead of star13 (what the march's loads and
 * stores alone allow), MODE 2 likewise from planes copied without their x and y halo; ST > 0: the computing warps put a plane's outputs in one of ST staging
 * tiles in shared memory (after the ring), and a storing warp (warp CW + 1) writes each with one
 * bulk tensor store through `omap`, freeing the tile once the store has read it. */
/* Session 38: ZZ (with ZREG and EARLY, plain stores): odd layers march down, so that two layers
 * meeting at a boundary read its planes close together in time, both at their start or both at
 * their end (the halo planes from L2, not DRAM). */
/* Session 38: TX 256: tiles of 256 x TY cells, two vectors a lane a row (x halo: 8 of 264 floats
 * a row instead of 8 of 136), read through a map of 8-byte elements. */
template <int TY, int S, int CW, bool ZREG, bool EARLY = false, int MODE = 0, int ST = 0, bool ZZ = false, int TX = 128, int XH = 4,
          int YH = 2>
__global__ void __launch_bounds__(32 * (CW + 1 + (ST > 0)), CW == 8 ? 2 : 1) tma13(const __grid_constant__ CUtensorMap map,
                                                                                  const __grid_constant__ CUtensorMap omap,
                                                                                  float *__restrict__ dst, int nx, int ny, int nz, int layers,
                                                                                  const layout L)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* the library's helpers exist for sm_90 on */
    typedef tile<TY, TX, XH, YH> T;
    static_assert(MODE > 0 || (XH >= 4 && YH == 2), "star13 needs the x and y halo");
    constexpr int RPT = TY / CW, NH = T::NH, NU = RPT * NH; /* a thread's rows, vectors a row, and both */
    extern __shared__ __align__(128) float ring[];
    __shared__ __align__(8) unsigned long long full[S], empty[S], sfull[ST > 0 ? ST : 1], sempty[ST > 0 ? ST : 1];
    constexpr unsigned NST = ST > 0 ? ST : 1; /* (the plain-store kernels never use it) */
    float *stage = ring + S * T::FLOATS; /* ST tiles of TX x TY outputs */
    const int w = threadIdx.y, lane = threadIdx.x;
    const int colsx = nx / T::TX, colsy = (ny + TY - 1) / TY, tiles = colsx * colsy * layers;
    if (ST > 0 && w == CW + 1 && lane == 0)
        for (int b = 0; b < ST; b++) tma_bar_init(&sfull[b], CW), tma_bar_init(&sempty[b], 1);
    tma_ring_init(full, empty, S, CW, w == CW && lane == 0);
    if (ST > 0 && w == CW + 1) { /* the storer */
        if (lane == 0) {
            unsigned o = 0; /* planes of output so far */
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                const int x0 = t % colsx * T::TX, y0 = t / colsx % colsy * TY, l = t / (colsx * colsy);
                const int za = (int)((long)l * nz / layers), zb = (int)((long)(l + 1) * nz / layers);
                for (int z = za; z < zb; z++, o++) {
                    tma_bar_wait(&sfull[o % NST], (o / NST) & 1, PROBE_WAIT_NS, "the outputs of plane", (int)o);
                    tma_store_plane(&omap, x0, y0, z, stage + (o % NST) * (T::TX * TY));
                    tma_stores_read<1>(); /* the store before this one has read its tile */
                    if (o > 0) tma_bar_arrive(&sempty[(o - 1) % NST]);
                }
            }
            tma_stores_done();
        }
        return;
    }
    unsigned ob = 0; /* ST: planes of output this block's computing warps have staged */
    unsigned q = 0; /* planes this block has streamed through the ring so far */
    if (w == CW) {  /* the loader */
        if (lane == 0)
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                const int x0 = t % colsx * T::TX, y0 = t / colsx % colsy * TY, l = t / (colsx * colsy);
                const int za = (int)((long)l * nz / layers), zb = (int)((long)(l + 1) * nz / layers);
                const bool down = ZZ && (l & 1);
                for (int p = 0; p < zb - za + 4; p++, q++) {
                    const int s = q % S, k = q / S;
                    if (k > 0) tma_bar_wait(&empty[s], (k - 1) & 1, PROBE_WAIT_NS, "the slot of plane", (int)q - S);
                    const int zp = down ? zb + 1 - p : za - 2 + p;
                    if (MODE == 2) { /* the tile alone, no halo in x or y (the map's box is 128 x TY) */
                        tma_bar_expect(&full[s], T::TX * TY * 4);
                        tma_load_plane(ring + s * T::FLOATS, &map, x0 + L.mx, y0 + L.my, zp + L.mz, &full[s]);
                    } else {
                        tma_bar_expect(&full[s], T::BYTES);
                        tma_load_plane(ring + s * T::FLOATS, &map, T::WIDE ? (x0 + L.mx - XH) / 2 : x0 + L.mx - XH, y0 + L.my - YH, zp + L.mz,
                                       &full[s]);
                    }
                }
            }
        return;
    }
    /* u = j * NH + h: this thread's row w + CW * j, vector lane + 32 * h of it */
    auto col_of = [&](int u) { return XH + 4 * (lane + 32 * (u % NH)); }; /* in a ring row */
    auto row_of = [&](int u) { return w + CW * (u / NH); };
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int x0 = t % colsx * T::TX, y0 = t / colsx % colsy * TY, l = t / (colsx * colsy);
        const int za = (int)((long)l * nz / layers), zb = (int)((long)(l + 1) * nz / layers), m = zb - za;
        const bool down = ZZ && (l & 1); /* planes zb + 1, zb, ... enter: z + 2 leaves the window */
        float4 win[NU][5]; /* ZREG: each row's centre vector in planes z-2 .. z+2 */
#pragma unroll
        for (int p = 0; p < 4; p++) { /* unrolled: the window's places are registers */
            tma_bar_wait(&full[(q + p) % S], ((q + p) / S) & 1, PROBE_WAIT_NS, "plane", (int)(q + p));
            if (ZREG)
#pragma unroll
                for (int j = 0; j < NU; j++) {
                    const float4 in = *(const float4 *)(ring + ((q + p) % S) * T::FLOATS + (row_of(j) + YH) * T::BW + col_of(j));
                    if (down) win[j][3 - p] = in;
                    else win[j][p + 1] = in;
                }
        }
        if (EARLY) { /* planes z-2 and z-1 of the first output are never a centre */
            __syncwarp();
            if (lane == 0) tma_bar_arrive(&empty[q % S]), tma_bar_arrive(&empty[(q + 1) % S]);
        }
        for (int i = 0; i < m; i++) {
            tma_bar_wait(&full[(q + i + 4) % S], ((q + i + 4) / S) & 1, PROBE_WAIT_NS, "plane", (int)(q + i + 4));
            const float *pl[5];
#pragma unroll
            for (int k = 0; k < 5; k++) pl[k] = ring + ((q + i + k) % S) * T::FLOATS;
            const int z = down ? zb - 1 - i : za + i;
            float *out = stage + (ob % NST) * (T::TX * TY);
            if (ST > 0 && ob >= ST) tma_bar_wait(&sempty[ob % NST], (ob / NST - 1) & 1, PROBE_WAIT_NS, "the staging tile of output", (int)ob);
#pragma unroll
            for (int j = 0; j < NU; j++) {
                const int r = row_of(j), y = y0 + r, col = col_of(j);
                const float *row = pl[2] + (r + YH) * T::BW + col;
                float4 zs[5];
                if (ZREG) {
                    const float4 in = *(const float4 *)(pl[4] + (r + YH) * T::BW + col);
                    if (down) {
#pragma unroll
                        for (int k = 4; k > 0; k--) win[j][k] = win[j][k - 1];
                        win[j][0] = in;
                    } else {
#pragma unroll
                        for (int k = 0; k < 4; k++) win[j][k] = win[j][k + 1];
                        win[j][4] = in;
                    }
#pragma unroll
                    for (int k = 0; k < 5; k++) zs[k] = win[j][k];
                } else {
#pragma unroll
                    for (int k = 0; k < 5; k++) zs[k] = *(const float4 *)(pl[k] + (r + YH) * T::BW + col);
                }
                const float4 c = zs[2];
                const float2 xl = *(const float2 *)(row - 2), xr = *(const float2 *)(row + 4);
                const float4 ym2 = *(const float4 *)(row - 2 * T::BW), ym1 = *(const float4 *)(row - T::BW);
                const float4 yp1 = *(const float4 *)(row + T::BW), yp2 = *(const float4 *)(row + 2 * T::BW);
                const float cx[8] = {xl.x, xl.y, c.x, c.y, c.z, c.w, xr.x, xr.y}; /* x-2 .. x+5 */
                float o[4];
                const float *cy[4] = {&ym2.x, &ym1.x, &yp1.x, &yp2.x};
                const float *cz[5] = {&zs[0].x, &zs[1].x, &zs[2].x, &zs[3].x, &zs[4].x};
#pragma unroll
                for (int e = 0; e < 4; e++)
                    o[e] = star13(cx[e + 2], cx[e], cx[e + 1], cx[e + 3], cx[e + 4], cy[0][e], cy[1][e], cy[2][e], cy[3][e], cz[0][e],
                                  cz[1][e], cz[3][e], cz[4][e]);
                const float4 v = MODE == 2 ? *(const float4 *)(pl[2] + r * T::TX + col - XH) : MODE == 1 ? c : make_float4(o[0], o[1], o[2], o[3]);
                const int x = x0 + col - XH;
                if (ST > 0) *(float4 *)(out + r * T::TX + col - XH) = v;
                else if (x < nx && y < ny) *(float4 *)(dst + x + L.ox + (long)L.pitch * (y + L.oy + (long)L.ny2 * (z + L.oz))) = v;
            }
            if (ST > 0) {
                proxy_fence(); /* this thread's staged outputs, to the bulk store */
                __syncwarp();
                if (lane == 0) tma_bar_arrive(&sfull[ob % NST]);
                ob++;
            }
            __syncwarp();
            if (lane == 0) tma_bar_arrive(&empty[(q + i + (EARLY ? 2 : 0)) % S]); /* plane z (EARLY) or z - 2 is done with */
        }
        __syncwarp();
        if (lane == 0)
            for (int k = EARLY ? 2 : 0; k < 4; k++) tma_bar_arrive(&empty[(q + m + k) % S]); /* the tile's last planes */
        q += m + 4;
    }
#endif
}

/* ---------------------------------------------------------------- host */
typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,
                              const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static CUtensorMap encode_map(void *base, const cuuint64_t dims[3], const cuuint64_t strides[2], const cuuint32_t box[3], bool pair,
                              int promo);

/* the map of a field read in tiles of ty rows with their halo, or (out) written in tiles of 128 x ty */
static CUtensorMap plane_map(float *field, int nx, int ny, int nz, int ty, bool out = false, int promo = 256, int tx = 128, int xh = 4,
                             int yh = 2)
{
    const int bw = out ? tx : tx + 2 * xh, pair = bw > 256; /* pair: 8-byte elements (tile<>::WIDE) */
    const cuuint64_t dims[3] = {(cuuint64_t)nx >> pair, (cuuint64_t)ny, (cuuint64_t)nz};
    const cuuint64_t strides[2] = {(cuuint64_t)nx * 4, (cuuint64_t)nx * ny * 4};
    const cuuint32_t box[3] = {(cuuint32_t)bw >> pair, (cuuint32_t)ty + (out ? 0 : 2 * yh), 1};
    return encode_map(field, dims, strides, box, pair, promo);
}

static CUtensorMap encode_map(void *base, const cuuint64_t dims[3], const cuuint64_t strides[2], const cuuint32_t box[3], bool pair,
                              int promo)
{
    static encode_fn encode = nullptr;
    if (!encode) {
        cudaDriverEntryPointQueryResult q;
        CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !encode) {
            fprintf(stderr, "tma13: the driver has no cuTensorMapEncodeTiled\n");
            exit(1);
        }
    }
    CUtensorMap m;
    const cuuint32_t one[3] = {1, 1, 1};
    const CUresult r = encode(&m, pair ? CU_TENSOR_MAP_DATA_TYPE_UINT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, base, dims, strides, box, one,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              promo == 0     ? CU_TENSOR_MAP_L2_PROMOTION_NONE
                              : promo == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                              : promo == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                             : CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "tma13: cuTensorMapEncodeTiled failed (%d)\n", (int)r);
        exit(1);
    }
    return m;
}

struct fields {
    float *a, *b;
    CUtensorMap ma, mb, oa, ob; /* maps of a and b with this kind's tile: read (halo and all), written */
    int nx, ny, nz;
    layout L;
};

/* Session 38: fields in the library's layout (lib 1-3: 2 ghost cells a side, rows of a pitch
 * rounded up to 32 cells, a lead of 30 cells that puts the first owned cell on a line) or the
 * probe's own cells with the library's strides (lib 4: its pitch and plane, 5: its pitch only, 6:
 * its plane only; the map holds the interior alone and reads outside as zeros; 10 + k: the
 * probe's planes of ny rows, rows of nx + 32 k cells; 20 + k: rows of nx + 4 k cells, so that
 * rows start off lines (session 39)). lib 1 maps them
 * as the library does (from the vector start before the ghost origin, rows to the pitch: the first
 * box of a row starts off a line in part outside the map, the last reads into the pitch's
 * padding); 2 from the first owned cell, which starts a line (the left ghosts fall outside and read
 * as zero: the probe's ghosts are zero), rows to the pitch; 3 the same, rows to the last ghost.
 * lib 7 and 8: the library's layout in rows of a power-of-two pitch (the first at or above
 * nx + 4), mapped as 1 (7) or from the line that holds the ghost origin (8, as the library maps
 * doubles); 9: the probe's cells in rows of 2 nx (the map holds the interior alone).
 * Cell (x, y, z) of the interior lies at LIB_LEAD + 2 + x + pitch * (2 + y + ny2 * (2 + z)) of the
 * allocation in each. */
enum { LIB_LEAD = 30 };
static layout lib_layout(int lib, int nx, int ny)
{
    if (lib >= 20) return layout{nx + 4 * (lib - 20), ny, 0, 0, 0, 0, 0, 0};
    if (lib >= 10) return layout{nx + 32 * (lib - 10), ny, 0, 0, 0, 0, 0, 0};
    if (lib == 9) return layout{2 * nx, ny, 0, 0, 0, 0, 0, 0};
    int pow2 = 32;
    while (pow2 < nx + 4) pow2 *= 2;
    const int P = lib == 6 ? nx : lib >= 7 ? pow2 : (nx + 4 + 31) / 32 * 32, ny2 = lib == 5 ? ny : ny + 4;
    if (lib <= 3 || lib >= 7) return layout{P, ny2, 2, 2, 2, lib == 1 || lib == 7 ? 4 : lib == 8 ? 2 + LIB_LEAD : 0, 2, 2};
    return layout{P, ny2, 0, 0, 0, 0, 0, 0};
}
/* the pointer the kernel gets: the ghost origin (lib 1-3) or the interior's first cell */
static float *lib_origin(float *alloc, const layout &L) { return alloc + LIB_LEAD + (L.ox ? 0 : 2 + (size_t)L.pitch * (2 + 2 * (size_t)L.ny2)); }

static CUtensorMap lib_map(float *origin, int lib, const fields &f, const layout &L, int ty, int xh, int yh)
{
    const bool ghosts = L.ox != 0;
    float *base = lib == 1 || lib == 7 ? origin - 2 : lib == 8 ? origin - LIB_LEAD : lib <= 3 ? origin + 2 : origin;
    const cuuint64_t dims[3] = {(cuuint64_t)(lib == 3 ? f.nx + 2 : ghosts ? L.pitch : f.nx), (cuuint64_t)(ghosts ? L.ny2 : f.ny),
                                (cuuint64_t)(ghosts ? f.nz + 4 : f.nz)};
    const cuuint64_t strides[2] = {(cuuint64_t)L.pitch * 4, (cuuint64_t)L.pitch * L.ny2 * 4};
    const cuuint32_t box[3] = {(cuuint32_t)(128 + 2 * xh), (cuuint32_t)(ty + 2 * yh), 1};
    return encode_map(base, dims, strides, box, false, 256);
}

typedef void (*launcher)(const fields &f, int flip);

/* PERSIST: a grid of the resident blocks; otherwise a block a tile. Layers of CH planes. */
/* CH 0: as many layers as one wave of blocks holds (session 38) */
template <int TY, int S, int CW, bool ZREG, bool PERSIST, bool EARLY = false, int CH = 32, int MODE = 0, int ST = 0, bool ZZ = false,
          int TX = 128, int XH = 4, int YH = 2>
static void run_tma(const fields &f, int flip)
{
    const size_t smem = (size_t)S * tile<TY, TX, XH, YH>::BYTES + (size_t)ST * 128 * TY * 4;
    static int grid = 0, layers = 0;
    const int tiles2d = f.nx / TX * ((f.ny + TY - 1) / TY);
    if (!grid) {
        CK(cudaFuncSetAttribute(tma13<TY, S, CW, ZREG, EARLY, MODE, ST, ZZ, TX, XH, YH>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        int per_sm = 0, sms = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tma13<TY, S, CW, ZREG, EARLY, MODE, ST, ZZ, TX, XH, YH>, 32 * (CW + 1), smem));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        const int places = per_sm * sms;
        if (PERSIST) { /* session 37, call 4: layers that share the tiles out evenly (33 at nz 512) lost to CH planes */
            layers = (f.nz + CH - 1) / CH;
            grid = std::min(places, tiles2d * layers);
        } else {
            layers = CH ? (f.nz + CH - 1) / CH : std::max(1, places / tiles2d);
            grid = tiles2d * layers;
        }
        printf("tma tx%d ty%d xh%d yh%d s%d cw%d mode%d st%d zz%d: %d blocks a multiprocessor, grid %d, %d layers\n", TX, TY, XH, YH, S, CW, MODE, ST, (int)ZZ, per_sm, grid, layers);
    }
    tma13<TY, S, CW, ZREG, EARLY, MODE, ST, ZZ, TX, XH, YH><<<grid, dim3(32, CW + 1 + (ST > 0)), smem>>>(flip ? f.mb : f.ma, flip ? f.oa : f.ob, flip ? f.a : f.b, f.nx, f.ny,
                                                                               f.nz, layers, f.L);
}

static void run_reference(const fields &f, int flip)
{
    reference<<<dim3((f.nx + 127) / 128, f.ny, f.nz), 128>>>(flip ? f.b : f.a, flip ? f.a : f.b, f.nx, f.ny, f.nz);
}

struct kind {
    const char *name;
    launcher f;
    int ty;
    bool centre = false; /* writes each cell's centre: checked against the source */
    int promo = 256;     /* the read map's L2 promotion (bytes; 0: none) */
    bool nohalo = false; /* the read map's box is the tile alone (MODE 2) */
    int tx = 128;        /* the tile's width */
    int xh = 4, yh = 2;  /* the read box's halo */
    int lib = 0;         /* the library's layout, mapped as lib_map says (0: the probe's own fields) */
};

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: tma13 NX NY NZ (NX a multiple of 128, NY of 32)\n");
        return 2;
    }
    fields f;
    f.nx = atoi(argv[1]), f.ny = atoi(argv[2]), f.nz = atoi(argv[3]);
    if (f.nx % 128 || f.ny % 32 || f.nz < 1) {
        fprintf(stderr, "tma13: NX a multiple of 128, NY of 32\n");
        return 2;
    }
    const size_t n = (size_t)f.nx * f.ny * f.nz, bytes = n * 4;
    copy_fields(bytes, (float4 **)&f.a, (float4 **)&f.b);
    f.L = layout{f.nx, f.ny, 0, 0, 0, 0, 0, 0};
    /* the same fields in the library's layout (lib_map), ghosts zero */
    fields g = f;
    const layout big = lib_layout(9, f.nx, f.ny); /* the widest */
    const size_t gcells = (size_t)LIB_LEAD + (size_t)big.pitch * (big.ny2 + 4) * (f.nz + 4) + 64;
    float *ga, *gb;
    CK(cudaMalloc(&ga, gcells * 4));
    CK(cudaMalloc(&gb, gcells * 4));
    CK(cudaMemset(ga, 0, gcells * 4));
    CK(cudaMemset(gb, 0, gcells * 4));
    auto gat = [&](const layout &L, int x, int y, int z) { return (size_t)LIB_LEAD + 2 + x + (size_t)L.pitch * (2 + y + (size_t)L.ny2 * (2 + z)); };
    auto lib_prep = [&](const kind &kd) { /* g: kind kd's layout, fields and maps */
        g.L = lib_layout(kd.lib, f.nx, f.ny);
        g.a = lib_origin(ga, g.L), g.b = lib_origin(gb, g.L);
        g.ma = lib_map(g.a, kd.lib, g, g.L, kd.ty, kd.xh, kd.yh);
        g.mb = lib_map(g.b, kd.lib, g, g.L, kd.ty, kd.xh, kd.yh);
    };
    /* run_tma<TY, S, CW, ZREG, PERSIST, EARLY, CH, MODE, ST, ZZ, TX, XH, YH>; kind: ty, centre, promo, nohalo, tx, xh, yh */
    const kind kinds[] = {
        {"memcpy", nullptr, 0},
        {"reference", run_reference, 0},
        {"tma ch64 xh32", run_tma<32, 6, 16, true, false, true, 64, 0, 0, false, 128, 32, 2>, 32, false, 256, false, 128, 32, 2},
        {"pitch +0", run_tma<32, 6, 16, true, false, true, 64, 0, 0, false, 128, 32, 2>, 32, false, 256, false, 128, 32, 2, 10},
        {"pitch +4", run_tma<32, 6, 16, true, false, true, 64, 0, 0, false, 128, 32, 2>, 32, false, 256, false, 128, 32, 2, 21},
        {"pitch +8", run_tma<32, 6, 16, true, false, true, 64, 0, 0, false, 128, 32, 2>, 32, false, 256, false, 128, 32, 2, 22},
        {"pitch +16", run_tma<32, 6, 16, true, false, true, 64, 0, 0, false, 128, 32, 2>, 32, false, 256, false, 128, 32, 2, 24},
        {"pitch +32", run_tma<32, 6, 16, true, false, true, 64, 0, 0, false, 128, 32, 2>, 32, false, 256, false, 128, 32, 2, 11},
        {"lib1 ch64 xh32", run_tma<32, 6, 16, true, false, true, 64, 0, 0, false, 128, 32, 2>, 32, false, 256, false, 128, 32, 2, 1},
    };
    const int nk = sizeof kinds / sizeof kinds[0];
    /* the check: distinct values, every TMA kernel against the reference, bit for bit */
    if (!getenv("CHECK") || atoi(getenv("CHECK"))) {
        std::vector<float> h(n), r1(n), r2(n);
        for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 1000003) * 1e-3f;
        CK(cudaMemcpy(f.a, h.data(), bytes, cudaMemcpyHostToDevice));
        run_reference(f, 0);
        CK(cudaMemcpy(r1.data(), f.b, bytes, cudaMemcpyDeviceToHost));
        std::vector<float> gh(gcells), gr(gcells);
        for (int k = 2; k < nk; k++) {
            if (kinds[k].lib) {
                lib_prep(kinds[k]);
                std::fill(gh.begin(), gh.end(), 0.0f);
                for (int z = 0; z < f.nz; z++)
                    for (int y = 0; y < f.ny; y++)
                        for (int x = 0; x < f.nx; x++) gh[gat(g.L, x, y, z)] = h[x + (size_t)f.nx * (y + (size_t)f.ny * z)];
                CK(cudaMemcpy(ga, gh.data(), gcells * 4, cudaMemcpyHostToDevice));
                CK(cudaMemset(gb, 0xff, gcells * 4)); /* cells the kernel fails to write differ */
                kinds[k].f(g, 0);
                CK(cudaGetLastError());
                CK(cudaMemcpy(gr.data(), gb, gcells * 4, cudaMemcpyDeviceToHost));
                for (int z = 0; z < f.nz; z++)
                    for (int y = 0; y < f.ny; y++)
                        for (int x = 0; x < f.nx; x++) r2[x + (size_t)f.nx * (y + (size_t)f.ny * z)] = gr[gat(g.L, x, y, z)];
            } else {
                f.ma = plane_map(f.a, f.nx, f.ny, f.nz, kinds[k].ty, kinds[k].nohalo, kinds[k].promo, kinds[k].tx, kinds[k].xh, kinds[k].yh);
                f.ob = plane_map(f.b, f.nx, f.ny, f.nz, kinds[k].ty, true);
                CK(cudaMemset(f.b, 0xff, bytes));
                kinds[k].f(f, 0);
                CK(cudaGetLastError());
                CK(cudaMemcpy(r2.data(), f.b, bytes, cudaMemcpyDeviceToHost));
            }
            size_t bad = 0;
            const std::vector<float> &want = kinds[k].centre ? h : r1;
            for (size_t i = 0; i < n; i++) bad += memcmp(&want[i], &r2[i], 4) != 0;
            printf("check %-28s %zu of %zu cells differ from the reference\n", kinds[k].name, bad, n);
        }
        CK(cudaMemset(f.a, 0, bytes));
        CK(cudaMemset(f.b, 0, bytes));
        CK(cudaMemset(ga, 0, gcells * 4));
        CK(cudaMemset(gb, 0, gcells * 4));
    }
    const int rounds = getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : 21; /* fewer under the sanitizer */
    const auto t = time_alternated(nk, rounds, [&](int k, int i) {
        if (i < 0) {
            if (kinds[k].lib) lib_prep(kinds[k]);
            else if (kinds[k].ty) {
                f.ma = plane_map(f.a, f.nx, f.ny, f.nz, kinds[k].ty, kinds[k].nohalo, kinds[k].promo, kinds[k].tx, kinds[k].xh, kinds[k].yh);
                f.mb = plane_map(f.b, f.nx, f.ny, f.nz, kinds[k].ty, kinds[k].nohalo, kinds[k].promo, kinds[k].tx, kinds[k].xh, kinds[k].yh);
                f.oa = plane_map(f.a, f.nx, f.ny, f.nz, kinds[k].ty, true);
                f.ob = plane_map(f.b, f.nx, f.ny, f.nz, kinds[k].ty, true);
            }
        } else if (k == 0) CK(cudaMemcpyAsync(i % 2 ? f.a : f.b, i % 2 ? f.b : f.a, bytes, cudaMemcpyDeviceToDevice));
        else kinds[k].f(kinds[k].lib ? g : f, i % 2);
    });
    char size[64];
    snprintf(size, sizeof size, "%dx%dx%d", f.nx, f.ny, f.nz);
    print_against_memcpy(size, nk, [&](int k) { return kinds[k].name; }, t, bytes);
    return 0;
}
