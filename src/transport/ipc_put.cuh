/* The kernels of transport ipc-put: one exchange phase as two launches on the caller's stream,
 * with no host step between them and none per exchange at all (so a CUDA graph can replay them):
 *   put  every block packs its share of the phase's cells straight from the field into the
 *        neighbours' receive slots (CUDA IPC mappings; hx_copy_msgs), fences, and takes a
 *        ticket; the block with the last ticket has seen every block's fence, fences at system
 *        scope once and sets each neighbour's flag to the exchange number (hx_ik_put_part);
 *   get  every block waits (acquire, with the device watchdog) until each of its rank's flags of
 *        the phase has reached the exchange number, then unpacks its share into the ghost cells.
 * hx_exchange_run, with nothing to overlap, runs both in one kernel (putget).
 * The exchange number lives on the device (`seq`): the put of the first phase with messages
 * (hx_ik_first_phase) advances it, in its last block, after every block has read it; a phase
 * without messages launches nothing. Slots alternate by the number's parity; two suffice for the
 * reason device_table.h gives, because every exchange has a message back for each one sent and
 * a rank's next put follows its previous get on the stream. A wait that expires writes who waited
 * for what into host-mapped memory (hx_watch) and raises the abort flag, which makes every later
 * kernel of this transport return at once; the host reports it at the next exchange call
 * (ipc_put.cu). Shared with the host tests' emulator (tests/test_ipc_put_emu.cpp). */
#ifndef HALOX_IPC_PUT_CUH
#define HALOX_IPC_PUT_CUH

#include "exec/resident_kernel.cuh"

typedef struct {
    hx_pparams p;                /* used: field[0], sy, sz, timeout_ns, watch, abort_flag, rank, skip_from */
    int phase;
    int first;                   /* the first phase's put: this exchange takes the next number */
    unsigned long long *seq;     /* exchanges begun on this transport (device) */
    unsigned *ticket;            /* put blocks done, wrapping at the grid size (device) */
    unsigned ll_mask;            /* bit m: message m of the phase travels as flagged words (below) */
    unsigned self_mask;          /* bit m: message m goes from this rank to itself (HX_IK_SELF_FIRST) */
    unsigned direct_mask;        /* bit m: message m is copied into this rank's ghosts (HX_IK_SELF_DIRECT) */
    int plain;                   /* some message of the phase goes as a plain copy with a flag (hx_ik_plain) */
    signed char self_to[HX_MAX_MSGS]; /* for those: the incoming message whose receive box it fills */
    /* The phase's messages, a copy of p.table's row (hx_ik_args_phase): the kernels read them from
     * their parameters (a __grid_constant__ argument, the constant cache) instead of the table in
     * global memory, whose first reads in an exchange missed L2 one after another (the count, then
     * the boxes, then the slot addresses); the copy measured faster (docs/performance.md). About
     * 3.8 KB: kernel arguments may take 32 KB since CUDA 12.1. */
    int nmsg;
    hx_dev_msg msg[HX_MAX_MSGS];
} hx_ik_args;

/* Fills a's copy of phase ph's messages from the table (host; ipc_put.cu and the emulator test). */
static inline void hx_ik_args_phase(hx_ik_args *a, const hx_dev_table *tb, int ph)
{
    a->nmsg = tb->nmsg[ph];
    for (int m = 0; m < tb->nmsg[ph]; m++) a->msg[m] = tb->msg[ph][m];
}

/* Messages of phase ph that rank sends to itself (a periodic axis of one rank); the same bits
 * name the incoming messages that come from itself, since those are the same messages. */
static inline unsigned hx_ik_self_mask(const hx_dev_table *tb, int ph, int rank)
{
    unsigned mask = 0;
    for (int m = 0; m < tb->nmsg[ph]; m++)
        if (tb->msg[ph][m].peer == rank) mask |= 1u << m;
    return mask;
}

