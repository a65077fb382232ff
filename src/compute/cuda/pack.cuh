/* Bodies of the field kernels that are not sweeps: pack/unpack of a phase, the initial field, the diff norm. */
#ifndef HALOX_CUDA_PACK_CUH
#define HALOX_CUDA_PACK_CUH

#include "compute/backend.h"
#include "compute/cuda/common.cuh"

/* ---------------------------------------------------------------- pack / unpack: one launch per phase */

struct dev_msg {
    int lo[3];
    int nx, ny;
    long count, offset;
};
struct dev_phase {
    int n;
    dev_msg m[HX_MAX_MSGS];
};

/* Message msg of the phase, grid-stride over its cells, MOVE_BATCH loads in flight per thread:
 * block is this block's index among the nblocks that share the message (blockIdx.x, gridDim.x of
 * a launch with blockIdx.y = message). Cell coordinates by 32-bit division where the message
 * allows (a 64-bit one costs several times the instructions; the branch is uniform). */
#define MOVE_BATCH 4
template <typename T, bool TO_BUF>
__device__ __forceinline__ void move_msg_body(T *__restrict__ field, T *__restrict__ buf, const dev_msg m, long sy, long sz,
                                              unsigned block, unsigned nblocks)
{
    const long stride = (long)nblocks * blockDim.x;
    const bool small = m.count <= 0x7fffffffL;
    for (long i0 = block * (long)blockDim.x + threadIdx.x; i0 < m.count; i0 += stride * MOVE_BATCH) {
        long f[MOVE_BATCH];
        T v[MOVE_BATCH];
#pragma unroll
        for (int u = 0; u < MOVE_BATCH; u++) {
            const long i = i0 + stride * u;
            if (i >= m.count) continue;
            int x, y, z;
            if (small) {
                const unsigned r = (unsigned)i / (unsigned)m.nx;
                x = (int)((unsigned)i - r * (unsigned)m.nx), y = (int)(r % (unsigned)m.ny), z = (int)(r / (unsigned)m.ny);
            } else {
                const long row = i / m.nx;
                x = (int)(i - row * m.nx), y = (int)(row % m.ny), z = (int)(row / m.ny);
            }
            f[u] = (m.lo[0] + x) + sy * (m.lo[1] + y) + sz * (m.lo[2] + z);
            v[u] = TO_BUF ? field[f[u]] : buf[m.offset + i]; /* every load of the batch before the first store */
        }
#pragma unroll
        for (int u = 0; u < MOVE_BATCH; u++) {
            const long i = i0 + stride * u;
            if (i >= m.count) continue;
            if (TO_BUF) buf[m.offset + i] = v[u];
            else field[f[u]] = v[u];
        }
    }
}

template <typename T, bool TO_BUF>
__device__ __forceinline__ void move_phase_body(T *__restrict__ field, T *__restrict__ buf, const dev_phase &ph, long sy,
                                                long sz, unsigned msg, unsigned block, unsigned nblocks)
{
    move_msg_body<T, TO_BUF>(field, buf, ph.m[msg], sy, sz, block, nblocks);
}

/* Field f's box of message msg of a many-field phase (hx_pack_fields): the box at its byte offset
 * in the packed buffer, in the field's dtype (the branch is uniform over the block). */
template <bool TO_BUF>
__device__ __forceinline__ void move_fields_body(char *buf, const dev_phase &ph, const hx_pack_fields &fs, unsigned msg,
                                                 unsigned f, unsigned block, unsigned nblocks)
{
    dev_msg m = ph.m[msg];
    char *b = buf + m.offset * fs.stride + m.count * fs.place[f];
    m.offset = 0;
    if (fs.esize[f] == 8) move_msg_body<double, TO_BUF>((double *)fs.field[f], (double *)b, m, fs.sy[f], fs.sz[f], block, nblocks);
    else move_msg_body<float, TO_BUF>((float *)fs.field[f], (float *)b, m, fs.sy[f], fs.sz[f], block, nblocks);
}

/* ---------------------------------------------------------------- init and norm */

/* Owned cells from the seed; f points at the first owned cell. tile: (x: blockDim.x cells, y: row, z: plane). */
template <typename T>
__device__ __forceinline__ void init_body(T *f, int lx, int gx, int gy, int ox, int oy, int oz, long sy, long sz,
                                          unsigned long long seed, const uint3 tile)
{
    const int x = tile.x * blockDim.x + threadIdx.x, y = tile.y, z = tile.z;
    if (x >= lx) return;
    const unsigned long long idx = (unsigned long long)(ox + x) +
                                   (unsigned long long)gx * ((unsigned long long)(oy + y) + (unsigned long long)gy * (unsigned long long)(oz + z));
    f[x + sy * y + sz * z] = (T)hx_initial_value(seed, idx);
}

/* Adds this block's share of sum over box r of (a - b)^2 to *out; blockDim.x must be 256 (the
 * reduction's shared array) and every thread of the block must call it (barriers inside). */
template <typename T>
__device__ __forceinline__ void diff_body(const T *a, const T *b, const sweep_args &r, double *out, unsigned block,
                                          unsigned nblocks)
{
    __shared__ double part[256];
    double sum = 0;
    const long nx = r.hi[0] - r.lo[0], ny = r.hi[1] - r.lo[1], nz = r.hi[2] - r.lo[2], n = nx * ny * nz;
    for (long i = block * (long)blockDim.x + threadIdx.x; i < n; i += (long)nblocks * blockDim.x) {
        const long row = i / nx;
        const long f = (r.lo[0] + i - row * nx) + r.sy * (r.lo[1] + row % ny) + r.sz * (r.lo[2] + row / ny);
        const double e = (double)a[f] - (double)b[f];
        sum += e * e;
    }
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

/* The device copy of a phase's messages (send boxes to pack, receive boxes to unpack); *most: the
 * largest message's cells. */
static inline void dev_phase_of(const hx_phase *ph, bool to_buf, dev_phase &dp, long *most)
{
    *most = 0;
    dp.n = ph->nmsg;
    for (int i = 0; i < ph->nmsg; i++) {
        const hx_message *m = &ph->msg[i];
        const hx_box *b = to_buf ? &m->send_box : &m->recv_box;
        for (int a = 0; a < 3; a++) dp.m[i].lo[a] = b->lo[a];
        dp.m[i].nx = b->hi[0] - b->lo[0];
        dp.m[i].ny = b->hi[1] - b->lo[1];
        dp.m[i].count = m->count;
        dp.m[i].offset = m->offset;
        if (m->count > *most) *most = m->count;
    }
}

#endif
