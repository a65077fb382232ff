/* The role-based fused kernel (the GPUDirect Async design of a fused compute-exchange kernel): one launch per cycle of depth 1 (one sweep per exchange), direct pattern (every ghost
 * cell from a message of phase 0: no corners forwarded through phases). Blocks take roles from an
 * atomic ticket (p.bar[HX_ROLE_TICKET]; the block that draws the last ticket resets it for the
 * next launch), not from blockIdx:
 *   tickets 0 .. N-1       senders: pack their share of every message straight into the
 *                          neighbours' receive slots (parity e % 2); the last to finish (a counter,
 *                          reset by it) signals every flag with exchange number e; then they sweep
 *                          the interior (the owned cells that read no received ghost);
 *   tickets N .. N+R-1     receivers: wait on every incoming flag (hx_wait_flag: the watchdog
 *                          names the peer, phase and exchange), unpack their share of every
 *                          message into the ghost cells of the current field; the last to finish
 *                          (a counter, reset by it) releases the boundary blocks by storing e into
 *                          a release word (p.bar[HX_ROLE_GO], monotone like the flags: never reset);
 *   tickets N+R .. N+R+M-1 boundary blocks: wait for the release, then sweep the shell (owned box
 *                          minus interior, as up to 2 x dim disjoint slabs).
 * Deadlock freedom whatever order the hardware schedules blocks in: every wait is on a lower
 * ticket of the same GPU (boundary -> receivers) or on remote senders, senders wait on nothing, and
 * the counters are only counted, never waited on. So no block that waits can keep a block it waits
 * for from running (nor a sender from sending). Receivers unpack so that boundary blocks need no
 * barrier among themselves (which would make a block wait on higher tickets). Several cycles in one
 * launch (the emulator's tests, and a persistent use) meet at hx_grid_sync between cycles, which
 * needs co-residency (the host launches cooperatively anyway; the fused schedule launches one cycle
 * per launch). N, R and M (hx_roles_split): the blocks are shared in proportion to the cells each
 * role visits (interior, ghosts, shell), at least one each; every loop spreads a box's cells over
 * all threads of its role (hx_copy_msgs, hx_sweep_rows), so thin faces do not walk row after row.
 * The arithmetic is hx_apply_cg's, the pass kernel's, so results are bit-identical to every other
 * schedule. Used only when asked for (hx_kernel ROLES, persistent_setup.cu): the pass and resident
 * kernels are faster where it was timed. Include
 * after persistent_kernel.cuh. */
#ifndef HALOX_ROLES_KERNEL_CUH
#define HALOX_ROLES_KERNEL_CUH

#include <math.h>

#include "exec/persistent_kernel.cuh"

/* words of p.bar this kernel uses (hx_grid_sync uses [0] and [32]) */
enum { HX_ROLE_TICKET = 4, HX_ROLE_SENT = 8, HX_ROLE_DONE = 12, HX_ROLE_UNPACKED = 16, HX_ROLE_GO = 48 };
#define HX_ROLE_THREADS 256

/* Owned cells that read no received ghost: the owned box shrunk by the radius on every side that
 * is not a fixed boundary (a message brings that side's ghosts). Empty boxes stay inside it. */
__host__ __device__ inline hx_box hx_roles_interior(const hx_pparams &p)
{
    hx_box b;
    for (int a = 0; a < 3; a++) {
        const int r = a < p.dim ? p.radius : 0;
        int lo = p.clip_lo[a] ? p.olo[a] : p.olo[a] + r, hi = p.clip_hi[a] ? p.ohi[a] : p.ohi[a] - r;
        if (lo > p.ohi[a]) lo = p.ohi[a];
        if (hi < lo) hi = lo;
        b.lo[a] = lo;
        b.hi[a] = hi;
    }
    return b;
}

/* Slab k (0 .. 2 dim - 1) of the shell S minus I: axis k/2, low side (k even) or high; the axes
 * before it restricted to I, the ones after it whole. The slabs are disjoint and cover S minus I. */
__host__ __device__ inline hx_box hx_roles_slab(const hx_box &S, const hx_box &I, int k)
{
    const int a = k >> 1;
    hx_box b = S;
    for (int c = 0; c < a; c++) b.lo[c] = I.lo[c], b.hi[c] = I.hi[c];
    if (k & 1) b.lo[a] = I.hi[a];
    else b.hi[a] = I.lo[a];
    return b;
}

__host__ __device__ inline long hx_roles_cells(const hx_box &b)
{
    long n = 1;
    for (int a = 0; a < 3; a++) n *= b.hi[a] > b.lo[a] ? b.hi[a] - b.lo[a] : 0;
    return n;
}

