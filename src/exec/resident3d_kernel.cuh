/* The resident persistent kernel in 3D (direct pattern): every block owns one tile of the rank's
 * block for the whole run and keeps it in shared memory with a ring of H = depth x radius cells.
 * The protocol is the 2D kernel's (resident_kernel.cuh, where the argument for its correctness
 * lives): per deep-halo cycle e a tile publishes the band of its core that others read (flagged
 * words into the rank's mailbox of parity e % 2, and into the neighbour ranks' receive slots),
 * gathers its ring as each word arrives, then runs the cycle's sweeps; no barrier per cycle.
 *
 * One buffer, not two: a 32^3 core with a ring of 2 is 187 KB of floats of the 227 KB a block may
 * have. The sweeps update it in place, marching up z: a thread keeps the old values of its columns
 * from z - R to z + K - 1 + R in registers, reads the x and y neighbours of K planes from shared
 * memory, and stores the K new planes after the block's barrier, when every thread has read the
 * old ones (K = HX_RES3_PLANES). Nobody writes a plane before the barrier that follows its
 * readers' loads. The arithmetic is halox/stencil.h's.
 *
 * Only when asked for (hx_kernel RESIDENT in 3D, persistent_setup.cu): the pass kernel and the
 * cycle schedule are faster in 3D. Most of its cycle is the gather of the ring, which grows with
 * the ring: the reading, not the wait (a grid barrier before it, or a back-off between polls, did
 * not shorten it). */
#ifndef HALOX_RESIDENT3D_KERNEL_CUH
#define HALOX_RESIDENT3D_KERNEL_CUH

#include "exec/resident_kernel.cuh"

struct hx_rtile3 {
    int c0[3], c1[3]; /* core: the cells this block owns */
    int r0[3], r1[3]; /* core plus the ring of H cells */
};

/* A box of cells and where their flagged words live: cell c is word (c0 - o0) + sy (c1 - o1) +
 * sz (c2 - o2) of base[par] (times HX_LL_WORDS). */
struct hx_src3 {
    int lo[3], hi[3], o[3], peer, msg;
    long sy, sz;
    unsigned long long *base[2];
};
#define HX_MAX_SOURCES3 (6 + HX_MAX_MSGS)

__device__ __forceinline__ int hx_src3_cells(const hx_src3 &q) { return (q.hi[0] - q.lo[0]) * (q.hi[1] - q.lo[1]) * (q.hi[2] - q.lo[2]); }

/* A thread's walk over a box: cells start, start + step, ... with no division per cell. */
struct hx_walk3 {
    int c[3], d[3], w, h;
};
__device__ __forceinline__ void hx_walk3_init(hx_walk3 &k, const hx_src3 &q, int start, int step)
{
    k.w = q.hi[0] - q.lo[0], k.h = q.hi[1] - q.lo[1];
    const int row = start / k.w, srow = step / k.w;
    k.c[0] = q.lo[0] + (start - row * k.w), k.c[1] = q.lo[1] + row % k.h, k.c[2] = q.lo[2] + row / k.h;
    k.d[0] = step - srow * k.w, k.d[1] = srow % k.h, k.d[2] = srow / k.h;
}
__device__ __forceinline__ void hx_walk3_step(hx_walk3 &k, const hx_src3 &q)
{
    k.c[0] += k.d[0];
    if (k.c[0] >= q.hi[0]) k.c[0] -= k.w, k.c[1]++;
    k.c[1] += k.d[1];
    if (k.c[1] >= q.hi[1]) k.c[1] -= k.h, k.c[2]++;
    k.c[2] += k.d[2];
}

/* fn(c) for the cells c of box q, spread over the block's threads, x fastest. */
template <typename F> __device__ __forceinline__ void hx_src3_each(const hx_src3 &q, F fn)
{
    const int n = hx_src3_cells(q);
    hx_walk3 k3;
    hx_walk3_init(k3, q, (int)threadIdx.x, (int)blockDim.x);
    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x, hx_walk3_step(k3, q)) fn((const int *)k3.c);
}

