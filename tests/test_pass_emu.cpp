/* The pass kernel (src/exec/persistent_kernel.cuh: the device schedules' kernel where the resident
 * one does not apply or --kernel passes asks for it, and every 3D run) on the host through tests/emu: one rank,
 * every block resident at once (hx_emu_launch_grid), its halo put into its own receive slots at a
 * periodic boundary (the table as the ipc transport lays it out: tests/emu/emu_ranks.h), flags,
 * grid barriers, unpack, then the sweeps as passes (2D: tiles of shared memory, up to `fuse` levels
 * a pass as the NVSHMEM device API's kernel runs them, or register windows marching in y; 3D:
 * register windows marching in z, or fused passes). Tiles and grid as persistent_setup.cu picks them (hx_pass_tiles and
 * hx_pass_grid, with a stand-in for the occupancy query), a cap on blocks per SM so that a block
 * takes several tiles or rows. Two launches one after the other continue the exchange count, against
 * the same number of sweeps as a plain loop over halox/stencil.h's expressions: bit for bit over the
 * owned cells, cells neither owned nor received never written, norms to rounding. jacobi5, star9,
 * jacobi7 and star13, float and double, several depths and fuse levels, fixed and periodic
 * boundaries, staged and direct patterns (one phase or one per axis), odd sizes, blocks in blockIdx
 * order, reversed and shuffled every round. What this cannot see: memory ordering between SMs (one
 * fiber runs at a time), IPC, timing, occupancy. tests/test_ranks_emu.cpp runs it on two ranks. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "exec/resident_kernel.cuh"
#include "exec/persistent_plan.cuh"
#include "emu_ranks.h"

static int failures = 0, runs = 0;

static const char *st_name(int st)
{
    static const char *n[] = {"jacobi5", "jacobi7", "star9", "star13"};
    return n[st];
}

template <typename T, int ST> static void run(const emu_problem &pb, long s1, long s2)
{
    char label[256];
    snprintf(label, sizeof label, "%s %s depth %d fuse %d %s %s%s %dx%dx%d sms %d cap %d norms %d cur %d order %d sweeps %ld+%ld",
             sizeof(T) == 4 ? "float" : "double", st_name(ST), pb.depth, pb.levels, pb.bnd == HX_PERIODIC ? "periodic" : "fixed",
             pb.pattern == HX_DIRECT ? "direct" : "staged", pb.march ? " march" : "", pb.global[0], pb.global[1], pb.global[2], pb.sms, pb.per_sm_cap,
             pb.norm_every, pb.cur0, pb.order, s1, s2);
    runs++;
    failures += emu_run<T, ST>(pb, s1, s2, label);
}

/* The 2D march on boxes of several strips and several marches down y, the deepest passes (8 sweeps of
 * radius 1, 4 of radius 2), both boundaries, a norm that cuts a pass short. */
template <typename T, int ST> static void run_march2d()
{
    constexpr int R = ST == HX_STAR9 ? 2 : 1;
    for (int b = 0; b < 2; b++) {
        if (failures >= 5) return;
        emu_problem pb;
        memset(&pb, 0, sizeof pb);
        pb.dim = 2, pb.st = ST, pb.depth = 8 / R + 1, pb.levels = 8 / R;
        pb.bnd = b ? HX_PERIODIC : HX_FIXED;
        pb.pattern = b ? HX_DIRECT : HX_STAGED;
        pb.pgrid[0] = pb.pgrid[1] = pb.pgrid[2] = 1;
        pb.global[0] = 141 + 20 * b, pb.global[1] = 70, pb.global[2] = 1;
        pb.sms = 2, pb.per_sm_cap = 1 + b;
        pb.norm_every = b ? 0 : 7;
        pb.cur0 = b, pb.order = b ? 1 : 77;
        pb.march = true;
        run<T, ST>(pb, pb.depth + 3, pb.depth);
    }
}