/* A rank's messages to itself that can go straight from their send box into the receive box of
 * the incoming message whose slot they would fill (the same slot address, and boxes of the same
 * shape); to[m] gets that message, -1 for the others. Returns the mask of those messages. */
static inline unsigned hx_ik_direct_mask(const hx_dev_table *tb, int ph, int rank, signed char *to)
{
    unsigned mask = 0;
    for (int m = 0; m < tb->nmsg[ph]; m++) {
        const hx_dev_msg &out = tb->msg[ph][m];
        to[m] = -1;
        for (int q = 0; q < tb->nmsg[ph] && out.peer == rank; q++) {
            const hx_dev_msg &in = tb->msg[ph][q];
            bool same = in.peer == rank && in.my_recv[0] == out.remote_recv[0] && in.count == out.count;
            for (int d = 0; d < 3 && same; d++)
                same = in.recv_box.hi[d] - in.recv_box.lo[d] == out.send_box.hi[d] - out.send_box.lo[d];
            if (same) to[m] = (signed char)q, mask |= 1u << m;
        }
    }
    return mask;
}

/* Variants of the build, off by default and not yet timed on a GPU (the host emulator tests
 * test_ipc_put_emu_first and _direct check their bits):
 *   HX_IK_SELF_FIRST=1: the last put block sets the flags of a rank's messages to itself after a
 *     GPU-scope fence, before the system fence that the other flags need (microseconds), and get
 *     unpacks those messages while it waits for the neighbours';
 *   HX_IK_LL_FIRST=1: put stores the flagged words before the plain messages, and get unpacks
 *     them before it waits for any flag (they carry their own);
 *   HX_IK_SELF_DIRECT=1: put copies a rank's messages to itself straight into its ghost cells (no
 *     slot, no flag, no unpack: nothing in the kernel reads a phase's receive boxes, and the next
 *     kernel on the stream sees them), where hx_ik_direct_mask finds their receive box. */
#ifndef HX_IK_SELF_DIRECT
#define HX_IK_SELF_DIRECT 0
#endif
/* the messages of a phase that carry no flag: flagged words, and those copied straight */
#if HX_IK_SELF_DIRECT
#define HX_IK_NOFLAG(a) ((a).ll_mask | (a).direct_mask)
#else
#define HX_IK_NOFLAG(a) ((a).ll_mask)
#endif
#ifndef HX_IK_SELF_FIRST
#define HX_IK_SELF_FIRST 0
#endif
#ifndef HX_IK_LL_FIRST
#define HX_IK_LL_FIRST 0
#endif

/* The phase whose put numbers an exchange: the first with messages (-1: the rank has none). The
 * host launches nothing for a phase without messages, so a 1 x 1 x P grid's exchange is one kernel
 * (multigrid's coarse levels are bound by launches). Every rank of a process grid has messages in
 * the same phases, so every rank numbers its exchanges alike. */
static inline int hx_ik_first_phase(const hx_dev_table *tb)
{
    for (int p = 0; p < tb->nphases; p++)
        if (tb->nmsg[p] > 0) return p;
    return -1;
}

/* Whether some message of phase ph goes as a plain copy with a flag, not in `noflag` (flagged
 * words, or copied straight): when none does, put and get skip the plain copy and the flag wait,
 * each a read of the message table and a barrier (multigrid's coarse levels: every message is
 * flagged words, and their put-get is bound by such steps). */
static inline int hx_ik_plain(const hx_dev_table *tb, int ph, unsigned noflag)
{
    const unsigned all = tb->nmsg[ph] >= 32 ? ~0u : (1u << tb->nmsg[ph]) - 1u;
    return (all & ~noflag) != 0;
}

/* Which messages of phase ph go as flagged words: those of at most ll_bytes. Both ends of a message
 * see the same count, so they choose the same way. */