__device__ __forceinline__ size_t hx_src3_word(const hx_src3 &q, const int c[3])
{
    return (size_t)((c[0] - q.o[0]) + q.sy * (c[1] - q.o[1]) + q.sz * (c[2] - q.o[2]));
}

/* Appends q clipped to [lo, hi) when cells remain; returns the new count. */
__device__ __forceinline__ int hx_src3_add(hx_src3 *list, int n, hx_src3 q, const int *lo, const int *hi)
{
    for (int a = 0; a < 3; a++) {
        q.lo[a] = max(q.lo[a], lo[a]), q.hi[a] = min(q.hi[a], hi[a]);
        if (q.lo[a] >= q.hi[a]) return n;
    }
    list[n] = q;
    return n + 1;
}

/* The rank's own cells as a box list entry: the mailbox, indexed as the field. */
__device__ __forceinline__ hx_src3 hx_mailbox3(const hx_pparams &p)
{
    hx_src3 q;
    for (int a = 0; a < 3; a++) q.o[a] = 0;
    q.sy = p.sy, q.sz = p.sz, q.peer = p.rank, q.msg = 0;
    q.base[0] = p.ll_mail[0], q.base[1] = p.ll_mail[1];
    return q;
}

/* Message box b (a send or receive box) of `peer`, its cells in order in slot[parity]. */
__device__ __forceinline__ hx_src3 hx_msg3(const hx_box &b, int peer, char *const slot[2])
{
    hx_src3 q;
    for (int a = 0; a < 3; a++) q.lo[a] = b.lo[a], q.hi[a] = b.hi[a], q.o[a] = b.lo[a];
    q.sy = b.hi[0] - b.lo[0], q.sz = q.sy * (b.hi[1] - b.lo[1]), q.peer = peer, q.msg = 1;
    q.base[0] = (unsigned long long *)slot[0], q.base[1] = (unsigned long long *)slot[1];
    return q;
}

/* Where the ring comes from: six disjoint slabs (below and above the core in z over the whole
 * region, then in y over the core's z, then in x over the core's y and z), their owned cells from
 * the mailbox, and each message's receive box. A message to this rank itself (a periodic side with
 * one rank across) is read from the mailbox at the periodic image. */
static __device__ int hx_ring_sources3(const hx_pparams &p, const hx_rtile3 &t, hx_src3 *src)
{
    const hx_dev_table *tb = p.table;
    int n = 0;
    for (int a = 2; a >= 0; a--)
        for (int side = 0; side < 2; side++) {
            hx_src3 q = hx_mailbox3(p);
            for (int b = 0; b < 3; b++) q.lo[b] = b > a ? t.c0[b] : t.r0[b], q.hi[b] = b > a ? t.c1[b] : t.r1[b];
            if (side) q.lo[a] = t.c1[a];
            else q.hi[a] = t.c0[a];
            n = hx_src3_add(src, n, q, p.olo, p.ohi);
        }
    for (int m = 0; m < tb->nmsg[0]; m++) {
        const hx_dev_msg &dm = tb->msg[0][m];
        const hx_box &b = dm.recv_box;
        hx_src3 q = hx_msg3(b, dm.peer, dm.my_recv);
        if (dm.peer == p.rank) {
            q = hx_mailbox3(p);
            for (int a = 0; a < 3; a++) {
                q.lo[a] = b.lo[a], q.hi[a] = b.hi[a];
                const int na = p.ohi[a] - p.olo[a];
                q.o[a] = b.lo[a] >= p.ohi[a] ? na : b.hi[a] <= p.olo[a] ? -na : 0;
            }
        }
        n = hx_src3_add(src, n, q, t.r0, t.r1);
    }
    return n;
}

/* Where the core goes: the band of H cells along its six faces (only it reaches another tile's
 * ring) to the mailbox, and its overlap with each message's send box to that neighbour. */
