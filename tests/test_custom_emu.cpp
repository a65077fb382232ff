/* The device bodies of a user's functor kernels (halox/kernels/body.cuh: the plain sweep's cell and
 * the fused pass's tile) run on the host through tests/emu (a block's threads as fibers), launched
 * as kernels/launch.cuh launches them, against separate host sweeps of the same functor: sweep j on
 * box j, a cell outside box j keeping the source value. The Gray-Scott functor (2D, float, two
 * fields) and a 3D functor of radius 2 (double, three fields); every levels x radius the pass
 * takes; boxes reaching into the ghosts, sides clipped as at a fixed boundary, fields wider than
 * the boxes. Bit for bit, nothing written outside the last box, the source untouched. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "../examples/gray_scott/model.h"
#include "custom_ref.h"

static int failures = 0, checks = 0;

/* A host copy of the fused body's semantics: `levels` plain sweeps, cells outside box j copied */
template <class F, typename T> static void host_pass(const hx_custom_launch &l, std::vector<T> *out)
{
    const int NF = F::nfields;
    const long cells = (long)l.alloc[0] * l.alloc[1] * l.alloc[2];
    std::vector<T> cur[NF], nxt[NF];
    for (int q = 0; q < NF; q++) cur[q].assign((const T *)l.src[q], (const T *)l.src[q] + cells);
    for (int j = 0; j < l.levels; j++) {
        hx_custom_launch one = l;
        one.levels = 1;
        one.box[0] = l.box[j];
        for (int q = 0; q < NF; q++) {
            nxt[q] = cur[q];
            one.src[q] = cur[q].data();
            one.dst[q] = nxt[q].data();
        }
        if (j == l.levels - 1)
            for (int q = 0; q < NF; q++) one.dst[q] = out[q].data();
        hx_kern::sweep_host<F, T>(&one);
        for (int q = 0; q < NF; q++) cur[q] = nxt[q];
    }
}

template <class F, typename T> static void one_case(const F &fn, const int n[3], int g, int levels, unsigned fixed)
{
    const int NF = F::nfields, D = F::dim, R = F::radius;
    const int alloc[3] = {n[0] + 2 * g + 5, n[1] + 2 * g, D == 3 ? n[2] + 2 * g : 1};
    const long cells = (long)alloc[0] * alloc[1] * alloc[2];
    std::vector<T> src[NF], want[NF], got[NF];
    hx_custom_launch l;
    memset(&l, 0, sizeof l);
    l.nfields = NF;
    l.sy = alloc[0];
    l.sz = D == 3 ? (long)alloc[0] * alloc[1] : 0;
    for (int a = 0; a < 3; a++) l.alloc[a] = alloc[a];
    l.levels = levels;
    l.params = &fn;
    for (int q = 0; q < NF; q++) {
        src[q].resize(cells);
        for (long i = 0; i < cells; i++) src[q][i] = (T)ref_initial(q, (int)(i % alloc[0]), (int)(i / alloc[0] % alloc[1]), (int)(i / l.sy / alloc[1]));
        want[q].assign(cells, (T)-7);
        l.src[q] = src[q].data();
    }
    /* box j: the owned box grown by (levels - 1 - j) R, except on the sides of `fixed` (bit 2a: low
     * side of axis a, bit 2a+1: high) */
    for (int j = 0; j < levels; j++) {
        const int gr = (levels - 1 - j) * R;
        for (int a = 0; a < 3; a++) {
            if (a >= D) {
                l.box[j].lo[a] = 0, l.box[j].hi[a] = 1;
                continue;
            }
            l.box[j].lo[a] = g - (fixed >> (2 * a) & 1 ? 0 : gr);
            l.box[j].hi[a] = g + n[a] + (fixed >> (2 * a + 1) & 1 ? 0 : gr);
        }
    }
    host_pass<F, T>(l, want);
    const hx_kern::args<F, T> a0 = hx_kern::make_args<F, T>(&l);
    for (int rev = 0; rev < 2; rev++) {
        hx_kern::args<F, T> a = a0;
        for (int q = 0; q < NF; q++) {
            got[q].assign(cells, (T)-7);
            a.dst[q] = got[q].data();
        }
        hx_emu_reverse_blocks(rev);
        const int last = levels - 1;
        if (levels == 1 && rev == 0) { /* the plain sweep kernel's cells */
            const int nx = a.hi[0][0] - a.lo[0][0], ny = a.hi[0][1] - a.lo[0][1], nz = a.hi[0][2] - a.lo[0][2];
            hx_emu_launch(dim3((nx + 31) / 32, (ny + 7) / 8, nz), dim3(32, 8), [&] {
                const int x = a.lo[0][0] + (int)(blockIdx.x * blockDim.x + threadIdx.x), y = a.lo[0][1] + (int)(blockIdx.y * blockDim.y + threadIdx.y);
                if (x < a.hi[0][0] && y < a.hi[0][1]) hx_kern::sweep_cell(a, x, y, a.lo[0][2] + (int)blockIdx.z);
            });
        } else {
            typedef hx_kern::tile<D> S;
            unsigned gr[3];
            hx_kern::tile_grid<F>(a.lo[last], a.hi[last], levels, gr);
            hx_emu_launch_block(dim3(gr[0], gr[1], gr[2]), dim3(S::TX, S::TY), hx_kern::fused_smem<F, T>(levels), [&] {
                hx_kern::fused_body(a, blockIdx.x, blockIdx.y, blockIdx.z, reinterpret_cast<T *>(hx_emu_shared()),
                                    (int)(threadIdx.x + S::TX * threadIdx.y), S::TX * S::TY);
            });
        }
        for (int q = 0; q < NF; q++) {
            checks++;
            long bad = -1;
            for (long i = 0; i < cells && bad < 0; i++)
                if (memcmp(&got[q][i], &want[q][i], sizeof(T))) bad = i;
            for (long i = 0; i < cells && bad < 0; i++)
                if (src[q][i] != (T)ref_initial(q, (int)(i % alloc[0]), (int)(i / alloc[0] % alloc[1]), (int)(i / l.sy / alloc[1]))) bad = i;
            if (bad < 0) continue;
            failures++;
            printf("FAIL %dD field %d levels %d g %d fixed %#x %s: cell %ld is %.17g, want %.17g\n", D, q, levels, g, fixed,
                   rev ? "backwards" : "forwards", bad, (double)got[q][bad], (double)want[q][bad]);
        }
    }
}

int main()
{
    const gray_scott gs = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};
    const coupled3d c3 = {0.05, 0.01, 0.1};
    const int n2[3] = {70, 37, 1}, n3[3] = {35, 19, 11};
    for (int L = 1; L <= HX_FUSE_MAX; L++)
        for (unsigned fixed : {0u, 0x5u, 0xau})
            one_case<gray_scott, float>(gs, n2, L + 1, L, fixed);
    for (int L = 1; L * coupled3d::radius <= HX_FUSE_MAX_3D; L++)
        for (unsigned fixed : {0u, 0x11u, 0x26u})
            one_case<coupled3d, double>(c3, n3, 2 * L + 1, L, fixed);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