static inline unsigned hx_ik_ll_mask(const hx_dev_table *tb, int ph, size_t elem, long ll_bytes)
{
    unsigned mask = 0;
    for (int m = 0; m < tb->nmsg[ph]; m++)
        if (tb->msg[ph][m].count * (long)elem <= ll_bytes) mask |= 1u << m;
    return mask;
}

/* Flagged words (ll_bytes of the exchange options, default 64 KiB): the messages in ll_mask go as
 * the resident kernel's 8-byte words, each 4-byte value beside the exchange number, into the same
 * slots (sized for it); the receiver polls every word, so these messages need no fence, no ticket
 * and no flag. Both ends choose a message's way from its size alone, so they agree. The cells of
 * all the phase's flagged messages are numbered one after another and spread over every thread of
 * the grid, HX_BATCH in flight per thread, as hx_copy_msgs does: pack stores them, unpack polls a
 * batch's words together (watchdog) and writes them into the field. (Message after message would
 * cost a round trip each, and a direct 3D exchange has 20 flagged messages, edges and corners.)
 * False when a wait gave up. Every
 * thread of the block must call it (barriers). */
template <typename T> __device__ bool hx_ik_ll_copy(const hx_ik_args &a, unsigned long long e, bool pack)
{
    const hx_pparams &p = a.p;
    const int par = (int)(e & 1), W = HX_LL_WORDS(T), nmsg = a.nmsg;
    __shared__ hx_msg_view view[HX_MAX_MSGS + 1];
    __shared__ int ok;
    __syncthreads(); /* a previous call's threads may still read view and ok */
    if (threadIdx.x == 0) ok = 1;
    if (threadIdx.x < 32) hx_msgs_view(a.msg, nmsg, pack, a.ll_mask, view);
    __syncthreads();
    const long n = view[nmsg].start, stride = (long)gridDim.x * blockDim.x;
    T *f = (T *)p.field[0];
    int m = 0; /* the message of this thread's cell: its cells only move forward */
    for (long i0 = (long)blockIdx.x * blockDim.x + threadIdx.x; i0 < n && ok; i0 += stride * HX_BATCH) {
        unsigned long long *word[HX_BATCH];
        T *cell[HX_BATCH];
        T v[HX_BATCH];
        int from[HX_BATCH];
        unsigned todo = 0;
#pragma unroll
        for (int u = 0; u < HX_BATCH; u++) {
            const long j = i0 + stride * u;
            if (j >= n) continue;
            long i;
            cell[u] = hx_msgs_cell(view, j, f, p.sy, p.sz, m, i);
            const hx_dev_msg &dm = a.msg[m];
            word[u] = (unsigned long long *)(pack ? dm.remote_recv[par] : dm.my_recv[par]) + i * W;
            from[u] = m;
            todo |= 1u << u;
        }
        if (pack) {
#pragma unroll
            for (int u = 0; u < HX_BATCH; u++)
                if (todo >> u & 1) v[u] = __ldcg(cell[u]); /* every load of the batch before the first store */
#pragma unroll
            for (int u = 0; u < HX_BATCH; u++)
                if (todo >> u & 1) hx_ll_put<T>(word[u], v[u], (unsigned)e);
            continue;
        }
        unsigned pending = todo;
        if (!hx_ll_wait<T, HX_BATCH>(p, word, pending, (unsigned)e, v, [&](unsigned left, unsigned long long waited) {
                /* the message of the first word still missing */
                hx_give_up(p, a.msg[from[__ffs(left) - 1]].peer, a.phase, (long long)e, -1, HX_WAIT_FLAG, waited);
            }))
            ok = 0;
#pragma unroll
        for (int u = 0; u < HX_BATCH; u++)
            if ((todo >> u & 1) && !(pending >> u & 1)) *cell[u] = v[u];
    }
    __syncthreads(); /* ok: every thread's last word seen */
    return ok;
}