static __device__ int hx_core_sinks3(const hx_pparams &p, const hx_rtile3 &t, hx_src3 *snk)
{
    const hx_dev_table *tb = p.table;
    const int H = p.ring;
    int n = 0;
    bool thin = false;
    for (int a = 0; a < 3; a++) thin |= 2 * H >= t.c1[a] - t.c0[a];
    if (thin) { /* the whole core */
        hx_src3 q = hx_mailbox3(p);
        for (int a = 0; a < 3; a++) q.lo[a] = t.c0[a], q.hi[a] = t.c1[a];
        n = hx_src3_add(snk, n, q, t.c0, t.c1);
    } else {
        for (int a = 2; a >= 0; a--)
            for (int side = 0; side < 2; side++) {
                hx_src3 q = hx_mailbox3(p);
                for (int b = 0; b < 3; b++) q.lo[b] = b > a ? t.c0[b] + H : t.c0[b], q.hi[b] = b > a ? t.c1[b] - H : t.c1[b];
                if (side) q.lo[a] = t.c1[a] - H;
                else q.hi[a] = t.c0[a] + H;
                n = hx_src3_add(snk, n, q, t.c0, t.c1);
            }
    }
    for (int m = 0; m < tb->nmsg[0]; m++) {
        const hx_dev_msg &dm = tb->msg[0][m];
        if (dm.peer == p.rank) continue; /* its ghosts come from the mailbox (hx_ring_sources3) */
        n = hx_src3_add(snk, n, hx_msg3(dm.send_box, dm.peer, dm.remote_recv), t.c0, t.c1);
    }
    return n;
}

/* Offset of cell c in the tile's buffer (row pitch PX, plane pitch PP). */
__device__ __forceinline__ int hx_tile3_at(const hx_rtile3 &t, int PX, int PP, const int c[3])
{
    return (c[0] - t.r0[0]) + PX * (c[1] - t.r0[1]) + PP * (c[2] - t.r0[2]);
}

/* Step 1: store the published cells of the core, flagged with e. */
template <typename T>
__device__ void hx_publish3(const hx_pparams &p, const hx_rtile3 &t, const T *A, int PX, int PP, unsigned e, const hx_src3 *snk, int nsnk)
{
    const int par = (int)(e & 1), W = HX_LL_WORDS(T);
    const bool skip = p.skip_from && (long long)e >= p.skip_from; /* the fault knob: this rank's puts stop */
    for (int k = 0; k < nsnk; k++) {
        const hx_src3 &q = snk[k];
        if (skip && q.msg) continue;
        hx_src3_each(q, [&](const int *c) { hx_ll_put<T>(q.base[par] + W * hx_src3_word(q, c), A[hx_tile3_at(t, PX, PP, c)], e); });
    }
}

#ifndef HX_RES3_BATCH
#define HX_RES3_BATCH 4 /* ring cells a thread polls at once (8 spills registers for floats) */
#endif

/* Step 2: read the ring as its words arrive, a batch of cells in flight per thread. Ghost cells
 * that no message brings lie beyond a fixed boundary and keep the values loaded at the start.
 * False when the kernel is abandoned (this wait timed out, or another's did). */
template <typename T>
__device__ bool hx_gather3(const hx_pparams &p, const hx_rtile3 &t, T *A, int PX, int PP, unsigned e, long long sweep, const hx_src3 *src,
                           int nsrc)
{
    const int par = (int)(e & 1), W = HX_LL_WORDS(T), N = (int)blockDim.x;
    constexpr int BATCH = HX_RES3_BATCH;
    __shared__ int ok;
    if (threadIdx.x == 0) ok = 1;
    __syncthreads();
    for (int k = 0; k < nsrc && ok; k++) {
        const hx_src3 &q = src[k];
        const int n = hx_src3_cells(q);
        hx_walk3 k3;
        hx_walk3_init(k3, q, (int)threadIdx.x, N);
        for (int i0 = (int)threadIdx.x; i0 < n && ok; i0 += BATCH * N) {
            const unsigned long long *from[BATCH];
            int at[BATCH];
            unsigned pending = 0;
#pragma unroll
            for (int u = 0; u < BATCH; u++) {
                at[u] = -1;
                if (i0 + u * N >= n) continue;
                from[u] = q.base[par] + W * hx_src3_word(q, k3.c);
                at[u] = hx_tile3_at(t, PX, PP, k3.c);
                pending |= 1u << u;
                hx_walk3_step(k3, q);
            }
            if (!hx_ll_wait_into<T, BATCH>(p, from, at, A, pending, e, [&](unsigned, unsigned long long waited) {
                    hx_give_up(p, q.peer, 0, e, sweep, q.peer == p.rank ? HX_WAIT_TILE : HX_WAIT_FLAG, waited);
                }))
                ok = 0;
        }
    }
    __syncthreads();
    return ok;
}

