/* Device helpers every sweep kernel shares: 16-byte cell vectors, loads and stores, the stencil row of one vector. */
/* Header-only (inline templates), so that kernels in any file, a future persistent one included, use them without -rdc.
 *
 * Sweep kernels: each thread owns V consecutive cells in x (one aligned 16-byte vector) and
 * marches along the slowest axis (y in 2D, z in 3D), keeping the 2R+1 vectors of that axis in
 * registers, so each cell is read from memory about once. Neighbours in x come from two scalar
 * loads per side that hit L1. The arithmetic is the shared expression tree of halox/stencil.h,
 * compiled with -fmad=false, so results match the CPU bit for bit. */
#ifndef HALOX_CUDA_COMMON_CUH
#define HALOX_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include <stdint.h>
#include <string.h>

#include "halox/stencil.h"

/* ---------------------------------------------------------------- vector helpers */

template <typename T> struct vec16;
template <> struct vec16<float> { typedef float4 type; enum { n = 4 }; };
template <> struct vec16<double> { typedef double2 type; enum { n = 2 }; };

/* N cells of T moved as one aligned load or store: the 16-byte vector most kernels march (the
 * default N everywhere below), or two floats (sweep3d_pair.cuh). */
template <typename T, int N> struct vec_of;
template <> struct vec_of<float, 4> { typedef float4 type; };
template <> struct vec_of<float, 2> { typedef float2 type; };
template <> struct vec_of<double, 2> { typedef double2 type; };

template <typename T, int N = vec16<T>::n> struct cells {
    T v[N];
};

template <typename T, int N = vec16<T>::n> __device__ __forceinline__ cells<T, N> load_vec(const T *p)
{
    typedef typename vec_of<T, N>::type V;
    cells<T, N> c;
    const V raw = __ldg(reinterpret_cast<const V *>(p));
    memcpy(c.v, &raw, sizeof raw);
    return c;
}

/* Field loads by path: HX_LD_NC, the read-only path, for kernels whose source field nothing writes
 * while they run (the cycle schedule's); HX_LD_CA, cached in L1 but not read-only, for the pass
 * kernel, whose source was written by other blocks earlier in the same launch, before a grid
 * barrier whose fence invalidates L1 (src/exec/pass3d_march.cuh says why that is safe). */
enum { HX_LD_NC = 0, HX_LD_CA = 1 };
template <int LD, typename T> __device__ __forceinline__ T ld_cell(const T *p)
{
    return LD == HX_LD_CA ? __ldca(p) : __ldg(p);
}
template <int LD, typename T> __device__ __forceinline__ cells<T> ld_vec(const T *p)
{
    typedef typename vec16<T>::type V;
    cells<T> c;
    const V raw = LD == HX_LD_CA ? __ldca(reinterpret_cast<const V *>(p)) : __ldg(reinterpret_cast<const V *>(p));
    memcpy(c.v, &raw, sizeof raw);
    return c;
}

template <typename T> __device__ __forceinline__ cells<T> load_shared_vec(const T *p)
{
    cells<T> c;
    typename vec16<T>::type raw = *reinterpret_cast<const typename vec16<T>::type *>(p);
    memcpy(c.v, &raw, sizeof raw);
    return c;
}

/* The cells of x0 .. x0+N-1 at p that lie in [lo, hi): one vector store where all do */
template <typename T, int N> __device__ __forceinline__ void store_cells(T *p, const cells<T, N> &c, int x0, int lo, int hi)
{
    typedef typename vec_of<T, N>::type V;
    if (x0 >= lo && x0 + N <= hi) {
        V raw;
        memcpy(&raw, c.v, sizeof raw);
        *reinterpret_cast<V *>(p) = raw;
    } else {
#pragma unroll
        for (int i = 0; i < N; i++)
            if (x0 + i >= lo && x0 + i < hi) p[i] = c.v[i];
    }
}

/* The centre row of x values x0-R .. x0+N+R-1: R scalars each side of the aligned vector, which
 * hit L1 because the neighbouring lanes load them as vectors. Indices are clamped to the row so
 * that lanes whose cells lie outside the box never read outside the allocation (their results
 * are not stored). */
template <typename T, int R, int N = vec16<T>::n> struct xrow {
    T v[N + 2 * R];
};

template <typename T, int R, int N = vec16<T>::n>
__device__ __forceinline__ xrow<T, R, N> load_xrow(const T *row, const cells<T, N> &centre, int x0, int pitch)
{
    xrow<T, R, N> r;
#pragma unroll
    for (int i = 0; i < R; i++) {
        r.v[i] = __ldg(row + max(x0 - R + i, 0));
        r.v[R + N + i] = __ldg(row + min(x0 + N + i, pitch - 1));
    }
#pragma unroll
    for (int i = 0; i < N; i++) r.v[R + i] = centre.v[i];
    return r;
}

/* A prefetch of the L2 line holding p: bytes in flight from DRAM with no register to land in. */
__device__ __forceinline__ void prefetch_l2(const void *p)
{
#ifndef HALOX_EMULATE
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}

/* Programmatic dependent launch (compute capability 9.0 on; ops.h: launch_sweep_kernel). A kernel
 * launched as a dependent may have its blocks placed while the kernel before it drains, so each
 * calls grid_dep_enter first: it waits until every earlier grid has ended and its writes are
 * visible, and only then lets the next kernel be placed (the launch waits for every block of this
 * grid to say so or end). Both steps are no-ops for a plain launch. */
