/* A functor's persistent kernel (halox/kernels/persistent.cuh) on the host through tests/emu: 1 to
 * 4 ranks, every block of every rank resident at once (hx_emu_launch_grids), all state fields put
 * in one message a neighbour through the tables hx_dev_tables_fields makes from one table laid out
 * as the ipc transport lays it out, then each cycle's passes, a grid barrier after each. Two
 * launches, the second continuing the exchange count, against the single-domain host loop
 * (tests/custom_ref.h): bit for bit over every rank's owned cells, cur_out naming the buffer that
 * holds them. The Gray-Scott functor (2D, two float fields, radius 1) and a 3D functor (three
 * double fields, radius 2); periodic and fixed boundaries, staged and direct patterns, depths
 * cut short at the end of a launch, single sweeps and fused passes, fewer blocks than tiles. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <functional>
#include <vector>

#include "../examples/gray_scott/model.h"
#include "custom_ref.h"
#include "halox/kernels/persistent.cuh"
#include "transport/device_area.h"

static int failures = 0, runs = 0, refusals = 0;

template <typename T> struct rank_state {
    hx_decomp d;
    hx_plan plan;
    std::vector<unsigned long long> area;
    long mine[HX_MAX_PHASES][HX_MAX_MSGS][2];
    std::vector<hx_dev_table> tables;
    std::vector<T> field[2][HX_CUSTOM_MAX_FIELDS];
    hx_watch watch;
    int abort_flag = 0, cur = 0;
    unsigned bar[64];
};

static bool has_neighbour(const hx_decomp &d, int a, int s)
{
    int o[3] = {0, 0, 0};
    o[a] = s ? 1 : -1;
    return d.neighbour[hx_dir_index(o[0], o[1], o[2])] != HX_NO_RANK;
}

/* Each rank's area and base table as the ipc transport makes them (a cell: every field's bytes),
 * then the per-field tables */
template <class F, typename T> static const char *make_tables(std::vector<rank_state<T>> &rk)
{
    const size_t unit = F::nfields * sizeof(T);
    for (rank_state<T> &r : rk) r.area.assign((hx_dev_area_layout(&r.plan, unit, r.mine) + 7) / 8, 0);
    static char err[256];
    for (size_t q = 0; q < rk.size(); q++) {
        rank_state<T> &r = rk[q];
        hx_dev_table base;
        memset(&base, 0, sizeof base);
        base.nphases = r.plan.nphases;
        for (int p = 0; p < r.plan.nphases; p++) {
            base.nmsg[p] = r.plan.phase[p].nmsg;
            for (int m = 0; m < r.plan.phase[p].nmsg; m++) {
                const hx_message &msg = r.plan.phase[p].msg[m];
                hx_dev_msg_own(&base.msg[p][m], &msg, (char *)r.area.data(), r.mine[p][m], unit);
                rank_state<T> &o = rk[(size_t)msg.peer];
                int k = 0;
                while (k < o.plan.phase[p].nmsg && !(o.plan.phase[p].msg[k].peer == (int)q && o.plan.phase[p].msg[k].recv_tag == msg.send_tag))
                    k++;
                if (k == o.plan.phase[p].nmsg) return "no message of the peer receives this one";
                hx_dev_msg_peer(&base.msg[p][m], &msg, (char *)o.area.data(), o.mine[p][k], unit);
            }
        }
        r.tables.resize(F::nfields);
        if (hx_dev_tables_fields(&base, unit, &r.plan, F::nfields, sizeof(T), r.tables.data(), err, sizeof err)) return err;
    }
    return nullptr;
}

