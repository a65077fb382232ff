/* (About 450 lines: the emulated ranks' set-up, launch and reference are one harness that the two
 * tests share; split, each half would need the other's types.)
 *
 * Test support for the host runs of the kernel-initiated schedules (tests/test_pass_emu.cpp,
 * tests/test_ranks_emu.cpp): the ranks of a process grid in one process, each with its own decomp,
 * plan, fields, barrier, watchdog report and device area laid out as the ipc transport lays it out
 * (src/transport/ipc_device.c: a flag per incoming message, padded to 256 bytes, then two receive
 * slots per message, all zeroed), its message table pointing into the other ranks' areas as CUDA
 * IPC maps them (message m goes to the peer's message whose recv_tag is m's send_tag, the match
 * hx_transport_trade makes; a rank is its own peer at a periodic boundary), the pass kernel's or
 * the resident kernel's shape as persistent.cu picks it (persistent_plan.cuh, with a stand-in for
 * the occupancy query), and every rank's grid launched at once in one emulated scheduler
 * (hx_emu_launch_grids), against the plain loop of the same sweeps over the global problem.
 * Include after persistent_kernel.cuh, resident_kernel.cuh and persistent_plan.cuh. */
#ifndef HALOX_TEST_EMU_RANKS_H
#define HALOX_TEST_EMU_RANKS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <functional>
#include <vector>

#include "halox/decomp.h"
#include "halox/plan.h"
#include "emu_ref.h"
#include "transport/device_area.h"

/* occupancy stand-in, about an H100's: 2048 threads and 228 KiB of shared memory per SM, 1 KiB of it
 * reserved per block (registers left out: either resident kernel alike) */
static int emu_fake_occupancy(void *, int threads, size_t smem, int, int *per_sm)
{
    const int by_threads = 2048 / threads, by_smem = (int)((228u << 10) / (smem + 1024));
    *per_sm = by_threads < by_smem ? by_threads : by_smem;
    return 0;
}

/* One run: the global problem, its process grid, and the kernel. */
struct emu_problem {
    int dim, st, depth;
    int global[3], pgrid[3];
    hx_boundary bnd;
    hx_pattern pattern;
    bool resident;  /* the resident kernel, else the pass kernel */
    int inplace;    /* 2D resident: > 0, one buffer in bands of at most this many rows of runs; 0: two buffers */
    int roles;      /* > 0: the role kernel (roles_kernel.cuh, included before this header) of this many blocks */
    int levels;     /* the pass kernel's sweeps per pass (2D; fuse) */
    int sms;        /* SMs of the stand-in GPU (the resident kernel: the fewest tried) */
    int per_sm_cap; /* > 0: at most this many pass-kernel blocks per SM (a block then takes several tiles) */
    int norm_every; /* 0: no norms */
    int cur0;       /* the buffer holding the first iterate */
    int order;      /* 0: blockIdx order, 1: reversed, else a random order per round from this seed */
    bool march;     /* the pass kernel's passes march register windows: always in 3D, in 2D with
                     * levels > 1 (pass2d_march.cuh) */
    int lanes3;     /* fused 3D passes of floats: 16 or 32 lanes a tile row; 0: the cost model's choice */
};

template <typename T> struct emu_rank {
    hx_decomp d;
    hx_plan plan;
    hx_dev_table table;
    std::vector<unsigned long long> area, mail;
    long mine[HX_MAX_PHASES][HX_MAX_MSGS][2]; /* hx_dev_area_layout's: each incoming message's slot (bytes) and flag */
    std::vector<T> field[2];
    std::vector<char> owned, keep; /* keep: neither owned nor in a receive box: never written */
    hx_watch watch;
    int abort_flag = 0, cur = 0;
    unsigned bar[64];
    hx_pparams p;
    int grid = 0, threads = 0;
    size_t smem = 0;
    std::vector<double> acc;
    hx_f3params f3; /* 3D fused passes: the kernel's parameters (f3.p: a copy of p at the launch) */
    int lanes = 32; /* 3D fused passes: the lanes of a tile row (fused3d_tile's S) */
};

