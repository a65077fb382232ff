/* Transport ipc-put's kernels (src/transport/ipc_put.cuh) on the ranks of a process grid in
 * one process, on the host through tests/emu: each rank its own decomp, plan, field and device area
 * laid out as the ipc transport lays it out, its message table pointing into the other ranks' areas
 * as CUDA IPC maps them (tests/emu/emu_ranks.h). A rank's stream is a list of steps; steps of
 * different ranks that the test launches together run as one scheduler's grids, so blocks
 * interleave, a get spins until its neighbours' puts land, and the last put block signals.
 * Checked, for several exchanges in a row (both slot parities, the device exchange counter):
 *   - every received ghost cell holds the neighbour's owned value of that exchange (a value that
 *     names the exchange and the global cell), corners included, staged (forwarded) and direct;
 *   - owned cells and cells no message fills are never written;
 *   - schedules: all puts then all gets; half the ranks a step ahead, so gets wait for puts; one
 *     rank putting exchange k + 1 before its neighbour has read exchange k (the other parity);
 *     the one-kernel putget on every rank, and beside ranks that put and get in two kernels;
 *   - the watchdog: a rank that stops putting leaves its neighbour's get with a report naming it,
 *     the abort flag raised, and the next kernels return at once.
 * 2D and 3D, periodic (a rank its own neighbour along an axis of one rank) and fixed boundaries,
 * float and double, halos of 1 and 3 cells, 1 to 4 blocks a grid; messages as plain copies with
 * flags, as flagged words (the exchange option ll_bytes), and both in one phase. Many-field
 * exchanges: the kernels move the word plan's messages (src/transport/word_plan.h) between packed
 * buffers, every received word checked against the sender's. What this cannot see: memory
 * ordering between GPUs, IPC, timing. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

/* messages moved in 16-byte units (hx_msgs_view's wide path), summed over every copy call */
static long ik_wide_msgs = 0;
#define HX_COPY_WIDE_SEEN() (ik_wide_msgs++)

#include "transport/ipc_put.cuh"
#include "exec/resident_kernel.cuh"
#include "exec/persistent_plan.cuh"
#include "emu_ranks.h"
#include "transport/word_plan.h"

static int failures = 0, runs = 0;
static long ik_direct_msgs = 0; /* HX_IK_SELF_DIRECT builds: messages copied straight, summed over launches */

struct ik_case {
    int dim, global[3], pgrid[3], halo;
    hx_boundary bnd;
    hx_pattern pattern;
    int blocks, threads;
};
/* messages of at most this many cells go as flagged words (the rule of ll_bytes, in cells here) */
static long ik_ll_cells = 0;
/* > 0: a many-field exchange of this many bytes a cell; the field is the packed buffer of the word plan */
static long ik_stride = 0;

template <typename T> struct ik_rank {
    hx_decomp d;
    hx_plan plan;
    hx_dev_table table;
    std::vector<unsigned long long> area;
    long mine[HX_MAX_PHASES][HX_MAX_MSGS][2];
    std::vector<T> field;
    unsigned long long seq = 0;
    unsigned ticket = 0;
    int abort_flag = 0;
    hx_watch watch;
    int q = 0; /* its rank */
    hx_ik_args a[3]; /* put, get, putget: the arguments of the step being launched */
};

/* The value owned cell (gx, gy, gz) holds for exchange k: exact in float for these sizes. */
static double ik_value(int k, const int gc[3]) { return (double)k * 80000.0 + gc[0] + 41.0 * (gc[1] + 41.0 * gc[2]); }

/* Owned cells of rank r get exchange k's values; every other cell the sentinel. */
static double ik_word(int k, int q, long j) { return (double)j + 200000.0 * (q + 5 * k); }