/* The 3D kernel with fused passes (persistent_fused3d.cu): every levels x radius up to 4, cycles
 * that are whole passes and cycles with a tail of single sweeps, a box of several tiles in x and y
 * and several z chunks over few blocks (a block takes several tiles), both boundaries and
 * patterns, a norm that cuts a pass short; and the passes did run fused. */
template <typename T, int ST> static void run_fused3d()
{
    constexpr int R = ST == HX_STAR13 ? 2 : 1;
    static const int cases[][2] = {{2, 2}, {3, 2}, {3, 3}, {4, 4}, {6, 4}, {5, 2}}; /* depth, levels */
    int k = 0;
    for (const auto &c : cases) {
        if (c[1] * R > HX_FUSE_MAX_3D) continue;
        for (int b = 0; b < 2; b++) {
            if (failures >= 5) return;
            k++;
            emu_problem pb;
            memset(&pb, 0, sizeof pb);
            pb.dim = 3, pb.st = ST, pb.depth = c[0], pb.levels = c[1];
            pb.bnd = b ? HX_PERIODIC : HX_FIXED;
            pb.pattern = (k & 1) ? HX_DIRECT : HX_STAGED;
            pb.pgrid[0] = pb.pgrid[1] = pb.pgrid[2] = 1;
            /* x: two or more tiles of floats (120 or 56 cells a tile at 4 levels), y: one or more tiles of rows */
            pb.global[0] = 150 + 3 * b, pb.global[1] = 40 + k, pb.global[2] = 13 + 2 * b;
            pb.sms = 2 + b; /* fewer blocks than tiles x chunks */
            pb.norm_every = k % 3 == 0 ? 2 * c[0] : 0; /* the pass before a norm is cut short */
            pb.cur0 = k & 1, pb.order = k % 3 == 0 ? 0 : k % 3 == 1 ? 1 : 2000 + k;
            pb.march = true;
            pb.lanes3 = (k & 2) ? 16 : 32; /* floats: both tile widths (fused3d_tile's S); doubles take 32 */
            const long before = hx_emu_fused3d_passes, s1 = c[0] + c[0] / 2 + 1, s2 = c[0];
            run<T, ST>(pb, s1, s2);
            /* the passes of whole cycles; with norms, at least the first cycle's */
            const long want = pb.norm_every ? 1 : (s1 / c[0] + s2 / c[0]) * (c[0] / c[1]);
            if (hx_emu_fused3d_passes - before < want) {
                failures++;
                printf("FAIL fused 3D depth %d levels %d: %ld fused passes ran, want %ld or more\n", c[0], c[1],
                       hx_emu_fused3d_passes - before, want);
            }
        }
    }
}