/* The 3D pass kernel with fused passes of `levels` sweeps of stencil st, as persistent_fused3d.cu
 * and persistent.cu's f3_choose_lanes set it up: tile rows of 16 lanes where the cost model takes
 * them (or `lanes`, 16 or 32, where given), its block, shared memory and plans; false where no
 * instance exists. */
template <typename T, int ST, int L, int S> static void emu_f3_shape(emu_rank<T> &r, int depth, int sms)
{
    constexpr int R = ST == HX_STAR13 ? 2 : 1;
    typedef fused3d_tile<T, R, L, S> C;
    r.threads = hx_pk_threads<T, ST, true, L, S>();
    r.smem = fused3d_smem<T, R, L, C::BY, C::P, S>();
    r.grid = sms; /* one block per SM (its shared memory) */
    hx_f3_plans<T, R, L, S>(&r.d, depth, r.grid, r.f3.plan);
    r.p.levels = L;
    r.lanes = S;
}
template <typename T, int ST, int L> static bool emu_f3_pick(emu_rank<T> &r, int depth, int sms, int lanes)
{
    constexpr int R = ST == HX_STAR13 ? 2 : 1;
    if (depth > L + HX_F3_PLANS - 1) return false;
    if constexpr (sizeof(T) == 4)
        if (fused3d_pick_lanes<T>(hx_f3_cost<T, R, L, 16>(&r.d, depth, sms), hx_f3_cost<T, R, L, 32>(&r.d, depth, sms), lanes) == 16) {
            emu_f3_shape<T, ST, L, 16>(r, depth, sms);
            return true;
        }
    emu_f3_shape<T, ST, L, 32>(r, depth, sms);
    return true;
}
template <typename T> static bool emu_f3_setup(emu_rank<T> &r, int st, int levels, int depth, int sms, int lanes)
{
    if (st == HX_JACOBI7 && levels == 2) return emu_f3_pick<T, HX_JACOBI7, 2>(r, depth, sms, lanes);
    if (st == HX_JACOBI7 && levels == 3) return emu_f3_pick<T, HX_JACOBI7, 3>(r, depth, sms, lanes);
    if (st == HX_JACOBI7 && levels == 4) return emu_f3_pick<T, HX_JACOBI7, 4>(r, depth, sms, lanes);
    if (st == HX_STAR13 && levels == 2) return emu_f3_pick<T, HX_STAR13, 2>(r, depth, sms, lanes);
    return false;
}
/* The fused 3D kernel's body for rank r's levels and lanes */
template <typename T, int ST, int S> static std::function<void()> emu_f3_body(const emu_rank<T> &r, hx_f3params &f)
{
    if constexpr (ST == HX_STAR13) return [&f] { hx_persistent_f3_kernel<T, ST, 2, S>(f); };
    else if (r.p.levels == 2) return [&f] { hx_persistent_f3_kernel<T, ST, 2, S>(f); };
    else if (r.p.levels == 3) return [&f] { hx_persistent_f3_kernel<T, ST, 3, S>(f); };
    else return [&f] { hx_persistent_f3_kernel<T, ST, 4, S>(f); };
}

/* a wait's timeout on the emulator's clock (1 us per spin yield): 200000 yields. A wait that
 * would pass passes within a few rounds of every block's spinning threads; a broken kernel's
 * runs each cost their timeout. */
#ifndef EMU_TIMEOUT_NS
#define EMU_TIMEOUT_NS 200000000ull
#endif

/* what the runs launched, for a test's summary */
struct emu_stats {
    long launches, blocks, threads, msgs, multi_phase, blocks_short; /* blocks_short: grids with fewer blocks than tiles or row groups */
};
inline emu_stats emu_seen;

static inline int emu_radius(int st) { return st == HX_STAR9 || st == HX_STAR13 ? 2 : 1; }

/* The ranks' areas and tables, as the ipc transport makes them (device_area.c's layout and
 * entries; the peers' offsets read here instead of traded). Returns an error or nullptr. */