template <typename T> static void ik_fill(ik_rank<T> &r, int k)
{
    const hx_decomp &d = r.d;
    const long half = r.plan.max_phase_cells;
    if (ik_stride) { /* words: the send half encodes (exchange, rank, word), the receive half the sentinel */
        for (size_t i = 0; i < r.field.size(); i++) r.field[i] = (long)i < half ? (T)ik_word(k, r.q, (long)i) : (T)-1.0;
        return;
    }
    const hx_box own = hx_owned_box(&d);
    for (size_t i = 0; i < r.field.size(); i++) {
        const int c[3] = {(int)(i % (size_t)d.alloc[0]), (int)(i / (size_t)d.alloc[0] % (size_t)d.alloc[1]),
                          (int)(i / ((size_t)d.alloc[0] * d.alloc[1]))};
        int gc[3] = {0, 0, 0};
        for (int a = 0; a < d.dim; a++) gc[a] = d.offset[a] + c[a] - d.ghost[a];
        r.field[i] = emu_in(own, c[0], c[1], c[2]) ? (T)ik_value(k, gc) : (T)-1.0;
    }
}

/* Words: the send half untouched; each received word the sender's word of the matching message
 * (its side opposite, the same phase), every other word the sentinel. */
template <typename T> static const char *ik_check_words(const std::vector<ik_rank<T>> &rk, const ik_rank<T> &r, int k, int *at)
{
    const long half = r.plan.max_phase_cells;
    std::vector<T> want(r.field.size(), (T)-1.0);
    for (long i = 0; i < half; i++) want[(size_t)i] = (T)ik_word(k, r.q, i);
    for (int p = 0; p < r.plan.nphases; p++)
        for (int m = 0; m < r.plan.phase[p].nmsg; m++) {
            const hx_message &in = r.plan.phase[p].msg[m];
            const hx_phase &sp = rk[(size_t)in.peer].plan.phase[p];
            for (int n = 0; n < sp.nmsg; n++)
                if (sp.msg[n].peer == r.q && sp.msg[n].dir == hx_dir_opposite(in.dir))
                    for (long j = 0; j < in.count; j++) want[(size_t)(half + in.offset + j)] = (T)ik_word(k, in.peer, sp.msg[n].offset + j);
        }
    for (size_t i = 0; i < r.field.size(); i++)
        if (memcmp(&want[i], &r.field[i], sizeof(T))) return *at = (int)i, (long)i < half ? "a send word was written" : "a received word is wrong";
    return nullptr;
}

/* After exchange k: received cells hold the neighbour's value (periodic wrap), the rest untouched. */
template <typename T> static const char *ik_check(const std::vector<ik_rank<T>> &rk, const ik_rank<T> &r, int k, int *at)
{
    if (ik_stride) return ik_check_words(rk, r, k, at);
    const hx_decomp &d = r.d;
    const hx_box own = hx_owned_box(&d);
    for (size_t i = 0; i < r.field.size(); i++) {
        const int c[3] = {(int)(i % (size_t)d.alloc[0]), (int)(i / (size_t)d.alloc[0] % (size_t)d.alloc[1]),
                          (int)(i / ((size_t)d.alloc[0] * d.alloc[1]))};
        bool received = false;
        for (int p = 0; p < r.plan.nphases; p++)
            for (int m = 0; m < r.plan.phase[p].nmsg; m++) received |= emu_in(r.plan.phase[p].msg[m].recv_box, c[0], c[1], c[2]);
        int gc[3] = {0, 0, 0};
        bool beyond = false; /* a fixed boundary's ghost: the staged pattern forwards it as the sender has it (-1) */
        for (int a = 0; a < d.dim; a++) {
            const int g = d.offset[a] + c[a] - d.ghost[a];
            beyond |= d.boundary == HX_FIXED && (g < 0 || g >= d.global[a]);
            gc[a] = (g % d.global[a] + d.global[a]) % d.global[a];
        }
        const bool owned = emu_in(own, c[0], c[1], c[2]);
        const T want = owned || (received && !beyond) ? (T)ik_value(k, gc) : (T)-1.0;
        if (memcmp(&want, &r.field[i], sizeof(T))) {
            *at = (int)i;
            if (getenv("IK_DEBUG")) printf("cell (%d,%d,%d) alloc %dx%d ghost %d,%d global (%d,%d): got %g want %g\n", c[0], c[1], c[2], d.alloc[0], d.alloc[1], d.ghost[0], d.ghost[1], gc[0], gc[1], (double)r.field[i], (double)want);
            return owned ? "an owned cell was written" : received ? "a received ghost cell is wrong" : "a cell no message fills was written";
        }
    }
    return nullptr;
}

