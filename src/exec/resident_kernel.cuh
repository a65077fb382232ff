/* The resident persistent kernel (2D, direct pattern): every block owns one tile of the rank's
 * block for the whole run and keeps it in shared memory with a ring of H = depth x radius cells,
 * so the field never goes back to global memory between sweeps. Per deep-halo cycle e a tile:
 *   1. publishes the cells of its core that neighbours read: into the rank's mailbox (parity
 *      e % 2) for the tiles of this GPU, and, for each halo message its core overlaps, straight
 *      into the neighbour rank's receive slot of parity e % 2 (CUDA IPC mapping: the put);
 *   2. reads its ring from the mailbox and the received messages, as soon as each word is there;
 *   3. runs the cycle's sweeps in shared memory, the ring shrinking by the radius per sweep:
 *      the cells a deep halo recomputes. A tile is a small rank: deep halos between tiles too.
 * No flag, fence, counter or grid barrier per cycle: every 4-byte word travels with the number of
 * its exchange in one 8-byte store (what NCCL calls its low-latency protocol), which a reader
 * polls until the number is e. An 8-byte aligned store is seen whole or not at all, on the GPU and
 * over NVLink, so a word carrying e carries e's value.
 *
 * Two parities suffice: the neighbour relation is symmetric (a tile reads a tile or message iff
 * those senders read it back), and a tile stores cycle e + 2 only after reading its neighbours'
 * words of cycle e + 1, which each neighbour computed from, and so stored after, its reads of e.
 * The arithmetic is halox/stencil.h's: fields are bit-identical to every other schedule. */
#ifndef HALOX_RESIDENT_KERNEL_CUH
#define HALOX_RESIDENT_KERNEL_CUH

#include "exec/persistent_kernel.cuh"

/* Flagged words: value bits in the low half, exchange number in the high half. */
#define HX_LL_WORDS(T) ((int)sizeof(T) / 4)
template <typename T> __device__ __forceinline__ void hx_ll_put(unsigned long long *a, T v, unsigned e)
{
    const unsigned long long tag = (unsigned long long)e << 32;
    if constexpr (sizeof(T) == 4) {
        hx_ll_store(a, tag | __float_as_uint((float)v));
    } else {
        const unsigned long long b = (unsigned long long)__double_as_longlong((double)v);
        hx_ll_store(a, tag | (b & 0xffffffffull));
        hx_ll_store(a + 1, tag | (b >> 32));
    }
}
/* Polls the pending cells of a batch (bit u of pending: from[u] not yet seen with tag e): every
 * load first, then the tags. Testing a load's tag before issuing the next would cost an L2 round
 * trip a cell. Returns the cells still pending; v[u] holds the others' values. */
template <typename T, int BATCH>
__device__ __forceinline__ unsigned hx_ll_poll(const unsigned long long *const *from, unsigned pending, unsigned e, T *v)
{
    unsigned long long w0[BATCH], w1[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; u++) {
        if (!(pending >> u & 1)) continue;
        w0[u] = hx_ll_load(from[u]);
        if (sizeof(T) == 8) w1[u] = hx_ll_load(from[u] + 1);
    }
#pragma unroll
    for (int u = 0; u < BATCH; u++) {
        if (!(pending >> u & 1) || (unsigned)(w0[u] >> 32) != e) continue;
        if constexpr (sizeof(T) == 4) {
            v[u] = (T)__uint_as_float((unsigned)w0[u]);
        } else {
            if ((unsigned)(w1[u] >> 32) != e) continue;
            v[u] = (T)__longlong_as_double((long long)((w1[u] << 32) | (w0[u] & 0xffffffffull)));
        }
        pending &= ~(1u << u);
    }
    return pending;
}

/* Waits for a batch of flagged words (hx_ll_poll), watching the clock every 64th poll; on expiry
 * expired(pending, waited) reports who was waited for. pending: in, the cells to wait for; out,
 * those still missing. False when the wait gave up or the kernel is being abandoned. */
