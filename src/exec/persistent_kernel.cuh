/* The device side of the kernel-initiated schedules: one kernel that runs whole deep-halo cycles
 * with no host involvement. Per cycle: every block packs its share of the halo straight into the
 * neighbours' receive slots (put), the grid meets at a barrier, block 0 signals each neighbour
 * (release store to its flag), every block waits for its own flags (acquire), unpacks its share,
 * the grid meets again, then the sweeps of the cycle run as passes, a grid barrier between them:
 * in 2D tiles of shared memory (pass2d_tiles.cuh) or, for passes of several sweeps, register
 * windows marching in y (pass2d_march.cuh); in 3D register windows marching in z
 * (pass3d_march.cuh), or fused sweeps (pass3d_fused.cuh). Field reads bypass L1 (ld.global.cg) where other blocks wrote them
 * during the kernel, and L1 is not coherent between SMs.
 *
 * Every spin-wait (barrier, flag) counts %globaltimer against a timeout; on expiry the first
 * block to give up writes who waited for what into host-mapped memory and raises an abort flag
 * that makes every other block leave too. Arithmetic is halox/stencil.h's expression tree, so the
 * results are bit-identical to every other schedule. */
#ifndef HALOX_PERSISTENT_KERNEL_CUH
#define HALOX_PERSISTENT_KERNEL_CUH

#include "halox/stencil.h"
#include "halox/kernels/detail/exchange.cuh" /* hx_watch, barriers, flag waits, the exchange */

typedef struct {
    void *field[2];
    int dim, radius;
    long sy, sz;                      /* pitches in cells */
    int olo[3], ohi[3];               /* owned box */
    int clip_lo[3], clip_hi[3];       /* fixed boundary on that side: sweep boxes stop there */
    int depth;                        /* sweeps per exchange */
    long sweeps;                      /* sweeps in this launch */
    long done0;                       /* sweeps done before it (norm schedule) */
    long norm_every;                  /* 0: none */
    double *norm_acc;                 /* one slot per norm of this launch */
    long norm_base;                   /* slot of norm number n is n - 1 - norm_base */
    const hx_dev_table *table;
    unsigned long long exch0;         /* exchanges done before this launch */
    long long skip_from;              /* fault injection: from this exchange on, put nothing (0: never) */
    int levels;                       /* sweeps per pass (2D; 3D: 1, or the fused kernel's levels) */
    int tx, ty, pitch;                /* 2D tile core and shared-memory row pitch */
    unsigned long long timeout_ns;
    hx_watch *watch;
    int *abort_flag;
    unsigned *bar;                    /* [0] arrivals, [32] generation (another cache line) */
    int rank;
    int *cur_out;                     /* in: field[cur] holds the newest iterate; out: where it ends */
    /* the resident kernel (resident_kernel.cuh) */
    int ntx, nty;                     /* tiles along x and y: one block each */
    int tz, ntz;                      /* 3D (resident3d_kernel.cuh): the core's depth and the tiles along z */
    int ring;                         /* cells around a tile's core kept in shared memory: depth x radius */
    int inplace;                      /* 2D, > 0: one shared-memory buffer swept in bands of this many rows of runs (resident_sweep.cuh) */
    unsigned long long *ll_mail[2];   /* per parity: every cell's flagged words, for the tiles of this GPU */
    unsigned long long *prof;         /* opt.profile: four counters a block (the kernels say which); else NULL */
} hx_pparams;

/* Sweep box of a sweep that leaves `expand` cells valid around the owned block (hx_sweep_box). */
__device__ __forceinline__ hx_box hx_dev_sweep_box(const hx_pparams &p, int expand)
{
    hx_box b;
    for (int a = 0; a < 3; a++) {
        const int e = a < p.dim ? expand : 0;
        b.lo[a] = p.clip_lo[a] ? p.olo[a] : p.olo[a] - e;
        b.hi[a] = p.clip_hi[a] ? p.ohi[a] : p.ohi[a] + e;
    }
    return b;
}


/* Stencil on shared memory (coherent within the block: plain loads). */
template <typename T> __device__ __forceinline__ T hx_apply_smem(int st, const T *p, long sy);
template <> __device__ __forceinline__ float hx_apply_smem<float>(int st, const float *p, long sy)
{
    return hx_stencil_apply_f32(st, p, sy, 0);
}
template <> __device__ __forceinline__ double hx_apply_smem<double>(int st, const double *p, long sy)
{
    return hx_stencil_apply_f64(st, p, sy, 0);
}