template <typename T, int ST> static void run_stencil()
{
    if constexpr (ST == HX_JACOBI5 || ST == HX_STAR9) run_march2d<T, ST>();
    else run_fused3d<T, ST>();
    constexpr int dim = ST == HX_JACOBI5 || ST == HX_STAR9 ? 2 : 3;
    static const int depths[] = {1, 2, 3, 5};
    int k = 0;
    for (int depth : depths) {
        if (dim == 3 && depth == 5) continue;
        for (int b = 0; b < 2; b++)
            for (int pat = 0; pat < 2; pat++) {
                if (failures >= 5) return; /* a broken kernel waits for its watchdog in every run: enough */
                k++;
                emu_problem pb;
                memset(&pb, 0, sizeof pb);
                pb.dim = dim, pb.st = ST, pb.depth = depth;
                pb.bnd = b ? HX_PERIODIC : HX_FIXED;
                pb.pattern = pat ? HX_DIRECT : HX_STAGED;
                pb.pgrid[0] = pb.pgrid[1] = pb.pgrid[2] = 1;
                pb.resident = false;
                pb.cur0 = k & 1;
                pb.order = k % 3 == 0 ? 0 : k % 3 == 1 ? 1 : 1000 + k;
                const long s1 = depth + (depth + 1) / 2, s2 = depth + 1; /* 2 + 2 exchanges, the last of each partial */
                if (dim == 2) {
                    /* fuse 1, 2 and the whole cycle; a small grid (blocks take several tiles) and persistent_setup.cu's */
                    const int fuses[] = {1, 2, depth + 1};
                    for (int f = 0; f < 3; f++) {
                        if (f == 2 && depth <= 2) continue;
                        pb.levels = fuses[f];
                        pb.global[0] = f == 1 ? 45 : 37, pb.global[1] = f == 1 ? 23 : 29, pb.global[2] = 1;
                        pb.sms = f == 0 ? 4 : 1 + f, pb.per_sm_cap = f == 0 ? 1 : 0; /* 4 blocks for 8 tiles or more */
                        pb.norm_every = f == 0 ? 0 : f == 1 ? 2 : 3;
                        pb.march = false;
                        run<T, ST>(pb, s1, s2);
                        if (pb.levels == 1) continue;
                        /* the register-window march in y (pass2d_march.cuh, the kernel of every build but the
                         * NVSHMEM device API's): passes of 8, 4, 2 and 1 sweeps */
                        pb.march = true;
                        pb.per_sm_cap = 1 + (k & 1);
                        run<T, ST>(pb, s1, s2);
                    }
                } else {
                    pb.levels = 1;
                    pb.global[0] = 13, pb.global[1] = 11, pb.global[2] = 9;
                    pb.sms = 1, pb.per_sm_cap = 1 + (k & 1); /* 1 or 2 blocks of 512 threads: 16 or 32 warps over 99 rows */
                    pb.norm_every = k % 2 ? 0 : 2;
                    /* the register-window march, also on a box wider than a warp's vectors and deeper
                     * than a march, with several blocks */
                    pb.march = true;
                    run<T, ST>(pb, s1, s2);
                    pb.global[0] = 141, pb.global[1] = 7, pb.global[2] = 37;
                    pb.sms = 2, pb.per_sm_cap = 1;
                    run<T, ST>(pb, s1, s2);
                }
            }
    }
}

/* The 2D march's rows (hx_march2d_rows) at benchmark sizes on a 132-SM GPU (264 blocks of 4 warps):
 * the marches fill their rounds (at least 85% of the warps busy on average), and the pass costs no
 * more than with the cycle kernel's power-of-two rows. */
static void check_march_rows(void)
{
    const long warps = 264 * 4;
    for (int n : {1024, 2048, 4096, 8192, 16384})
        for (int ny : {n / 2, n}) {
            const int V = 4, strips8 = (n / V + 27) / 28, strips4 = (n / V + 29) / 30; /* float: margins 2 and 1 */
            const int s[2] = {strips4, strips8}, rows[2] = {hx_march2d_rows<1, 4>(strips4, ny, warps), hx_march2d_rows<1, 8>(strips8, ny, warps)};
            for (int i = 0; i < 2; i++) {
                const int L = i ? 8 : 4, old = fused2d_march_rows<1, 8>(s[i], ny, warps);
                const long marches = (long)s[i] * ((ny + rows[i] - 1) / rows[i]), rounds = (marches + warps - 1) / warps;
                const long old_marches = (long)s[i] * ((ny + old - 1) / old), old_rounds = (old_marches + warps - 1) / warps;
                const double busy = (double)marches / (double)(rounds * warps);
                runs++;
                if (busy < 0.85 && rounds == 1 && marches < warps && rows[i] > 2 * L) { /* too few marches although shorter ones would do */
                    failures++;
                    printf("FAIL march rows %dx%d L=%d: %d rows, %ld marches in %ld rounds (%.0f%% busy)\n", n, ny, L, rows[i], marches, rounds, 100 * busy);
                }
                if (rows[i] > 128) { /* longer marches lose on the GPU (pass2d_march.cuh) */
                    failures++;
                    printf("FAIL march rows %dx%d L=%d: %d rows, above the cap of 128\n", n, ny, L, rows[i]);
                }
                if (rounds * (rows[i] + 2 * L) > old_rounds * (old + 2 * L)) {
                    failures++;
                    printf("FAIL march rows %dx%d L=%d: %d rows cost %ld, power-of-two %d rows %ld\n", n, ny, L, rows[i],
                           rounds * (rows[i] + 2 * L), old, old_rounds * (old + 2 * L));
                }
            }
        }
}