template <typename T, int BATCH, typename F>
__device__ __forceinline__ bool hx_ll_wait(const hx_pparams &p, const unsigned long long *const *from, unsigned &pending, unsigned e, T *v,
                                           F expired)
{
    unsigned long long t0 = 0, waited = 0;
    for (unsigned spin = 1; pending; spin++) {
        pending = hx_ll_poll<T, BATCH>(from, pending, e, v);
        if (!pending || spin % 64) continue;
        const int w = hx_watchdog(p.abort_flag, p.timeout_ns, t0, waited);
        if (w == HX_WATCH_WAIT) continue;
        if (w == HX_WATCH_EXPIRED) expired(pending, waited);
        return false;
    }
    return true;
}

/* A tile's batch of ring cells: hx_ll_wait, then each value that came into its place A[at[u]]
 * (at[u] < 0: no cell). False when the wait gave up. */
template <typename T, int BATCH, typename F>
__device__ __forceinline__ bool hx_ll_wait_into(const hx_pparams &p, const unsigned long long *const *from, const int *at, T *A,
                                                unsigned pending, unsigned e, F expired)
{
    T v[BATCH];
    const bool ok = hx_ll_wait<T, BATCH>(p, from, pending, e, v, expired);
#pragma unroll
    for (int u = 0; u < BATCH; u++)
        if (at[u] >= 0 && !(pending >> u & 1)) A[at[u]] = v[u];
    return ok;
}

/* Cells (x, y) of [x0, x1) x [y0, y1), spread flat over the block's threads (every lane busy
 * whatever the width), no division per cell. */
template <typename F> __device__ __forceinline__ void hx_rect(int x0, int x1, int y0, int y1, F fn)
{
    const int w = x1 - x0, h = y1 - y0;
    if (w <= 0 || h <= 0) return;
    const int n = w * h, N = (int)blockDim.x, dy = N / w, dx = N - dy * w;
    int y = (int)threadIdx.x / w, x = (int)threadIdx.x - y * w;
    for (int i = (int)threadIdx.x; i < n; i += N) {
        fn(x0 + x, y0 + y);
        x += dx;
        y += dy;
        if (x >= w) x -= w, y++;
    }
}

struct hx_rtile {
    int cx0, cx1, cy0, cy1; /* core: the cells this block owns */
    int rx0, rx1, ry0, ry1; /* core plus the ring of H cells */
};

/* A rectangle of cells and where their flagged words live: cell (x, y) is word (x - ox) + stride *
 * (y - oy) of base[par] (HX_LL_WORDS per cell). A tile's ring comes from up to four strips of the
 * rank's own cells (the mailbox) and a rectangle per message (hx_ring_sources); its core goes to
 * the mailbox and to every message to another rank it overlaps (hx_core_sinks). Both lists are built once per
 * launch, so a cycle reads no message table from global memory. */
#define HX_MAX_SOURCES (4 + HX_MAX_MSGS)
struct hx_source {
    int x0, x1, y0, y1, ox, oy, end; /* end: running count of cells up to this one */
    int peer;                        /* the rank that sends or receives it (this rank: a tile's mailbox) */
    int msg;                         /* a message's (not the mailbox) */
    long stride;
    unsigned long long *base[2];
};

/* The source of the ring's i-th cell (i < the last source's end). */
__device__ __forceinline__ const hx_source &hx_source_of(const hx_source *src, int i)
{
    int k = 0;
    while (src[k].end <= i) k++;
    return src[k];
}

