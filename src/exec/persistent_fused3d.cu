/* The pass kernel's instances with fused 3D passes (hx_persistent_f3_kernel, F3 = 2 .. 4 levels),
 * in a file of their own: eight kernels, each with the fused body, the march and the exchange, so
 * persistent.cu compiles alongside. */
#include "exec/persistent_fused3d.h"
#include "exec/resident_kernel.cuh" /* persistent_plan.cuh's other half needs it */
#include "exec/persistent_plan.cuh"

template <typename T, int ST, int L> static hx_f3_kernel instance(void)
{
    constexpr int R = ST == HX_STAR13 ? 2 : 1;
    typedef fused3d_tile<T, R, L> C;
    hx_f3_kernel k;
    k.kernel = (void *)hx_persistent_f3_kernel<T, ST, L>;
    k.threads = hx_pk_threads<T, ST, true, L>();
    k.smem = fused3d_smem<T, R, L, C::BY, C::P>();
    k.plans = hx_f3_plans<T, R, L>;
    return k;
}

template <typename T> static int pick(hx_stencil_id st, int levels, hx_f3_kernel *out)
{
    if (st == HX_JACOBI7 && levels == 2) *out = instance<T, HX_JACOBI7, 2>();
    else if (st == HX_JACOBI7 && levels == 3) *out = instance<T, HX_JACOBI7, 3>();
    else if (st == HX_JACOBI7 && levels == 4) *out = instance<T, HX_JACOBI7, 4>();
    else if (st == HX_STAR13 && levels == 2) *out = instance<T, HX_STAR13, 2>();
    else return -1;
    return 0;
}

static_assert(HX_FUSE_MAX_3D == 4, "hx_f3_pick's instances: levels x radius <= 4");

int hx_f3_pick(hx_dtype t, hx_stencil_id st, int levels, hx_f3_kernel *out)
{
    return t == HX_DOUBLE ? pick<double>(st, levels, out) : pick<float>(st, levels, out);
}