/* Block-wide sum of v added to *slot (thread 0). */
static __device__ void hx_block_add(double v, double *slot)
{
    __shared__ double part[32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0;
        for (int i = 0; i < (int)(blockDim.x >> 5); i++) s += part[i];
        atomicAdd(slot, s);
    }
    __syncthreads();
}

/* hx_apply_cg, and the loops that spread a box's cells over a set of blocks (copies, sweeps) */
#include "exec/box_loops.cuh"

/* One sweep on box b by the whole grid, rows from L2 (hx_sweep_rows), and its norm term when asked:
 * the 2D march's single sweeps. */
template <typename T, int ST>
__device__ void hx_pass_rows(const hx_pparams &p, const T *src, T *dst, const hx_box &b, double *norm)
{
    double acc = 0;
    hx_sweep_rows<T, ST>(p, src, dst, b, (int)blockIdx.x, (int)gridDim.x, norm != NULL, acc);
    if (norm) hx_block_add(acc, norm);
}
/* the 3D pass by marching register windows */
#include "exec/pass3d_march.cuh"
/* the 2D passes of several sweeps by marching register windows in y */
#include "exec/pass2d_march.cuh"

/* hx_wait_msgs on phase ph of the device table. */
__device__ __forceinline__ bool hx_wait_phase(const hx_pparams &p, int ph, long long e, long long sweep, unsigned skip_mask = 0)
{
    return hx_wait_msgs(p, p.table->msg[ph], p.table->nmsg[ph], ph, e, sweep, skip_mask);
}

/* One exchange (number e) of field f over the kernel's table (hx_dev_exchange_fields, one field). */
template <typename T, int NET = HX_NET_STORE> __device__ bool hx_dev_exchange(const hx_pparams &p, T *f, long long e, long long sweep)
{
    return hx_dev_exchange_fields<T, NET>(p, p.table, 1, &f, e, sweep);
}

/* the 2D pass of tiles in shared memory */
#include "exec/pass2d_tiles.cuh"

/* Sweeps in the next pass: up to p.levels, never past the cycle, and a sweep followed by a norm
 * runs alone (the norm compares it with the iterate before it). */
__device__ __forceinline__ int hx_pass_levels(const hx_pparams &p, int left, long done)
{
    int levels = min(p.levels, left);
    if (levels > 1 && p.norm_every > 0) {
        const long until = p.norm_every - done % p.norm_every;
        if (until <= levels) levels = (int)until - 1;
    }
    return levels < 1 ? 1 : levels;
}

/* the 3D passes that fuse sweeps (the fused kernel's, persistent_fused3d.cu) */
#include "exec/pass3d_fused.cuh"

/* Threads and blocks per SM of each pass kernel: F3 > 0, the 3D kernel whose full passes fuse F3
 * sweeps, takes the fused body's block (S x BY / RY threads, one block per SM: its shared memory);
 * the 2D march 128 threads, two or more per SM; the others 512. */
template <typename T, int ST, bool MARCH, int F3, int S = 32> __host__ __device__ constexpr int hx_pk_threads()
{
    typedef fused3d_tile<T, ST == HX_STAR13 ? 2 : 1, (F3 > 0 ? F3 : 2), S> C;
    return F3 > 0 ? S * C::BY / C::RY
                  : MARCH && (ST == HX_JACOBI5 || ST == HX_STAR9) ? 128 : 512;
}

/* MARCH: the passes march register windows, in z (3D, pass3d_march.cuh: every 3D pass kernel)
 * or in y (2D, pass2d_march.cuh: passes of several sweeps), a kernel of its own so that the 2D
 * tile kernel keeps its registers. The 2D one runs blocks of 128 threads, two or more per SM, up to 255 registers a
 * thread: the fused body's deepest windows need them (as the cycle schedule's fused kernel). */
/* A tuning build may ask the march kernel for more blocks per SM (-DHX_MARCH_MIN_BLOCKS=2: at most
 * 64 registers, some spilled) */