static __device__ int hx_ring_sources(const hx_pparams &p, const hx_rtile &t, hx_source *src)
{
    const hx_dev_table *tb = p.table;
    int n = 0, cells = 0;
    for (int k = 0; k < 4 + tb->nmsg[0]; k++) {
        hx_source q;
        if (k < 4) {
            /* the ring's four strips: above, below, left, right of the core */
            const int x0 = k == 3 ? t.cx1 : t.rx0, x1 = k == 2 ? t.cx0 : t.rx1;
            const int y0 = k == 0 ? t.ry0 : k == 1 ? t.cy1 : t.cy0, y1 = k == 0 ? t.cy0 : k == 1 ? t.ry1 : t.cy1;
            q.x0 = max(x0, p.olo[0]), q.x1 = min(x1, p.ohi[0]), q.y0 = max(y0, p.olo[1]), q.y1 = min(y1, p.ohi[1]);
            q.ox = q.oy = 0, q.stride = p.sy, q.peer = p.rank, q.msg = 0;
            q.base[0] = p.ll_mail[0], q.base[1] = p.ll_mail[1];
        } else {
            const hx_dev_msg &dm = tb->msg[0][k - 4];
            const hx_box &b = dm.recv_box;
            q.x0 = max(t.rx0, b.lo[0]), q.x1 = min(t.rx1, b.hi[0]), q.y0 = max(t.ry0, b.lo[1]), q.y1 = min(t.ry1, b.hi[1]);
            q.ox = b.lo[0], q.oy = b.lo[1], q.stride = b.hi[0] - b.lo[0], q.peer = dm.peer, q.msg = 1;
            q.base[0] = (unsigned long long *)dm.my_recv[0], q.base[1] = (unsigned long long *)dm.my_recv[1];
            if (dm.peer == p.rank) {
                /* a message to itself (a periodic side with one rank across): its ghosts are the
                 * periodic images of owned cells in other tiles' bands, read from the mailbox
                 * (hx_core_sinks sends nothing for it) */
                const int nx = p.ohi[0] - p.olo[0], ny = p.ohi[1] - p.olo[1];
                q.ox = b.lo[0] >= p.ohi[0] ? nx : b.hi[0] <= p.olo[0] ? -nx : 0;
                q.oy = b.lo[1] >= p.ohi[1] ? ny : b.hi[1] <= p.olo[1] ? -ny : 0;
                q.stride = p.sy, q.msg = 0;
                q.base[0] = p.ll_mail[0], q.base[1] = p.ll_mail[1];
            }
        }
        if (q.x0 >= q.x1 || q.y0 >= q.y1) continue;
        cells += (q.x1 - q.x0) * (q.y1 - q.y0);
        q.end = cells;
        src[n++] = q;
    }
    return n;
}

/* Where the core's cells go: the band of H cells along the core's edges (only it reaches another
 * tile's ring) to the mailbox, and the core's overlap with each message's send box straight into
 * that neighbour's receive slots. peer: the receiving rank (this rank: the mailbox). */
static __device__ int hx_core_sinks(const hx_pparams &p, const hx_rtile &t, hx_source *snk)
{
    const hx_dev_table *tb = p.table;
    const int H = p.ring;
    int n = 0;
    auto add = [&](int x0, int x1, int y0, int y1, int ox, int oy, long stride, int peer, unsigned long long *b0,
                   unsigned long long *b1) {
        if (x0 >= x1 || y0 >= y1) return;
        hx_source &q = snk[n++];
        q.x0 = x0, q.x1 = x1, q.y0 = y0, q.y1 = y1, q.ox = ox, q.oy = oy, q.stride = stride, q.peer = peer, q.end = 0;
        q.msg = b0 != p.ll_mail[0];
        q.base[0] = b0, q.base[1] = b1;
    };
    unsigned long long *m0 = p.ll_mail[0], *m1 = p.ll_mail[1];
    if (2 * H >= t.cx1 - t.cx0 || 2 * H >= t.cy1 - t.cy0) {
        add(t.cx0, t.cx1, t.cy0, t.cy1, 0, 0, p.sy, p.rank, m0, m1);
    } else {
        add(t.cx0, t.cx1, t.cy0, t.cy0 + H, 0, 0, p.sy, p.rank, m0, m1);
        add(t.cx0, t.cx1, t.cy1 - H, t.cy1, 0, 0, p.sy, p.rank, m0, m1);
        add(t.cx0, t.cx0 + H, t.cy0 + H, t.cy1 - H, 0, 0, p.sy, p.rank, m0, m1);
        add(t.cx1 - H, t.cx1, t.cy0 + H, t.cy1 - H, 0, 0, p.sy, p.rank, m0, m1);
    }
    for (int m = 0; m < tb->nmsg[0]; m++) {
        const hx_dev_msg &dm = tb->msg[0][m];
        const hx_box &b = dm.send_box;
        if (dm.peer == p.rank) continue; /* its ghosts come from the mailbox (hx_ring_sources) */
        add(max(t.cx0, b.lo[0]), min(t.cx1, b.hi[0]), max(t.cy0, b.lo[1]), min(t.cy1, b.hi[1]), b.lo[0], b.lo[1], b.hi[0] - b.lo[0],
            dm.peer, (unsigned long long *)dm.remote_recv[0], (unsigned long long *)dm.remote_recv[1]);
    }
    return n;
}

