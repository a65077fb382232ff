/* The resident persistent kernel (src/exec/resident_kernel.cuh) runs on the host through tests/emu:
 * one rank, its tiles as blocks that are all resident at once (hx_emu_launch_grid: every thread a
 * fiber, a block yields to the others at the watchdog of its spin-waits), exchanging through the
 * on-GPU mailbox of flagged words, and, at a periodic boundary, through the messages the rank sends
 * itself (the table laid out as the ipc transport lays it out for a self-neighbour). Tiles as
 * persistent_setup.cu picks them (hx_resident_choose, with a stand-in for the occupancy query and a few
 * SM counts) or forced (partial tiles in both axes), hx_pparams as launch() fills it. Two launches
 * one after the other continue the exchange count over the mailbox the first left (stale words
 * must never pass for new ones), against the same number of sweeps as a plain loop over
 * halox/stencil.h's expressions: bit for bit over the owned cells, nothing else written, norms to
 * rounding. jacobi5 and star9, float and double, depths 1 to 16, fixed and periodic boundaries,
 * odd sizes, blocks in blockIdx order, reversed and shuffled every round; every case twice: two
 * shared-memory buffers, then one swept in bands (resident_sweep.cuh), with bands cut to 1-3 rows
 * of runs so that small tiles cross several. One self-check restarts the count at 0 and must see
 * the stale words. What this cannot see: memory ordering between SMs
 * and GPUs (one fiber runs at a time), IPC, timing, occupancy, the shared memory a GPU grants. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "exec/resident_kernel.cuh"
#include "exec/persistent_plan.cuh"
#include "halox/decomp.h"
#include "halox/plan.h"
#include "emu_ranks.h" /* emu_fake_occupancy */

static int failures = 0, runs = 0, launches = 0, forced = 0, stale_seen = 0, tiles_seen[64], inplace_runs = 0, bands_seen = 0;
/* > 0: the one-buffer sweep (resident_sweep.cuh) in bands of at most 1 + (run % inplace_cap) rows
 * of runs, so that small tiles cross many bands; 0: two buffers */
static int inplace_cap = 0;

/* values in [-0.5, 0.5), different for every seed */
template <typename T> static void fill(T *f, size_t n, uint64_t seed)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL * (seed + 1);
    for (size_t i = 0; i < n; i++) {
        s = hx_splitmix64(s);
        f[i] = (T)((double)(s >> 11) * 0x1.0p-53 - 0.5);
    }
}

struct rcase {
    int nx, ny;
    int sms;        /* > 0: tiles as persistent_setup.cu picks them for this many SMs */
    int tx, ty;     /* sms == 0: these tiles */
    int cur0;       /* the buffer holding the first iterate */
    int norm_every; /* 0: no norms */
    int order;      /* 0: blockIdx order, 1: reversed, else a random order per round from this seed */
};

/* One rank's device state, as persistent_setup.cu's setup and the ipc transport's device path make it. */
template <typename T> struct rank_state {
    hx_decomp d;
    hx_plan plan;
    hx_dev_table table;
    std::vector<unsigned long long> area, mail, flags;
    std::vector<T> field[2];
    hx_watch watch;
    int abort_flag = 0, cur = 0;
    unsigned bar[64];
};

/* The message slots: message m's cells land in the slot of the message that receives from the
 * direction it is sent toward (a rank is its own neighbour at a periodic boundary). */