template <typename T> static const char *emu_tables(std::vector<emu_rank<T>> &rk)
{
    for (emu_rank<T> &r : rk) {
        const size_t bytes = hx_dev_area_layout(&r.plan, sizeof(T), r.mine);
        r.area.assign((bytes + 7) / 8, 0); /* zeroed: no flag or word carries a valid exchange number */
    }
    for (size_t q = 0; q < rk.size(); q++) {
        emu_rank<T> &r = rk[q];
        memset(&r.table, 0, sizeof r.table);
        r.table.nphases = r.plan.nphases;
        for (int p = 0; p < r.plan.nphases; p++) {
            r.table.nmsg[p] = r.plan.phase[p].nmsg;
            for (int m = 0; m < r.plan.phase[p].nmsg; m++) {
                const hx_message &msg = r.plan.phase[p].msg[m];
                hx_dev_msg &dm = r.table.msg[p][m];
                hx_dev_msg_own(&dm, &msg, (char *)r.area.data(), r.mine[p][m], sizeof(T));
                if (msg.peer < 0 || msg.peer >= (int)rk.size()) return "a message to a rank outside the process grid";
                emu_rank<T> &o = rk[(size_t)msg.peer];
                int k = 0;
                while (k < o.plan.phase[p].nmsg && !(o.plan.phase[p].msg[k].peer == (int)q && o.plan.phase[p].msg[k].recv_tag == msg.send_tag))
                    k++;
                if (k == o.plan.phase[p].nmsg) return "no message of the peer receives this one";
                if (o.plan.phase[p].msg[k].count != msg.count) return "the peer expects a different count";
                hx_dev_msg_peer(&dm, &msg, (char *)o.area.data(), o.mine[p][k], sizeof(T));
            }
        }
    }
    return nullptr;
}

/* The global problem with a ghost ring of GH cells per active side: cell (x, y, z), -GH <= x < NX + GH. */
struct emu_global {
    int dim, n[3], gh;
    long sy, sz;
    long at(int x, int y, int z) const { return (x + gh) + sy * (y + (dim > 1 ? gh : 0)) + sz * (z + (dim > 2 ? gh : 0)); }
};

/* `sweeps` sweeps of the plain loop over the global problem (ghost cells: wrapped each sweep, or
 * fixed values); norms gets the squared change of each sweep done0 + k + 1 that is a norm's. */
template <typename T>
static void emu_reference(const emu_global &g, int st, hx_boundary bnd, std::vector<T> &u, long sweeps, long done0, int every,
                          std::vector<double> &norms)
{
    const int R = emu_radius(st), zr = g.dim > 2 ? R : 0;
    std::vector<T> v = u;
    for (long k = 0; k < sweeps; k++) {
        if (bnd == HX_PERIODIC)
            for (int z = -zr; z < g.n[2] + zr; z++)
                for (int y = -R; y < g.n[1] + R; y++)
                    for (int x = -R; x < g.n[0] + R; x++)
                        if (x < 0 || x >= g.n[0] || y < 0 || y >= g.n[1] || z < 0 || z >= g.n[2])
                            u[(size_t)g.at(x, y, z)] = u[(size_t)g.at((x + g.n[0]) % g.n[0], (y + g.n[1]) % g.n[1], (z + g.n[2]) % g.n[2])];
        double acc = 0;
        for (int z = 0; z < g.n[2]; z++)
            for (int y = 0; y < g.n[1]; y++)
                for (int x = 0; x < g.n[0]; x++) {
                    const long i = g.at(x, y, z);
                    const T r = sizeof(T) == 4 ? (T)hx_stencil_apply_f32(st, (const float *)(const void *)&u[(size_t)i], g.sy, g.sz)
                                               : (T)hx_stencil_apply_f64(st, (const double *)(const void *)&u[(size_t)i], g.sy, g.sz);
                    v[(size_t)i] = r;
                    const double dd = (double)r - (double)u[(size_t)i];
                    acc += dd * dd;
                }
        for (int z = 0; z < g.n[2]; z++)
            for (int y = 0; y < g.n[1]; y++)
                for (int x = 0; x < g.n[0]; x++) u[(size_t)g.at(x, y, z)] = v[(size_t)g.at(x, y, z)];
        if (every > 0 && (done0 + k + 1) % every == 0) norms.push_back(acc);
    }
}