/* Step 1: store the cells of the core that other tiles or ranks read, flagged with e. */
template <typename T>
__device__ void hx_publish(const hx_pparams &p, const hx_rtile &t, const T *A, unsigned e, const hx_source *snk, int nsnk)
{
    const int PW = p.pitch, par = (int)(e & 1), W = HX_LL_WORDS(T);
    const bool skip = p.skip_from && (long long)e >= p.skip_from; /* the fault knob: this rank's puts stop */
    for (int k = 0; k < nsnk; k++) {
        const hx_source &q = snk[k];
        if (skip && q.msg) continue;
        unsigned long long *dst = q.base[par];
        hx_rect(q.x0, q.x1, q.y0, q.y1, [&](int x, int y) {
            hx_ll_put<T>(dst + W * ((x - q.ox) + q.stride * (y - q.oy)), A[(x - t.rx0) + PW * (y - t.ry0)], e);
        });
    }
}

/* The ring's cells at most, for a core of tx x ty and a ring of H: the size of the ring's table. */
static __host__ __device__ inline long hx_ring_cells(int tx, int ty, int H) { return (long)(tx + 2 * H) * (ty + 2 * H) - (long)tx * ty; }

/* Where the ring's i-th cell comes from and goes, worked out once per launch (a cycle then spends
 * no search or division on it): off[i], the word offset in its source (times HX_LL_WORDS); sa[i],
 * the source's index in the top 8 bits and the cell's place in the tile below. */
struct hx_ring_map {
    unsigned *off, *sa;
};
static __device__ void hx_ring_table(const hx_rtile &t, int PW, const hx_source *src, int nsrc, hx_ring_map m)
{
    const int total = nsrc ? src[nsrc - 1].end : 0;
    for (int i = (int)threadIdx.x; i < total; i += (int)blockDim.x) {
        const hx_source &q = hx_source_of(src, i);
        const int k = (int)(&q - src), li = i - (q.end - (q.x1 - q.x0) * (q.y1 - q.y0)), w = q.x1 - q.x0;
        const int y = q.y0 + li / w, x = q.x0 + li % w;
        m.off[i] = (unsigned)((x - q.ox) + q.stride * (y - q.oy));
        m.sa[i] = (unsigned)k << 24 | (unsigned)((x - t.rx0) + PW * (y - t.ry0));
    }
}

/* Step 2: read the ring as its words arrive, a batch of cells in flight per thread. Ghost cells
 * that no message brings lie beyond a fixed boundary and keep the values loaded at the start.
 * False when the kernel is abandoned (this wait timed out, or another's did). */
