/* The operator sweep bodies of the CUDA backend (src/compute/cuda/op_tile.cuh: plain sweeps and
 * fused passes; op_cells.cuh: boundary shells) run on the host through tests/emu (a block's
 * threads as fibers), launched as op_sweep.cu launches them, against a plain loop that follows
 * halox/operator.h's order term by term: u' = ((t0 + t1) + t2) + ..., t = w * u[x + d] or
 * w * (a[x + c] * u[x + d]), the weight rounded to the dtype. A pass of N sweeps is N such loops,
 * sweep j on box j, a cell outside box j keeping the source value. 2D and 3D, float and double,
 * every radius and every levels x radius the kernels take; star, box and one-sided shapes, with
 * and without coefficient fields; boxes reaching into the ghosts and sides clipped as at a fixed
 * boundary. Bit for bit, nothing written outside the last box, the source untouched. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "compute/cuda/op_cells.cuh"
#include "compute/cuda/op_tile.cuh"
#include "halox/decomp.h" /* HX_ROW_ALIGN */

#include "emu_ref.h"

static int failures = 0, checks = 0;

enum shape { STAR, BOX, ONE_SIDED, COEF };
static const char *shape_name[] = {"star", "box", "one-sided", "coef"};

/* An operator of radius R in dim D as the private struct holds it (radius over every offset) */
static void make_op(hx_operator &op, int dim, int R, shape s, hx_dtype dt)
{
    memset(&op, 0, sizeof op);
    int n = 0;
    auto add = [&](int dx, int dy, int dz, double w, int coef, int cx, int cy, int cz) {
        hx_term &t = op.terms[n++];
        t.d[0] = dx, t.d[1] = dy, t.d[2] = dz;
        t.weight = w;
        t.coef = coef;
        t.c[0] = cx, t.c[1] = cy, t.c[2] = cz;
    };
    const int zr = dim == 3 ? R : 0;
    if (s == STAR) {
        add(0, 0, 0, -0.4, -1, 0, 0, 0);
        for (int k = 1; k <= R; k++)
            for (int a = 0; a < dim; a++)
                for (int sg = -1; sg <= 1; sg += 2) add(a == 0 ? sg * k : 0, a == 1 ? sg * k : 0, a == 2 ? sg * k : 0, 1.0 / (3 + k + a), -1, 0, 0, 0);
    } else if (s == BOX || s == COEF) {
        for (int z = -zr; z <= zr; z++)
            for (int y = -R; y <= R; y++)
                for (int x = -R; x <= R; x++) {
                    const int t = n;
                    const double w = (t % 2 ? -1.0 : 1.0) / (7 + t);
                    if (s == BOX || t % 3 == 2) add(x, y, z, w, -1, 0, 0, 0);
                    else if (t % 3 == 0) add(x, y, z, w, 0, -x, y, z ? -z : 0); /* the coefficient at the mirrored x */
                    else add(x, y, z, w, 1, 0, 0, 0);
                }
    } else { /* reaches +x, -y and +z only, farthest first */
        for (int k = R; k >= 0; k--) {
            add(k, 0, 0, 0.3 / (k + 1), -1, 0, 0, 0);
            if (k) add(0, -k, 0, -0.2 / k, -1, 0, 0, 0);
            if (k && dim == 3) add(0, 0, k, 0.7 / (k + 2), -1, 0, 0, 0);
            if (k) add(k, -k, dim == 3 ? k : 0, 1.0 / 3, -1, 0, 0, 0);
        }
    }
    op.desc.dim = dim;
    op.desc.dtype = dt;
    op.desc.nterms = n;
    op.desc.terms = op.terms;
    op.desc.ncoef = s == COEF ? 2 : 0;
    snprintf(op.name, sizeof op.name, "%s%d", shape_name[s], R);
    op.desc.name = op.name;
    int r = 0;
    for (int t = 0; t < n; t++)
        for (int a = 0; a < 3; a++) {
            const int v = abs(op.terms[t].d[a]), c = op.terms[t].coef >= 0 ? abs(op.terms[t].c[a]) : 0;
            r = std::max(r, std::max(v, c));
            op.radius_axis[a] = std::max(op.radius_axis[a], std::max(v, c));
        }
    op.radius = r;
}

/* The documented order at cell i, from the description alone */
template <typename T> static T ref_cell(const hx_operator &op, const T *u, const std::vector<const T *> &coef, long i, long sy, long sz)
{
    T acc = 0;
    for (int t = 0; t < op.desc.nterms; t++) {
        const hx_term &m = op.terms[t];
        T v = u[i + m.d[0] + sy * m.d[1] + sz * m.d[2]];
        if (m.coef >= 0) v = coef[(size_t)m.coef][i + m.c[0] + sy * m.c[1] + sz * m.c[2]] * v;
        const T term = (T)m.weight * v;
        acc = t == 0 ? term : acc + term;
    }
    return acc;
}

