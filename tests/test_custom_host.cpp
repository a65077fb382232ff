/* hx_custom on the cpu backend (tests/custom.sh: 1 to 9 ranks): the Gray-Scott functor (2D, two
 * float fields) and a 3D functor of radius 2 (three double fields) over depths 1-4, both
 * boundaries, cycles cut short, each gathered field bit for bit against the single-domain host loop
 * (tests/custom_ref.h); bad input is HX_ERR_INPUT with one line, on every rank alike. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <halox/halox.h>

#include "../examples/gray_scott/model.h"
#include "check_mpi.h"
#include "custom_case.h"

HX_DEFINE_KERNELS(gray_scott, float)
HX_DEFINE_KERNELS(coupled3d, double)

/* A refusal: HX_ERR_INPUT on every rank, a one-line message naming `part` */
static void expect_input(hx_context *ctx, hx_layout *l, hx_exchange *x, int depth, int fuse, const hx_kernel_table *kt, const void *params,
                         const char *part, hx_schedule sched = HX_SCHEDULE_CYCLE)
{
    hx_custom_options o = hx_custom_defaults();
    o.depth = depth;
    o.fuse = fuse;
    o.schedule = sched;
    hx_custom *s = NULL;
    CHECK_REFUSED(ctx, hx_custom_create(l, x, &o, kt, params, &s), part);
    CHECK(s == NULL);
    if (s) hx_custom_destroy(s);
}

static void bad_inputs(hx_context *ctx)
{
    const gray_scott gs = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};
    const coupled3d c3 = {0.05, 0.01, 0.1};
    const int n2[3] = {36, 30, 1}, n3[3] = {18, 18, 16};
    hx_layout *l = make_layout(ctx, 2, n2, 2, HX_FLOAT, HX_PERIODIC);
    hx_exchange *x2 = make_exchange(l, 2, HX_STAGED), *x1 = make_exchange(l, 1, HX_STAGED);
    expect_input(ctx, l, x2, 1, 1, &hx_kernels_coupled3d, &c3, "3D but the layout is 2D");
    expect_input(ctx, l, x2, 3, 1, &hx_kernels_gray_scott, &gs, "below depth 3 x radius 1");
    expect_input(ctx, l, x2, 2, 3, &hx_kernels_gray_scott, &gs, "fuse 3 exceeds depth 2");
    expect_input(ctx, l, x1, 1, 1, &hx_kernels_gray_scott, &gs, "the exchange moves 1");
    expect_input(ctx, l, x2, 1, 1, &hx_kernels_gray_scott, NULL, "params is NULL");
    expect_input(ctx, l, x2, 1, 1, NULL, &gs, "no kernel table");
    /* the device schedules: kernels on the GPU, over a transport's device path */
    expect_input(ctx, l, x2, 2, 2, &hx_kernels_gray_scott, &gs, "schedule persistent runs kernels: use the cuda backend", HX_SCHEDULE_PERSISTENT);
    expect_input(ctx, l, x2, 2, 1, &hx_kernels_gray_scott, &gs, "schedule fused runs kernels", HX_SCHEDULE_FUSED);
    expect_input(ctx, l, x2, 2, 1, &hx_kernels_gray_scott, &gs, "unknown schedule 7", (hx_schedule)7);
    hx_exchange_destroy(x1);
    hx_exchange_destroy(x2);
    hx_layout_destroy(l);
    hx_layout *ld = make_layout(ctx, 2, n2, 2, HX_DOUBLE, HX_PERIODIC);
    hx_exchange *xd = make_exchange(ld, 2, HX_STAGED);
    expect_input(ctx, ld, xd, 1, 1, &hx_kernels_gray_scott, &gs, "of float but the layout is double");
    hx_exchange_destroy(xd);
    hx_layout_destroy(ld);
    hx_layout *l3 = make_layout(ctx, 3, n3, 6, HX_DOUBLE, HX_FIXED);
    hx_exchange *x3 = make_exchange(l3, 3, HX_STAGED);
    expect_input(ctx, l3, x3, 3, 3, &hx_kernels_coupled3d, &c3, "fuse 3 x radius 2 exceeds 4 in 3D");
    hx_exchange_destroy(x3);
    hx_layout_destroy(l3);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    hx_context_options co = hx_context_defaults();
    co.backend = HX_BACKEND_CPU;
    hx_context *ctx = NULL;
    CHECK_EQ(hx_context_create(MPI_COMM_WORLD, &co, &ctx), HX_OK);
    const gray_scott gs = {0.16f, 0.08f, 0.035f, 0.065f, 1.0f};
    const coupled3d c3 = {0.05, 0.01, 0.1};
    const int n2[3] = {36, 30, 1}, n3[3] = {18, 18, 16};
    const int plan[][3] = {{1, 1, 5}, {2, 2, 7}, {4, 4, 10}, {3, 2, 8}}; /* depth, fuse, sweeps */
    for (int k = 0; k < 4; k++) {
        const hx_boundary b = k % 2 ? HX_FIXED : HX_PERIODIC;
        const hx_pattern p = k / 2 % 2 ? HX_DIRECT : HX_STAGED;
        run_case<gray_scott, float>(ctx, &hx_kernels_gray_scott, gs, n2, plan[k][0], plan[k][1], b, p, plan[k][2]);
        if (plan[k][0] <= 2)
            run_case<coupled3d, double>(ctx, &hx_kernels_coupled3d, c3, n3, plan[k][0], plan[k][1], k % 2 ? HX_PERIODIC : HX_FIXED, p,
                                        plan[k][2]);
    }
    bad_inputs(ctx);
    return finish(ctx);
}