template <typename T>
__device__ bool hx_gather(const hx_pparams &p, T *A, unsigned e, long long sweep, const hx_source *src, int nsrc, hx_ring_map m)
{
    const int par = (int)(e & 1), W = HX_LL_WORDS(T);
    const int total = nsrc ? src[nsrc - 1].end : 0, N = (int)blockDim.x;
    constexpr int BATCH = 4; /* a ring of up to 4 cells per thread in one batch; more would spill */
    __shared__ int ok;
    if (threadIdx.x == 0) ok = 1;
    __syncthreads();
    for (int i0 = (int)threadIdx.x; i0 < total && ok; i0 += BATCH * N) {
        const unsigned long long *from[BATCH];
        int at[BATCH];
        unsigned pending = 0;
#pragma unroll
        for (int u = 0; u < BATCH; u++) {
            const int i = i0 + u * N;
            at[u] = -1;
            if (i >= total) continue;
            const unsigned sa = m.sa[i];
            from[u] = src[sa >> 24].base[par] + W * (size_t)m.off[i];
            at[u] = (int)(sa & 0xffffffu);
            pending |= 1u << u;
        }
        if (!hx_ll_wait_into<T, BATCH>(p, from, at, A, pending, e, [&](unsigned left, unsigned long long waited) {
                const int k0 = (int)(m.sa[i0 + (__ffs(left) - 1) * N] >> 24); /* the first cell still missing */
                hx_give_up(p, src[k0].peer, 0, e, sweep, src[k0].peer == p.rank ? HX_WAIT_TILE : HX_WAIT_FLAG, waited);
            }))
            ok = 0;
    }
    __syncthreads();
    return ok;
}

#include "exec/resident_sweep.cuh"

/* INPLACE: p.inplace > 0, one buffer swept in bands (its own kernel: holding a band's results
 * costs registers that the two-buffer sweep must not pay) */
