/* The device schedules' pass kernel for a user operator (src/exec/persistent_op.cuh) on the host
 * through tests/emu: one or two ranks, every block resident at once (hx_emu_launch_grids), the halo
 * put into the neighbours' receive slots as the ipc transport lays them out (tests/emu/emu_ranks.h),
 * then the cycle's sweeps of the operator, a grid barrier after each. Two launches one after the
 * other continue the exchange count, against a plain loop over the global problem that follows
 * halox/operator.h's order term by term: bit for bit over the owned cells, cells neither owned nor
 * received never written, norms to rounding. 2D and 3D, float and double, radius 1 to 3, box,
 * star and one-sided shapes, a coefficient field (its ghosts as an exchange at set-up leaves
 * them), fixed and periodic boundaries, staged and direct patterns, several depths, single sweeps
 * and fused passes (fuse 2, 4, 8: the tile body over the tiles of each pass, a block each in turn). */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "exec/resident_kernel.cuh"
#include "exec/persistent_plan.cuh"
#include "exec/persistent_op.cuh"
#include "emu_ranks.h"

static int failures = 0, runs = 0;

/* An operator of radius R: a box (coef: every third term times a_0 at the mirrored x offset), a
 * star, or a one-sided shape reaching +x, -y (and +z) */
static void make_op(hx_operator &op, int dim, int R, int shape)
{
    memset(&op, 0, sizeof op);
    int n = 0;
    auto add = [&](int dx, int dy, int dz, double w, int coef, int cx) {
        hx_term &t = op.terms[n++];
        t.d[0] = dx, t.d[1] = dy, t.d[2] = dz, t.weight = w, t.coef = coef, t.c[0] = cx;
        t.c[1] = coef >= 0 ? dy : 0;
    };
    const int zr = dim == 3 ? R : 0;
    for (int z = -zr; z <= zr; z++)
        for (int y = -R; y <= R; y++)
            for (int x = -R; x <= R; x++) {
                const bool star = (x != 0) + (y != 0) + (z != 0) <= 1, one = x >= 0 && y <= 0 && z >= 0;
                const double w = (n % 2 ? -1.0 : 1.0) / (5 + n);
                if (shape == 0 || (shape == 1 && star) || (shape == 2 && one)) add(x, y, z, w, -1, 0);
                else if (shape == 3) add(x, y, z, w / 3, n % 3 == 0 ? 0 : -1, -x);
            }
    op.desc.dim = dim, op.desc.nterms = n, op.desc.terms = op.terms, op.desc.ncoef = shape == 3;
    op.radius = R;
    snprintf(op.name, sizeof op.name, "%s%d", shape == 0 ? "box" : shape == 1 ? "star" : shape == 2 ? "one-sided" : "coef", R);
}

/* The operator at global cell i of u (coefficients a at the same index) */
template <typename T> static T ref_cell(const hx_operator &op, const T *u, const T *a, long i, long sy, long sz)
{
    T acc = 0;
    for (int t = 0; t < op.desc.nterms; t++) {
        const hx_term &m = op.terms[t];
        T v = u[i + m.d[0] + sy * m.d[1] + sz * m.d[2]];
        if (m.coef >= 0) v = a[i + m.c[0] + sy * m.c[1] + sz * m.c[2]] * v;
        const T term = (T)m.weight * v;
        acc = t == 0 ? term : acc + term;
    }
    return acc;
}

/* The body for passes of up to `fuse` sweeps, halo H = fuse x radius, as persistent_op.cu's table
 * picks it; its shared memory in *smem */
template <typename T, bool C, int DIM, int H> static std::function<void()> body_of(hx_op_pparams<T> &o, int fuse, size_t *smem)
{
    *smem = op_tile_smem<T, DIM, H>(fuse);
    return [&o] { hx_persistent_op_body<T, C, DIM, H>(o); };
}
template <typename T, bool C, int DIM> static std::function<void()> pick_body(hx_op_pparams<T> &o, int H, int fuse, size_t *smem)
{
    switch (H) {
    case 1: return body_of<T, C, DIM, 1>(o, fuse, smem);
    case 2: return body_of<T, C, DIM, 2>(o, fuse, smem);
    case 3: return body_of<T, C, DIM, 3>(o, fuse, smem);
    case 4: return body_of<T, C, DIM, 4>(o, fuse, smem);
    default:
        if constexpr (DIM == 2) {
            if (H == 6) return body_of<T, C, DIM, 6>(o, fuse, smem);
            if (H == 8) return body_of<T, C, DIM, 8>(o, fuse, smem);
        }
        return nullptr;
    }
}
template <typename T, int DIM> static int fill_tile(hx_op_pparams<T> &o, const hx_operator *op, const void *const *cv, int H)
{
    switch (H) {
    case 1: return op_tile_fill<T, DIM, 1>(o.ot, op, cv, o.alloc);
    case 2: return op_tile_fill<T, DIM, 2>(o.ot, op, cv, o.alloc);
    case 3: return op_tile_fill<T, DIM, 3>(o.ot, op, cv, o.alloc);
    case 4: return op_tile_fill<T, DIM, 4>(o.ot, op, cv, o.alloc);
    case 6: return op_tile_fill<T, DIM, 6>(o.ot, op, cv, o.alloc);
    case 8: return op_tile_fill<T, DIM, 8>(o.ot, op, cv, o.alloc);
    default: return 0;
    }
}