struct op_case {
    int n[3];       /* owned cells */
    int slack;      /* ghost cells beyond levels x radius */
    int extra;      /* the last box grows this many radii into the ghosts */
    unsigned fixed; /* sides that stop at the owned cells (emu_level_box) */
};

template <typename T, int DIM, int H>
static void run_case(const hx_operator &op, int L, const op_case &c)
{
    const int R = op.radius, g = (L + c.extra) * R + c.slack;
    int n[3] = {c.n[0], c.n[1], DIM == 3 ? c.n[2] : 1};
    const int alloc[3] = {(n[0] + 2 * g + HX_ROW_ALIGN - 1) / HX_ROW_ALIGN * HX_ROW_ALIGN, n[1] + 2 * g, DIM == 3 ? n[2] + 2 * g : 1};
    const long sy = alloc[0], sz = DIM == 3 ? (long)alloc[0] * alloc[1] : 0, cells = (long)alloc[0] * alloc[1] * alloc[2];
    hx_box boxes[HX_FUSE_MAX];
    for (int j = 0; j < L; j++) boxes[j] = emu_level_box(DIM, n, g, (L - 1 - j + c.extra) * R, c.fixed);
    std::vector<T> src((size_t)cells), dst((size_t)cells, (T)-7), want((size_t)cells, (T)-7);
    std::vector<std::vector<T>> cf(HX_OP_MAX_COEF, std::vector<T>((size_t)cells));
    emu_fill(src, (uint64_t)(n[0] * 131 + n[1] * 7 + n[2] + L * 3 + R));
    std::vector<const T *> cp;
    const void *cv[HX_OP_MAX_COEF];
    for (int k = 0; k < HX_OP_MAX_COEF; k++) {
        emu_fill(cf[(size_t)k], (uint64_t)(77 + k));
        cp.push_back(cf[(size_t)k].data());
        cv[k] = cf[(size_t)k].data();
    }
    const std::vector<T> src0 = src;
    std::vector<T> cur = src, next;
    for (int j = 0; j < L; j++) {
        next = src;
        for (int z = boxes[j].lo[2]; z < boxes[j].hi[2]; z++)
            for (int y = boxes[j].lo[1]; y < boxes[j].hi[1]; y++)
                for (int x = boxes[j].lo[0]; x < boxes[j].hi[0]; x++) {
                    const long i = x + sy * y + sz * z;
                    next[(size_t)i] = ref_cell(op, cur.data(), cp, i, sy, sz);
                }
        cur.swap(next);
    }
    const hx_box &out = boxes[L - 1];
    for (int z = out.lo[2]; z < out.hi[2]; z++)
        for (int y = out.lo[1]; y < out.hi[1]; y++)
            for (int x = out.lo[0]; x < out.hi[0]; x++) want[(size_t)(x + sy * y + sz * z)] = cur[(size_t)(x + sy * y + sz * z)];

    op_dev<T> o;
    if (op_tile_fill<T, DIM, H>(o, &op, cv, alloc)) {
        failures++;
        printf("FAIL: op_tile_fill refused %s\n", op.name);
        return;
    }
    const op_tile_args a = op_tile_make(boxes, L, R, alloc, DIM);
    typedef op_shape<DIM, H> S;
    const bool coef = op.desc.ncoef > 0;
    for (int rev = 0; rev < 2; rev++) { /* blocks forwards, then backwards: overlapping writes show */
        std::fill(dst.begin(), dst.end(), (T)-7);
        hx_emu_reverse_blocks(rev);
        hx_emu_launch_block(op_tile_grid<DIM, H>(a), dim3(S::TX, S::TY), op_tile_smem<T, DIM, H>(L), [&] {
            T *smem = reinterpret_cast<T *>(hx_emu_shared());
            if (coef) op_tile_body<T, DIM, H, true>(src.data(), dst.data(), o, a, blockIdx, smem, (int)threadIdx.x, (int)threadIdx.y);
            else op_tile_body<T, DIM, H, false>(src.data(), dst.data(), o, a, blockIdx, smem, (int)threadIdx.x, (int)threadIdx.y);
        });
        checks++;
        const long i = emu_first_diff(dst, want);
        if (i < 0 && emu_first_diff(src, src0) < 0) continue;
        failures++;
        printf("FAIL %s %dD %s R=%d N=%d n=%dx%dx%d g=%d fixed=%#x blocks %s: ", sizeof(T) == 4 ? "float" : "double", DIM, op.name, R, L,
               n[0], n[1], n[2], g, c.fixed, rev ? "backwards" : "forwards");
        emu_print_where(i, sy, sz, dst, want);
        return;
    }
    if (L > 1) return;
    /* the boundary shell's per-cell body: the first level's box cut into three thin boxes */
    const hx_box &b = boxes[0];
    hx_box thin[3] = {b, b, b};
    const int ax = DIM - 1, mid = (b.lo[ax] + b.hi[ax]) / 2;
    thin[0].hi[ax] = b.lo[ax] + 1;
    thin[1].lo[ax] = mid, thin[1].hi[ax] = mid + 1;
    thin[2].lo[ax] = b.hi[ax] - 1;
    std::fill(dst.begin(), dst.end(), (T)-7);
    std::fill(want.begin(), want.end(), (T)-7);
    for (const hx_box &t : thin)
        for (int z = t.lo[2]; z < t.hi[2]; z++)
            for (int y = t.lo[1]; y < t.hi[1]; y++)
                for (int x = t.lo[0]; x < t.hi[0]; x++) {
                    const long k = x + sy * y + sz * z;
                    want[(size_t)k] = cur[(size_t)k];
                }
    op_dev<T> og;
    op_dev_fill(og, &op, cv, sy, sz, sy, sz);
    const box_set set = op_box_set(3, thin);
    hx_emu_launch(dim3(3), dim3(64), [&] {
        if (coef) op_cells_body<T, true>(src.data(), dst.data(), set, og, sy, sz, blockIdx.x, gridDim.x, threadIdx.x, blockDim.x);
        else op_cells_body<T, false>(src.data(), dst.data(), set, og, sy, sz, blockIdx.x, gridDim.x, threadIdx.x, blockDim.x);
    });
    checks++;
    const long i = emu_first_diff(dst, want);
    if (i < 0) return;
    failures++;
    printf("FAIL %s %dD %s R=%d shell n=%dx%dx%d: ", sizeof(T) == 4 ? "float" : "double", DIM, op.name, R, n[0], n[1], n[2]);
    emu_print_where(i, sy, sz, dst, want);
}