/* The fences of the put's ticket chain: fence.acq_rel.gpu in each block, which orders the block's
 * stores before its ticket (the tickets' chain stays within the GPU), and fence.acq_rel.sys in the
 * last block, whose flag stores then publish, cumulatively, every store that came before its
 * ticket (PTX memory model: fences synchronise through the ticket's atomics, and a fence before a
 * strong store is a release). System-scope fences in every block measured slower. */
__device__ __forceinline__ void hx_ik_fence_block() { hx_fence_acq_rel_gpu(); }
__device__ __forceinline__ void hx_ik_fence_last() { hx_fence_acq_rel_sys(); }

#if HX_IK_SELF_DIRECT
/* HX_IK_SELF_DIRECT: the messages in direct_mask copied from their send boxes straight into the
 * receive boxes of the messages self_to names, an offset per message in the field. */
template <typename T> __device__ void hx_ik_direct_copy(const hx_ik_args &a)
{
    const hx_pparams &p = a.p;
    __shared__ long delta[HX_MAX_MSGS];
    const int m = (int)threadIdx.x;
    if (m < a.nmsg && ((a.direct_mask >> m) & 1u)) { /* before hx_copy_msgs's barrier */
        const hx_box &s = a.msg[m].send_box, &r = a.msg[a.self_to[m]].recv_box;
        delta[m] = (long)(r.lo[0] - s.lo[0]) + p.sy * (r.lo[1] - s.lo[1]) + p.sz * (r.lo[2] - s.lo[2]);
    }
    hx_copy_msgs<T, true>(a.msg, a.nmsg, 0, p.sy, p.sz, (int)blockIdx.x, (int)gridDim.x, (T *)p.field[0], true, false,
                          ~a.direct_mask, delta);
}
#endif