template <typename T>
static void run(const hx_operator &op, int dim, int depth, const int *global, const int *pgrid, hx_boundary bnd, hx_pattern pat,
                int every, long s1, long s2, int fuse = 1)
{
    const int R = op.radius, H = depth * R;
    emu_problem pb;
    memset(&pb, 0, sizeof pb);
    pb.dim = dim, pb.st = dim == 2 ? HX_JACOBI5 : HX_JACOBI7, pb.depth = H; /* a radius-1 stencil at depth H: ghosts of H */
    pb.bnd = bnd, pb.pattern = pat, pb.levels = 1, pb.sms = 3, pb.norm_every = every;
    for (int a = 0; a < 3; a++) pb.global[a] = a < dim ? global[a] : 1, pb.pgrid[a] = a < dim ? pgrid[a] : 1;
    emu_global g;
    g.dim = dim, g.gh = H;
    for (int a = 0; a < 3; a++) g.n[a] = pb.global[a];
    g.sy = g.n[0] + 2 * H, g.sz = g.sy * (g.n[1] + 2 * H);
    const size_t gcells = (size_t)(g.sz * (dim > 2 ? g.n[2] + 2 * H : 1));
    std::vector<T> u(gcells), a(gcells);
    const uint64_t seed = (uint64_t)global[0] * 1000003u + (uint64_t)global[1] * 101u + (uint64_t)depth * 7u + (uint64_t)R;
    emu_fill(u, seed);
    emu_fill(a, seed + 17);
    const int zr = dim > 2 ? H : 0;
    auto wrap = [&](std::vector<T> &f) {
        for (int z = -zr; z < g.n[2] + zr; z++)
            for (int y = -H; y < g.n[1] + H; y++)
                for (int x = -H; x < g.n[0] + H; x++)
                    if (x < 0 || x >= g.n[0] || y < 0 || y >= g.n[1] || z < 0 || z >= g.n[2])
                        f[(size_t)g.at(x, y, z)] = f[(size_t)g.at((x + g.n[0]) % g.n[0], (y + g.n[1]) % g.n[1], (z + g.n[2]) % g.n[2])];
    };
    if (bnd == HX_PERIODIC) wrap(a);
    std::vector<emu_rank<T>> rk;
    const char *what = emu_setup<T>(pb, rk, g, u, seed);
    /* each rank's coefficient field: the global one at every cell of its allocation */
    std::vector<std::vector<T>> coef(rk.size());
    for (size_t q = 0; q < rk.size() && !what; q++) {
        const hx_decomp &d = rk[q].d;
        coef[q].assign((size_t)hx_alloc_cells(&d), (T)0);
        for (size_t i = 0; i < coef[q].size(); i++) {
            const int c[3] = {(int)(i % (size_t)d.alloc[0]), (int)(i / (size_t)d.alloc[0] % (size_t)d.alloc[1]), (int)(i / ((size_t)d.alloc[0] * d.alloc[1]))};
            int gc[3] = {0, 0, 0};
            bool inside = c[0] < d.local[0] + 2 * d.ghost[0];
            for (int k = 0; k < dim; k++) {
                gc[k] = d.offset[k] + c[k] - d.ghost[k];
                inside &= gc[k] >= -H && gc[k] < g.n[k] + H;
            }
            if (inside) coef[q][i] = a[(size_t)g.at(gc[0], gc[1], gc[2])];
        }
    }
    /* the plain loop, norms of the owned cells' squared change */
    std::vector<double> want, got;
    std::vector<T> ref = u, next;
    for (long k = 0; k < s1 + s2 && !what; k++) {
        if (bnd == HX_PERIODIC) wrap(ref);
        next = ref;
        double acc = 0;
        for (int z = 0; z < g.n[2]; z++)
            for (int y = 0; y < g.n[1]; y++)
                for (int x = 0; x < g.n[0]; x++) {
                    const long i = g.at(x, y, z);
                    next[(size_t)i] = ref_cell(op, ref.data(), a.data(), i, g.sy, dim > 2 ? g.sz : 0);
                    const double dd = (double)next[(size_t)i] - (double)ref[(size_t)i];
                    acc += dd * dd;
                }
        ref.swap(next);
        if (every > 0 && (k + 1) % every == 0) want.push_back(acc);
    }
    std::vector<hx_op_pparams<T>> qs(rk.size());
    for (int l = 0; l < 2 && !what; l++) {
        const long sw = l ? s2 : s1, done0 = l ? s1 : 0;
        const unsigned long long exch0 = l ? (unsigned long long)((s1 + depth - 1) / depth) : 0;
        std::vector<std::vector<T>> before[2];
        for (int b = 0; b < 2; b++)
            for (emu_rank<T> &r : rk) before[b].push_back(r.field[b]);
        std::vector<std::function<void()>> body(rk.size());
        std::vector<hx_emu_grid> grids;
        const bool has_coef = op.desc.ncoef > 0;
        for (size_t q = 0; q < rk.size(); q++) {
            emu_rank<T> &r = rk[q];
            hx_op_pparams<T> &o = qs[q];
            memset(&o, 0, sizeof o);
            hx_pparams &p = o.p;
            p.field[0] = r.field[0].data(), p.field[1] = r.field[1].data();
            hx_pparams_domain(&p, &r.d, R);
            p.depth = depth, p.sweeps = sw, p.done0 = done0, p.norm_every = every;
            const long nnorm = every > 0 ? (done0 + sw) / every - done0 / every : 0;
            r.acc.assign((size_t)nnorm + 1, 0.0);
            p.norm_acc = r.acc.data();
            p.norm_base = every > 0 ? done0 / every : 0;
            p.table = &r.table, p.exch0 = exch0, p.timeout_ns = EMU_TIMEOUT_NS, p.watch = &r.watch, p.abort_flag = &r.abort_flag;
            p.bar = r.bar, p.rank = (int)q, p.cur_out = &r.cur;
            const void *cv[HX_OP_MAX_COEF] = {coef[q].data(), NULL, NULL, NULL};
            op_dev_fill(o.o, &op, cv, p.sy, dim > 2 ? p.sz : 0, p.sy, dim > 2 ? p.sz : 0);
            o.radius = R;
            o.alloc[0] = r.d.alloc[0], o.alloc[1] = r.d.alloc[1], o.alloc[2] = dim == 3 ? r.d.alloc[2] : 1;
            const int Hf = fuse * R;
            p.levels = fuse;
            size_t smem = 0;
            if (dim == 2) fill_tile<T, 2>(o, &op, cv, Hf);
            else fill_tile<T, 3>(o, &op, cv, Hf);
            body[q] = dim == 2 ? (has_coef ? pick_body<T, true, 2>(o, Hf, fuse, &smem) : pick_body<T, false, 2>(o, Hf, fuse, &smem))
                               : (has_coef ? pick_body<T, true, 3>(o, Hf, fuse, &smem) : pick_body<T, false, 3>(o, Hf, fuse, &smem));
            if (!body[q]) {
                printf("FAIL: no body for halo %d\n", Hf);
                failures++;
                return;
            }
            grids.push_back(hx_emu_grid_of(dim3(5u), dim3(256u), smem, body[q]));
        }
        hx_emu_reverse_blocks(l == 1);
        hx_emu_launch_grids((int)grids.size(), grids.data());
        for (size_t q = 0; q < rk.size() && !what; q++) {
            emu_rank<T> &r = rk[q];
            if (r.watch.state || r.abort_flag) what = "the kernel's watchdog gave up";
            else if (fuse == 1 ? r.cur != (int)((done0 + sw) & 1) : r.cur != 0 && r.cur != 1) /* a fused pass flips it once */
                what = "cur_out names the wrong buffer";
            for (size_t i = 0; i < r.keep.size() && !what; i++)
                for (int b = 0; b < 2 && !what; b++)
                    if (r.keep[i] && memcmp(&before[b][q][i], &r.field[b][i], sizeof(T))) what = "a cell neither owned nor received was written";
            r.acc.resize((size_t)(every > 0 ? (done0 + sw) / every - done0 / every : 0));
        }
        std::vector<double> sum(rk[0].acc.size(), 0.0);
        for (const emu_rank<T> &r : rk)
            for (size_t k = 0; k < sum.size(); k++) sum[k] += r.acc[k];
        got.insert(got.end(), sum.begin(), sum.end());
    }
    long bad = 0;
    for (size_t q = 0; q < rk.size() && !what; q++) {
        const emu_rank<T> &r = rk[q];
        for (size_t i = 0; i < r.owned.size(); i++) {
            if (!r.owned[i]) continue;
            const int c[3] = {(int)(i % (size_t)r.d.alloc[0]), (int)(i / (size_t)r.d.alloc[0] % (size_t)r.d.alloc[1]), (int)(i / ((size_t)r.d.alloc[0] * r.d.alloc[1]))};
            int gc[3] = {0, 0, 0};
            for (int k = 0; k < dim; k++) gc[k] = r.d.offset[k] + c[k] - r.d.ghost[k];
            bad += memcmp(&ref[(size_t)g.at(gc[0], gc[1], gc[2])], &r.field[r.cur][i], sizeof(T)) != 0;
        }
    }
    if (!what && bad) what = "owned cells differ from the plain loop";
    if (!what && got.size() != want.size()) what = "a different number of norms";
    for (size_t k = 0; !what && k < want.size(); k++)
        if (!(fabs(got[k] - want[k]) <= 1e-10 * want[k])) what = "a norm differs from the plain loop's";
    runs++;
    if (!what) return;
    failures++;
    printf("FAIL %s %dD %s fuse %d depth %d %s %s ranks %dx%dx%d norms %d sweeps %ld+%ld: %s (%ld cells)\n", sizeof(T) == 4 ? "float" : "double", dim,
           op.name, fuse, depth, bnd == HX_PERIODIC ? "periodic" : "fixed", pat == HX_DIRECT ? "direct" : "staged", pb.pgrid[0], pb.pgrid[1],
           pb.pgrid[2], every, s1, s2, what, bad);
}