template <typename T> static void build_table(rank_state<T> &s)
{
    const hx_phase &ph = s.plan.phase[0];
    size_t words = 0;
    std::vector<size_t> at((size_t)ph.nmsg);
    for (int m = 0; m < ph.nmsg; m++) at[(size_t)m] = words, words += 2 * HX_DEV_SLOT_BYTES(ph.msg[m].count, sizeof(T)) / 8;
    s.area.assign(words + 1, 0); /* zeroed: no word carries a valid exchange number */
    s.flags.assign(HX_MAX_MSGS, 0);
    memset(&s.table, 0, sizeof s.table);
    s.table.nphases = 1;
    s.table.nmsg[0] = ph.nmsg;
    for (int m = 0; m < ph.nmsg; m++) {
        hx_dev_msg &dm = s.table.msg[0][m];
        dm.send_box = ph.msg[m].send_box, dm.recv_box = ph.msg[m].recv_box, dm.count = ph.msg[m].count, dm.peer = ph.msg[m].peer;
        dm.my_recv[0] = (char *)(s.area.data() + at[(size_t)m]);
        dm.my_recv[1] = dm.my_recv[0] + HX_DEV_SLOT_BYTES(dm.count, sizeof(T));
        dm.my_flag = &s.flags[(size_t)m];
    }
    for (int m = 0; m < ph.nmsg; m++) {
        int to = -1;
        for (int k = 0; k < ph.nmsg; k++)
            if (ph.msg[k].dir == hx_dir_opposite(ph.msg[m].dir)) to = k;
        if (to < 0) return (void)printf("FAIL: no message receives from direction %d\n", ph.msg[m].dir), (void)failures++;
        hx_dev_msg &dm = s.table.msg[0][m];
        dm.remote_recv[0] = s.table.msg[0][to].my_recv[0];
        dm.remote_recv[1] = s.table.msg[0][to].my_recv[1];
        dm.remote_flag = s.table.msg[0][to].my_flag;
    }
}

/* `sweeps` sweeps of the plain loop on the rank's block (ghost cells: wrapped, or fixed values);
 * norms[k] gets the squared change of sweep done0 + k + 1 when that is a norm's sweep. */
template <typename T, int ST>
static void reference(const hx_decomp &d, std::vector<T> &u, long sweeps, long done0, int every, std::vector<double> &norms)
{
    const int R = ST == HX_STAR9 ? 2 : 1, g = d.ghost[0], nx = d.local[0], ny = d.local[1];
    const long sy = d.alloc[0];
    std::vector<T> v = u;
    for (long k = 0; k < sweeps; k++) {
        if (d.boundary == HX_PERIODIC)
            for (int y = g - R; y < g + ny + R; y++)
                for (int x = g - R; x < g + nx + R; x++)
                    if (x < g || x >= g + nx || y < g || y >= g + ny)
                        u[(size_t)(x + sy * y)] = u[(size_t)(g + (x - g + nx) % nx + sy * (g + (y - g + ny) % ny))];
        double acc = 0;
        for (int y = g; y < g + ny; y++)
            for (int x = g; x < g + nx; x++) {
                const T *p = u.data() + x + sy * y;
                T r;
                if constexpr (ST == HX_JACOBI5)
                    r = sizeof(T) == 4 ? (T)hx_jacobi5v_f32((float)p[-1], (float)p[1], (float)p[-sy], (float)p[sy])
                                       : (T)hx_jacobi5v_f64((double)p[-1], (double)p[1], (double)p[-sy], (double)p[sy]);
                else
                    r = sizeof(T) == 4 ? (T)hx_star9v_f32((float)p[-1], (float)p[1], (float)p[-sy], (float)p[sy], (float)p[-2],
                                                          (float)p[2], (float)p[-2 * sy], (float)p[2 * sy])
                                       : (T)hx_star9v_f64((double)p[-1], (double)p[1], (double)p[-sy], (double)p[sy], (double)p[-2],
                                                          (double)p[2], (double)p[-2 * sy], (double)p[2 * sy]);
                v[(size_t)(x + sy * y)] = r;
                const double dd = (double)r - (double)*p;
                acc += dd * dd;
            }
        for (int y = g; y < g + ny; y++)
            for (int x = g; x < g + nx; x++) u[(size_t)(x + sy * y)] = v[(size_t)(x + sy * y)];
        if (every > 0 && (done0 + k + 1) % every == 0) norms.push_back(acc);
    }
}

