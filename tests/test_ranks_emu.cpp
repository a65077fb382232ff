/* The kernel-initiated schedules' kernels on two ranks of one process, on the host through tests/emu:
 * each rank its own decomp, plan, fields, barrier and device area (flags and receive slots laid out
 * as the ipc transport lays them out), its message table's remote slots and flags pointing into the
 * other rank's area, as CUDA IPC maps it (tests/emu/emu_ranks.h); both ranks' grids launched at once
 * in one scheduler (hx_emu_launch_grids), so their blocks interleave and every put, flag and
 * flagged word crosses between the ranks as between GPUs. The pass kernel (persistent_kernel.cuh)
 * on 2x1 and 1x2 process grids in 2D and 2x1x1 and 1x1x2 in 3D, staged and direct patterns; the
 * resident kernels (resident_kernel.cuh, resident3d_kernel.cuh) on 2x1 and 1x2 (2x1x1 and 1x1x2),
 * direct, their tiles as persistent_setup.cu picks them for 1 to 3 SMs. Two launches continue the exchange
 * count; the ranks' owned cells must agree bit for bit with the plain loop over the global problem
 * (odd sizes: the ranks own different widths), their norms summed to rounding. Fixed and periodic
 * boundaries (periodic: both neighbours along the split axis are the other rank), float and
 * double, several depths. What this cannot see: memory ordering between GPUs, IPC, timing. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "exec/resident_kernel.cuh"
#include "exec/resident3d_kernel.cuh"
#include "exec/persistent_plan.cuh"
#include "emu_ranks.h"

static int failures = 0, runs = 0, resident_runs = 0;

template <typename T, int ST> static void run(const emu_problem &pb, long s1, long s2)
{
    static const char *names[] = {"jacobi5", "jacobi7", "star9", "star13"};
    char label[256];
    snprintf(label, sizeof label, "%s kernel %s %s depth %d fuse %d %s %s %dx%dx%d on %dx%dx%d ranks norms %d cur %d order %d sweeps %ld+%ld",
             pb.resident ? "resident" : "pass", sizeof(T) == 4 ? "float" : "double", names[ST], pb.depth, pb.levels,
             pb.bnd == HX_PERIODIC ? "periodic" : "fixed", pb.pattern == HX_DIRECT ? "direct" : "staged", pb.global[0], pb.global[1],
             pb.global[2], pb.pgrid[0], pb.pgrid[1], pb.pgrid[2], pb.norm_every, pb.cur0, pb.order, s1, s2);
    runs++;
    resident_runs += pb.resident;
    failures += emu_run<T, ST>(pb, s1, s2, label);
}

template <typename T, int ST> static void run_stencil()
{
    constexpr int dim = ST == HX_JACOBI5 || ST == HX_STAR9 ? 2 : 3;
    static const int depths[] = {1, 2, 3};
    int k = 0;
    for (int kernel = 0; kernel < 2; kernel++)
        for (int depth : depths)
            for (int split = 0; split < 2; split++)
                for (int b = 0; b < 2; b++)
                    for (int pat = kernel; pat < 2; pat++) { /* the resident kernel: direct only */
                        if (failures >= 5) return; /* a broken kernel waits for its watchdog in every run: enough */
                        if (dim == 3 && depth == 3 && pat == 0) continue;
                        k++;
                        emu_problem pb;
                        memset(&pb, 0, sizeof pb);
                        pb.dim = dim, pb.st = ST, pb.depth = kernel ? 2 * depth - 1 : depth;
                        pb.bnd = b ? HX_PERIODIC : HX_FIXED;
                        pb.pattern = pat ? HX_DIRECT : HX_STAGED;
                        pb.resident = kernel == 1;
                        for (int a = 0; a < 3; a++) pb.pgrid[a] = 1;
                        pb.pgrid[split ? dim - 1 : 0] = 2; /* 2x1 or 1x2 (2x1x1 or 1x1x2) */
                        pb.cur0 = k & 1;
                        pb.order = k % 3 == 0 ? 0 : k % 3 == 1 ? 1 : 2000 + k;
                        pb.norm_every = k % 4 == 1 ? 0 : 2 + k % 2;
                        if (dim == 2) {
                            pb.global[0] = split ? 37 : 43, pb.global[1] = split ? 41 : 27, pb.global[2] = 1;
                            if (pb.resident) pb.global[0] += 30, pb.global[1] += 10;
                            pb.levels = 1 + k % 3;
                            pb.sms = pb.resident ? 1 + k % 3 : 2, pb.per_sm_cap = k % 2;
                            pb.march = !pb.resident && k % 2; /* every other pass run: the 2D march (passes of 2 and 1) */
                            pb.inplace = pb.resident && k % 2 ? 1 + k % 3 : 0; /* every other resident run: one buffer in bands */
                        } else {
                            pb.global[0] = 15, pb.global[1] = 9, pb.global[2] = 13;
                            /* the resident kernel: blocks of at least its ring (10 for star13 at depth 5) */
                            if (pb.resident) pb.global[0] = 25, pb.global[1] = 17, pb.global[2] = 23;
                            pb.levels = 1;
                            pb.sms = pb.resident ? 1 + k % 3 : 1, pb.per_sm_cap = 1 + k % 2;
                            pb.march = !pb.resident; /* the pass kernel's 3D passes march register windows */
                            /* and half of those with fused passes (persistent_fused3d.cu): the whole cycle, or
                             * 2 sweeps of star13 and a single one */
                            constexpr int R = ST == HX_STAR13 ? 2 : 1;
                            if (!pb.resident && depth > 1 && k % 4 == 1) pb.levels = depth * R <= HX_FUSE_MAX_3D ? depth : HX_FUSE_MAX_3D / R;
                        }
                        const long s1 = pb.depth + (pb.depth + 1) / 2, s2 = pb.depth + 1; /* 2 + 2 exchanges */
                        run<T, ST>(pb, s1, s2);
                    }
}