enum { PUT = 0, GET = 1, PUTGET = 2 };
struct ik_step {
    int rank, op, phase;
};

/* Rank q's arguments for one kernel (as ipc_put.cu fills them), in r.a[op]. */
template <typename T> static hx_ik_args &ik_args(ik_rank<T> &r, int q, int op, int phase, long long skip_from)
{
    hx_ik_args &a = r.a[op];
    memset(&a, 0, sizeof a);
    a.p.field[0] = r.field.data();
    a.p.sy = r.d.alloc[0];
    a.p.sz = (long)r.d.alloc[0] * r.d.alloc[1];
    a.p.table = &r.table;
    a.p.timeout_ns = EMU_TIMEOUT_NS;
    a.p.watch = &r.watch;
    a.p.abort_flag = &r.abort_flag;
    a.p.rank = q;
    a.p.skip_from = skip_from;
    a.phase = phase;
    a.first = op != GET && phase == hx_ik_first_phase(&r.table); /* as ipc_put.cu */
    a.seq = &r.seq;
    a.ticket = &r.ticket;
    a.ll_mask = hx_ik_ll_mask(&r.table, phase, sizeof(T), ik_ll_cells * (long)sizeof(T)); /* as ipc_put.cu chooses them */
    a.self_mask = hx_ik_self_mask(&r.table, phase, q);
#if HX_IK_SELF_DIRECT
    a.direct_mask = hx_ik_direct_mask(&r.table, phase, q, a.self_to);
    a.ll_mask &= ~a.direct_mask;
    ik_direct_msgs += __builtin_popcount(a.direct_mask);
#endif
    a.plain = hx_ik_plain(&r.table, phase, HX_IK_NOFLAG(a)); /* as ipc_put.cu */
    hx_ik_args_phase(&a, &r.table, phase);
    return a;
}

/* Launch the steps together, as kernels on different GPUs. */
template <typename T> static void ik_launch(const ik_case &cs, std::vector<ik_rank<T>> &rk, const std::vector<ik_step> &steps)
{
    std::vector<std::function<void()>> body(steps.size());
    std::vector<hx_emu_grid> grids;
    for (size_t i = 0; i < steps.size(); i++) {
        ik_rank<T> &r = rk[(size_t)steps[i].rank];
        if (r.table.nmsg[steps[i].phase] == 0) continue; /* ipc_put.cu launches nothing for it */
        hx_ik_args &a = ik_args(r, steps[i].rank, steps[i].op, steps[i].phase, 0);
        if (steps[i].op == PUT) body[i] = [&a] { hx_ik_put<T>(a); };
        else if (steps[i].op == GET) body[i] = [&a] { hx_ik_get<T>(a); };
        else body[i] = [&a] { hx_ik_putget<T>(a); };
        grids.push_back(hx_emu_grid_of(dim3((unsigned)cs.blocks), dim3((unsigned)cs.threads), 0, body[i]));
    }
    hx_emu_launch_grids((int)grids.size(), grids.data());
}