/* One launch of the kernel over `sweeps` sweeps after done0, as launch() makes it. */
template <typename T, int ST>
static void launch(rank_state<T> &s, const hx_resident_shape &sh, const rcase &c, int depth, long sweeps, long done0,
                   unsigned long long exch0, std::vector<double> &norms)
{
    const int R = ST == HX_STAR9 ? 2 : 1;
    hx_pparams p;
    memset(&p, 0, sizeof p);
    p.field[0] = s.field[0].data();
    p.field[1] = s.field[1].data();
    hx_pparams_domain(&p, &s.d, R);
    p.depth = depth;
    p.sweeps = sweeps;
    p.done0 = done0;
    p.norm_every = c.norm_every;
    const long nnorm = c.norm_every > 0 ? (done0 + sweeps) / c.norm_every - done0 / c.norm_every : 0;
    std::vector<double> acc((size_t)nnorm + 1, 0.0);
    p.norm_acc = acc.data();
    p.norm_base = c.norm_every > 0 ? done0 / c.norm_every : 0;
    p.table = &s.table;
    p.exch0 = exch0;
    p.tx = sh.tx, p.ty = sh.ty, p.pitch = sh.pitch;
    p.timeout_ns = 2000000000ull; /* of the emulator's clock: 2 million spin yields */
    p.watch = &s.watch;
    p.abort_flag = &s.abort_flag;
    p.bar = s.bar;
    p.cur_out = &s.cur;
    p.ntx = sh.ntx, p.nty = sh.nty, p.ring = sh.ring, p.inplace = sh.inplace;
    p.ll_mail[0] = s.mail.data();
    p.ll_mail[1] = s.mail.data() + s.mail.size() / 2;
    hx_emu_reverse_blocks(c.order == 1);
    hx_emu_grid_order(c.order > 1 ? (unsigned long long)c.order : 0);
    hx_emu_launch_grid(dim3((unsigned)sh.grid), dim3((unsigned)sh.threads), sh.smem, [&] {
        if (p.inplace) hx_resident_kernel<T, ST, true>(p);
        else hx_resident_kernel<T, ST>(p);
    });
    launches++;
    norms.assign(acc.begin(), acc.begin() + nnorm);
}

/* Runs sweeps s1 then s2 (two launches; exch1: the second's exchange count, -1: continued) and
 * compares with the plain loop. Returns the number of owned cells that differ. */
