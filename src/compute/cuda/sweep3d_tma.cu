/* 3D sweeps fed by bulk tensor copies (sweep3d_tma.cuh): the kernels, the tensor maps of the fields
 * they read, and their launch. */
#include <mutex>

#include "compute/cuda/ops.h"
#include "compute/cuda/sweep3d_tma.cuh"

#ifndef HX_TMA_MINB /* tuning builds: blocks a multiprocessor the registers must allow */
#define HX_TMA_MINB 1
#endif
template <typename T, int R>
__global__ void __launch_bounds__(32 * (tma3d<T, R>::CW + 1), HX_TMA_MINB) sweep3d_tma(const __grid_constant__ CUtensorMap map, T *__restrict__ dst,
                                                                         tma_args ta, int flip)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) unsigned char tma_ring[];
    __shared__ __align__(8) unsigned long long full[tma3d<T, R>::S], empty[tma3d<T, R>::S];
    grid_dep_enter();
    sweep3d_tma_body<T, R>(&map, dst, ta, sweep_tile<true>(flip), tma_ring, full, empty);
#else
    (void)map, (void)dst, (void)ta, (void)flip; /* never launched: cu_tma_usable says no */
#endif
}

typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,
                                    const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                    CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* cuTensorMapEncodeTiled through the runtime (no link to the driver library); NULL where the driver has none */
static encode_tiled_fn encoder(void)
{
    static encode_tiled_fn fn = NULL;
    static int asked = 0;
    if (!asked) {
        asked = 1;
        cudaDriverEntryPointQueryResult q;
        void *p = NULL;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (encode_tiled_fn)p;
        (void)cudaGetLastError();
    }
    return fn;
}

template <typename T, int R> static int compiled_for_tma(void)
{
    cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, sweep3d_tma<T, R>) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return fa.binaryVersion >= 90;
}

int cu_tma_usable(void)
{
    static int usable = -1;
    if (usable < 0) {
        int dev = 0, major = 0;
        usable = cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
                 major >= 9 && encoder() && compiled_for_tma<float, 2>();
        (void)cudaGetLastError();
    }
    return usable;
}

/* ---------------------------------------------------------------- tensor maps, kept per field
 * A map is the field's address and layout and the tile's box, so one found again under the same
 * key still describes the memory (a field freed and another allocated at its address with the same
 * layout reads the same way). The backends of one process share the table; halox calls the sweep
 * ops from one thread a rank, and the lock keeps two threads from tearing an entry. */
struct map_entry {
    const void *base;
    cuuint64_t dims[3];
    unsigned box[2];
    int elem;
    CUtensorMap map;
};

/* The map of the field whose x = 0 lies at `base` (16-byte aligned), read in boxes of box_cells x
 * box_rows cells. */
static const CUtensorMap *field_map(hx_backend *bk, const char *base, const sweep_args &a, int box_cells, int box_rows)
{
    enum { NMAPS = 16 };
    static map_entry maps[NMAPS];
    static int used = 0, next = 0;
    static std::mutex lock;
    const hx_decomp *d = bk->decomp;
    map_entry key;
    memset(&key, 0, sizeof key);
    key.base = base;
    /* a row of the map is the pitch (the encoder takes no row longer than its stride): where base
     * lies k cells before the field's row, the row's last k cells fall past the map's and read as
     * zero, which cu_sweep and launch_tma keep clear of the cells a stored output reads. Ending it at
     * the row's last ghost cell instead, so that the boxes at the rows' ends read their padding as
     * zeros, was slower. */
    key.dims[0] = (cuuint64_t)a.pitch;
    key.dims[1] = (cuuint64_t)d->alloc[1];
    key.dims[2] = (cuuint64_t)d->alloc[2];
    key.box[0] = (unsigned)box_cells;
    key.box[1] = (unsigned)box_rows;
    key.elem = (int)bk->elem;
    std::lock_guard<std::mutex> hold(lock);
    for (int i = 0; i < used; i++)
        if (maps[i].base == key.base && !memcmp(maps[i].dims, key.dims, sizeof key.dims) && !memcmp(maps[i].box, key.box, sizeof key.box) &&
            maps[i].elem == key.elem)
            return &maps[i].map;
    const cuuint64_t strides[2] = {(cuuint64_t)a.sy * bk->elem, (cuuint64_t)a.sz * bk->elem};
    const cuuint32_t box[3] = {key.box[0], key.box[1], 1}, unit[3] = {1, 1, 1};
    const CUresult r = encoder()(&key.map, bk->elem == 8 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3,
                                 (void *)key.base, key.dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(bk->err, sizeof bk->err, "sweep: cuTensorMapEncodeTiled failed (%d) for the field at %p, box %u x %u", (int)r, (const void *)base,
                 key.box[0], key.box[1]);
        return NULL;
    }
    const int i = used < NMAPS ? used++ : next++ % NMAPS;
    maps[i] = key;
    return &maps[i].map;
}

