/* hx_custom on the cuda backend (tests/gpu_custom.sh; under compute-sanitizer in
 * tests/gpu_sanitizer_custom.sh): functors of one and of several state fields, 2D and 3D, through
 * the cycle, fused and persistent schedules, every gathered field bit for bit against the
 * single-domain host loop (tests/custom_ref.h); a fused pass too large for shared memory is refused
 * at create. `wave` grids have more tiles than the persistent
 * kernel has blocks, so each block deals itself several tiles a pass.
 * Usage: test_custom_gpu [small|wave [TRANSPORT]]   (small, ipc) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <halox/halox.h>

#include "../examples/gray_scott/model.h"
#include "check_mpi.h"
#include "custom_case.h"

HX_DEFINE_KERNELS(star2d, float)
HX_DEFINE_KERNELS(gray_scott, float)
HX_DEFINE_KERNELS(star3d, float)
HX_DEFINE_KERNELS(pair3d, double)
HX_DEFINE_KERNELS(coupled3d, double)

static bool wave_ = false;

/* A functor's cases: depth and fuse per schedule (fuse x radius within the fused tiles' limit) */
struct plan {
    hx_schedule sched;
    int depth, fuse;
};

template <class F, typename T>
static void cases(hx_context *ctx, const hx_kernel_table *kt, const F &fn, const int n[3], const plan *p, int np, const char *tr)
{
    for (int k = 0; k < np; k++) {
        const hx_boundary b = k % 2 ? HX_FIXED : HX_PERIODIC;
        const hx_pattern pat = k / 2 % 2 ? HX_DIRECT : HX_STAGED;
        /* cycles cut short: a last cycle of fewer sweeps than depth (one whole cycle before it on
         * the wave grids, which the sanitizers run too) */
        run_case<F, T>(ctx, kt, fn, n, p[k].depth, p[k].fuse, b, pat, (wave_ ? 1 : 2) * p[k].depth + 1, p[k].sched, tr);
    }
}

/* A pass that cannot fit a block's shared memory is refused at create, in one line, on every rank */
static void too_big(hx_context *ctx, const hx_kernel_table *kt, const void *params)
{
    const int n[3] = {24, 20, 16};
    hx_layout *l = make_layout(ctx, 3, n, 4, HX_DOUBLE, HX_PERIODIC);
    hx_exchange *x = l ? make_exchange(l, 3, HX_DIRECT, "ipc") : NULL;
    CHECK(x != NULL);
    hx_custom_options o = hx_custom_defaults();
    o.depth = 2;
    o.fuse = 2;
    hx_custom *s = NULL;
    if (x) CHECK_REFUSED(ctx, hx_custom_create(l, x, &o, kt, params, &s), "need 294912 bytes of shared memory a block");
    CHECK(s == NULL);
    hx_exchange_destroy(x);
    hx_layout_destroy(l);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    const bool wave = wave_ = argc > 1 && !strcmp(argv[1], "wave");
    const char *tr = argc > 2 ? argv[2] : "ipc";
    if (argc > 1 && !wave && strcmp(argv[1], "small")) {
        if (rank_ == 0) fprintf(stderr, "test_custom_gpu: unknown size '%s': give small or wave\n", argv[1]);
        MPI_Finalize();
        return 2;
    }
    hx_context_options co = hx_context_defaults();
    co.backend = HX_BACKEND_CUDA;
    hx_context *ctx = NULL;
    if (hx_context_create(MPI_COMM_WORLD, &co, &ctx) != HX_OK) {
        if (rank_ == 0) fprintf(stderr, "test_custom_gpu: no cuda context: %s\n", ctx ? hx_context_error(ctx) : "");
        MPI_Finalize();
        return 1;
    }
    const star2d s2 = {0.11f, 0.02f};
    const gray_scott gs = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};
    const star3d s3 = {0.13f};
    const pair3d p3 = {0.07, 0.02};
    const coupled3d c3 = {0.05, 0.01, 0.1};
    /* 2D tiles: 64 lanes x 16 rows less the halo; 3D: 32 x 8 x 4 less the halo. wave: beyond the
     * 4 blocks an SM x 132 SMs of an H200 at every fuse below */
    const int n2[3] = {wave ? 1100 : 37, wave ? 600 : 33, 1}, n3[3] = {wave ? 100 : 21, wave ? 72 : 19, wave ? 64 : 17};
    const plan r1[] = {{HX_SCHEDULE_CYCLE, 3, 3}, {HX_SCHEDULE_FUSED, 2, 2}, {HX_SCHEDULE_PERSISTENT, 4, 2}, {HX_SCHEDULE_PERSISTENT, 3, 3}};
    const plan r2[] = {{HX_SCHEDULE_CYCLE, 2, 2}, {HX_SCHEDULE_FUSED, 2, 2}, {HX_SCHEDULE_PERSISTENT, 4, 2}, {HX_SCHEDULE_PERSISTENT, 3, 1}};
    /* three double fields of radius 2: a pass of 2 sweeps would need 295 KB of shared memory a block */
    const plan r2f1[] = {{HX_SCHEDULE_CYCLE, 2, 1}, {HX_SCHEDULE_FUSED, 2, 1}, {HX_SCHEDULE_PERSISTENT, 4, 1}, {HX_SCHEDULE_PERSISTENT, 3, 1}};
    cases<star2d, float>(ctx, &hx_kernels_star2d, s2, n2, r2, 4, tr);
    cases<gray_scott, float>(ctx, &hx_kernels_gray_scott, gs, n2, r1, 4, tr);
    cases<star3d, float>(ctx, &hx_kernels_star3d, s3, n3, r1, 4, tr);
    cases<pair3d, double>(ctx, &hx_kernels_pair3d, p3, n3, r1, 4, tr);
    cases<coupled3d, double>(ctx, &hx_kernels_coupled3d, c3, n3, r2f1, 4, tr);
    too_big(ctx, &hx_kernels_coupled3d, &c3);
    return finish(ctx);
}