template <typename T> static const char *ik_setup(const ik_case &cs, std::vector<ik_rank<T>> &rk)
{
    static char err[256];
    const int nr = cs.pgrid[0] * cs.pgrid[1] * cs.pgrid[2];
    rk.resize((size_t)nr);
    for (int q = 0; q < nr; q++) {
        ik_rank<T> &r = rk[(size_t)q];
        if (hx_decomp_init(&r.d, cs.dim, cs.global, cs.pgrid, q, nr, cs.bnd, cs.halo, err, sizeof err)) return err;
        hx_plan_build(&r.plan, &r.d, cs.pattern);
        r.q = q;
        if (ik_stride) { /* the exchange's word plan over one row: send half, receive half (exchange_many.c) */
            const hx_plan cells = r.plan;
            hx_word_plan(&r.plan, &cells, ik_stride);
            r.d.alloc[0] = (int)(2 * r.plan.max_phase_cells + 1), r.d.alloc[1] = r.d.alloc[2] = 1;
        }
        r.field.assign((size_t)hx_alloc_cells(&r.d), (T)0);
        memset(&r.watch, 0, sizeof r.watch);
    }
    /* emu_tables wants emu_rank: lay the areas out the same way here */
    std::vector<emu_rank<T>> er((size_t)nr);
    for (int q = 0; q < nr; q++) er[(size_t)q].d = rk[(size_t)q].d, er[(size_t)q].plan = rk[(size_t)q].plan;
    if (const char *e = emu_tables(er)) return e;
    for (int q = 0; q < nr; q++) {
        ik_rank<T> &r = rk[(size_t)q];
        r.area.swap(er[(size_t)q].area); /* a vector's buffer moves with the swap: the table's pointers stay valid */
        r.table = er[(size_t)q].table;
    }
    return nullptr;
}

/* One case: `rounds` exchanges on the schedule `sched` (0: all puts, then all gets, phase by phase;
 * 1: odd ranks a step behind; 2: rank 0 puts exchange k + 1 before the others get exchange k; 3: a
 * putget kernel a phase on every rank; 4: putget on even ranks beside put, then get on odd ones). */
template <typename T> static void ik_run(const ik_case &cs, int sched, const char *label)
{
    runs++;
    std::vector<ik_rank<T>> rk;
    const char *what = ik_setup<T>(cs, rk);
    const int nr = (int)rk.size(), rounds = 5;
    int nph = what ? 0 : rk[0].plan.nphases, bad_rank = -1, at = -1;
    const int fp = what ? 0 : hx_ik_first_phase(&rk[0].table); /* the same on every rank of a grid */
    for (int k = 1; k <= rounds && !what; k++) {
        /* sched 2: rank 0 ran ahead in round k - 1, its field has k's values and its first put of k is done */
        for (int q = 0; q < nr; q++)
            if (!(sched == 2 && k > 1 && q == 0)) ik_fill(rk[(size_t)q], k);
        for (int p = 0; p < nph && !what; p++) {
            std::vector<ik_step> puts, gets, even_put, odd_put, even_get, odd_get;
            for (int q = 0; q < nr; q++) {
                if (!(sched == 2 && k > 1 && q == 0 && p == fp)) (q % 2 ? odd_put : even_put).push_back({q, PUT, p});
                (q % 2 ? odd_get : even_get).push_back({q, GET, p});
            }
            if (sched >= 3) { /* 3: every rank one putget kernel a phase; 4: even ranks putget, odd ones put, then get */
                std::vector<ik_step> one, later;
                for (int q = 0; q < nr; q++) {
                    if (sched == 3 || q % 2 == 0) one.push_back({q, PUTGET, p});
                    else one.push_back({q, PUT, p}), later.push_back({q, GET, p});
                }
                ik_launch<T>(cs, rk, one);
                if (!later.empty()) ik_launch<T>(cs, rk, later);
            } else if (sched == 1) { /* even ranks' gets wait, in the same launch, for odd ranks' puts */
                ik_launch<T>(cs, rk, even_put);
                std::vector<ik_step> mid = even_get;
                mid.insert(mid.end(), odd_put.begin(), odd_put.end());
                ik_launch<T>(cs, rk, mid);
                ik_launch<T>(cs, rk, odd_get);
            } else {
                puts = even_put;
                puts.insert(puts.end(), odd_put.begin(), odd_put.end());
                gets = even_get;
                gets.insert(gets.end(), odd_get.begin(), odd_get.end());
                ik_launch<T>(cs, rk, puts);
                if (sched == 2 && p == nph - 1 && k < rounds) {
                    /* rank 0 finishes exchange k and puts k + 1 while the others have not read k */
                    ik_launch<T>(cs, rk, std::vector<ik_step>{{0, GET, p}});
                    if ((what = ik_check(rk, rk[0], k, &at))) bad_rank = 0;
                    ik_fill(rk[0], k + 1);
                    ik_launch<T>(cs, rk, std::vector<ik_step>{{0, PUT, fp}}); /* into the other parity */
                    gets.erase(gets.begin()); /* rank 0's get is done */
                }
                ik_launch<T>(cs, rk, gets);
            }
        }
        for (int q = 0; q < nr && !what; q++) {
            const ik_rank<T> &r = rk[(size_t)q];
            if (r.watch.state || r.abort_flag) what = "a device wait gave up";
            else if (r.seq != (unsigned long long)k && !(sched == 2 && q == 0 && k < rounds && r.seq == (unsigned long long)k + 1))
                what = "the device exchange counter is not the exchange's number";
            else if (q != 0 || sched != 2 || k == rounds) {
                if ((what = ik_check(rk, r, k, &at))) bad_rank = q;
            }
            if (what && bad_rank < 0) bad_rank = q;
        }
    }
    if (!what) return;
    failures++;
    printf("FAIL %s: %s (rank %d, cell %d)\n", label, what, bad_rank, at);
}