/* One launch of every rank's kernel at once: `sweeps` sweeps after done0, exchanges after exch0. */
template <typename T, int ST>
static void emu_launch(const emu_problem &pb, std::vector<emu_rank<T>> &rk, long sweeps, long done0, unsigned long long exch0)
{
    std::vector<std::function<void()>> body(rk.size());
    std::vector<hx_emu_grid> grids;
    for (size_t q = 0; q < rk.size(); q++) {
        emu_rank<T> &r = rk[q];
        hx_pparams &p = r.p; /* the shape's fields are set up already */
        p.field[0] = r.field[0].data();
        p.field[1] = r.field[1].data();
        hx_pparams_domain(&p, &r.d, emu_radius(ST));
        p.depth = pb.depth;
        p.sweeps = sweeps;
        p.done0 = done0;
        p.norm_every = pb.norm_every;
        const long nnorm = pb.norm_every > 0 ? (done0 + sweeps) / pb.norm_every - done0 / pb.norm_every : 0;
        r.acc.assign((size_t)nnorm + 1, 0.0);
        p.norm_acc = r.acc.data();
        p.norm_base = pb.norm_every > 0 ? done0 / pb.norm_every : 0;
        p.table = &r.table;
        p.exch0 = exch0;
        p.timeout_ns = EMU_TIMEOUT_NS;
        p.watch = &r.watch;
        p.abort_flag = &r.abort_flag;
        p.bar = r.bar;
        p.rank = (int)q;
        p.cur_out = &r.cur;
        p.ll_mail[0] = r.mail.data();
        p.ll_mail[1] = r.mail.data() + r.mail.size() / 2;
#ifdef HALOX_ROLES_KERNEL_CUH
        if (pb.roles) body[q] = [&p] { hx_roles_kernel<T, ST>(p); };
        else
#endif
        if constexpr (ST == HX_JACOBI5 || ST == HX_STAR9) {
            if (pb.resident && p.inplace) body[q] = [&p] { hx_resident_kernel<T, ST, true>(p); };
            else if (pb.resident) body[q] = [&p] { hx_resident_kernel<T, ST>(p); };
            else if (pb.march && pb.levels > 1) body[q] = [&p] { hx_persistent_kernel<T, ST, true>(p); };
            else body[q] = [&p] { hx_persistent_kernel<T, ST>(p); };
        } else {
#ifdef HALOX_RESIDENT3D_KERNEL_CUH
            if (pb.resident) body[q] = [&p] { hx_resident3d_kernel<T, ST>(p); };
            else
#endif
            if (pb.levels > 1) { /* fused 3D passes: the instances persistent_fused3d.cu compiles */
                r.f3.p = p;
                if constexpr (sizeof(T) == 4)
                    if (r.lanes == 16) body[q] = emu_f3_body<T, ST, 16>(r, r.f3);
                if (r.lanes == 32) body[q] = emu_f3_body<T, ST, 32>(r, r.f3);
            } else if (pb.march) body[q] = [&p] { hx_persistent_kernel<T, ST, true>(p); };
            else body[q] = [&p] { hx_persistent_kernel<T, ST>(p); };
        }
        emu_seen.blocks += r.grid, emu_seen.threads += (long)r.grid * r.threads;
        for (int ph = 0; ph < r.table.nphases; ph++) emu_seen.msgs += r.table.nmsg[ph];
        emu_seen.multi_phase += r.table.nphases > 1 && r.table.nmsg[1] > 0;
        grids.push_back(hx_emu_grid_of(dim3((unsigned)r.grid), dim3((unsigned)r.threads), r.smem, body[q]));
        r.acc.resize((size_t)nnorm);
    }
    hx_emu_reverse_blocks(pb.order == 1);
    hx_emu_grid_order(pb.order > 1 ? (unsigned long long)pb.order : 0);
    hx_emu_launch_grids((int)grids.size(), grids.data());
    emu_seen.launches++;
}

/* Sets up the ranks (fields from the global problem u: owned cells of buffer cur0 and ghost cells
 * beyond a fixed boundary in both; NaN where a message brings them; other owned cells a different
 * random field) and picks the kernel's shape. Returns an error or nullptr. */
