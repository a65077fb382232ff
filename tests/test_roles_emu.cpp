/* The role-based fused kernel (src/exec/roles_kernel.cuh: N sender/interior blocks, R receivers, M
 * boundary blocks on an atomic ticket) on the host through tests/emu: one rank (fixed and periodic:
 * a periodic rank is its own neighbour) and two ranks of one process (2x1 and 1x2 in 2D, 2x1x1 and
 * 1x1x2 in 3D) whose grids run together in one scheduler, each putting into the other's receive
 * slots as CUDA IPC maps them (tests/emu/emu_ranks.h). Depth 1, the direct pattern (the kernel's
 * scope), the four stencils, float and double, grids of 3 to 8 blocks (so R, M > 1 as well as 1),
 * blocks in blockIdx order, reversed and in a fresh random order every round (the ticket, not
 * blockIdx, gives the roles). Two launches continue the exchange count: one cycle each (the fused
 * schedule's launches) and several cycles each (cycles meeting at a grid barrier); the owned cells
 * must agree bit for bit with the plain loop of the global problem, cells neither owned nor
 * received are never written, norms to rounding, the watchdog never fires, cur_out names the last
 * buffer, and the barrier's counter is back at 0. What this cannot see: memory ordering between
 * SMs or GPUs, IPC, timing. */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "exec/resident_kernel.cuh"
#include "exec/roles_kernel.cuh"
#include "exec/persistent_plan.cuh"
#include "emu_ranks.h"

static int failures = 0, runs = 0, multi_m = 0, multi_r = 0;

/* the split rank 0 gets, for the summary */
static void note_split(const emu_problem &pb)
{
    hx_decomp d;
    char err[256];
    const int nr = pb.pgrid[0] * pb.pgrid[1] * pb.pgrid[2];
    if (hx_decomp_init(&d, pb.dim, pb.global, pb.pgrid, 0, nr, pb.bnd, emu_radius(pb.st), err, sizeof err)) return;
    hx_pparams p;
    memset(&p, 0, sizeof p);
    hx_pparams_domain(&p, &d, emu_radius(pb.st));
    int ns = 0, nrecv = 0, nb = 0;
    hx_roles_split(p, pb.roles, &ns, &nrecv, &nb);
    multi_m += nb > 1;
    multi_r += nrecv > 1;
}

/* hx_roles_split and hx_roles_grid on problems the emulator cannot run whole (the GPU sizes of the
 * benchmarks): every role gets a block, the three add up to the grid, and the senders' path (interior
 * cells per sender, or ghosts per receiver plus shell cells per boundary block, whichever is longer)
 * is within 25% of the continuous optimum from 17 blocks on. */
static void check_splits(void)
{
    struct { int dim, n[3], r; } cases[] = {{2, {1024, 1024, 1}, 1}, {2, {512, 512, 1}, 2}, {2, {4096, 4096, 1}, 1},
                                            {3, {256, 256, 256}, 1}, {3, {128, 96, 80}, 2}, {2, {9, 7, 1}, 1}};
    int bad = 0;
    for (const auto &c : cases)
        for (int grid : {3, 4, 17, 129, 264, 528, 1024}) {
            hx_decomp d;
            char err[256];
            const int pg[3] = {1, 1, 1};
            if (hx_decomp_init(&d, c.dim, c.n, pg, 0, 1, HX_PERIODIC, c.r, err, sizeof err)) {
                printf("FAIL: split check: %s\n", err);
                bad++;
                continue;
            }
            hx_pparams p;
            memset(&p, 0, sizeof p);
            hx_pparams_domain(&p, &d, c.r);
            int ns = 0, nrecv = 0, nb = 0;
            hx_roles_split(p, grid, &ns, &nrecv, &nb);
            hx_box S;
            for (int a = 0; a < 3; a++) S.lo[a] = p.olo[a], S.hi[a] = p.ohi[a];
            const double I = (double)hx_roles_cells(hx_roles_interior(p)), G = (double)hx_roles_ghosts(p),
                         B = (double)hx_roles_cells(S) - I;
            /* the longer of the two paths against the continuous optimum (I + (sqrt G + sqrt B)^2) / grid */
            const double crit = fmax(I / ns, G / nrecv + B / nb), ideal = (I + pow(sqrt(G) + sqrt(B), 2)) / grid;
            if (ns < 1 || nrecv < 1 || nb < 1 || ns + nrecv + nb != grid || (grid >= 17 && crit > 1.25 * ideal)) {
                printf("FAIL: split of %dx%dx%d (r %d) over %d blocks: %d senders, %d receivers, %d boundary blocks "
                       "(longer path %.0f cells a block, optimum %.0f)\n", c.n[0], c.n[1], c.n[2], c.r, grid, ns, nrecv, nb,
                       crit, ideal);
                bad++;
            }
        }
    const int g = hx_roles_grid(1024L * 1024, 4, 132);
    if (g != 528 || hx_roles_grid(10, 4, 132) != 3) {
        printf("FAIL: hx_roles_grid: %d blocks for 1024^2 on 132 SMs x 4 (want 528), %d for 10 cells (want 3)\n", g,
               hx_roles_grid(10, 4, 132));
        bad++;
    }
    failures += bad;
    printf("role split checks: %s\n", bad ? "FAILED" : "every role a block, the grid shared, the longer path within 25% of the optimum");
}

