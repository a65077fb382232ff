/* The pass kernel's body for a user operator (halox/operator.h): whole deep-halo cycles in one
 * cooperative grid, as hx_persistent_body runs them (the device exchange, then the cycle's passes,
 * a grid barrier after each), fields read through L2: other blocks wrote them in this launch. A
 * pass runs the cycle schedule's tile body (op_tile.cuh, halo H = fuse x radius) over the tiles of
 * its last box, a tile a block in turn; a sweep followed by a norm runs alone as a grid-wide loop
 * over its box that sums the operator's terms at every cell (op_dev.cuh) and the squared changes.
 * Included after persistent_kernel.cuh. */
#ifndef HALOX_PERSISTENT_OP_CUH
#define HALOX_PERSISTENT_OP_CUH

#include "compute/cuda/op_tile.cuh"

/* The op pass kernel's parameters: the pass kernel's, the operator twice (o: terms read from the
 * field, offsets in its cells; ot: from a fused pass's tile), its radius and the allocation */
template <typename T> struct hx_op_pparams {
    hx_pparams p;
    op_dev<T> o, ot;
    int radius;
    int alloc[3];
};

/* hx_sweep_cells' value for the operator: its terms summed at the cell (op_eval, reads through L2). */
template <typename T, bool C> struct hx_op_cells {
    const op_dev<T> *o;
    __device__ __forceinline__ T operator()(const T *c, long at) const { return op_eval<T, C, true>(*o, c, at); }
};

/* One sweep of the operator on box b by the whole grid; acc gets the squared change of the owned
 * cells when norm. */
template <typename T, bool C>
__device__ void hx_op_sweep_box(const hx_pparams &p, const op_dev<T> &o, const T *src, T *dst, const hx_box &b, bool norm, double &acc)
{
    const long n = hx_box_cells_dev(b);
    if (n == 0) return;
    hx_sweep_cells<T>(p, src, dst, b, n, (long)blockIdx.x, (long)gridDim.x, norm, acc, hx_op_cells<T, C>{&o});
}

/* A pass of `levels` sweeps (boxes as the cycle's sweeps k .. k+levels-1 of m leave them) by the
 * whole grid: the tiles of its last box, a block each in turn */
template <typename T, bool C, int DIM, int H>
__device__ void hx_op_fused_pass(const hx_op_pparams<T> &q, const T *src, T *dst, int m, int k, int levels, T *sm)
{
    typedef op_shape<DIM, H> S;
    /* the pass's boxes in shared memory, made once a block: a copy a thread would sit in local
     * memory (the tile body picks a level's box at run time) and take registers from the tiles */
    __shared__ op_tile_args sa;
    if (threadIdx.x == 0) {
        hx_box boxes[HX_FUSE_MAX];
#pragma unroll
        for (int j = 0; j < HX_FUSE_MAX; j++)
            if (j < levels) boxes[j] = hx_dev_sweep_box(q.p, (m - 1 - k - j) * q.radius);
        sa = op_tile_make(boxes, levels, q.radius, q.alloc, DIM);
    }
    __syncthreads();
    const op_tile_args &a = sa;
    const dim3 g = op_tile_grid<DIM, H>(a);
    const unsigned tiles = g.x * g.y * g.z, tid = threadIdx.x;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
        const uint3 blk = {t % g.x, t / g.x % g.y, t / (g.x * g.y)};
        op_tile_body<T, DIM, H, C, true>(src, dst, q.ot, a, blk, sm, (int)(tid % S::TX), (int)(tid / S::TX));
        __syncthreads(); /* the next tile reuses the shared memory */
    }
    __syncthreads(); /* the next pass rewrites sa */
}

/* H: fuse x radius, passes of up to p.levels (fuse) sweeps */
template <typename T, bool C, int DIM, int H> __device__ __forceinline__ void hx_persistent_op_body(const hx_op_pparams<T> &q)
{
#ifdef HALOX_EMULATE
    unsigned char *hx_op_raw = hx_emu_shared(); /* host tests (tests/emu): the running block's */
#else
    extern __shared__ __align__(16) unsigned char hx_op_raw[];
#endif
    const hx_pparams &p = q.p;
    int cur = *(volatile int *)p.cur_out;
    long done = 0;
    long long e = (long long)p.exch0;
    while (done < p.sweeps) {
        const int m = (int)min((long)p.depth, p.sweeps - done);
        e++;
        if (!hx_dev_exchange<T>(p, (T *)p.field[cur], e, p.done0 + done)) return;
        for (int k = 0; k < m;) {
            const long gdone = p.done0 + done + k;
            const int levels = hx_pass_levels(p, m - k, gdone);
            const T *src = (const T *)p.field[cur];
            T *dst = (T *)p.field[1 - cur];
            double *norm = NULL;
            if (levels == 1 && p.norm_every > 0 && (gdone + 1) % p.norm_every == 0)
                norm = p.norm_acc + ((gdone + 1) / p.norm_every - 1 - p.norm_base);
            if (!norm) hx_op_fused_pass<T, C, DIM, H>(q, src, dst, m, k, levels, reinterpret_cast<T *>(hx_op_raw));
            else {
                double acc = 0;
                hx_op_sweep_box<T, C>(p, q.o, src, dst, hx_dev_sweep_box(p, (m - 1 - k) * q.radius), true, acc);
                hx_block_add(acc, norm);
            }
            if (!hx_grid_sync(p, e, gdone)) return;
            cur = 1 - cur;
            k += levels;
        }
        done += m;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            ((volatile hx_watch *)p.watch)->progress = (unsigned long long)e;
            __threadfence_system();
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *p.cur_out = cur;
}

#endif