template <typename T, int ST>
static long run(const rcase &c, int depth, hx_boundary bnd, long s1, long s2, long long exch1, bool report)
{
    const int R = ST == HX_STAR9 ? 2 : 1, H = depth * R;
    rank_state<T> s;
    char err[256];
    const int global[3] = {c.nx, c.ny, 1}, pgrid[3] = {1, 1, 1};
    if (hx_decomp_init(&s.d, 2, global, pgrid, 0, 1, bnd, H, err, sizeof err)) return printf("FAIL: %s\n", err), failures++, -1;
    hx_plan_build(&s.plan, &s.d, HX_DIRECT);
    build_table(s);
    hx_resident_shape sh;
    const int K = HX_RES_K(sizeof(T)), V = HX_RES_V(sizeof(T));
    const long units = (long)((c.tx + 2 * H) / V) * ((c.ty + 2 * H + K - 1) / K); /* a forced shape's runs */
    const long blocks = (long)((c.nx + c.tx - 1) / (c.tx ? c.tx : 1)) * ((c.ny + c.ty - 1) / (c.ty ? c.ty : 1));
    if (c.sms > 0 || units > 2048 || blocks * (units <= 512 ? 256 : units <= 1024 ? 512 : 1024) > 16384) {
        /* persistent_setup.cu's tiles on the fewest SMs from c.sms (or 2) on that hold the whole block; a
         * forced shape too large for a block of 1024 threads or for the emulator's 16384 fibers
         * falls back to them */
        int sms = c.sms > 0 ? c.sms : 2, fits = 0;
        while (sms <= 16 && (fits = hx_resident_choose(s.d.local[0], s.d.local[1], H, sizeof(T), sms, 227 << 10, inplace_cap ? 1 : -1,
                                                       emu_fake_occupancy, nullptr, &sh)) != 1)
            sms++;
        if (fits != 1) return printf("FAIL: no resident shape for %dx%d on up to 16 SMs\n", c.nx, c.ny), failures++, -1;
    } else { /* forced tiles, the fewest threads of persistent_setup.cu's three whose two runs each cover the region */
        sh.tx = c.tx, sh.ty = c.ty, sh.ring = H, sh.pitch = c.tx + 2 * H;
        sh.ntx = (c.nx + c.tx - 1) / c.tx, sh.nty = (c.ny + c.ty - 1) / c.ty, sh.grid = sh.ntx * sh.nty;
        sh.threads = units <= 512 ? 256 : units <= 1024 ? 512 : 1024;
        sh.inplace = inplace_cap ? 2 * sh.threads / (sh.pitch / V) : 0;
        sh.smem = hx_resident_smem(sh.pitch, c.ty, H, sizeof(T), sh.inplace);
        forced++;
    }
    if (inplace_cap) {
        const int per = 1 + runs % inplace_cap, rb = sh.ty + 2 * H;
        if (per < sh.inplace) sh.inplace = per;
        inplace_runs++;
        bands_seen += (rb + K * sh.inplace - 1) / (K * sh.inplace) > 1;
    }
    tiles_seen[sh.ntx * sh.nty < 64 ? sh.ntx * sh.nty : 63]++;
    const size_t cells = (size_t)hx_alloc_cells(&s.d), W = sizeof(T) / 4;
    s.mail.assign(2 * cells * W, 0);
    memset(&s.watch, 0, sizeof s.watch);
    memset(s.bar, 0, sizeof s.bar);
    /* ghost cells: fixed values, the same in both buffers (as the library's zeros), or NaN where a
     * periodic boundary brings them; the other buffer's owned cells are never read */
    const uint64_t seed = (uint64_t)c.nx * 1000003u + (uint64_t)c.ny * 101u + (uint64_t)depth * 7u + (uint64_t)ST;
    std::vector<T> u(cells);
    fill(u.data(), cells, seed + 99);
    for (int b = 0; b < 2; b++) {
        s.field[b].resize(cells);
        fill(s.field[b].data(), cells, seed);
        if (bnd == HX_PERIODIC) memset(s.field[b].data(), 0xff, cells * sizeof(T));
    }
    const hx_box own = hx_owned_box(&s.d);
    std::vector<char> owned(cells);
    for (size_t i = 0; i < cells; i++) {
        const int x = (int)(i % (size_t)s.d.alloc[0]), y = (int)(i / (size_t)s.d.alloc[0]);
        owned[i] = x >= own.lo[0] && x < own.hi[0] && y >= own.lo[1] && y < own.hi[1];
        if (owned[i]) s.field[c.cur0][i] = u[i];
        else u[i] = s.field[c.cur0][i];
    }
    s.cur = c.cur0;
    std::vector<double> want, got, part;
    reference<T, ST>(s.d, u, s1 + s2, 0, c.norm_every, want);
    const unsigned long long e1 = (unsigned long long)((s1 + depth - 1) / depth), e2 = (unsigned long long)((s2 + depth - 1) / depth);
    long bad = 0;
    const char *what = nullptr;
    for (int l = 0; l < 2 && !what; l++) {
        const long sw = l ? s2 : s1;
        const unsigned long long exch0 = l == 0 ? 0 : exch1 >= 0 ? (unsigned long long)exch1 : e1;
        const std::vector<T> before[2] = {s.field[0], s.field[1]};
        const int last = s.cur ^ (int)(sw & 1);
        launch<T, ST>(s, sh, c, depth, sw, l ? s1 : 0, exch0, part);
        got.insert(got.end(), part.begin(), part.end());
        if (s.watch.state || s.abort_flag) what = "the kernel's watchdog gave up";
        else if (s.cur != last) what = "cur_out names the wrong buffer";
        else if (s.watch.progress != exch0 + (l ? e2 : e1)) what = "the progress word is not the last exchange";
        else if (s.bar[0] != 0 || s.bar[32] != (unsigned)(l + 1)) what = "the grid barrier's counters are off";
        else if (memcmp(before[1 - last].data(), s.field[1 - last].data(), cells * sizeof(T))) what = "the other buffer was written";
        else if (sh.inplace && sh.smem != hx_resident_smem(sh.pitch, sh.ty, H, sizeof(T), 1)) what = "the one-buffer shape's shared memory is off";
        for (size_t i = 0; i < cells && !what; i++)
            if (!owned[i] && memcmp(&before[last][i], &s.field[last][i], sizeof(T))) what = "a ghost cell was written";
    }
    if (!what) {
        for (size_t i = 0; i < cells; i++) bad += owned[i] && memcmp(&u[i], &s.field[s.cur][i], sizeof(T)) != 0;
        if (bad) what = "cells differ from the plain loop";
        else if (got.size() != want.size()) what = "a different number of norms";
        for (size_t k = 0; !what && k < want.size(); k++)
            if (!(fabs(got[k] - want[k]) <= 1e-10 * want[k])) what = "a norm differs from the plain loop's";
    }
    runs++;
    if (what && report) {
        failures++;
        printf("FAIL %s %s depth %d %s %dx%d tiles %dx%d (%dx%d blocks of %d, bands of %d) cur %d order %d sweeps %ld+%ld: %s",
               sizeof(T) == 4 ? "float" : "double", ST == HX_STAR9 ? "star9" : "jacobi5", depth, bnd == HX_PERIODIC ? "periodic" : "fixed",
               c.nx, c.ny, sh.tx, sh.ty, sh.ntx, sh.nty, sh.threads, sh.inplace, c.cur0, c.order, s1, s2, what);
        for (size_t i = 0; bad && i < cells; i++)
            if (owned[i] && memcmp(&u[i], &s.field[s.cur][i], sizeof(T))) {
                printf(" (%ld cells; first at x=%d y=%d: %.9g, want %.9g)", bad, (int)(i % (size_t)s.d.alloc[0]) - s.d.ghost[0],
                       (int)(i / (size_t)s.d.alloc[0]) - s.d.ghost[1], (double)s.field[s.cur][i], (double)u[i]);
                break;
            }
        if (s.watch.state) printf(" (waited for %s, exchange %lld)", s.watch.what == HX_WAIT_TILE ? "a tile" : s.watch.what == HX_WAIT_FLAG ? "a message" : "a barrier", s.watch.exchange);
        printf("\n");
    }
    return what ? (bad ? bad : 1) : 0;
}