/* The 3D resident kernel's tiles for a 4-GPU run's blocks on a 132-SM GPU with 227 KB a block:
 * a rank's 256x128x128 of floats, ring 2, gives 128 tiles of 32^3 with 672 threads (one block an
 * SM); every shape keeps its limits (tiles on the SMs, buffer in the shared memory, two columns a
 * thread of at most HX_RES3_THREADS); doubles get smaller tiles; a block too large for the GPU's
 * shared memory gets none (the pass kernel streams it). */
static void check_resident3d_shapes()
{
    struct {
        int n[3], H;
        size_t elem;
        int fits, tx, ty, tz, threads;
    } cases[] = {
        {{256, 128, 128}, 2, 4, 1, 32, 32, 32, 672},
        {{256, 128, 128}, 3, 4, 1, 0, 0, 0, 0},
        {{128, 128, 128}, 2, 8, 1, 0, 0, 0, 0},
        {{256, 256, 256}, 2, 4, 0, 0, 0, 0, 0},
    };
    for (const auto &c : cases) {
        hx_resident_shape sh;
        memset(&sh, 0, sizeof sh);
        const int fits = hx_resident3d_choose(c.n[0], c.n[1], c.n[2], c.H, c.elem, 132, 227 << 10, emu_fake_occupancy, nullptr, &sh);
        bool ok = fits == c.fits;
        if (fits == 1) {
            ok &= sh.grid == sh.ntx * sh.nty * sh.ntz && sh.grid <= 132 && sh.threads <= HX_RES3_THREADS && sh.threads % 32 == 0;
            ok &= (long)(sh.tx + 2 * c.H) * (sh.ty + 2 * c.H) <= (long)HX_RES3_COLS * sh.threads;
            ok &= sh.smem == (size_t)(sh.tx + 2 * c.H) * (sh.ty + 2 * c.H) * (sh.tz + 2 * c.H) * c.elem && sh.smem <= (227u << 10);
            ok &= sh.ntx * sh.tx >= c.n[0] && sh.nty * sh.ty >= c.n[1] && sh.ntz * sh.tz >= c.n[2] && sh.ring == c.H && sh.pitch == sh.tx + 2 * c.H;
            if (c.tx) ok &= sh.tx == c.tx && sh.ty == c.ty && sh.tz == c.tz && sh.threads == c.threads;
        }
        runs++;
        if (!ok)
            failures++, printf("FAIL resident 3D shape for %dx%dx%d ring %d, %zu-byte cells: fits %d, tiles %dx%dx%d (%d blocks of %d threads, %zu B)\n",
                               c.n[0], c.n[1], c.n[2], c.H, c.elem, fits, sh.tx, sh.ty, sh.tz, sh.grid, sh.threads, sh.smem);
    }
}

int main(void)
{
    setvbuf(stdout, nullptr, _IOLBF, 0); /* a failure shows at once, before the next run's watchdog */
    check_resident3d_shapes();
    EMU_EACH_STENCIL(run_stencil);
    printf("two ranks on the host, both grids at once: %d of %d runs (%d of the resident kernel, the others the pass kernel) "
           "bit-identical to the plain loop of the global problem (%ld launches of %ld blocks, %ld threads, %ld messages in all; "
           "%ld grids of several phases; %ld pass grids with fewer blocks than tiles or warp rows)\n",
           runs - failures, runs, resident_runs, emu_seen.launches, emu_seen.blocks, emu_seen.threads, emu_seen.msgs,
           emu_seen.multi_phase, emu_seen.blocks_short);
    return failures ? 1 : 0;
}