template <typename T> static void run_dtype()
{
    hx_operator op;
    const int g2[2] = {23, 17}, g3[3] = {11, 9, 8}, g3w[3] = {14, 9, 8};
    const int one[3] = {1, 1, 1}, two_x[3] = {2, 1, 1}, two_y[3] = {1, 2, 1};
    for (int shape = 0; shape < 4; shape++) {
        for (int R = 1; R <= 3; R++) {
            make_op(op, 2, R, shape);
            run<T>(op, 2, 2, g2, one, HX_PERIODIC, HX_STAGED, 0, 5, 3);
            run<T>(op, 2, 3, g2, two_x, R == 2 ? HX_FIXED : HX_PERIODIC, HX_DIRECT, 4, 7, 4);
            run<T>(op, 2, 1, g2, two_y, HX_FIXED, HX_STAGED, 3, 3, 2);
            /* fused passes of 2 sweeps (fuse x radius 2, 4, 6), depth 2 and 3 (a pass and a single sweep) */
            run<T>(op, 2, 2, g2, two_y, HX_PERIODIC, HX_DIRECT, 0, 5, 4, 2);
            run<T>(op, 2, 3, g2, two_x, HX_FIXED, HX_STAGED, 4, 7, 5, 2);
        }
        /* passes of 4 and 8 sweeps of radius 1, norms cutting them short */
        make_op(op, 2, 1, shape);
        run<T>(op, 2, 4, g2, two_x, HX_PERIODIC, HX_STAGED, 0, 9, 4, 4);
        run<T>(op, 2, 8, g2, one, HX_FIXED, HX_DIRECT, 5, 17, 8, 8);
        run<T>(op, 2, 5, g2, two_y, HX_PERIODIC, HX_DIRECT, 3, 11, 5, 4);
        for (int R = 1; R <= 2; R++) {
            make_op(op, 3, R, shape);
            run<T>(op, 3, 2, g3, one, HX_PERIODIC, HX_DIRECT, 0, 3, 2);
            run<T>(op, 3, 1, g3, two_x, HX_FIXED, HX_STAGED, 2, 2, 3);
            /* fused passes: 2 sweeps a pass (depth 3: a pass and a single sweep a cycle; norms cut passes short) */
            run<T>(op, 3, 3, g3w, two_x, HX_PERIODIC, HX_DIRECT, 0, 7, 4, 2);
            run<T>(op, 3, 2, g3, one, HX_FIXED, HX_STAGED, 3, 5, 3, 2);
        }
        make_op(op, 3, 1, shape);
        run<T>(op, 3, 4, g3, one, HX_PERIODIC, HX_STAGED, 0, 9, 4, 4);
    }
}

int main(void)
{
    run_dtype<float>();
    run_dtype<double>();
    printf("operator pass kernel on the host: %d of %d runs bit-identical to the plain loop\n", runs - failures, runs);
    return failures ? 1 : 0;
}