template <class F, typename T>
static void run(const F &fn, const int *global, const int *pgrid, hx_boundary bnd, hx_pattern pat, int depth, int fuse, long s1, long s2,
                int blocks)
{
    const int NF = F::nfields, D = F::dim, R = F::radius, H = depth * R, nr = pgrid[0] * pgrid[1] * pgrid[2];
    std::vector<rank_state<T>> rk((size_t)nr);
    const char *what = nullptr;
    static char err[256];
    for (int q = 0; q < nr && !what; q++) {
        if (hx_decomp_init(&rk[q].d, D, global, pgrid, q, nr, bnd, H, err, sizeof err)) what = err;
        else hx_plan_build(&rk[q].plan, &rk[q].d, pat);
    }
    if (!what) what = make_tables<F, T>(rk);
    /* the fields: 0 everywhere (a fixed boundary's ghosts), NaN where a value must come from a
     * sweep or an exchange before it is read, the start in buffer 0's owned cells */
    std::vector<T> glob[NF];
    for (int f = 0; f < NF; f++) {
        glob[f].resize((size_t)global[0] * global[1] * global[2]);
        for (size_t i = 0; i < glob[f].size(); i++)
            glob[f][i] = (T)ref_initial(f, (int)(i % global[0]), (int)(i / global[0] % global[1]), (int)(i / ((size_t)global[0] * global[1])));
    }
    for (rank_state<T> &r : rk) {
        if (what) break;
        const hx_decomp &d = r.d;
        const size_t cells = (size_t)hx_alloc_cells(&d);
        for (int b = 0; b < 2; b++)
            for (int f = 0; f < NF; f++) r.field[b][f].assign(cells, (T)0);
        for (size_t i = 0; i < cells; i++) {
            const int c[3] = {(int)(i % d.alloc[0]), (int)(i / d.alloc[0] % d.alloc[1]), (int)(i / ((size_t)d.alloc[0] * d.alloc[1]))};
            bool own = true, beyond = false;
            int gc[3] = {0, 0, 0};
            for (int a = 0; a < D; a++) {
                own &= c[a] >= d.ghost[a] && c[a] < d.ghost[a] + d.local[a];
                gc[a] = d.offset[a] + c[a] - d.ghost[a];
                beyond |= gc[a] < 0 || gc[a] >= global[a];
            }
            for (int f = 0; f < NF; f++) {
                if (!(beyond && bnd == HX_FIXED)) r.field[1][f][i] = (T)NAN;
                r.field[0][f][i] = own ? glob[f][(size_t)gc[0] + (size_t)global[0] * (gc[1] + (size_t)global[1] * gc[2])]
                                       : r.field[1][f][i];
            }
        }
        memset(&r.watch, 0, sizeof r.watch);
        memset(r.bar, 0, sizeof r.bar);
    }
    std::vector<T> ref[NF];
    for (int f = 0; f < NF; f++) ref[f] = glob[f];
    const int n[3] = {global[0], global[1], D == 3 ? global[2] : 1};
    ref_run<F, T>(fn, ref, n, bnd == HX_PERIODIC, (int)(s1 + s2));
    std::vector<hx_kern::pargs<F, T>> qs(rk.size());
    for (int l = 0; l < 2 && !what; l++) {
        std::vector<std::function<void()>> body(rk.size());
        std::vector<hx_emu_grid> grids;
        for (size_t q = 0; q < rk.size(); q++) {
            rank_state<T> &r = rk[q];
            const hx_decomp &d = r.d;
            hx_custom_run c;
            memset(&c, 0, sizeof c);
            c.nfields = NF;
            for (int b = 0; b < 2; b++)
                for (int f = 0; f < NF; f++) c.field[b][f] = r.field[b][f].data();
            c.sy = d.alloc[0];
            c.sz = D == 3 ? (long)d.alloc[0] * d.alloc[1] : 0;
            c.alloc[0] = d.alloc[0], c.alloc[1] = d.alloc[1], c.alloc[2] = D == 3 ? d.alloc[2] : 1;
            for (int a = 0; a < 3; a++) {
                c.own_lo[a] = a < D ? d.ghost[a] : 0;
                c.own_hi[a] = a < D ? d.ghost[a] + d.local[a] : 1;
                c.grow_lo[a] = a < D && has_neighbour(d, a, 0);
                c.grow_hi[a] = a < D && has_neighbour(d, a, 1);
            }
            c.depth = depth, c.fuse = fuse, c.sweeps = l ? s2 : s1;
            c.tables = r.tables.data();
            c.exch0 = l ? (unsigned long long)((s1 + depth - 1) / depth) : 0;
            c.timeout_ns = 200000000ull;
            c.watch = &r.watch, c.abort_flag = &r.abort_flag, c.bar = r.bar, c.cur_out = &r.cur, c.rank = (int)q;
            c.params = &fn;
            qs[q] = hx_kern::make_pargs<F, T>(&c);
            const hx_kern::pargs<F, T> *pq = &qs[q];
            body[q] = [pq] { hx_kern::persistent_body<F, T>(*pq, reinterpret_cast<T *>(hx_emu_shared())); };
            typedef hx_kern::tile<D> S;
            grids.push_back(hx_emu_grid_of(dim3((unsigned)blocks), dim3(S::TX * S::TY), hx_kern::fused_smem<F, T>(fuse), body[q]));
        }
        hx_emu_reverse_blocks(l == 1);
        hx_emu_launch_grids((int)grids.size(), grids.data());
        for (rank_state<T> &r : rk)
            if (r.watch.state || r.abort_flag) what = "a device wait gave up";
    }
    long bad = 0;
    for (size_t q = 0; q < rk.size() && !what; q++) {
        const rank_state<T> &r = rk[q];
        const hx_decomp &d = r.d;
        for (int z = 0; z < (D == 3 ? d.local[2] : 1); z++)
            for (int y = 0; y < d.local[1]; y++)
                for (int x = 0; x < d.local[0]; x++) {
                    const long i = (x + d.ghost[0]) + (long)d.alloc[0] * ((y + d.ghost[1]) + (long)d.alloc[1] * (D == 3 ? z + d.ghost[2] : 0));
                    const size_t g = (size_t)(x + d.offset[0]) + (size_t)global[0] * ((y + d.offset[1]) + (size_t)global[1] * (D == 3 ? z + d.offset[2] : 0));
                    for (int f = 0; f < NF; f++) bad += memcmp(&r.field[r.cur][f][(size_t)i], &ref[f][g], sizeof(T)) != 0;
                }
    }
    if (!what && bad) what = "owned cells differ from the single-domain loop";
    runs++;
    if (!what) return;
    failures++;
    printf("FAIL %dD %s depth %d fuse %d %s %s ranks %dx%dx%d sweeps %ld+%ld blocks %d: %s (%ld cells)\n", D,
           sizeof(T) == 4 ? "float" : "double", depth, fuse, bnd == HX_PERIODIC ? "periodic" : "fixed", pat == HX_DIRECT ? "direct" : "staged",
           pgrid[0], pgrid[1], pgrid[2], s1, s2, blocks, what, bad);
}