/* The put of a phase, by every thread of the block; returns the exchange number it used. */
template <typename T> __device__ unsigned long long hx_ik_put_part(const hx_ik_args &a)
{
    const hx_pparams &p = a.p;
    /* read before this block's ticket, so before the last block advances it */
    const unsigned long long e = *(volatile unsigned long long *)a.seq + (a.first ? 1 : 0);
    const bool skip = p.skip_from && (long long)e >= p.skip_from; /* the tests' fault: put nothing */
    if (!skip) {
#if HX_IK_LL_FIRST
        if (a.ll_mask) hx_ik_ll_copy<T>(a, e, true);
#endif
        if (a.plain)
            hx_copy_msgs<T>(a.msg, a.nmsg, (int)(e & 1), p.sy, p.sz, (int)blockIdx.x, (int)gridDim.x, (T *)p.field[0], true,
                            false, HX_IK_NOFLAG(a));
#if HX_IK_SELF_DIRECT
        if (a.direct_mask) hx_ik_direct_copy<T>(a);
#endif
#if !HX_IK_LL_FIRST
        if (a.ll_mask) hx_ik_ll_copy<T>(a, e, true);
#endif
    }
    __syncthreads();
    const int nmsg = a.nmsg;
    /* the last block sets the flags; the #else branch is the default (folding both into one form
     * changed the default's machine code) */
#if HX_IK_SELF_FIRST
    const unsigned flagged = ((1u << nmsg) - 1u) & ~HX_IK_NOFLAG(a); /* the messages that go with a flag */
    const unsigned self = flagged & a.self_mask, others = flagged & ~self;
    if (threadIdx.x == 0 && (flagged || a.first)) {
        if (flagged) hx_ik_fence_block(); /* cumulative: the block's stores, ordered by the barrier above */
        if (atomicInc(a.ticket, gridDim.x - 1) == gridDim.x - 1) {
            if (self && !skip) {
                hx_fence_acq_rel_gpu(); /* the readers are this GPU's blocks */
                for (int m = 0; m < nmsg; m++)
                    if ((self >> m) & 1u) hx_store_relaxed_sys(a.msg[m].remote_flag, e);
            }
            if (others) hx_ik_fence_last();
            for (int m = 0; m < nmsg && !skip; m++)
                if ((others >> m) & 1u) hx_store_relaxed_sys(a.msg[m].remote_flag, e);
#else
    const bool flags = (HX_IK_NOFLAG(a) & ((1u << nmsg) - 1u)) != ((1u << nmsg) - 1u); /* some message goes with a flag */
    if (threadIdx.x == 0 && (flags || a.first)) {
        if (flags) hx_ik_fence_block(); /* cumulative: the block's stores, ordered by the barrier above */
        if (atomicInc(a.ticket, gridDim.x - 1) == gridDim.x - 1) {
            if (flags) hx_ik_fence_last(); /* the last block: every other block's fenced stores come before */
            /* one fence for all the flags (a release store each cost a system fence each, one after
             * another: 3D 256x128x128, 6 flags a phase) */
            for (int m = 0; m < nmsg && !skip; m++)
                if (!((HX_IK_NOFLAG(a) >> m) & 1u)) {
                    hx_store_relaxed_sys(a.msg[m].remote_flag, e);
                }
#endif
            if (a.first) *(volatile unsigned long long *)a.seq = e;
        }
    }
    return e;
}

/* The get of a phase for exchange e, by every thread of the block. */
template <typename T> __device__ void hx_ik_get_part(const hx_ik_args &a, unsigned long long e)
{
    const hx_pparams &p = a.p;
#if HX_IK_LL_FIRST
    if (a.ll_mask && !hx_ik_ll_copy<T>(a, e, false)) return;
#endif
#if HX_IK_SELF_FIRST
    const unsigned self = ((1u << a.nmsg) - 1u) & ~HX_IK_NOFLAG(a) & a.self_mask;
    if (self) { /* its own messages, while the neighbours' are on their way */
        if (!hx_wait_msgs(p, a.msg, a.nmsg, a.phase, (long long)e, -1, ~self)) return;
        hx_copy_msgs<T>(a.msg, a.nmsg, (int)(e & 1), p.sy, p.sz, (int)blockIdx.x, (int)gridDim.x, (T *)p.field[0], false,
                        false, ~self);
    }
#else
    const unsigned self = 0;
#endif
    /* flagged words carry no flag */
    if (a.plain) {
        if (!hx_wait_msgs(p, a.msg, a.nmsg, a.phase, (long long)e, -1, HX_IK_NOFLAG(a) | self)) return;
        hx_copy_msgs<T>(a.msg, a.nmsg, (int)(e & 1), p.sy, p.sz, (int)blockIdx.x, (int)gridDim.x, (T *)p.field[0], false,
                        false, HX_IK_NOFLAG(a) | self);
    }
#if !HX_IK_LL_FIRST
    if (a.ll_mask) hx_ik_ll_copy<T>(a, e, false);
#endif
}

template <typename T> __device__ void hx_ik_put(const hx_ik_args &a)
{
    if (*(volatile int *)a.p.abort_flag) return; /* an earlier wait gave up: the exchange is over */
    hx_ik_put_part<T>(a);
}

template <typename T> __device__ void hx_ik_get(const hx_ik_args &a)
{
    hx_ik_get_part<T>(a, *(volatile unsigned long long *)a.seq);
}

/* Put and get of a phase in one kernel (hx_exchange_run: nothing to overlap, one launch fewer).
 * A block that has put waits for the neighbours' flags, which their grids set once every one of
 * their blocks has put: so each grid's blocks must all get to run while some of them spin. The
 * host launches at most one block per SM (ipc_put.cu), which holds whatever else the GPU runs
 * meanwhile (another kernel's blocks finish and leave room; these spin only after their put). */
template <typename T> __device__ void hx_ik_putget(const hx_ik_args &a)
{
    if (*(volatile int *)a.p.abort_flag) return;
    hx_ik_get_part<T>(a, hx_ik_put_part<T>(a));
}

#endif