template <typename T, int DIM, int H> static void run_levels(int R, int L)
{
    static const op_case c2[] = {
        {{70, 45, 1}, 1, 0, 0u},   /* partial tiles at both ends */
        {{150, 37, 1}, 0, 1, 0x9u}, /* x low and y high sides fixed, the last box into the ghosts */
        {{5, 3, 1}, 2, 0, 0xfu},   /* smaller than a tile, every side fixed */
        {{190, 100, 1}, 1, 0, 0u}, /* tiles inside the allocation */
    };
    static const op_case c3[] = {
        {{37, 11, 9}, 1, 0, 0u},
        {{20, 9, 6}, 0, 1, 0x21u}, /* x low and z high fixed */
        {{3, 4, 2}, 1, 0, 0x3fu},
        {{70, 30, 29}, 0, 0, 0u}, /* tiles inside the allocation */
    };
    for (int s = STAR; s <= COEF; s++) {
        hx_operator op;
        make_op(op, DIM, R, (shape)s, sizeof(T) == 4 ? HX_FLOAT : HX_DOUBLE);
        for (const op_case &c : DIM == 2 ? c2 : c3) run_case<T, DIM, H>(op, L, c);
    }
}

/* every (radius, levels) with levels x radius == H */
template <typename T, int DIM, int H> static void run_halo(int rmax)
{
    for (int R = 1; R <= rmax && R <= H; R++)
        if (H % R == 0) run_levels<T, DIM, H>(R, H / R);
}

template <typename T> static void run_dtype()
{
    run_halo<T, 2, 1>(4);
    run_halo<T, 2, 2>(4);
    run_halo<T, 2, 3>(4);
    run_halo<T, 2, 4>(4);
    run_halo<T, 2, 5>(4);
    run_halo<T, 2, 6>(4);
    run_halo<T, 2, 7>(4);
    run_halo<T, 2, 8>(4);
    run_halo<T, 3, 1>(2);
    run_halo<T, 3, 2>(2);
    run_halo<T, 3, 3>(2);
    run_halo<T, 3, 4>(2);
}

int main(void)
{
    run_dtype<float>();
    run_dtype<double>();
    printf("operator sweep bodies on the host: %d of %d sweeps, passes and shells bit-identical to the documented order\n",
           checks - failures, checks);
    return failures ? 1 : 0;
}