/* Rank `quiet` stops putting from exchange 3 on: its neighbours' gets must report it, the abort flag
 * must rise, and a later kernel must return at once (it would otherwise wait its whole timeout). */
template <typename T> static void ik_watchdog(const ik_case &cs, int quiet, const char *label)
{
    runs++;
    std::vector<ik_rank<T>> rk;
    const char *what = ik_setup<T>(cs, rk);
    const int nr = (int)rk.size();
    for (int k = 1; k <= 3 && !what; k++) {
        for (int q = 0; q < nr; q++) ik_fill(rk[(size_t)q], k);
        std::vector<ik_step> gets;
        for (int q = 0; q < nr; q++) gets.push_back({q, GET, 0});
        /* the puts by hand: ik_launch leaves the fault knob off */
        std::vector<std::function<void()>> body(nr);
        std::vector<hx_emu_grid> grids;
        for (int q = 0; q < nr; q++) {
            hx_ik_args &a = ik_args(rk[(size_t)q], q, PUT, 0, q == quiet ? 3 : 0);
            body[(size_t)q] = [&a] { hx_ik_put<T>(a); };
            grids.push_back(hx_emu_grid_of(dim3((unsigned)cs.blocks), dim3((unsigned)cs.threads), 0, body[(size_t)q]));
        }
        hx_emu_launch_grids((int)grids.size(), grids.data());
        ik_launch<T>(cs, rk, gets);
        bool gave_up = false;
        for (int q = 0; q < nr; q++) gave_up |= rk[(size_t)q].watch.state != 0;
        if (k < 3 && gave_up) what = "a wait gave up before the fault";
        if (k == 3) {
            const ik_rank<T> &n = rk[(size_t)(quiet == 0 ? 1 : 0)];
            if (!n.watch.state || !n.abort_flag) what = "the neighbour's get did not give up";
            else if (n.watch.peer != quiet || n.watch.exchange != 3 || n.watch.rank != (quiet == 0 ? 1 : 0))
                what = "the report names the wrong rank, neighbour or exchange";
        }
    }
    if (!what) { /* after the abort, a get returns at once instead of waiting out its timeout */
        const int n = quiet == 0 ? 1 : 0;
        const unsigned long long t0 = hx_emu_now_ns();
        ik_launch<T>(cs, rk, std::vector<ik_step>{{n, GET, 0}});
        if (hx_emu_now_ns() - t0 > EMU_TIMEOUT_NS / 2) what = "a get after the abort waited for its timeout";
    }
    if (!what) return;
    failures++;
    printf("FAIL %s: %s\n", label, what);
}

