/* The device form of a user operator (halox/operator.h), and the sum of its terms at one cell.
 *
 * A kernel takes the operator by value as a parameter (op_dev<T>), so its term table sits in the
 * constant bank of the launch: every thread walks the same list, so each read is one uniform load
 * for the warp. A term is the offset of the value it reads (into a shared-memory tile, or into the
 * field: where the kernel reads it), the offset of its coefficient cell in the field, which
 * coefficient (-1: none) and its weight rounded to T. The sum runs in list order from term 0,
 * ((t0 + t1) + t2) + ..., with w * (a * u) for a coefficient term; builds use -fmad=false, so
 * the bits are the CPU's. */
#ifndef HALOX_CUDA_OP_DEV_CUH
#define HALOX_CUDA_OP_DEV_CUH

#include <cuda_runtime.h>

#include "core/operator_priv.h"

template <typename T> struct op_dev {
    int n;                          /* terms, 1 .. HX_OP_MAX_TERMS */
    const T *coef[HX_OP_MAX_COEF];  /* origins of the coefficient fields (the swept field's geometry) */
    int uoff[HX_OP_MAX_TERMS];      /* offset of the value read, in the cells of what the kernel reads */
    int coff[HX_OP_MAX_TERMS];      /* offset of the coefficient cell, in the field's cells */
    signed char cidx[HX_OP_MAX_TERMS]; /* coefficient field, -1: none */
    T w[HX_OP_MAX_TERMS];
};

/* Fill o from op for values read with rows sy and planes sz apart (a tile's or the field's), and
 * coefficients in fields of rows fy and planes fz: 0, or -1 where an offset overflows an int. */
template <typename T>
static inline int op_dev_fill(op_dev<T> &o, const hx_operator *op, const void *const *coef, long sy, long sz, long fy, long fz)
{
    o.n = op->desc.nterms;
    for (int c = 0; c < HX_OP_MAX_COEF; c++) o.coef[c] = (const T *)coef[c];
    for (int t = 0; t < o.n; t++) {
        const hx_term &m = op->terms[t];
        const long u = m.d[0] + sy * m.d[1] + sz * m.d[2];
        const long c = m.coef >= 0 ? m.c[0] + fy * m.c[1] + fz * m.c[2] : 0;
        if (u != (int)u || c != (int)c) return -1;
        o.uoff[t] = (int)u;
        o.coff[t] = (int)c;
        o.cidx[t] = (signed char)(m.coef >= 0 ? m.coef : -1);
        o.w[t] = (T)m.weight;
    }
    return 0;
}

/* The first coefficient field a term of op names but coef lacks (NULL), or -1 where every one is there */
static inline int op_missing_coef(const hx_operator *op, const void *const *coef)
{
    for (int t = 0; t < op->desc.nterms; t++)
        if (op->terms[t].coef >= 0 && !coef[op->terms[t].coef]) return op->terms[t].coef;
    return -1;
}

/* Whether any term of op reads a coefficient field (the kernels without such terms skip the test) */
static inline bool op_has_coef(const hx_operator *op)
{
    for (int t = 0; t < op->desc.nterms; t++)
        if (op->terms[t].coef >= 0) return true;
    return false;
}

/* One term's value: w * u, or w * (a * u). CG: u is read through L2 (ld.global.cg), for a field
 * other blocks of the same launch wrote (the persistent kernel's); the coefficients never change. */
template <typename T, bool C, bool CG> __device__ __forceinline__ T op_term(const op_dev<T> &o, int t, const T *u, long f)
{
    T v = CG ? __ldcg(u + o.uoff[t]) : u[o.uoff[t]];
    if (C) {
        const int c = o.cidx[t];
        if (c >= 0) v = __ldg(o.coef[c] + f + o.coff[t]) * v;
    }
    return o.w[t] * v;
}

/* The operator at one cell: u points at the cell's value (in a tile or the field), f is the cell's
 * index in the field (for the coefficients). C: the operator has coefficient terms. */
template <typename T, bool C, bool CG = false> __device__ __forceinline__ T op_eval(const op_dev<T> &o, const T *u, long f)
{
    T acc = op_term<T, C, CG>(o, 0, u, f);
    for (int t = 1; t < o.n; t++) acc = acc + op_term<T, C, CG>(o, t, u, f);
    return acc;
}

/* The operator at K cells at once, the term loop outside the cell loop, so that each term's
 * offset, weight and coefficient index is read once for K cells: u + i[k] is cell k's value, f[k]
 * its index in the field. Each cell's sum keeps op_eval's order, so its bits are op_eval's. */
template <typename T, bool C, int K>
__device__ __forceinline__ void op_eval_k(const op_dev<T> &o, const T *u, const int (&i)[K], const long (&f)[K], T (&out)[K])
{
#pragma unroll
    for (int k = 0; k < K; k++) out[k] = op_term<T, C, false>(o, 0, u + i[k], f[k]);
    for (int t = 1; t < o.n; t++) {
        const int du = o.uoff[t];
        const T w = o.w[t];
        if (C && o.cidx[t] >= 0) {
            const T *a = o.coef[o.cidx[t]] + o.coff[t];
#pragma unroll
            for (int k = 0; k < K; k++) out[k] = out[k] + w * (__ldg(a + f[k]) * u[i[k] + du]);
        } else {
#pragma unroll
            for (int k = 0; k < K; k++) out[k] = out[k] + w * u[i[k] + du];
        }
    }
}

/* op_eval_k for K cells a fixed SI apart in what u points into (a tile's rows or planes) and sf
 * apart in the field: the value offsets become immediates of the loads. Bits as op_eval's. */
template <typename T, bool C, int K, int SI>
__device__ __forceinline__ void op_eval_s(const op_dev<T> &o, const T *u, long f, long sf, T (&out)[K])
{
    for (int t = 0; t < o.n; t++) {
        const T *p = u + o.uoff[t];
        const T w = o.w[t];
        T s[K];
        if (C && o.cidx[t] >= 0) {
            const T *c = o.coef[o.cidx[t]] + o.coff[t] + f;
#pragma unroll
            for (int k = 0; k < K; k++) s[k] = w * (__ldg(c + sf * k) * p[SI * k]);
        } else {
#pragma unroll
            for (int k = 0; k < K; k++) s[k] = w * p[SI * k];
        }
        if (t == 0)
#pragma unroll
            for (int k = 0; k < K; k++) out[k] = s[k];
        else
#pragma unroll
            for (int k = 0; k < K; k++) out[k] = out[k] + s[k];
    }
}

#endif
