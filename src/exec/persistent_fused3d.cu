/* The pass kernel's instances with fused 3D passes (hx_persistent_f3_kernel, F3 = 2 .. 4 levels),
 * in a file of their own: twelve kernels (floats in tile rows of 32 and 16 lanes), each with the
 * fused body, the march and the exchange, so persistent_setup.cu compiles alongside. */
#include "exec/persistent_fused3d.h"
#include "exec/resident_kernel.cuh" /* persistent_plan.cuh's other half needs it */
#include "exec/persistent_plan.cuh"

template <typename T, int ST, int L, int S> static hx_f3_kernel instance(void)
{
    constexpr int R = ST == HX_STAR13 ? 2 : 1;
    typedef fused3d_tile<T, R, L, S> C;
    hx_f3_kernel k;
    k.kernel = (void *)hx_persistent_f3_kernel<T, ST, L, S>;
    k.lanes = S;
    k.threads = hx_pk_threads<T, ST, true, L, S>();
    k.smem = fused3d_smem<T, R, L, C::BY, C::P, S>();
    k.plans = hx_f3_plans<T, R, L, S>;
    k.cost = hx_f3_cost<T, R, L, S>;
    return k;
}

template <typename T, int S> static int pick(hx_stencil_id st, int levels, hx_f3_kernel *out)
{
    if (st == HX_JACOBI7 && levels == 2) *out = instance<T, HX_JACOBI7, 2, S>();
    else if (st == HX_JACOBI7 && levels == 3) *out = instance<T, HX_JACOBI7, 3, S>();
    else if (st == HX_JACOBI7 && levels == 4) *out = instance<T, HX_JACOBI7, 4, S>();
    else if (st == HX_STAR13 && levels == 2) *out = instance<T, HX_STAR13, 2, S>();
    else return -1;
    return 0;
}

static_assert(HX_FUSE_MAX_3D == 4, "hx_f3_pick's instances: levels x radius <= 4");

int hx_f3_pick(hx_dtype t, hx_stencil_id st, int levels, int lanes, hx_f3_kernel *out)
{
    if (lanes != 32 && (lanes != 16 || t == HX_DOUBLE)) return -1;
    if (t == HX_DOUBLE) return pick<double, 32>(st, levels, out);
    return lanes == 16 ? pick<float, 16>(st, levels, out) : pick<float, 32>(st, levels, out);
}
