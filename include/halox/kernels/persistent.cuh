/* A functor's persistent kernel (halox/kernels.cuh adds it to the table): whole deep-halo cycles
 * in one cooperative grid, with no host involvement. A cycle exchanges every state field on the
 * device (one message a neighbour carrying all fields: detail/exchange.cuh), then runs its sweeps
 * as passes of up to `fuse` sweeps, the fused body (body.cuh) over the tiles of each pass's last
 * box, a tile a block in turn, a grid barrier after each pass. Fields are read through L2: other
 * blocks wrote them during the launch. Every value comes from the functor on the same values as a
 * separate sweep's, so the results are bit-identical to the cycle schedule's. */
#ifndef HALOX_KERNELS_PERSISTENT_CUH
#define HALOX_KERNELS_PERSISTENT_CUH

#include "halox/kernels/body.cuh"
#include "halox/kernels/detail/exchange.cuh"

namespace hx_kern {

/* The kernel's parameters: hx_custom_run with typed pointers, and the functor. The exchange reads
 * sy, sz, skip_from, timeout_ns, watch, abort_flag, bar and rank by these names. */
template <class F, typename T> struct pargs {
    F fn;
    T *field[2][F::nfields];
    long xoff, sy, sz;
    int alloc[3], own_lo[3], own_hi[3], grow_lo[3], grow_hi[3];
    int depth, fuse;
    long sweeps;
    const hx_dev_table *tables;
    unsigned long long exch0;
    long long skip_from;
    unsigned long long timeout_ns;
    hx_watch *watch;
    int *abort_flag;
    unsigned *bar;
    int *cur_out;
    int rank;
};

template <class F, typename T> inline pargs<F, T> make_pargs(const hx_custom_run *r)
{
    pargs<F, T> q;
    memcpy((void *)&q.fn, r->params, sizeof(F));
    for (int b = 0; b < 2; b++)
        for (int f = 0; f < F::nfields; f++) q.field[b][f] = (T *)r->field[b][f];
    q.xoff = r->xoff, q.sy = r->sy, q.sz = r->sz;
    for (int a = 0; a < 3; a++) {
        q.alloc[a] = r->alloc[a];
        q.own_lo[a] = r->own_lo[a], q.own_hi[a] = r->own_hi[a];
        q.grow_lo[a] = r->grow_lo[a], q.grow_hi[a] = r->grow_hi[a];
    }
    q.depth = r->depth, q.fuse = r->fuse, q.sweeps = r->sweeps;
    q.tables = (const hx_dev_table *)r->tables;
    q.exch0 = r->exch0, q.skip_from = r->skip_from, q.timeout_ns = r->timeout_ns;
    q.watch = (hx_watch *)r->watch, q.abort_flag = r->abort_flag, q.bar = r->bar, q.cur_out = r->cur_out, q.rank = r->rank;
    return q;
}

#if defined(__CUDACC__) || defined(HALOX_EMULATE)
/* The args of a pass of `levels` sweeps, sweeps k .. k+levels-1 of a cycle of m: box j is the owned
 * box grown by the halo still valid after it, (m - 1 - k - j) x radius, toward every neighbour. */
template <class F, typename T>
__device__ inline void pass_args(const pargs<F, T> &q, int cur, int m, int k, int levels, args<F, T> &a)
{
    memcpy((void *)&a.fn, (const void *)&q.fn, sizeof(F));
    for (int f = 0; f < F::nfields; f++) {
        a.src[f] = q.field[cur][f];
        a.dst[f] = q.field[1 - cur][f];
    }
    a.sy = q.sy, a.sz = q.sz;
    for (int i = 0; i < 3; i++) a.alloc[i] = q.alloc[i];
    a.levels = levels;
    for (int j = 0; j < levels; j++) {
        const int g = (m - 1 - k - j) * F::radius;
        for (int i = 0; i < 3; i++) {
            a.lo[j][i] = q.own_lo[i] - (q.grow_lo[i] ? g : 0);
            a.hi[j][i] = q.own_hi[i] + (q.grow_hi[i] ? g : 0);
        }
    }
}

/* The body of the kernel (blocks of tile<dim>::TX x TY threads in one dimension); smem: the
 * block's dynamic shared memory, fused_smem(fuse) bytes. */
template <class F, typename T> __device__ void persistent_body(const pargs<F, T> &q, T *smem)
{
    /* a pass's args in shared memory, made once a block (raw bytes: a functor may have a constructor) */
    alignas(args<F, T>) __shared__ unsigned char araw[sizeof(args<F, T>)];
    args<F, T> &a = *reinterpret_cast<args<F, T> *>(araw);
    int cur = *(volatile int *)q.cur_out;
    long long e = (long long)q.exch0;
    for (long done = 0; done < q.sweeps;) {
        const int m = (int)(q.sweeps - done < q.depth ? q.sweeps - done : q.depth);
        e++;
        T *f[F::nfields];
        for (int i = 0; i < F::nfields; i++) f[i] = q.field[cur][i] + q.xoff;
        if (!hx_dev_exchange_fields<T, HX_NET_STORE>(q, q.tables, F::nfields, f, e, done)) return;
        for (int k = 0; k < m;) {
            const int levels = m - k < q.fuse ? m - k : q.fuse;
            if (threadIdx.x == 0) pass_args(q, cur, m, k, levels, a);
            __syncthreads();
            unsigned g[3];
            tile_grid<F>(a.lo[levels - 1], a.hi[levels - 1], levels, g);
            const unsigned tiles = g[0] * g[1] * g[2];
            for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
                fused_body<F, T, true>(a, t % g[0], t / g[0] % g[1], t / (g[0] * g[1]), smem, (int)threadIdx.x, (int)blockDim.x);
                __syncthreads(); /* the next tile reuses the shared memory */
            }
            if (!hx_grid_sync(q, e, done + k)) return; /* also keeps a from changing under a slow block */
            cur = 1 - cur;
            k += levels;
        }
        done += m;
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            ((volatile hx_watch *)q.watch)->progress = (unsigned long long)e;
            __threadfence_system();
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *q.cur_out = cur;
}
#endif

#if defined(__CUDACC__) && !defined(HALOX_EMULATE)
/* four blocks an SM at least: the fused passes need the warps to hide their loads (a few of the exchange
 * copy's registers spill: cheaper than fewer warps) */
#ifndef HX_KERN_PERSISTENT_MIN_BLOCKS
#define HX_KERN_PERSISTENT_MIN_BLOCKS 4
#endif
template <class F, typename T>
__global__ void __launch_bounds__(tile<F::dim>::TX *tile<F::dim>::TY, HX_KERN_PERSISTENT_MIN_BLOCKS) persistent_kernel(const pargs<F, T> q)
{
    extern __shared__ __align__(16) unsigned char hx_kern_psmem[];
    persistent_body(q, reinterpret_cast<T *>(hx_kern_psmem));
}

/* Every block resident at once (a cooperative launch): as many as fit on every SM. */
template <class F, typename T> int persistent_device(const hx_custom_run *r)
{
    const pargs<F, T> q = make_pargs<F, T>(r);
    const int threads = tile<F::dim>::TX * tile<F::dim>::TY;
    const size_t smem = fused_smem<F, T>(r->fuse);
    int dev = 0, sms = 0, most = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess && smem > (size_t)most) {
        if (r->err && r->errlen)
            snprintf(r->err, r->errlen, "passes of %d sweeps need %zu bytes of shared memory a block, the device has %d: fuse fewer sweeps",
                     r->fuse, smem, most);
        return 1;
    }
    if (e == cudaSuccess) e = cudaFuncSetAttribute(persistent_kernel<F, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel<F, T>, threads, smem);
    if (e == cudaSuccess && per_sm < 1) {
        if (r->err && r->errlen) snprintf(r->err, r->errlen, "the persistent kernel does not fit on an SM (%zu bytes of shared memory)", smem);
        return 1;
    }
    void *kargs[] = {(void *)&q};
    if (e == cudaSuccess)
        e = cudaLaunchCooperativeKernel((const void *)persistent_kernel<F, T>, dim3((unsigned)(per_sm * sms)), dim3((unsigned)threads), kargs,
                                        smem, (cudaStream_t)r->stream);
    if (e == cudaSuccess) return 0;
    if (r->err && r->errlen) snprintf(r->err, r->errlen, "custom persistent kernel: %s", cudaGetErrorString(e));
    return 1;
}
#endif

} // namespace hx_kern

#endif