template <typename T>
static const char *emu_setup(const emu_problem &pb, std::vector<emu_rank<T>> &rk, const emu_global &g, const std::vector<T> &u, uint64_t seed)
{
    const int R = emu_radius(pb.st), H = pb.depth * R, nr = pb.pgrid[0] * pb.pgrid[1] * pb.pgrid[2];
    static char err[256];
    rk.resize((size_t)nr);
    for (int q = 0; q < nr; q++) {
        emu_rank<T> &r = rk[(size_t)q];
        if (hx_decomp_init(&r.d, pb.dim, pb.global, pb.pgrid, q, nr, pb.bnd, H, err, sizeof err)) return err;
        hx_plan_build(&r.plan, &r.d, pb.pattern);
    }
    if (const char *e = emu_tables(rk)) return e;
    for (int q = 0; q < nr; q++) {
        emu_rank<T> &r = rk[(size_t)q];
        const hx_decomp &d = r.d;
        memset(&r.p, 0, sizeof r.p);
        memset(&r.watch, 0, sizeof r.watch);
        memset(r.bar, 0, sizeof r.bar);
        r.abort_flag = 0;
        if (pb.resident) {
            hx_resident_shape sh;
            int sms = pb.sms, fits = 0;
            while (sms <= 16 && (fits = pb.dim == 3 ? hx_resident3d_choose(d.local[0], d.local[1], d.local[2], H, sizeof(T), sms, 227 << 10,
                                                                           emu_fake_occupancy, nullptr, &sh)
                                                    : hx_resident_choose(d.local[0], d.local[1], H, sizeof(T), sms, 227 << 10,
                                                                         pb.inplace ? 1 : -1, emu_fake_occupancy, nullptr, &sh)) != 1)
                sms++;
            if (fits != 1) return "no resident shape on up to 16 SMs";
            r.p.tx = sh.tx, r.p.ty = sh.ty, r.p.pitch = sh.pitch, r.p.ntx = sh.ntx, r.p.nty = sh.nty, r.p.ring = sh.ring;
            r.p.tz = sh.tz, r.p.ntz = sh.ntz;
            r.p.inplace = pb.inplace && pb.inplace < sh.inplace ? pb.inplace : sh.inplace;
            r.grid = sh.grid, r.threads = sh.threads, r.smem = sh.smem;
        } else {
            hx_pass_shape ps;
            hx_pass_tiles(&d, R, pb.dim == 2 && pb.levels > 1 ? pb.levels : 1, pb.sms, pb.depth, sizeof(T), &ps);
            int per_sm = 0;
            emu_fake_occupancy(nullptr, ps.threads, ps.smem, 0, &per_sm);
            if (pb.per_sm_cap > 0 && per_sm > pb.per_sm_cap) per_sm = pb.per_sm_cap;
            r.p.levels = ps.levels, r.p.tx = ps.tx, r.p.ty = ps.ty, r.p.pitch = ps.pitch;
            r.grid = hx_pass_grid(&d, R, pb.depth, &ps, per_sm, pb.sms), r.threads = ps.threads, r.smem = ps.smem;
            emu_seen.blocks_short += r.grid < hx_pass_grid(&d, R, pb.depth, &ps, 1 << 20, 1);
            if (pb.roles) r.grid = pb.roles, r.threads = 256, r.smem = 0; /* HX_ROLE_THREADS */
            if (pb.march && pb.dim == 2 && pb.levels > 1) { /* as persistent.cu: 128 threads, every block resident */
                emu_fake_occupancy(nullptr, 128, 0, 0, &per_sm);
                if (pb.per_sm_cap > 0 && per_sm > pb.per_sm_cap) per_sm = pb.per_sm_cap;
                r.grid = per_sm * pb.sms, r.threads = 128, r.smem = 0;
            }
            if (pb.dim == 3 && pb.levels > 1 && !emu_f3_setup(r, pb.st, pb.levels, pb.depth, pb.sms, pb.lanes3))
                return "no fused 3D pass kernel for these levels and stencil";
        }
        const size_t cells = (size_t)hx_alloc_cells(&d);
        r.mail.assign(pb.resident ? 2 * cells * (sizeof(T) / 4) : 2, 0);
        r.owned.assign(cells, 0);
        r.keep.assign(cells, 1);
        std::vector<T> other(cells);
        emu_fill(other, seed + 1000 + (uint64_t)q);
        for (int b = 0; b < 2; b++) r.field[b].assign(cells, (T)NAN);
        const hx_box own = hx_owned_box(&d);
        for (size_t i = 0; i < cells; i++) {
            int c[3] = {(int)(i % (size_t)d.alloc[0]), (int)(i / (size_t)d.alloc[0] % (size_t)d.alloc[1]),
                        (int)(i / ((size_t)d.alloc[0] * d.alloc[1]))};
            r.owned[i] = emu_in(own, c[0], c[1], c[2]);
            for (int p = 0; p < r.plan.nphases; p++)
                for (int m = 0; m < r.plan.phase[p].nmsg; m++)
                    if (emu_in(r.plan.phase[p].msg[m].recv_box, c[0], c[1], c[2])) r.keep[i] = 0;
            if (r.owned[i]) r.keep[i] = 0;
            bool beyond = false, pad = c[0] >= d.local[0] + 2 * d.ghost[0];
            int gc[3] = {0, 0, 0};
            for (int a = 0; a < pb.dim; a++) {
                gc[a] = d.offset[a] + c[a] - d.ghost[a];
                beyond |= gc[a] < 0 || gc[a] >= d.global[a];
            }
            if (pad) continue;
            if (r.owned[i]) {
                r.field[pb.cur0][i] = u[(size_t)g.at(gc[0], gc[1], gc[2])];
                r.field[1 - pb.cur0][i] = other[i];
            } else if (beyond && pb.bnd == HX_FIXED) {
                r.field[0][i] = r.field[1][i] = u[(size_t)g.at(gc[0], gc[1], gc[2])];
            }
        }
        r.cur = pb.cur0;
    }
    return nullptr;
}