__device__ __forceinline__ void grid_dep_enter()
{
#if !defined(HALOX_EMULATE) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* The block's tile in a plain sweep's grid, its slowest axis (z in 3D, y in 2D: the layers or row
 * chunks the blocks are issued by) taken last to first where flip is set. cu_sweep sets it on every
 * other sweep of a chain (each reading what the one before wrote), so that a sweep starts on the
 * planes the sweep before it wrote last, still in L2. Only which block takes which tile changes. */
template <bool Z> __device__ __forceinline__ uint3 sweep_tile(int flip)
{
    uint3 t = blockIdx;
    if (flip) {
        if (Z) t.z = gridDim.z - 1 - t.z;
        else t.y = gridDim.y - 1 - t.y;
    }
    return t;
}

/* ---------------------------------------------------------------- stencil rows */

__device__ __forceinline__ float apply2(float w, float e, float s, float n, float ww, float ee, float ss, float nn, int R)
{
    return R == 1 ? hx_jacobi5v_f32(w, e, s, n) : hx_star9v_f32(w, e, s, n, ww, ee, ss, nn);
}
__device__ __forceinline__ double apply2(double w, double e, double s, double n, double ww, double ee, double ss,
                                         double nn, int R)
{
    return R == 1 ? hx_jacobi5v_f64(w, e, s, n) : hx_star9v_f64(w, e, s, n, ww, ee, ss, nn);
}
__device__ __forceinline__ float apply3(float w, float e, float s, float n, float d, float u, float ww, float ee,
                                        float ss, float nn, float dd, float uu, int R)
{
    return R == 1 ? hx_jacobi7v_f32(w, e, s, n, d, u) : hx_star13v_f32(w, e, s, n, d, u, ww, ee, ss, nn, dd, uu);
}
__device__ __forceinline__ double apply3(double w, double e, double s, double n, double d, double u, double ww,
                                         double ee, double ss, double nn, double dd, double uu, int R)
{
    return R == 1 ? hx_jacobi7v_f64(w, e, s, n, d, u) : hx_star13v_f64(w, e, s, n, d, u, ww, ee, ss, nn, dd, uu);
}

/* The outputs of one vector (N cells): c is the centre row with R cells each side, w the 2R+1 vectors
 * along the marching axis (centre at w[R]), ys (3D) the vectors y-R .. y-1, y+1 .. y+R. For
 * R == 1 the distance-2 arguments are unused. */
template <typename T, int R>
__device__ __forceinline__ cells<T> stencil_row2(const xrow<T, R> &c, const cells<T> (&w)[2 * R + 1])
{
    cells<T> out;
#pragma unroll
    for (int i = 0; i < vec16<T>::n; i++) {
        const int k = R + i;
        out.v[i] = apply2(c.v[k - 1], c.v[k + 1], w[R - 1].v[i], w[R + 1].v[i], c.v[k - R], c.v[k + R], w[0].v[i],
                          w[2 * R].v[i], R);
    }
    return out;
}

template <typename T, int R, int N = vec16<T>::n>
__device__ __forceinline__ cells<T, N> stencil_row3(const xrow<T, R, N> &c, const cells<T, N> (&ys)[2 * R],
                                                    const cells<T, N> (&w)[2 * R + 1])
{
    cells<T, N> out;
#pragma unroll
    for (int i = 0; i < N; i++) {
        const int k = R + i;
        out.v[i] = apply3(c.v[k - 1], c.v[k + 1], ys[R - 1].v[i], ys[R].v[i], w[R - 1].v[i], w[R + 1].v[i], c.v[k - R],
                          c.v[k + R], ys[0].v[i], ys[2 * R - 1].v[i], w[0].v[i], w[2 * R].v[i], R);
    }
    return out;
}

/* An opaque copy of v: what is computed from it cannot be hoisted out of the branch that makes it
 * (the fused bodies' rare fix-ups, whose hoisted addresses would take the march's registers). */
__device__ __forceinline__ int hx_opaque(int v)
{
#ifdef HALOX_EMULATE
    return v;
#else
    int r;
    asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v));
    return r;
#endif
}

/* A box in the cells of one allocation: the argument of the sweep kernels (and of the diff-norm). */
struct sweep_args {
    int lo[3], hi[3];
    int xbase;  /* lo[0] rounded down to a vector start (vec_floor) */
    int xlow;   /* the first and the last vector start of a row, in (-V, 0] and (pitch - 1 - V, pitch - 1] */
    int xhigh;  /* (vec_floor): vector loads clamped to them stay on vector starts */
    int pitch;  /* row length in cells */
    long sy, sz;
};

/* ---------------------------------------------------------------- where a field's vectors start
 * At the 16-byte multiples of its address. The layouts' rows start on them (pitches are multiples
 * of HX_ROW_ALIGN cells), so every row has the same phase, the cells its cell 0 lies past a vector
 * start: 0 for the layouts' own fields, lead mod V for one allocated with a lead (compute/backend.h:
 * hx_field_lead). A row's vectors start at x = -phase (mod V). */
static inline int vec_phase(const void *p, size_t elem, int V) { return (int)((uintptr_t)p / elem % (uintptr_t)V); }
/* The vector start at or below x (x >= -V) */
__host__ __device__ __forceinline__ int vec_floor(int x, int phase, int V) { return x - (x + phase + V) % V; }
/* a's vector starts (xbase, xlow, xhigh) for a field of that phase, from a.lo[0] and a.pitch */
static inline void sweep_args_vectors(sweep_args &a, int phase, int V)
{
    a.xbase = vec_floor(a.lo[0], phase, V);
    a.xlow = vec_floor(0, phase, V);
    a.xhigh = vec_floor(a.pitch - 1, phase, V);
}

#endif
