/* The device side of an exchange made by the threads of a running kernel (installed: a functor's
 * persistent kernel, halox/kernels.cuh, instantiates it in the user's own .cu file, as the
 * library's kernels do): grid barriers, flag waits, and one exchange of one or many fields over a
 * transport's device table (table.h gives the protocol). Every spin-wait counts %globaltimer
 * against a timeout; on expiry the first block to give up writes who waited for what into
 * host-mapped memory (hx_watch) and raises an abort flag that makes every other block leave too.
 *
 * P is the kernel's parameter struct; these read its members bar (a grid barrier's two counters,
 * [0] and [32]), abort_flag, timeout_ns, watch, rank, skip_from (fault injection: from that
 * exchange on, put nothing; 0 never), sy and sz (the fields' pitches in cells). */
#ifndef HALOX_KERNELS_DETAIL_EXCHANGE_CUH
#define HALOX_KERNELS_DETAIL_EXCHANGE_CUH

#include "halox/kernels/detail/copy.cuh"
#include "halox/kernels/detail/sync.cuh"
#include "halox/kernels/detail/table.h"

/* what a wait that gave up waited for (hx_watch.what); RELEASE: the role kernel's boundary blocks */
enum { HX_WAIT_BARRIER = 1, HX_WAIT_FLAG = 2, HX_WAIT_TILE = 3, HX_WAIT_RELEASE = 4 };

/* Host-mapped: what the watchdog saw, and progress for the host's own deadline. */
typedef struct {
    int state; /* 1 once a wait gave up */
    int rank, peer, phase, what;
    long long exchange, sweep;
    double waited_s;
    unsigned long long progress; /* exchanges completed, bumped by block 0 */
} hx_watch;

/* The first to give up reports; everyone else only sees the abort flag. */
template <class P>
__device__ void hx_give_up(const P &p, int peer, int phase, long long e, long long sweep, int what,
                           unsigned long long waited)
{
    if (atomicCAS(p.abort_flag, 0, 1) != 0) return;
    volatile hx_watch *w = p.watch;
    w->rank = p.rank;
    w->peer = peer;
    w->phase = phase;
    w->what = what;
    w->exchange = e;
    w->sweep = sweep;
    w->waited_s = 1e-9 * (double)waited;
    __threadfence_system();
    w->state = 1;
    __threadfence_system();
}

/* A barrier of the whole (co-resident) grid; false when the kernel is being abandoned. One thread
 * per block fences, after the block's barrier: the fence is cumulative, so it orders the writes
 * of the whole block (as cooperative groups do); sys also orders stores into other GPUs. A fence
 * in every thread would cost far more than the barrier itself. */
template <class P> __device__ bool hx_grid_sync(const P &p, long long e, long long sweep, bool sys = false)
{
    __shared__ int ok;
    __syncthreads();
    if (threadIdx.x == 0) {
        ok = 1;
        volatile unsigned *gen = p.bar + 32; /* its own cache line: spinning readers stay off the counter's */
        const unsigned g = *gen;
        if (sys) __threadfence_system();
        else __threadfence();
        if (atomicAdd(p.bar, 1u) == gridDim.x - 1) {
            atomicExch(p.bar, 0u);
            __threadfence();
            atomicAdd(p.bar + 32, 1u);
        } else {
            unsigned long long t0 = 0, waited = 0;
            for (unsigned spin = 1; *gen == g; spin++) {
                if (spin % 64) continue; /* the clock and the abort flag now and then: the spin stays tight */
                const int w = hx_watchdog(p.abort_flag, p.timeout_ns, t0, waited);
                if (w == HX_WATCH_WAIT) continue;
                if (w == HX_WATCH_EXPIRED) hx_give_up(p, -1, -1, e, sweep, HX_WAIT_BARRIER, waited);
                ok = 0;
                break;
            }
        }
        __threadfence();
    }
    __syncthreads();
    return ok;
}

/* This thread waits until message dm's flag reaches exchange e (its acquire load makes the message
 * visible); false when it gave up (it reported what it waited for) or saw another give up. */