/* The stencil on values: nb holds plane z's neighbours (x - 1, x + 1, y - 1, y + 1, then the same
 * at distance 2), w the column from z - R to z + R. */
template <typename T, int ST> struct hx_vals3;
template <typename T> struct hx_vals3<T, HX_JACOBI7> {
    static constexpr int R = 1;
    static __device__ __forceinline__ T at(const T *nb, const T *w)
    {
        return sizeof(T) == 4 ? (T)hx_jacobi7v_f32((float)nb[0], (float)nb[1], (float)nb[2], (float)nb[3], (float)w[0], (float)w[2])
                              : (T)hx_jacobi7v_f64((double)nb[0], (double)nb[1], (double)nb[2], (double)nb[3], (double)w[0], (double)w[2]);
    }
};
template <typename T> struct hx_vals3<T, HX_STAR13> {
    static constexpr int R = 2;
    static __device__ __forceinline__ T at(const T *nb, const T *w)
    {
        if constexpr (sizeof(T) == 4)
            return (T)hx_star13v_f32((float)nb[0], (float)nb[1], (float)nb[2], (float)nb[3], (float)w[1], (float)w[3], (float)nb[4],
                                     (float)nb[5], (float)nb[6], (float)nb[7], (float)w[0], (float)w[4]);
        else
            return (T)hx_star13v_f64((double)nb[0], (double)nb[1], (double)nb[2], (double)nb[3], (double)w[1], (double)w[3], (double)nb[4],
                                     (double)nb[5], (double)nb[6], (double)nb[7], (double)w[0], (double)w[4]);
    }
};

/* Plane-local loads of a column's x and y neighbours (order of hx_vals3::at). */
template <typename T, int R> __device__ __forceinline__ void hx_load_nb3(const T *c, int PX, T *nb)
{
#pragma unroll
    for (int j = 1; j <= R; j++) nb[4 * (j - 1)] = c[-j], nb[4 * (j - 1) + 1] = c[j], nb[4 * (j - 1) + 2] = c[-j * PX], nb[4 * (j - 1) + 3] = c[j * PX];
}

/* A thread's columns of the tile's region, fixed for the run: offsets in a plane and coordinates
 * (col[k] < 0: none). */
struct hx_cols3 {
    int col[HX_RES3_COLS], x[HX_RES3_COLS], y[HX_RES3_COLS];
};

/* Planes computed between two barriers of a sweep: their old values (every x and y neighbour, the
 * column from z - R to z + K - 1 + R) are read before the barrier, the new ones stored after it. */
#ifndef HX_RES3_PLANES
#define HX_RES3_PLANES 4
#endif

/* One sweep in place of the box the core grown by g: each column marches up z, HX_RES3_PLANES planes
 * a barrier (see the top). With CHECK, cells outside the sweep box sb keep their value
 * (fixed-boundary ghosts). With NORM, returns the squared change summed over the core. Every
 * thread takes every barrier. */