template <typename T> static void cases()
{
    const ik_case list[] = {
        /* dim, global, pgrid, halo, boundary, pattern, blocks, threads */
        {2, {13, 10, 1}, {2, 1, 1}, 1, HX_PERIODIC, HX_DIRECT, 1, 64},
        {2, {13, 10, 1}, {2, 2, 1}, 3, HX_PERIODIC, HX_DIRECT, 3, 32},
        {2, {13, 10, 1}, {2, 2, 1}, 2, HX_FIXED, HX_STAGED, 2, 64},
        {2, {12, 9, 1}, {1, 2, 1}, 1, HX_PERIODIC, HX_STAGED, 4, 32},
        {3, {9, 8, 7}, {2, 1, 1}, 1, HX_PERIODIC, HX_DIRECT, 2, 64},
        {3, {9, 8, 7}, {2, 1, 2}, 2, HX_FIXED, HX_DIRECT, 3, 32},
        {3, {9, 8, 7}, {1, 2, 2}, 1, HX_PERIODIC, HX_STAGED, 1, 64},
        /* phases without messages (x, and y too): the first with them numbers the exchange */
        {2, {12, 9, 1}, {1, 2, 1}, 2, HX_FIXED, HX_STAGED, 3, 32},
        {3, {9, 8, 7}, {1, 1, 3}, 1, HX_FIXED, HX_STAGED, 2, 64},
        /* halos of 4: rows of whole 16-byte units, 16-byte aligned, where most messages move a unit at a time */
        {3, {16, 8, 8}, {1, 2, 2}, 4, HX_PERIODIC, HX_DIRECT, 3, 64},
        {2, {16, 16, 1}, {2, 2, 1}, 4, HX_PERIODIC, HX_STAGED, 2, 32},
    };
    /* flagged words for no message, for the small ones only (corners and edges: a phase mixes both
     * ways), for every one */
    for (long ll : {0L, 12L, 1L << 30}) {
        ik_ll_cells = ll;
        for (const ik_case &cs : list)
            for (int sched = 0; sched < 5; sched++) {
                char label[220];
                snprintf(label, sizeof label, "%s %dD %dx%dx%d on %dx%dx%d ranks halo %d %s %s, %d blocks of %d, schedule %d, "
                         "flagged words up to %ld cells", sizeof(T) == 4 ? "float" : "double", cs.dim, cs.global[0], cs.global[1],
                         cs.global[2], cs.pgrid[0], cs.pgrid[1], cs.pgrid[2], cs.halo, cs.bnd == HX_PERIODIC ? "periodic" : "fixed",
                         cs.pattern == HX_DIRECT ? "direct" : "staged", cs.blocks, cs.threads, sched, ll);
                ik_run<T>(cs, sched, label);
            }
        ik_watchdog<T>(list[0], 1, "watchdog, 2 ranks, rank 1 stops putting");
        ik_watchdog<T>(list[4], 0, "watchdog, 3D, rank 0 stops putting");
    }
    /* many fields: the words of 3 floats (12 bytes a cell) or a float and a double (16), as floats */
    for (long ll : {0L, 40L}) {
        ik_ll_cells = ll;
        for (ik_stride = 12; sizeof(T) == 4 && ik_stride <= 16; ik_stride += 4)
            for (int c : {0, 2, 5, 7, 8})
                for (int sched = 0; sched < 5; sched++) {
                    char label[160];
                    snprintf(label, sizeof label, "words of %ld bytes a cell, case %d, schedule %d, flagged words up to %ld", ik_stride, c,
                             sched, ll);
                    ik_run<T>(list[c], sched, label);
                }
    }
    ik_ll_cells = ik_stride = 0;
}

int main(void)
{
    cases<float>();
    cases<double>();
    printf("%d of %d ipc-put runs bit-identical to the neighbours' cells%s\n", runs - failures, runs, failures ? "" : " (all)");
    printf("messages moved in 16-byte units: %ld (over every copy)\n", ik_wide_msgs);
    if (ik_wide_msgs == 0) failures++; /* the halo-4 cases have such messages: the wide path must run */
#if HX_IK_SELF_DIRECT
    printf("messages to a rank itself copied straight into its ghosts: %ld (over every launch)\n", ik_direct_msgs);
    if (ik_direct_msgs == 0) failures++; /* the cases have periodic axes of one rank: some must go straight */
#endif
    return failures ? 1 : 0;
}