template <typename T, int ST> static void run(const emu_problem &pb, long s1, long s2)
{
    static const char *names[] = {"jacobi5", "jacobi7", "star9", "star13"};
    char label[256];
    snprintf(label, sizeof label, "role kernel %s %s %s %dx%dx%d on %dx%dx%d ranks, %d blocks, norms %d cur %d order %d sweeps %ld+%ld",
             sizeof(T) == 4 ? "float" : "double", names[ST], pb.bnd == HX_PERIODIC ? "periodic" : "fixed", pb.global[0],
             pb.global[1], pb.global[2], pb.pgrid[0], pb.pgrid[1], pb.pgrid[2], pb.roles, pb.norm_every, pb.cur0, pb.order, s1, s2);
    runs++;
    note_split(pb);
    failures += emu_run<T, ST>(pb, s1, s2, label);
}

template <typename T, int ST> static void run_stencil()
{
    constexpr int dim = ST == HX_JACOBI5 || ST == HX_STAR9 ? 2 : 3;
    int k = 0;
    for (int split = 0; split < 3; split++) /* 1 rank, 2 ranks along x, 2 ranks along the last axis */
        for (int b = 0; b < 2; b++)
            for (int size = 0; size < 3; size++) /* the third: faces of more cells than a role's threads take in one batch */
                for (int cycles = 0; cycles < 2; cycles++) {
                    if (failures >= 5) return; /* a broken kernel waits for its watchdog in every run: enough */
                    k++;
                    emu_problem pb;
                    memset(&pb, 0, sizeof pb);
                    pb.dim = dim, pb.st = ST, pb.depth = 1;
                    pb.bnd = b ? HX_PERIODIC : HX_FIXED;
                    pb.pattern = HX_DIRECT;
                    for (int a = 0; a < 3; a++) pb.pgrid[a] = 1;
                    if (split) pb.pgrid[split == 1 ? 0 : dim - 1] = 2;
                    pb.levels = 1, pb.sms = 1;
                    pb.cur0 = k & 1;
                    pb.order = k % 3 == 0 ? 0 : k % 3 == 1 ? 1 : 3000 + k;
                    pb.norm_every = k % 4 == 1 ? 0 : 1 + k % 3;
                    pb.roles = 3 + (k * 5) % 6; /* 3 .. 8 blocks */
                    if (dim == 2) {
                        const int sizes[3][2] = {{37, 29}, {9, 7}, {801, 6}};
                        pb.global[0] = sizes[size][0], pb.global[1] = sizes[size][1], pb.global[2] = 1;
                    } else {
                        const int sizes[3][3] = {{15, 9, 13}, {7, 6, 8}, {40, 24, 5}};
                        for (int a = 0; a < 3; a++) pb.global[a] = sizes[size][a];
                    }
                    const long s1 = cycles ? 3 : 1, s2 = cycles ? 2 : 1; /* launches of one cycle (fused), and of several */
                    run<T, ST>(pb, s1, s2);
                }
}

int main(void)
{
    setvbuf(stdout, nullptr, _IOLBF, 0); /* a failure shows at once, before the next run's watchdog */
    check_splits();
    EMU_EACH_STENCIL(run_stencil);
    printf("role kernel on the host, one and two ranks: %d of %d runs bit-identical to the plain loop (%d with more than one "
           "boundary block, %d with more than one receiver; %ld launches of %ld blocks, %ld threads, %ld messages in all)\n",
           runs - failures, runs, multi_m, multi_r, emu_seen.launches, emu_seen.blocks, emu_seen.threads, emu_seen.msgs);
    if (!multi_m || !multi_r) printf("FAIL: no run had several boundary blocks (%d) or receivers (%d)\n", multi_m, multi_r);
    return failures || !multi_m || !multi_r ? 1 : 0;
}