template <typename T, int ST, bool CHECK, bool NORM>
__device__ double hx_sweep3(T *A, int PX, int PP, const hx_rtile3 &t, const hx_cols3 &cs, int g, const hx_box &sb)
{
    constexpr int R = hx_vals3<T, ST>::R, C = HX_RES3_COLS, K = HX_RES3_PLANES;
    const int z0 = t.c0[2] - g, z1 = t.c1[2] + g;
    bool on[C], xyin[C], core[C];
    T col[C][K + 2 * R]; /* col[k][i]: the old value at plane z - R + i */
    const T *a0[C];      /* the column at plane z0 */
#pragma unroll
    for (int k = 0; k < C; k++) {
        on[k] = cs.col[k] >= 0 && cs.x[k] >= t.c0[0] - g && cs.x[k] < t.c1[0] + g && cs.y[k] >= t.c0[1] - g && cs.y[k] < t.c1[1] + g;
        xyin[k] = !CHECK || (cs.x[k] >= sb.lo[0] && cs.x[k] < sb.hi[0] && cs.y[k] >= sb.lo[1] && cs.y[k] < sb.hi[1]);
        core[k] = cs.x[k] >= t.c0[0] && cs.x[k] < t.c1[0] && cs.y[k] >= t.c0[1] && cs.y[k] < t.c1[1];
        a0[k] = A + (on[k] ? cs.col[k] : 0) + PP * (z0 - t.r0[2]);
        if (!on[k]) continue;
#pragma unroll
        for (int i = 0; i < 2 * R; i++) col[k][i] = a0[k][PP * (i - R)];
    }
    double acc = 0;
    for (int z = z0; z < z1; z += K) {
        T v[C][K];
#pragma unroll
        for (int k = 0; k < C; k++) {
            if (!on[k]) continue;
            const T *c = a0[k] + PP * (z - z0);
#pragma unroll
            for (int j = 0; j < K; j++)
                if (z + j < z1) col[k][2 * R + j] = c[PP * (j + R)];
#pragma unroll
            for (int j = 0; j < K; j++) {
                if (z + j >= z1) continue;
                T nb[4 * R];
                hx_load_nb3<T, R>(c + PP * j, PX, nb);
                v[k][j] = hx_vals3<T, ST>::at(nb, &col[k][j]);
                if (CHECK && !(xyin[k] && z + j >= sb.lo[2] && z + j < sb.hi[2])) v[k][j] = col[k][j + R];
            }
        }
        __syncthreads(); /* every thread has read these planes' old values */
#pragma unroll
        for (int k = 0; k < C; k++) {
            if (!on[k]) continue;
            T *c = (T *)a0[k] + PP * (z - z0);
#pragma unroll
            for (int j = 0; j < K; j++) {
                if (z + j >= z1) continue;
                c[PP * j] = v[k][j];
                if (NORM && core[k] && z + j >= t.c0[2] && z + j < t.c1[2]) {
                    const double d = (double)v[k][j] - (double)col[k][j + R];
                    acc += d * d;
                }
            }
#pragma unroll
            for (int i = 0; i < 2 * R; i++) col[k][i] = col[k][i + K];
        }
    }
    __syncthreads();
    return acc;
}