/* The z layers of a launch of `columns` tiles a layer over nz planes, where `places` blocks fit on
 * the GPU at once (one a multiprocessor): the fewest waves times the planes a block reads, halo and
 * all, over marches of 8 to 64 planes; the longer march where two tie. A wave of one block a
 * multiprocessor leaves the GPU idle in its last part, so the march length is set by the waves.
 * No march beyond 64 planes: blocks far apart in z lose DRAM locality. The model overrates long
 * marches somewhat (star13 fp64 512^3 runs a little slower in 64-plane marches than in 32), but a
 * penalty on long marches that mends that case loses the others. */
static int tma_layers(long columns, int nz, int radius, long places)
{
    int best = 1;
    double best_cost = -1;
    for (int l = max(1, (nz + 63) / 64); l <= max(1, nz / 8); l++) {
        const long waves = (columns * l + places - 1) / places;
        const double cost = (double)waves * ((nz + l - 1) / l + 2 * radius);
        if (best_cost < 0 || cost < best_cost) best = l, best_cost = cost;
    }
    return best;
}

template <typename T, int R> static int launch_tma(hx_backend *bk, const sweep_launch &l, int phase)
{
    typedef tma3d<T, R> K;
    static int per_sm = -1;
    if (per_sm < 0) {
        CU_TRY(bk, cudaFuncSetAttribute(sweep3d_tma<T, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)K::smem()));
        CU_TRY(bk, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweep3d_tma<T, R>, 32 * (K::CW + 1), K::smem()));
    }
    const hx_box *b = l.b;
    /* as few tiles across as 32 lanes allow, of equal width: 129 vectors make 5 tiles of 26, not 4 of
     * 32 and one of 1 */
    const int ntx = (l.groups + 31) / 32, vt = (l.groups + ntx - 1) / ntx;
    const int nty = (b->hi[1] - b->lo[1] + K::TY - 1) / K::TY, nz = b->hi[2] - b->lo[2];
    /* The map's x = 0: the 128-byte line that holds the field's x = 0 where the row's cells, ghosts
     * and all, still fit in the pitch after it (doubles, 512 + 4 cells: 14 cells into the line, 530
     * of 544), so that every box starts on a line inside the map; else the vector start at or below
     * x = 0 (floats: 30 cells into the line would leave the last 2 ghosts past the pitch), where a
     * row's first box starts in part before the map (within 2% of boxes from the first owned cell's
     * line). */
    const hx_decomp *d = bk->decomp;
    const int into = (int)((uintptr_t)l.src % 128 / bk->elem);
    const int shift = into + d->local[0] + 2 * d->ghost[0] <= l.a->pitch ? into : phase;
    const char *base = (const char *)l.src - (size_t)shift * bk->elem;
    const CUtensorMap *map = field_map(bk, base, *l.a, K::row_cells(vt), K::ROWS);
    if (!map) return -1;
    tma_args ta;
    ta.s = *l.a;
    ta.vt = vt;
    /* l.chunk: planes a march where the tuning sets them, 0 for the waves' rule */
    ta.layers = l.chunk > 0 ? (nz + l.chunk - 1) / l.chunk : tma_layers((long)ntx * nty, nz, R, (long)max(per_sm, 1) * state(bk)->dev.sms);
    ta.shift = shift;
    ta.line0 = (int)((uintptr_t)base % 128 / bk->elem);
    ta.timeout_ns = (unsigned long long)(hx_timeout_seconds() * 1e9);
    launch_sweep_kernel(sweep3d_tma<T, R>, dim3((unsigned)ntx, (unsigned)nty, (unsigned)ta.layers), dim3(32, K::CW + 1), K::smem(), l.st,
                        l.pdl, *map, (T *)l.dst, ta, l.flip);
    return 0;
}

int cu_launch_sweep3d_tma(hx_backend *bk, const sweep_launch &l, int dslot, int radius, int phase)
{
    if (dslot == 0) return radius == 1 ? launch_tma<float, 1>(bk, l, phase) : launch_tma<float, 2>(bk, l, phase);
    return radius == 1 ? launch_tma<double, 1>(bk, l, phase) : launch_tma<double, 2>(bk, l, phase);
}