/* Ghost cells of the owned box: the box grown by the radius on every side that is not a fixed
 * boundary, minus the box (the receivers' work, messages' corners included). */
__host__ __device__ inline long hx_roles_ghosts(const hx_pparams &p)
{
    hx_box S, G;
    for (int a = 0; a < 3; a++) {
        const int r = a < p.dim ? p.radius : 0;
        S.lo[a] = G.lo[a] = p.olo[a], S.hi[a] = G.hi[a] = p.ohi[a];
        if (!p.clip_lo[a]) G.lo[a] -= r;
        if (!p.clip_hi[a]) G.hi[a] += r;
    }
    return hx_roles_cells(G) - hx_roles_cells(S);
}

/* Senders (N), receivers (R) and boundary blocks (M) of a grid of `grid` >= 3 blocks, at least one
 * each. Senders sweep the interior I while receivers unpack the ghosts G and then boundary blocks
 * sweep the shell S, one after the other; a cell costs about the same in each. So the split
 * balances I / N against G / R + S / M: for R + M = K the latter is least, (sqrt G + sqrt S)^2 / K,
 * with R : M = sqrt G : sqrt S, and N / K = I / (sqrt G + sqrt S)^2 evens the two paths. */
__host__ __device__ inline void hx_roles_split(const hx_pparams &p, int grid, int *nsend, int *nrecv, int *nbnd)
{
    hx_box S;
    for (int a = 0; a < 3; a++) S.lo[a] = p.olo[a], S.hi[a] = p.ohi[a];
    const long all = hx_roles_cells(S), inner = hx_roles_cells(hx_roles_interior(p));
    const double g = sqrt((double)hx_roles_ghosts(p)), sh = sqrt((double)(all - inner)), path = (g + sh) * (g + sh);
    long k = inner + path > 0 ? lround(grid * path / ((double)inner + path)) : 2;
    if (k < 2) k = 2;
    if (k > grid - 1) k = grid - 1;
    long r = g + sh > 0 ? lround(k * g / (g + sh)) : 1;
    if (r < 1) r = 1;
    if (r > k - 1) r = k - 1;
    *nrecv = (int)r;
    *nbnd = (int)(k - r);
    *nsend = grid - (int)k;
}

/* The grid the host launches: a block per HX_ROLE_CELLS owned cells (each thread a batch of
 * loads or so), at least 3 blocks, at most what is resident at once (per_sm x sms). */
#define HX_ROLE_CELLS (HX_ROLE_THREADS * HX_BATCH)
static inline int hx_roles_grid(long cells, int per_sm, int sms)
{
    long g = cells / HX_ROLE_CELLS + 1, cap = (long)per_sm * sms;
    if (g > cap) g = cap;
    if (g < 3) g = 3;
    return (int)g;
}

/* Thread 0, its block's work done and fenced: counts the block on counter c; true for the last of
 * n, which resets c for the next use (nobody waits on it). */
__device__ __forceinline__ bool hx_count_last(unsigned *c, unsigned n)
{
    if (atomicAdd(c, 1u) != n - 1) return false;
    atomicExch(c, 0u);
    return true;
}

/* Sender k of ns: its share of every message into the neighbours' slots; the last sender of the
 * exchange signals every flag. Waits on nothing. */
template <typename T> __device__ void hx_role_send(const hx_pparams &p, const T *f, long long e, int k, int ns)
{
    const hx_dev_table *tb = p.table;
    const int par = (int)(e & 1);
    const bool skip = p.skip_from && e >= p.skip_from;
    for (int ph = 0; ph < tb->nphases && !skip; ph++) hx_copy_msgs<T>(tb->msg[ph], tb->nmsg[ph], par, p.sy, p.sz, k, ns, (T *)f, true);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system(); /* cumulative after the block's barrier: the block's puts before the count */
        if (hx_count_last(p.bar + HX_ROLE_SENT, (unsigned)ns)) { /* every sender of this exchange has put */
            __threadfence_system(); /* one fence for every flag (hx_store_relaxed_sys) */
            for (int ph = 0; ph < tb->nphases && !skip; ph++)
                for (int m = 0; m < tb->nmsg[ph]; m++) hx_store_relaxed_sys(tb->msg[ph][m].remote_flag, (unsigned long long)e);
        }
    }
}

/* Receiver k of nr: every incoming flag of exchange e, its share of every message into f; the
 * last receiver to finish releases the boundary blocks. */