/* hx_dev_tables_fields refuses tables that do not match the plan, and slots too small for the fields */
static void table_refusals()
{
    hx_decomp d;
    hx_plan plan;
    char err[256];
    const int g[3] = {40, 30, 1}, pg[3] = {1, 1, 1};
    if (hx_decomp_init(&d, 2, g, pg, 0, 1, HX_PERIODIC, 2, err, sizeof err)) {
        printf("FAIL: decomposition: %s\n", err);
        failures++;
        return;
    }
    hx_plan_build(&plan, &d, HX_STAGED);
    std::vector<unsigned long long> area;
    long mine[HX_MAX_PHASES][HX_MAX_MSGS][2];
    area.assign((hx_dev_area_layout(&plan, 4, mine) + 7) / 8, 0);
    hx_dev_table base;
    memset(&base, 0, sizeof base);
    base.nphases = plan.nphases;
    for (int p = 0; p < plan.nphases; p++) {
        base.nmsg[p] = plan.phase[p].nmsg;
        for (int m = 0; m < plan.phase[p].nmsg; m++) {
            hx_dev_msg_own(&base.msg[p][m], &plan.phase[p].msg[m], (char *)area.data(), mine[p][m], 4);
            hx_dev_msg_peer(&base.msg[p][m], &plan.phase[p].msg[m], (char *)area.data(), mine[p][m], 4);
        }
    }
    std::vector<hx_dev_table> out(3);
    struct {
        int nf;
        size_t elem;
        int phases;
        const char *want;
    } cases[] = {{2, 4, 0, nullptr}, {3, 4, 0, "do not fit a slot"}, {1, 8, 0, nullptr}, {2, 8, 0, "do not fit a slot"}, {1, 4, 1, "phases"}};
    for (const auto &c : cases) {
        hx_dev_table b = base;
        b.nphases += c.phases;
        err[0] = 0;
        const int rc = hx_dev_tables_fields(&b, 4, &plan, c.nf, c.elem, out.data(), err, sizeof err);
        refusals++;
        if (c.want ? rc == 0 || !strstr(err, c.want) : rc != 0) {
            printf("FAIL: %d fields of %zu bytes in slots for 4: rc %d, '%s'\n", c.nf, c.elem, rc, err);
            failures++;
        }
    }
}

int main()
{
    table_refusals();
    const gray_scott gs = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};
    const coupled3d c3 = {0.05, 0.01, 0.1};
    const int g2[3] = {70, 37, 1}, g3[3] = {14, 13, 9};
    const int one[3] = {1, 1, 1}, two_x[3] = {2, 1, 1}, two_y[3] = {1, 2, 1}, four[3] = {2, 2, 1};
    const hx_boundary bnds[2] = {HX_PERIODIC, HX_FIXED};
    const hx_pattern pats[2] = {HX_STAGED, HX_DIRECT};
    int k = 0;
    for (const int *pg : {one, two_x, two_y, four})
        for (int df : {11, 41, 44, 32, 82, 88})
            for (int blocks : {3, 13}) {
                const int depth = df / 10, fuse = df % 10;
                run<gray_scott, float>(gs, g2, pg, bnds[k % 2], pats[k / 2 % 2], depth, fuse, 2 * depth + 1, depth + 2, blocks);
                k++;
            }
    for (const int *pg : {one, two_x, two_y})
        for (int df : {11, 21, 22, 32})
            for (int blocks : {2, 17}) {
                const int depth = df / 10, fuse = df % 10;
                run<coupled3d, double>(c3, g3, pg, bnds[k % 2], pats[k / 2 % 2], depth, fuse, depth + 1, 2 * depth - 1, blocks);
                k++;
            }
    printf("functor persistent kernel on the host: %d runs and %d table checks, %d failures (runs bit for bit against the "
           "single-domain loop)\n", runs, refusals, failures);
    return failures ? 1 : 0;
}
