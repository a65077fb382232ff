/* The 3D sweep body fed by the Tensor Memory Accelerator (sm_90 and later): one warp streams each
 * plane of a block's tile into a ring of shared-memory slots with one bulk tensor copy, the other
 * warps compute from the ring. sweep3d_tma.cu has the kernels, the tensor maps and the rule. */
#ifndef HALOX_CUDA_SWEEP3D_TMA_CUH
#define HALOX_CUDA_SWEEP3D_TMA_CUH

#include <cuda.h> /* CUtensorMap (a type only: the map is encoded through the runtime's driver entry point) */

#include "compute/cuda/common.cuh"

/* ---------------------------------------------------------------- the tile and its ring
 * A block: CW computing warps and one loading warp. Its tile: vt vectors (a lane each, vt <= 32)
 * by TY rows by a march of `chunk` planes. A ring slot holds one plane of the tile with R rows on
 * either side in y and, in x, from the 128-byte line at or below the tile's x - R to a line past
 * it (the tile at slot column c0, between R and R + LINE - 1), as the bulk copy lays it out: rows
 * of vt * V + 2 * LINE cells, end to end. TY / CW rows a computing thread.
 * Boxes start on a line: from the line before the tile they stream faster than from the vector or
 * sector before it, although that reads more. The shape (32 rows, 16 computing warps, a ring of 6,
 * a block a tile) is the fastest of those measured (docs/performance.md). */
#ifndef HX_TMA_TY /* a tuning build may set others */
#define HX_TMA_TY 32
#endif
#ifndef HX_TMA_CW
#define HX_TMA_CW 16
#endif
#ifndef HX_TMA_S
#define HX_TMA_S 6
#endif
#ifndef HX_TMA_ADJ
#define HX_TMA_ADJ 0
#endif
template <typename T, int R> struct tma3d {
    enum {
        V = vec16<T>::n,
        TY = HX_TMA_TY,                  /* rows a tile */
        CW = HX_TMA_CW,                  /* computing warps */
        S = HX_TMA_S,                    /* ring slots */
        ADJ = HX_TMA_ADJ,                /* 1: a thread's rows are adjacent, and give each other y neighbours */
        RPT = TY / CW,                   /* rows a computing thread */
        ROWS = TY + 2 * R,               /* rows a slot */
        LINE = 128 / (int)sizeof(T),     /* cells a 128-byte line */
        MAXW = 32 * V + 2 * LINE,        /* cells of the widest slot row */
        SLOT_BYTES = (MAXW * ROWS * (int)sizeof(T) + 127) / 128 * 128 /* slots start on 128 bytes */
    };
    static constexpr size_t smem() { return (size_t)S * SLOT_BYTES; }
    /* cells a slot row, and the map's box width: the tile's vt vectors with a line on either side */
    static __host__ __device__ constexpr int row_cells(int vt) { return vt * V + 2 * LINE; }
};

struct tma_args {
    sweep_args s;
    int vt;     /* vectors a tile (lanes used) */
    int layers; /* z layers of the launch: layer l is planes l * nz / layers .. (l + 1) * nz / layers - 1 */
    int shift;  /* the map's x is the field's x + shift (launch_tma says where the map starts) */
    int line0;  /* the map's x = 0 lies line0 cells past a 128-byte line */
    unsigned long long timeout_ns; /* the longest a wait may last before the block traps */
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* ---------------------------------------------------------------- barriers and the copy (PTX) */
__device__ __forceinline__ unsigned tma_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void tma_bar_init(unsigned long long *b, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tma_smem(b)), "r"(count) : "memory");
}

__device__ __forceinline__ void tma_bar_expect(unsigned long long *b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tma_smem(b)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void tma_bar_arrive(unsigned long long *b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(tma_smem(b)) : "memory");
}

__device__ __forceinline__ unsigned long long tma_clock_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Waits for the phase of this parity of barrier b; past timeout_ns the block traps, which the host
 * sees as a launch failure at its next check (a copy that never lands must not hang the run). */
