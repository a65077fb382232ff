/* The 3D sweep body fed by a cp.async shared-memory ring: cu_sweep takes it for fp64 radius 2 where the bulk-copy march does not run. */
#ifndef HALOX_CUDA_SWEEP3D_PIPE_CUH
#define HALOX_CUDA_SWEEP3D_PIPE_CUH

#include "compute/cuda/common.cuh"
#include "compute/cuda/cp_async.cuh"

/* ---------------------------------------------------------------- 3D sweep, pipelined through shared memory
 * A block owns a tile of 32 vectors x BY rows and marches along z. Each plane of the tile, with
 * R rows and one vector of halo on every side, is copied into a ring of shared-memory slots
 * with cp.async P planes ahead of the plane being computed, so bytes stay in flight without
 * holding registers, and the y and x neighbours come from shared memory instead of L1 misses.
 * The z neighbours stay in a register window. One barrier per plane; the slot refilled at step z
 * held plane z-1, which every thread finished with before that barrier. */

struct pipe_args {
    sweep_args s;
    int rows;  /* allocated rows (alloc[1]), to clamp halo rows of partial tiles */
    int chunk; /* planes per block */
};

/* Shared memory the ring needs for a block of 32 x by threads. */
template <int R, int P> __host__ __device__ constexpr size_t sweep3d_pipe_smem(int by)
{
    return (size_t)(R + 1 + P) * (by + 2 * R) * 34 * 16;
}

/* tile: this block's place in the grid (x: 32 vectors, y: blockDim.y rows, z: pa.chunk planes);
 * ring: sweep3d_pipe_smem<R, P>(blockDim.y) bytes of shared memory, 16-byte aligned. Every thread
 * of the block must call it (barriers inside); a caller that reuses ring for another tile puts a
 * __syncthreads() in between. */
template <typename T, int R, int P>
__device__ __forceinline__ void sweep3d_pipe_body(const T *__restrict__ src, T *__restrict__ dst, const pipe_args &pa,
                                                  const uint3 tile, T *ring)
{
    const int V = vec16<T>::n, NS = R + 1 + P, W = 34; /* vectors per smem row: 32 + one each side */
    const sweep_args &a = pa.s;
    const int by = blockDim.y, srows = by + 2 * R;
    const long slot_cells = (long)srows * W * V;
    const int tid = threadIdx.y * 32 + threadIdx.x, nthreads = 32 * by;
    const int xt = a.xbase + tile.x * 32 * V; /* first cell of the tile */
    const int yt = a.lo[1] + tile.y * by;
    const int z0 = a.lo[2] + tile.z * pa.chunk;
    const int z1 = min(z0 + pa.chunk, a.hi[2]);
    const int x0 = xt + threadIdx.x * V, y = yt + threadIdx.y;
    const bool active = x0 < a.hi[0] && y < a.hi[1];

    /* copy plane z of the tile into its slot; halo reads are clamped into the allocation (their
     * values only feed cells outside the box, which are not stored) */
    auto fetch = [&](int z) {
        T *slot = ring + (long)((z - z0) % NS) * slot_cells;
        const T *plane = src + (long)z * a.sz;
        for (int i = tid; i < srows * W; i += nthreads) {
            const int r = i / W, c = i - r * W;
            const int gx = min(max(xt + (c - 1) * V, a.xlow), a.xhigh);
            const int gy = min(max(yt - R + r, 0), pa.rows - 1);
            cp_async16(slot + (long)i * V, plane + (long)gy * a.sy + gx);
        }
    };
#pragma unroll
    for (int k = 0; k < R + P; k++) {
        if (z0 + k < z1 + R) fetch(z0 + k);
        cp_async_commit();
    }
    cells<T> win[2 * R + 1]; /* planes z-R .. z+R of this thread's vector */
    const T *column = src + min(x0, a.xhigh) + (long)min(y, pa.rows - 1) * a.sy;
#pragma unroll
    for (int k = 0; k < 2 * R; k++) win[k] = load_vec(column + (long)(z0 - R + k) * a.sz);

    const int me = (threadIdx.y + R) * W + threadIdx.x + 1; /* this thread's vector in a slot */
    for (int z = z0; z < z1; z++) {
        cp_async_wait<P - 1>();
        __syncthreads();
        if (z + R + P < z1 + R) fetch(z + R + P);
        cp_async_commit();
        const T *cur = ring + (long)((z - z0) % NS) * slot_cells;
        const T *up = ring + (long)((z + R - z0) % NS) * slot_cells;
        win[2 * R] = load_shared_vec(up + (long)me * V);
        cells<T> ys[2 * R]; /* y-R .. y-1, y+1 .. y+R */
#pragma unroll
        for (int j = 0; j < R; j++) {
            ys[j] = load_shared_vec(cur + (long)(me - (R - j) * W) * V);
            ys[R + j] = load_shared_vec(cur + (long)(me + (j + 1) * W) * V);
        }
        xrow<T, R> c;
#pragma unroll
        for (int i = 0; i < R; i++) {
            c.v[i] = cur[(long)me * V - R + i];
            c.v[R + V + i] = cur[(long)(me + 1) * V + i];
        }
#pragma unroll
        for (int i = 0; i < V; i++) c.v[R + i] = win[R].v[i];
        if (active) store_cells(dst + x0 + (long)y * a.sy + (long)z * a.sz, stencil_row3<T, R>(c, ys, win), x0, a.lo[0], a.hi[0]);
#pragma unroll
        for (int k = 0; k < 2 * R; k++) win[k] = win[k + 1];
    }
    cp_async_wait<0>();
}

#endif
