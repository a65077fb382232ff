/* Stencils and the initial field, written once for both the CPU and the CUDA backend.
 *
 * Bit-identical results across backends need the same operations in the same order:
 * every update below is one fixed expression tree, and the build turns off FMA
 * contraction on both sides (-ffp-contract=off for the host compiler, -fmad=false for nvcc),
 * so that a*b+c is never fused on one side and rounded twice on the other. */
#ifndef HALOX_STENCIL_H
#define HALOX_STENCIL_H

#include "halox/types.h"

#ifdef __CUDACC__
#define HX_HD __host__ __device__ __forceinline__
#else
#define HX_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HX_JACOBI5 = 0, /* 2D, radius 1: u' = (W+E+S+N)/4 */
    HX_JACOBI7 = 1, /* 3D, radius 1: u' = (W+E+S+N+D+U)/6 */
    HX_STAR9 = 2,   /* 2D, radius 2: Jacobi step of the 4th-order Laplacian */
    HX_STAR13 = 3,  /* 3D, radius 2: Jacobi step of the 4th-order Laplacian */
    HX_NUM_STENCILS
} hx_stencil_id;

typedef struct {
    const char *name;
    int dim;
    int radius;
} hx_stencil_info;

const hx_stencil_info *hx_stencil_get(hx_stencil_id id);
int hx_stencil_from_name(const char *name, hx_stencil_id *out);

/* The updates, on values: W/E are x-1/x+1, S/N y-1/y+1, D/U z-1/z+1, doubled letters at distance 2.
 * Every kernel (CPU loops, CUDA register tiles) calls these, so the expression tree is one. */
#define HX_DEFINE_STENCILS(T, SUF)                                                                \
    HX_HD T hx_jacobi5v_##SUF(T w, T e, T s, T n) { return ((w + e) + (s + n)) * (T)0.25; }        \
    HX_HD T hx_jacobi7v_##SUF(T w, T e, T s, T n, T d, T u)                                        \
    {                                                                                              \
        return (((w + e) + (s + n)) + (d + u)) * (T)(1.0 / 6.0);                                   \
    }                                                                                              \
    HX_HD T hx_star9v_##SUF(T w, T e, T s, T n, T ww, T ee, T ss, T nn)                             \
    {                                                                                              \
        const T near_ = (w + e) + (s + n), far_ = (ww + ee) + (ss + nn);                           \
        return (near_ * (T)16 - far_) * (T)(1.0 / 60.0);                                           \
    }                                                                                              \
    HX_HD T hx_star13v_##SUF(T w, T e, T s, T n, T d, T u, T ww, T ee, T ss, T nn, T dd, T uu)      \
    {                                                                                              \
        const T near_ = ((w + e) + (s + n)) + (d + u), far_ = ((ww + ee) + (ss + nn)) + (dd + uu); \
        return (near_ * (T)16 - far_) * (T)(1.0 / 90.0);                                           \
    }                                                                                              \
    /* On a pointer p to the centre cell, with y and z strides sy and sz (elements). */            \
    HX_HD T hx_jacobi5_##SUF(const T *p, long sy) { return hx_jacobi5v_##SUF(p[-1], p[1], p[-sy], p[sy]); } \
    HX_HD T hx_jacobi7_##SUF(const T *p, long sy, long sz)                                         \
    {                                                                                              \
        return hx_jacobi7v_##SUF(p[-1], p[1], p[-sy], p[sy], p[-sz], p[sz]);                       \
    }                                                                                              \
    HX_HD T hx_star9_##SUF(const T *p, long sy)                                                    \
    {                                                                                              \
        return hx_star9v_##SUF(p[-1], p[1], p[-sy], p[sy], p[-2], p[2], p[-2 * sy], p[2 * sy]);    \
    }                                                                                              \
    HX_HD T hx_star13_##SUF(const T *p, long sy, long sz)                                          \
    {                                                                                              \
        return hx_star13v_##SUF(p[-1], p[1], p[-sy], p[sy], p[-sz], p[sz], p[-2], p[2], p[-2 * sy], \
                                p[2 * sy], p[-2 * sz], p[2 * sz]);                                  \
    }                                                                                              \
    HX_HD T hx_stencil_apply_##SUF(int id, const T *p, long sy, long sz)                           \
    {                                                                                              \
        switch (id) {                                                                              \
        case HX_JACOBI5: return hx_jacobi5_##SUF(p, sy);                                           \
        case HX_JACOBI7: return hx_jacobi7_##SUF(p, sy, sz);                                       \
        case HX_STAR9: return hx_star9_##SUF(p, sy);                                               \
        default: return hx_star13_##SUF(p, sy, sz);                                                \
        }                                                                                          \
    }

HX_DEFINE_STENCILS(float, f32)
HX_DEFINE_STENCILS(double, f64)

/* Initial value of global cell idx = x + NX*(y + NY*z): the top 24 bits of splitmix64(seed + idx),
 * scaled to [0, 1). 24 bits are exact in float and double, so both dtypes start alike. */
HX_HD uint64_t hx_splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

HX_HD double hx_initial_value(uint64_t seed, uint64_t global_index)
{
    return (double)(hx_splitmix64(seed + global_index) >> 40) * (1.0 / 16777216.0);
}

#ifdef __cplusplus
}
#endif
#endif