/* The 2D pass tiles at benchmark sizes on a 132-SM GPU (hx_pass_tiles): within the shared-memory
 * cap, and never more rounds of tiles over the resident blocks than the simpler rule (the
 * largest shape still giving every SM two tiles), which left blocks idle through a nearly empty
 * second round (1024^2 at depth 16: 297 tiles for 264 blocks). */
static void check_tile_choice(void)
{
    static const int old_shapes[][2] = {{16, 8}, {16, 16}, {32, 16}, {64, 16}, {64, 32}, {128, 32}, {128, 64}};
    const int sms = 132;
    for (int n : {512, 1024, 2048, 4096})
        for (int depth : {1, 16})
            for (int levels : {1, 4})
                for (size_t elem : {sizeof(float), sizeof(double)}) {
                    const int global[3] = {n, n, 1}, pgrid[3] = {1, 1, 1};
                    hx_decomp d;
                    char err[256];
                    if (hx_decomp_init(&d, 2, global, pgrid, 0, 1, HX_PERIODIC, depth, err, sizeof err)) {
                        printf("FAIL tiles %d^2: %s\n", n, err);
                        failures++;
                        continue;
                    }
                    hx_pass_shape ps;
                    hx_pass_tiles(&d, 1, levels, sms, depth, elem, &ps);
                    const hx_box b = hx_sweep_box(&d, depth - 1);
                    const long w = b.hi[0] - b.lo[0], h = b.hi[1] - b.lo[1];
                    int pick = 0;
                    for (int i = 0; i < 7; i++)
                        if (((w + old_shapes[i][0] - 1) / old_shapes[i][0]) * ((h + old_shapes[i][1] - 1) / old_shapes[i][1]) >= 2 * sms) pick = i;
                    /* blocks an SM holds: two (registers), fewer where the tile's two buffers take more
                     * than half of the 227 KiB an H100/H200 SM grants */
                    auto rounds = [&](int tx, int ty) {
                        const size_t smem = 2 * (size_t)(tx + 2 * levels) * (ty + 2 * levels) * elem;
                        const long slots = (long)sms * (smem <= 227 * 1024 / 2 ? 2 : 1);
                        return (((w + tx - 1) / tx) * ((h + ty - 1) / ty) + slots - 1) / slots;
                    };
                    const long now = rounds(ps.tx, ps.ty), before = rounds(old_shapes[pick][0], old_shapes[pick][1]);
                    runs++;
                    if (ps.smem > HX_TILE_SMEM || now > before) {
                        printf("FAIL tiles %d^2 depth %d levels %d elem %zu: %dx%d, %zu B, %ld rounds (the simpler rule: %ld)\n", n,
                               depth, levels, elem, ps.tx, ps.ty, ps.smem, now, before);
                        failures++;
                    }
                }
}

int main(void)
{
    setvbuf(stdout, nullptr, _IOLBF, 0); /* a failure shows at once, before the next run's watchdog */
    check_march_rows();
    check_tile_choice();
    EMU_EACH_STENCIL(run_stencil);
    printf("pass kernel on the host, one rank: %d of %d runs bit-identical to the plain loop (%ld launches of %ld blocks, "
           "%ld threads, %ld messages in all; %ld grids of several phases; %ld grids with fewer blocks than tiles or warp rows)\n",
           runs - failures, runs, emu_seen.launches, emu_seen.blocks, emu_seen.threads, emu_seen.msgs, emu_seen.multi_phase,
           emu_seen.blocks_short);
    return failures ? 1 : 0;
}