#ifndef HX_MARCH_MIN_BLOCKS
#define HX_MARCH_MIN_BLOCKS 1
#endif
/* The body of every pass kernel; plans: the fused 3D kernel's (F3 > 0, tile rows of S lanes), in its parameters. */
template <typename T, int ST, bool MARCH, int NET, int F3, int S = 32>
__device__ __forceinline__ void hx_persistent_body(const hx_pparams &p, const hx_f3plan *plans)
{
#ifdef HALOX_EMULATE
    unsigned char *hx_smem_raw = hx_emu_shared(); /* host tests (tests/emu): the running block's */
#else
    extern __shared__ __align__(16) unsigned char hx_smem_raw[];
#endif
    T *sm = (T *)hx_smem_raw;
    constexpr bool two_d = ST == HX_JACOBI5 || ST == HX_STAR9;
    int cur = *(volatile int *)p.cur_out;
    long done = 0;
    long long e = (long long)p.exch0;
    while (done < p.sweeps) {
        const int m = (int)min((long)p.depth, p.sweeps - done);
        e++;
        const unsigned long long t0 = p.prof ? hx_now_ns() : 0;
        if (!hx_dev_exchange<T, NET>(p, (T *)p.field[cur], e, p.done0 + done)) return;
        const unsigned long long t1 = p.prof ? hx_now_ns() : 0;
        unsigned long long at_barrier = 0; /* of the passes' grid barriers (profile) */
        for (int k = 0; k < m;) {
            const long gdone = p.done0 + done + k;
            int levels = hx_pass_levels(p, m - k, gdone);
            double *norm = NULL;
            if (p.norm_every > 0 && levels == 1 && (gdone + 1) % p.norm_every == 0)
                norm = p.norm_acc + ((gdone + 1) / p.norm_every - 1 - p.norm_base);
            const T *src = (const T *)p.field[cur];
            T *dst = (T *)p.field[1 - cur];
            if constexpr (two_d && MARCH) levels = hx_pass2d_march<T, ST>(p, src, dst, k, levels, m, norm);
            else if constexpr (two_d) hx_pass2d<T, ST>(p, src, dst, k, levels, m, sm, norm);
            else if constexpr (F3 > 0) {
                /* the fused kernel's passes of F3 sweeps; a shorter pass (a cycle's tail, or cut short
                 * by a norm) runs its sweeps one at a time */
                if (levels == F3) {
                    /* The last pass of a cycle (every pass where depth == fuse) reads its plan at a
                     * fixed place, so that its fields are constant-bank operands, as in the cycle's
                     * kernel (faster than indexing every pass's plan); an earlier pass indexes the
                     * plans. */
                    const int idx = m - k - F3;
                    if (idx == 0) hx_pass3d_fused<T, ST == HX_STAR13 ? 2 : 1, F3, S>(plans[0], src, dst, sm);
                    else hx_pass3d_fused<T, ST == HX_STAR13 ? 2 : 1, F3, S>(plans[idx], src, dst, sm);
                } else {
                    levels = 1;
                    hx_pass3d_march<T, ST>(p, src, dst, hx_dev_sweep_box(p, (m - 1 - k) * p.radius), norm);
                }
            } else hx_pass3d_march<T, ST>(p, src, dst, hx_dev_sweep_box(p, (m - 1 - k) * p.radius), norm); /* 3D: always marches */
            const unsigned long long tb = p.prof ? hx_now_ns() : 0;
            if (!hx_grid_sync(p, e, gdone)) return;
            if (p.prof) at_barrier += hx_now_ns() - tb;
            cur = 1 - cur;
            k += levels;
        }
        done += m;
        /* profile: the exchange (slot 1), the sweeps (2) and their part at the grid barriers (0),
         * ns summed over cycles */
        if (p.prof && threadIdx.x == 0) {
            unsigned long long *q = p.prof + 4 * blockIdx.x;
            q[0] += at_barrier;
            q[1] += t1 - t0;
            q[2] += hx_now_ns() - t1;
            q[3] += 1;
        }
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            ((volatile hx_watch *)p.watch)->progress = (unsigned long long)e;
            __threadfence_system();
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *p.cur_out = cur;
}

template <typename T, int ST, bool MARCH = false, int NET = HX_NET_STORE>
__global__ void __launch_bounds__(hx_pk_threads<T, ST, MARCH, 0>(),
                                  MARCH ? ((ST == HX_JACOBI5 || ST == HX_STAR9) ? 2 : HX_MARCH_MIN_BLOCKS) : 1)
hx_persistent_kernel(hx_pparams p)
{
    hx_persistent_body<T, ST, MARCH, NET, 0>(p, nullptr);
}

/* The 3D pass kernel whose full passes fuse F3 sweeps (persistent_fused3d.cu): its plans in its
 * parameters beside the others. */
typedef struct {
    hx_pparams p;
    hx_f3plan plan[HX_F3_PLANS]; /* [q - F3]: the pass with q sweeps left in its cycle */
} hx_f3params;
template <typename T, int ST, int F3, int S>
__global__ void __launch_bounds__(hx_pk_threads<T, ST, true, F3, S>(), 1) hx_persistent_f3_kernel(hx_f3params q)
{
    hx_persistent_body<T, ST, true, HX_NET_STORE, F3, S>(q.p, q.plan);
}

#endif