template <typename T> __device__ bool hx_role_receive(const hx_pparams &p, T *f, long long e, long long sweep, int k, int nr)
{
    const hx_dev_table *tb = p.table;
    const int par = (int)(e & 1);
    for (int ph = 0; ph < tb->nphases; ph++)
        if (!hx_wait_phase(p, ph, e, sweep)) return false;
    for (int ph = 0; ph < tb->nphases; ph++) hx_copy_msgs<T>(tb->msg[ph], tb->nmsg[ph], par, p.sy, p.sz, k, nr, f, false);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence(); /* cumulative after the block's barrier: the block's unpack before the count */
        if (hx_count_last(p.bar + HX_ROLE_UNPACKED, (unsigned)nr)) { /* every receiver of this exchange has unpacked */
            __threadfence();
            *(volatile unsigned *)(p.bar + HX_ROLE_GO) = (unsigned)e;
            ((volatile hx_watch *)p.watch)->progress = (unsigned long long)e;
            __threadfence_system();
        }
    }
    return true;
}

/* A boundary block: wait until the receivers released exchange e. */
__device__ bool hx_role_wait_go(const hx_pparams &p, long long e, long long sweep)
{
    __shared__ int ok;
    if (threadIdx.x == 0) {
        ok = 1;
        volatile unsigned *go = p.bar + HX_ROLE_GO;
        unsigned long long t0 = 0, waited = 0;
        for (unsigned spin = 1; (int)(*go - (unsigned)e) < 0; spin++) {
            if (spin % 64) continue;
            const int w = hx_watchdog(p.abort_flag, p.timeout_ns, t0, waited);
            if (w == HX_WATCH_WAIT) continue;
            if (w == HX_WATCH_EXPIRED) hx_give_up(p, -1, 0, e, sweep, HX_WAIT_RELEASE, waited);
            ok = 0;
            break;
        }
        __threadfence();
    }
    __syncthreads();
    return ok;
}

#ifndef HX_ROLE_MIN_BLOCKS
#define HX_ROLE_MIN_BLOCKS 1 /* blocks per SM the register budget must allow (a tuning build may set 3 or 4) */
#endif
template <typename T, int ST> __global__ void __launch_bounds__(HX_ROLE_THREADS, HX_ROLE_MIN_BLOCKS) hx_roles_kernel(hx_pparams p)
{
    __shared__ int ticket;
    if (threadIdx.x == 0) {
        const unsigned t = atomicAdd(p.bar + HX_ROLE_TICKET, 1u);
        if (t == gridDim.x - 1) atomicExch(p.bar + HX_ROLE_TICKET, 0u); /* every block holds its ticket: reset for the next launch */
        ticket = (int)t;
    }
    __syncthreads();
    const int t = ticket;
    int ns, nr, nbd;
    hx_roles_split(p, (int)gridDim.x, &ns, &nr, &nbd);
    hx_box S;
    for (int a = 0; a < 3; a++) S.lo[a] = p.olo[a], S.hi[a] = p.ohi[a];
    const hx_box I = hx_roles_interior(p);
    int cur = *(volatile int *)p.cur_out;
    long long e = (long long)p.exch0;
    for (long done = 0; done < p.sweeps; done++) {
        e++;
        const long gdone = p.done0 + done;
        double *norm = NULL;
        if (p.norm_every > 0 && (gdone + 1) % p.norm_every == 0)
            norm = p.norm_acc + ((gdone + 1) / p.norm_every - 1 - p.norm_base);
        T *f = (T *)p.field[cur], *g = (T *)p.field[1 - cur];
        double acc = 0;
        if (t < ns) {
            hx_role_send<T>(p, f, e, t, ns);
            /* the interior: in 3D by marching register windows (pass3d_march.cuh), in 2D a warp per row */
            if constexpr (ST == HX_JACOBI7 || ST == HX_STAR13) hx_march_box<T, ST, false>(p, f, g, I, t, ns, norm != NULL, acc);
            else hx_sweep_rows<T, ST>(p, f, g, I, t, ns, norm != NULL, acc);
        } else if (t < ns + nr) {
            if (!hx_role_receive<T>(p, f, e, gdone, t - ns, nr)) return;
        } else {
            if (!hx_role_wait_go(p, e, gdone)) return;
            for (int k = 0; k < 2 * p.dim; k++) hx_sweep_rows<T, ST>(p, f, g, hx_roles_slab(S, I, k), t - ns - nr, nbd, norm != NULL, acc);
        }
        if (norm && (t < ns || t >= ns + nr)) hx_block_add(acc, norm);
        cur = 1 - cur;
        if (done + 1 < p.sweeps && !hx_grid_sync(p, e, gdone)) return; /* the next cycle reads what every role wrote */
    }
    /* the last block to finish publishes where the iterate ends (every block read cur_out before) */
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (hx_count_last(p.bar + HX_ROLE_DONE, gridDim.x)) *(volatile int *)p.cur_out = cur;
    }
}

#endif
