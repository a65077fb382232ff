/* A user's own stencil as a functor, made into halox kernels (header-only; docs/custom.md).
 *
 *   struct gray_scott {
 *       static constexpr int dim = 2, radius = 1, nfields = 2;
 *       float du, dv, f, k;
 *       template <class In> __host__ __device__ void operator()(const In &in, float (&out)[2]) const
 *       { ... in(field, dx, dy) ... }
 *   };
 *   HX_DEFINE_KERNELS(gray_scott, float)    in one .cu (device and host kernels) or .cpp (host only)
 *
 * defines `extern "C" const hx_kernel_table hx_kernels_gray_scott` (halox/custom.h) for
 * hx_custom_create, with params = a gray_scott object. The functor must be trivially copyable
 * (it travels by value into the kernels), read no cell beyond its radius, and write every field. A
 * device kernel and the host sweep evaluate the same expressions in the same order on the same
 * values; with contraction off (nvcc -fmad=false, gcc -ffp-contract=off) their bits agree. */
#ifndef HALOX_KERNELS_CUH
#define HALOX_KERNELS_CUH

#include <type_traits>

#include "halox/kernels/body.cuh"
#if defined(__CUDACC__)
#include "halox/kernels/launch.cuh"
#include "halox/kernels/persistent.cuh"
#endif

namespace hx_kern {

template <typename T> struct dtype_of;
template <> struct dtype_of<float> {
    static constexpr hx_dtype value = HX_FLOAT;
};
template <> struct dtype_of<double> {
    static constexpr hx_dtype value = HX_DOUBLE;
};

/* The table of functor F over element type T */
template <class F, typename T> inline hx_kernel_table table(const char *name)
{
    static_assert(F::dim == 2 || F::dim == 3, "a functor's dim is 2 or 3");
    static_assert(F::radius >= 1 && F::radius <= HX_FUSE_MAX, "a functor's radius is 1 .. HX_FUSE_MAX");
    static_assert(F::nfields >= 1 && F::nfields <= HX_CUSTOM_MAX_FIELDS, "a functor has 1 .. HX_CUSTOM_MAX_FIELDS state fields");
    static_assert(std::is_trivially_copyable<F>::value, "a functor travels by value: make it trivially copyable");
    hx_kernel_table t;
    t.name = name;
    t.dim = F::dim;
    t.radius = F::radius;
    t.nfields = F::nfields;
    t.dtype = dtype_of<T>::value;
    t.param_bytes = sizeof(F);
#if defined(__CUDACC__)
    t.sweep = sweep_device<F, T>;
    t.fused = fused_device<F, T>;
    t.persistent = persistent_device<F, T>;
#else
    t.sweep = 0;
    t.fused = 0;
    t.persistent = 0;
#endif
    t.sweep_host = sweep_host<F, T>;
    t.fused_smem = fused_smem<F, T>;
    return t;
}

} // namespace hx_kern

#define HX_DEFINE_KERNELS(F, T) extern "C" const hx_kernel_table hx_kernels_##F = hx_kern::table<F, T>(#F);

#endif