template <typename T, int ST> __global__ void __launch_bounds__(HX_RES3_THREADS) hx_resident3d_kernel(hx_pparams p)
{
#ifdef HALOX_EMULATE
    unsigned char *hx_smem_raw = hx_emu_shared(); /* host tests (tests/emu): the running block's */
#else
    extern __shared__ __align__(16) unsigned char hx_smem_raw[];
#endif
    const int r = p.radius, H = p.ring, PX = p.pitch, PP = PX * (p.ty + 2 * H);
    hx_rtile3 t;
    {
        const int b = (int)blockIdx.x, tile[3] = {b % p.ntx, b / p.ntx % p.nty, b / (p.ntx * p.nty)}, ext[3] = {p.tx, p.ty, p.tz};
        for (int a = 0; a < 3; a++) {
            t.c0[a] = p.olo[a] + tile[a] * ext[a];
            t.c1[a] = min(t.c0[a] + ext[a], p.ohi[a]);
            t.r0[a] = t.c0[a] - H, t.r1[a] = t.c1[a] + H;
        }
    }
    hx_cols3 cs;
    {
        const int w = t.r1[0] - t.r0[0], n = w * (t.r1[1] - t.r0[1]);
        for (int k = 0; k < HX_RES3_COLS; k++) {
            const int i = (int)threadIdx.x + k * (int)blockDim.x;
            cs.x[k] = t.r0[0] + i % w, cs.y[k] = t.r0[1] + i / w;
            cs.col[k] = i < n ? (cs.x[k] - t.r0[0]) + PX * (cs.y[k] - t.r0[1]) : -1;
        }
    }
    T *A = (T *)hx_smem_raw;
    __shared__ hx_src3 src[HX_MAX_SOURCES3], snk[HX_MAX_SOURCES3];
    __shared__ int nsrc, nsnk;
    if (threadIdx.x == 0) nsrc = hx_ring_sources3(p, t, src), nsnk = hx_core_sinks3(p, t, snk);
    __syncthreads();
    const int cur0 = *(volatile int *)p.cur_out;
    {
        const T *start = (const T *)p.field[cur0];
        hx_src3 reg;
        for (int a = 0; a < 3; a++) reg.lo[a] = t.r0[a], reg.hi[a] = t.r1[a];
        hx_src3_each(reg, [&](const int *c) { A[hx_tile3_at(t, PX, PP, c)] = __ldcg(start + c[0] + p.sy * c[1] + p.sz * c[2]); });
    }
    __syncthreads();
    long done = 0;
    unsigned e = (unsigned)p.exch0;
    while (done < p.sweeps) {
        const int m = (int)min((long)p.depth, p.sweeps - done);
        const long long sweep = p.done0 + done;
        e++;
        unsigned long long t0 = p.prof ? hx_now_ns() : 0, t1 = 0, t2 = 0;
        hx_publish3<T>(p, t, A, PX, PP, e, snk, nsnk);
        if (p.prof) { /* the block's publish, not thread 0's share (the gather starts with a barrier anyway) */
            __syncthreads();
            t1 = hx_now_ns();
        }
        if (!hx_gather3<T>(p, t, A, PX, PP, e, sweep, src, nsrc)) return;
        if (p.prof) t2 = hx_now_ns();
        for (int j = 0; j < m; j++) {
            const int g = (m - 1 - j) * r;
            const hx_box sb = hx_dev_sweep_box(p, g);
            const long gs = p.done0 + done + j + 1; /* sweeps done after this one */
            bool inside = true; /* outside its sweep box a cell keeps its value: fixed-boundary ghosts stay */
            for (int a = 0; a < 3; a++) inside &= t.c0[a] - g >= sb.lo[a] && t.c1[a] + g <= sb.hi[a];
            if (p.norm_every > 0 && gs % p.norm_every == 0) {
                const double acc = inside ? hx_sweep3<T, ST, false, true>(A, PX, PP, t, cs, g, sb)
                                          : hx_sweep3<T, ST, true, true>(A, PX, PP, t, cs, g, sb);
                hx_block_add(acc, p.norm_acc + (gs / p.norm_every - 1 - p.norm_base));
            } else if (inside) {
                hx_sweep3<T, ST, false, false>(A, PX, PP, t, cs, g, sb);
            } else {
                hx_sweep3<T, ST, true, false>(A, PX, PP, t, cs, g, sb);
            }
        }
        if (p.prof && threadIdx.x == 0) { /* profile: where a block's cycles go, ns summed over cycles */
            const unsigned long long t3 = hx_now_ns();
            unsigned long long *q = p.prof + 4 * blockIdx.x;
            q[0] += t1 - t0, q[1] += t2 - t1, q[2] += t3 - t2, q[3] += 1;
        }
        done += m;
        if (blockIdx.x == 0 && threadIdx.x == 0) ((volatile hx_watch *)p.watch)->progress = (unsigned long long)e;
    }
    /* every tile has read its last ring: the core goes where the host expects the newest iterate */
    if (!hx_grid_sync(p, e, p.done0 + done)) return;
    const int last = cur0 ^ (int)(p.sweeps & 1);
    T *out = (T *)p.field[last];
    hx_src3 core;
    for (int a = 0; a < 3; a++) core.lo[a] = t.c0[a], core.hi[a] = t.c1[a];
    hx_src3_each(core, [&](const int *c) { out[c[0] + p.sy * c[1] + p.sz * c[2]] = A[hx_tile3_at(t, PX, PP, c)]; });
    if (blockIdx.x == 0 && threadIdx.x == 0) *p.cur_out = last;
}

#endif