template <typename T, int ST> static void run_stencil()
{
    const int R = ST == HX_STAR9 ? 2 : 1;
    static const int depths[] = {1, 2, 4, 8, 16};
    for (int depth : depths) {
        if (failures >= 10) return; /* a broken kernel waits for its watchdog in every run: enough */
        for (int b = 0; b < 2; b++) {
            const hx_boundary bnd = b ? HX_PERIODIC : HX_FIXED;
            const long s1 = depth + (depth + 1) / 2, s2 = depth + 1; /* 2 + 2 exchanges, the last of each partial */
            const rcase cases[] = {
                {67, 45, 2, 0, 0, 0, depth + 1, 0}, /* persistent_setup.cu's tiles for 2 SMs */
                {depth * R < 32 ? 131 : 79, depth * R < 32 ? 83 : 53, 3, 0, 0, 1, 0, 1}, /* for 3 SMs or more, reversed */
                /* forced: partial tiles both ways (the last ones thin), blocks in a random order */
                b ? rcase{97, 61, 0, 48, 24, 1, 0, 777} : rcase{64, 48, 0, 24, 12, 0, 3, 12345},
            };
            for (const rcase &c : cases) run<T, ST>(c, depth, bnd, s1, s2, -1, true);
        }
    }
    /* self-check: the second launch restarting the count at 0 reads the first's stale words */
    const rcase c = {67, 45, 0, 16, 8, 0, 0, 0};
    runs--, stale_seen++; /* not counted with the runs that must agree */
    if (run<T, ST>(c, 2, HX_PERIODIC, 4, 4, 0, false) == 0)
        stale_seen--, failures++, printf("FAIL %s: restarting the exchange count went unnoticed: the test cannot see stale mailbox words\n",
                           ST == HX_STAR9 ? "star9" : "jacobi5");
}

int main(void)
{
    for (inplace_cap = 0; inplace_cap <= 3; inplace_cap += 3) { /* two buffers, then one in bands */
        run_stencil<float, HX_JACOBI5>();
        run_stencil<double, HX_JACOBI5>();
        run_stencil<float, HX_STAR9>();
        run_stencil<double, HX_STAR9>();
    }
    if (bands_seen < inplace_runs / 2)
        failures++, printf("FAIL: only %d of %d one-buffer runs crossed more than one band\n", bands_seen, inplace_runs);
    printf("resident kernel on the host: %d of %d runs (%d launches, all blocks resident) bit-identical to the plain loop; "
           "%d with forced tiles; %d restarted counts seen; %d in one buffer (%d of them in several bands); tiles per run:",
           runs - failures, runs, launches, forced, stale_seen, inplace_runs, bands_seen);
    for (int k = 0; k < 64; k++)
        if (tiles_seen[k]) printf(" %d (%dx)", k, tiles_seen[k]);
    printf("\n");
    return failures ? 1 : 0;
}