__device__ __forceinline__ void tma_bar_wait(unsigned long long *b, unsigned parity, unsigned long long timeout_ns)
{
    unsigned long long t0 = 0;
    for (unsigned polls = 0;; polls++) {
        unsigned done;
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(tma_smem(b)), "r"(parity)
                     : "memory");
        if (done) return;
        if ((polls & 1023) == 0) {
            const unsigned long long now = tma_clock_ns();
            if (!t0) t0 = now;
            else if (now - t0 > timeout_ns) __trap();
        }
    }
}

/* The ring's barriers, by one thread (`mine`), before any block thread uses them: a slot's "full"
 * counts the loader's one arrival (and the copy's bytes), its "empty" one arrival a computing warp.
 * The block barrier inside: every thread of the block must call it. */
__device__ __forceinline__ void tma_ring_init(unsigned long long *full, unsigned long long *empty, int slots, unsigned computing_warps,
                                              bool mine)
{
    if (mine) {
        for (int s = 0; s < slots; s++) {
            tma_bar_init(&full[s], 1);
            tma_bar_init(&empty[s], computing_warps);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
}

/* One plane of the tile: the box at (x, y, z) of the map into dst, counted on bar */
__device__ __forceinline__ void tma_load_plane(void *dst, const CUtensorMap *map, int x, int y, int z, unsigned long long *bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(
                     tma_smem(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(z), "r"(tma_smem(bar))
                 : "memory");
}

/* R cells at p in shared memory (p on R cells' alignment: the tile's rows start on vectors) */
template <typename T, int R> __device__ __forceinline__ void tma_load_run(const T *p, T *out)
{
    if (R == 2 && sizeof(T) == 4) {
        const float2 v = *reinterpret_cast<const float2 *>(p);
        memcpy(out, &v, sizeof v);
    } else if (R == 2) {
        const double2 v = *reinterpret_cast<const double2 *>(p);
        memcpy(out, &v, sizeof v);
    } else {
#pragma unroll
        for (int i = 0; i < R; i++) out[i] = p[i];
    }
}

/* ---------------------------------------------------------------- the march
 * tile: the block's place (x: vt vectors from a.xbase, y: TY rows from a.lo[1], z: layer tile.z of
 * ta.layers); ring: tma3d<T, R>::smem() bytes; full, empty: S barriers each. Plane p of the
 * march (z0 - R + p) goes to slot p % S. The loader waits for a slot's `empty` (every computing
 * warp done with the plane it held) before refilling it. A computing thread keeps its rows' z
 * window in registers, so a plane is done with once it has been the centre (its x and y neighbours
 * read), and the ring holds the centre, the R planes above it and S - 1 - R planes ahead. The
 * arithmetic is stencil_row3's, as the register marches': bit for bit the same results. */
template <typename T, int R>
__device__ __forceinline__ void sweep3d_tma_body(const CUtensorMap *map, T *__restrict__ dst, const tma_args &ta, const uint3 tile,
                                                 unsigned char *ring, unsigned long long *full, unsigned long long *empty)
{
    typedef tma3d<T, R> K;
    const int V = K::V, S = K::S, CW = K::CW;
    const sweep_args &a = ta.s;
    const int xt = a.xbase + (int)tile.x * ta.vt * V, yt = a.lo[1] + (int)tile.y * K::TY;
    const long nz = a.hi[2] - a.lo[2];
    const int z0 = a.lo[2] + (int)(tile.z * nz / ta.layers), m = a.lo[2] + (int)((tile.z + 1) * nz / ta.layers) - z0;
    if (m <= 0) return; /* the whole block */
    const int planes = m + 2 * R;
    const int rowc = K::row_cells(ta.vt);
    /* the box's x in the map: the line at or below the tile's x - R (at most R + V cells before
     * the map's x = 0 where the tile starts at the field's first vector: read as zeros, never used) */
    const int xm = xt + ta.shift - R + ta.line0;
    const int xbox = (xm >= 0 ? xm / K::LINE : -((K::LINE - 1 - xm) / K::LINE)) * K::LINE - ta.line0;
    const int c0 = xt + ta.shift - xbox; /* the tile's first cell in a slot row */
    const unsigned bytes = (unsigned)(rowc * K::ROWS * (int)sizeof(T));
    const int w = threadIdx.y, lane = threadIdx.x;
    tma_ring_init(full, empty, S, CW, w == CW && lane == 0);
    if (w == CW) { /* the loader */
        if (lane == 0)
            for (int p = 0; p < planes; p++) {
                const int s = p % S, k = p / S;
                if (k > 0) tma_bar_wait(&empty[s], (k - 1) & 1, ta.timeout_ns);
                tma_bar_expect(&full[s], bytes);
                tma_load_plane(ring + s * K::SLOT_BYTES, map, xbox, yt - R, z0 - R + p, &full[s]);
            }
        return;
    }
    const bool live = lane < ta.vt;
    const int x0 = xt + lane * V, col = c0 + lane * V; /* this lane's vector: in the field, in a slot row */
    auto slot = [&](int p) { return reinterpret_cast<const T *>(ring + (p % S) * K::SLOT_BYTES); };
    auto row_of = [&](int j) { return K::ADJ ? w * K::RPT + j : w + CW * j; }; /* the tile row of this thread's j-th row */
    cells<T> win[K::RPT][2 * R + 1]; /* each row's planes z-R .. z+R */
    for (int p = 0; p < 2 * R; p++) {
        tma_bar_wait(&full[p % S], (p / S) & 1, ta.timeout_ns);
        if (live)
#pragma unroll
            for (int j = 0; j < K::RPT; j++) win[j][p + 1] = load_shared_vec(slot(p) + (row_of(j) + R) * rowc + col);
    }
    __syncwarp();
    if (lane == 0)
        for (int p = 0; p < R; p++) tma_bar_arrive(&empty[p % S]); /* planes below the first centre: registers only */
    for (int i = 0; i < m; i++) {
        const int p = i + 2 * R; /* the plane entering: z + R */
        tma_bar_wait(&full[p % S], (p / S) & 1, ta.timeout_ns);
        if (live) {
            const T *cur = slot(i + R), *up = slot(p);
            const int z = z0 + i;
#pragma unroll
            for (int j = 0; j < K::RPT; j++) {
                const int r = row_of(j);
#pragma unroll
                for (int k = 0; k < 2 * R; k++) win[j][k] = win[j][k + 1];
                win[j][2 * R] = load_shared_vec(up + (r + R) * rowc + col);
            }
#pragma unroll
            for (int j = 0; j < K::RPT; j++) {
                const int r = row_of(j), y = yt + r;
                const T *row = cur + (r + R) * rowc + col;
                cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R: this thread's other rows' centres where ADJ */
#pragma unroll
                for (int k = 0; k < R; k++) {
                    const int below = j - R + k, above = j + 1 + k;
                    ys[k] = K::ADJ && below >= 0 ? win[below < 0 ? 0 : below][R] : load_shared_vec(row - (R - k) * rowc);
                    ys[R + k] = K::ADJ && above < K::RPT ? win[above < K::RPT ? above : 0][R] : load_shared_vec(row + (k + 1) * rowc);
                }
                xrow<T, R> c;
                tma_load_run<T, R>(row - R, c.v);
                tma_load_run<T, R>(row + V, c.v + R + V);
#pragma unroll
                for (int e = 0; e < V; e++) c.v[R + e] = win[j][R].v[e];
                if (y < a.hi[1]) store_cells(dst + x0 + (long)y * a.sy + (long)z * a.sz, stencil_row3<T, R>(c, ys, win[j]), x0, a.lo[0], a.hi[0]);
            }
        }
        __syncwarp();
        if (lane == 0) tma_bar_arrive(&empty[(i + R) % S]); /* this step's centre */
    }
    __syncwarp();
    if (lane == 0)
        for (int p = m + R; p < planes; p++) tma_bar_arrive(&empty[p % S]); /* the planes above the last centre */
}
#endif

#endif