template <class P>
__device__ __forceinline__ bool hx_wait_flag(const P &p, const hx_dev_msg &dm, int ph, long long e, long long sweep)
{
    unsigned long long t0 = 0, waited = 0;
    for (unsigned spin = 1; hx_load_acquire_sys(dm.my_flag) < (unsigned long long)e; spin++) {
        if (spin % 64) continue;
        const int w = hx_watchdog(p.abort_flag, p.timeout_ns, t0, waited);
        if (w == HX_WATCH_WAIT) continue;
        if (w == HX_WATCH_EXPIRED) hx_give_up(p, dm.peer, ph, e, sweep, HX_WAIT_FLAG, waited);
        return false;
    }
    return true;
}

/* The whole block waits until each of the nmsg messages msgs of phase ph has reached exchange e (a
 * thread a message; messages in skip_mask, bit m, carry no flag); false on every thread when one of
 * them gave up or saw another give up. */
template <class P>
__device__ __forceinline__ bool hx_wait_msgs(const P &p, const hx_dev_msg *msgs, int nmsg, int ph, long long e,
                                             long long sweep, unsigned skip_mask = 0)
{
    bool mine = true;
    if ((int)threadIdx.x < nmsg && !((skip_mask >> threadIdx.x) & 1u)) mine = hx_wait_flag(p, msgs[threadIdx.x], ph, e, sweep);
    return __syncthreads_and(mine) != 0;
}


/* One exchange (number e) of nf fields f[i] (same geometry), phase by phase: every field's boxes
 * put into the neighbours' slots (field i's through table tb[i], whose slots lie at its place in
 * the message; tb[0]'s flags stand for all), one signal a message, wait, unpack every field. */
/* NET: how a message reaches its neighbour. HX_NET_STORE: threads store it into the neighbour's
 * slot (a CUDA IPC mapping, or NVSHMEM's symmetric heap through nvshmem_ptr) and block 0 sets the
 * neighbour's flag with a release store. HX_NET_SHMEM (one field): threads pack it into a local
 * stage and a block puts it with the NVSHMEM device API, the flag set by the put
 * (hx_shmem_put_block, defined only in the library's relocatable device code). */
enum { HX_NET_STORE = 0, HX_NET_SHMEM = 1 };
__device__ void hx_shmem_put_block(const hx_dev_msg &dm, int par, unsigned long long e, size_t bytes);

template <typename T, int NET, class P>
__device__ bool hx_dev_exchange_fields(const P &p, const hx_dev_table *tb, int nf, T *const *f, long long e, long long sweep)
{
    const int par = (int)(e & 1);
    const bool skip = p.skip_from && e >= p.skip_from;
    for (int ph = 0; ph < tb->nphases; ph++) {
        const int nmsg = tb->nmsg[ph];
        for (int i = 0; i < nf && !skip; i++)
            hx_copy_msgs<T>(tb[i].msg[ph], nmsg, par, p.sy, p.sz, (int)blockIdx.x, (int)gridDim.x, f[i], true, NET == HX_NET_SHMEM);
        if (!hx_grid_sync(p, e, sweep, true)) return false;
        if constexpr (NET == HX_NET_SHMEM) {
            for (int m = (int)blockIdx.x; m < nmsg && !skip; m += (int)gridDim.x) /* block-wide calls */
                hx_shmem_put_block(tb->msg[ph][m], par, (unsigned long long)e, (size_t)tb->msg[ph][m].count * sizeof(T));
        } else if (blockIdx.x == 0 && (int)threadIdx.x < nmsg && !skip) {
            __threadfence_system();
            hx_store_release_sys(tb->msg[ph][threadIdx.x].remote_flag, (unsigned long long)e);
        }
        if (!hx_wait_msgs(p, tb->msg[ph], nmsg, ph, e, sweep)) return false;
        for (int i = 0; i < nf; i++)
            hx_copy_msgs<T>(tb[i].msg[ph], nmsg, par, p.sy, p.sz, (int)blockIdx.x, (int)gridDim.x, f[i], false);
        if (!hx_grid_sync(p, e, sweep)) return false;
    }
    return true;
}

#endif