/* Two launches (s1 then s2 sweeps, the second continuing the exchange count) of every rank at once
 * against the plain loop over the global problem: bit for bit over every rank's owned cells, cells
 * neither owned nor received never written (the resident kernel: nothing but the owned cells of the
 * last buffer), norms to rounding. Prints a failure with `label`; returns 0 when all agree. */
template <typename T, int ST> static int emu_run(const emu_problem &pb, long s1, long s2, const char *label)
{
    const int R = emu_radius(ST), H = pb.depth * R;
    emu_global g;
    g.dim = pb.dim, g.gh = H;
    for (int a = 0; a < 3; a++) g.n[a] = a < pb.dim ? pb.global[a] : 1;
    g.sy = g.n[0] + 2 * H, g.sz = g.sy * (g.n[1] + 2 * H);
    std::vector<T> u((size_t)(g.sz * (pb.dim > 2 ? g.n[2] + 2 * H : 1)));
    const uint64_t seed = (uint64_t)pb.global[0] * 1000003u + (uint64_t)pb.global[1] * 101u + (uint64_t)pb.depth * 7u + (uint64_t)ST;
    emu_fill(u, seed);
    std::vector<emu_rank<T>> rk;
    const char *what = emu_setup<T>(pb, rk, g, u, seed);
    std::vector<double> want, got;
    if (!what) emu_reference(g, ST, pb.bnd, u, s1 + s2, 0, pb.norm_every, want);
    const unsigned long long e1 = (unsigned long long)((s1 + pb.depth - 1) / pb.depth), e2 = (unsigned long long)((s2 + pb.depth - 1) / pb.depth);
    for (int l = 0; l < 2 && !what; l++) {
        const long sw = l ? s2 : s1;
        const unsigned long long exch0 = l ? e1 : 0;
        std::vector<std::vector<T>> before[2];
        for (int b = 0; b < 2; b++)
            for (emu_rank<T> &r : rk) before[b].push_back(r.field[b]);
        emu_launch<T, ST>(pb, rk, sw, l ? s1 : 0, exch0);
        for (size_t q = 0; q < rk.size() && !what; q++) {
            emu_rank<T> &r = rk[q];
            const int last = (int)((pb.cur0 + (l ? s1 : 0) + sw) & 1);
            if (r.watch.state || r.abort_flag) what = "the kernel's watchdog gave up";
            else if (pb.resident || pb.roles ? r.cur != last : r.cur != 0 && r.cur != 1) /* a fused pass flips it once for its sweeps */
                what = "cur_out names the wrong buffer";
            else if (r.watch.progress != exch0 + (l ? e2 : e1)) what = "the progress word is not the last exchange";
            else if (r.bar[0] != 0) what = "the grid barrier's counter is not back at 0";
            for (size_t i = 0; i < r.keep.size() && !what; i++)
                for (int b = 0; b < 2 && !what; b++)
                    if ((r.keep[i] || (pb.resident && (b != last || !r.owned[i]))) && memcmp(&before[b][q][i], &r.field[b][i], sizeof(T)))
                        what = r.keep[i] ? "a cell that is neither owned nor received was written" : "the resident kernel wrote a ghost cell or the other buffer";
        }
        std::vector<double> sum(rk[0].acc.size(), 0.0); /* the norms: partial sums of every rank */
        for (const emu_rank<T> &r : rk)
            for (size_t k = 0; k < sum.size() && k < r.acc.size(); k++) sum[k] += r.acc[k];
        got.insert(got.end(), sum.begin(), sum.end());
    }
    long bad = 0;
    int bx = 0, by = 0, bz = 0, brank = 0;
    double bgot = 0, bwant = 0;
    for (size_t q = 0; q < rk.size() && !what; q++) {
        const emu_rank<T> &r = rk[q];
        for (size_t i = 0; i < r.owned.size(); i++) {
            if (!r.owned[i]) continue;
            const int c[3] = {(int)(i % (size_t)r.d.alloc[0]), (int)(i / (size_t)r.d.alloc[0] % (size_t)r.d.alloc[1]),
                              (int)(i / ((size_t)r.d.alloc[0] * r.d.alloc[1]))};
            int gc[3] = {0, 0, 0};
            for (int a = 0; a < pb.dim; a++) gc[a] = r.d.offset[a] + c[a] - r.d.ghost[a];
            const T want_v = u[(size_t)g.at(gc[0], gc[1], gc[2])];
            if (memcmp(&want_v, &r.field[r.cur][i], sizeof(T)) && !bad++)
                bx = gc[0], by = gc[1], bz = gc[2], brank = (int)q, bgot = (double)r.field[r.cur][i], bwant = (double)want_v;
        }
    }
    if (!what && bad) what = "cells differ from the plain loop";
    if (!what && got.size() != want.size()) what = "a different number of norms";
    for (size_t k = 0; !what && k < want.size(); k++)
        if (!(fabs(got[k] - want[k]) <= 1e-10 * want[k])) what = "a norm differs from the plain loop's";
    if (!what) return 0;
    printf("FAIL %s: %s", label, what);
    if (bad) printf(" (%ld cells; first on rank %d at global (%d,%d,%d): %.9g, want %.9g)", bad, brank, bx, by, bz, bgot, bwant);
    for (const emu_rank<T> &r : rk)
        if (r.watch.state)
            printf(" (rank %d waited for %s, exchange %lld)", r.p.rank,
                   r.watch.what == HX_WAIT_TILE ? "a tile" : r.watch.what == HX_WAIT_FLAG ? "a message"
                   : r.watch.what == 4 ? "the receiver's release" /* HX_WAIT_RELEASE */ : "a barrier", r.watch.exchange);
    printf("\n");
    return 1;
}

/* fn<T, ST>() for both dtypes of the four stencils, 2D first: the tests' mains */
#define EMU_EACH_STENCIL(fn)                                                                                \
    do {                                                                                                    \
        fn<float, HX_JACOBI5>();                                                                            \
        fn<double, HX_JACOBI5>();                                                                           \
        fn<float, HX_STAR9>();                                                                              \
        fn<double, HX_STAR9>();                                                                             \
        fn<float, HX_JACOBI7>();                                                                            \
        fn<double, HX_JACOBI7>();                                                                           \
        fn<float, HX_STAR13>();                                                                             \
        fn<double, HX_STAR13>();                                                                            \
    } while (0)

#endif