template <typename T, int ST, bool INPLACE = false>
__global__ void __launch_bounds__(INPLACE ? HX_RES_INPLACE_THREADS : 1024) hx_resident_kernel(hx_pparams p)
{
#ifdef HALOX_EMULATE
    unsigned char *hx_smem_raw = hx_emu_shared(); /* host tests (tests/emu): the running block's */
#else
    extern __shared__ __align__(16) unsigned char hx_smem_raw[];
#endif
    const int r = p.radius, H = p.ring, PW = p.pitch;
    hx_rtile t;
    t.cx0 = p.olo[0] + (int)(blockIdx.x % p.ntx) * p.tx;
    t.cy0 = p.olo[1] + (int)(blockIdx.x / p.ntx) * p.ty;
    t.cx1 = min(t.cx0 + p.tx, p.ohi[0]);
    t.cy1 = min(t.cy0 + p.ty, p.ohi[1]);
    t.rx0 = t.cx0 - H, t.rx1 = t.cx1 + H, t.ry0 = t.cy0 - H, t.ry1 = t.cy1 + H;
    constexpr int K = HX_RES_K(sizeof(T)), V = HX_RES_V(sizeof(T));
    hx_units un;
    {
        const int w = PW / V, runs = w * ((t.ry1 - t.ry0 + K - 1) / K), i0 = (int)threadIdx.x, i1 = i0 + (int)blockDim.x;
        un.n = (i0 < runs) + (i1 < runs);
        un.x[0] = t.rx0 + V * (i0 % w), un.y[0] = t.ry0 + (i0 / w) * K;
        un.x[1] = t.rx0 + V * (i1 % w), un.y[1] = t.ry0 + (i1 / w) * K;
    }
    /* two buffers A and B, or (p.inplace) one buffer A and the bands' scratch (resident_sweep.cuh) */
    const hx_bands bands = hx_bands_of(PW, V, K, t.ry1 - t.ry0, (int)blockDim.x, p.inplace);
    const size_t buf = (size_t)PW * (p.ty + 2 * H + HX_RES_PAD_ROWS(sizeof(T)));
    T *A = (T *)hx_smem_raw, *B = INPLACE ? A : A + buf;
    T *scratch = A + buf;
    hx_ring_map map;
    map.off = (unsigned *)(INPLACE ? scratch + 2 * HX_RES_MAX_R * PW : B + buf);
    map.sa = map.off + hx_ring_cells(p.tx, p.ty, H);
    __shared__ hx_source src[HX_MAX_SOURCES], snk[HX_MAX_SOURCES];
    __shared__ int nsrc, nsnk;
    if (threadIdx.x == 0) nsrc = hx_ring_sources(p, t, src), nsnk = hx_core_sinks(p, t, snk);
    __syncthreads();
    hx_ring_table(t, PW, src, nsrc, map);
    const int cur0 = *(volatile int *)p.cur_out;
    const T *start = (const T *)p.field[cur0];
    /* both buffers: cells outside a sweep's box (beyond a fixed boundary) are read from either */
    hx_rect(t.rx0, t.rx1, t.ry0, t.ry1, [&](int x, int y) {
        const int at = (x - t.rx0) + PW * (y - t.ry0);
        A[at] = B[at] = __ldcg(start + x + p.sy * y); /* in place: B is A */
    });
    __syncthreads();
    long done = 0;
    unsigned e = (unsigned)p.exch0;
    while (done < p.sweeps) {
        const int m = (int)min((long)p.depth, p.sweeps - done);
        const long long sweep = p.done0 + done;
        e++;
        unsigned long long t0 = p.prof ? hx_now_ns() : 0, t1 = 0, t2 = 0;
        hx_publish<T>(p, t, A, e, snk, nsnk);
        if (p.prof) t1 = hx_now_ns();
        if (!hx_gather<T>(p, A, e, sweep, src, nsrc, map)) return;
        if (p.prof) t2 = hx_now_ns();
        for (int j = 0; j < m; j++) {
            const int g = (m - 1 - j) * r;
            const hx_box sb = hx_dev_sweep_box(p, g);
            const long gs = p.done0 + done + j + 1; /* sweeps done after this one */
            const int x0 = t.cx0 - g, x1 = t.cx1 + g, y0 = t.cy0 - g, y1 = t.cy1 + g;
            /* outside its sweep box a cell keeps its value: fixed-boundary ghosts stay */
            const bool inside = x0 >= sb.lo[0] && x1 <= sb.hi[0] && y0 >= sb.lo[1] && y1 <= sb.hi[1];
            const bool norm = p.norm_every > 0 && gs % p.norm_every == 0;
            if constexpr (INPLACE) { /* A stays A; a barrier ends the cycle's last sweep */
                const double acc = hx_sweep_inplace<T, ST>(A, scratch, PW, bands, t, x0, x1, y0, y1, sb, !inside, norm, j == m - 1);
                if (norm) hx_block_add(acc, p.norm_acc + (gs / p.norm_every - 1 - p.norm_base));
                continue;
            }
            if (norm) {
                const double acc = inside ? hx_sweep_tile<T, ST, false, true>(A, B, PW, un, t, x0, x1, y0, y1, sb)
                                          : hx_sweep_tile<T, ST, true, true>(A, B, PW, un, t, x0, x1, y0, y1, sb);
                hx_block_add(acc, p.norm_acc + (gs / p.norm_every - 1 - p.norm_base)); /* has barriers */
            } else {
                if (inside) hx_sweep_tile<T, ST, false, false>(A, B, PW, un, t, x0, x1, y0, y1, sb);
                else hx_sweep_tile<T, ST, true, false>(A, B, PW, un, t, x0, x1, y0, y1, sb);
                __syncthreads();
            }
            T *tmp = A;
            A = B;
            B = tmp;
        }
        if (p.prof && threadIdx.x == 0) { /* profile: where a block's cycles go, ns summed over cycles */
            const unsigned long long t3 = hx_now_ns();
            unsigned long long *q = p.prof + 4 * blockIdx.x;
            q[0] += t1 - t0, q[1] += t2 - t1, q[2] += t3 - t2, q[3] += 1;
        }
        done += m;
        /* for the host's deadline; no fence: it needs to see progress, not when */
        if (blockIdx.x == 0 && threadIdx.x == 0) ((volatile hx_watch *)p.watch)->progress = (unsigned long long)e;
    }
    /* every tile has read its last ring: the core goes where the host expects the newest iterate */
    if (!hx_grid_sync(p, e, p.done0 + done)) return;
    const int last = cur0 ^ (int)(p.sweeps & 1);
    T *out = (T *)p.field[last];
    hx_rect(t.cx0, t.cx1, t.cy0, t.cy1, [&](int x, int y) { out[x + p.sy * y] = A[(x - t.rx0) + PW * (y - t.ry0)]; });
    if (blockIdx.x == 0 && threadIdx.x == 0) *p.cur_out = last;
}

#endif
