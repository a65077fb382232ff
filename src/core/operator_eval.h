/* An operator's terms in the form the CPU loops evaluate: linear offsets for a geometry and the
 * weights rounded to the dtype. Private: only src/ includes it. */
#ifndef HALOX_OPERATOR_EVAL_H
#define HALOX_OPERATOR_EVAL_H

#include "core/operator_priv.h"

typedef struct {
    int n;
    long off[HX_OP_MAX_TERMS];  /* linear offset of the cell read */
    long coff[HX_OP_MAX_TERMS]; /* linear offset of the coefficient cell */
    int coef[HX_OP_MAX_TERMS];  /* -1: none */
    float wf[HX_OP_MAX_TERMS];  /* weights rounded once to float and to double */
    double wd[HX_OP_MAX_TERMS];
} hx_op_lin;

/* op's terms for arrays of row stride sy and plane stride sz (cells) */
static inline void hx_op_linearize(const hx_operator *op, long sy, long sz, hx_op_lin *l)
{
    l->n = op->desc.nterms;
    for (int t = 0; t < l->n; t++) {
        const hx_term *m = &op->terms[t];
        l->off[t] = m->d[0] + sy * m->d[1] + sz * m->d[2];
        l->coff[t] = m->coef < 0 ? 0 : m->c[0] + sy * m->c[1] + sz * m->c[2];
        l->coef[t] = m->coef;
        l->wf[t] = (float)m->weight;
        l->wd[t] = m->weight;
    }
}

/* u'[i] = ((t0 + t1) + t2) + ..., t = w*u[i+d] or w*(a[i+c]*u[i+d]) (halox/operator.h) */
#define HX_DEFINE_OP_EVAL(T, SUF, W)                                                              \
    static inline T hx_op_eval_##SUF(const hx_op_lin *l, const T *u, const T *const *a, long i)   \
    {                                                                                            \
        T acc = 0;                                                                               \
        for (int t = 0; t < l->n; t++) {                                                         \
            const T v = l->coef[t] < 0 ? (T)(l->W[t] * u[i + l->off[t]])                         \
                                       : (T)(l->W[t] * (a[l->coef[t]][i + l->coff[t]] * u[i + l->off[t]])); \
            acc = t == 0 ? v : (T)(acc + v);                                                     \
        }                                                                                        \
        return acc;                                                                              \
    }
HX_DEFINE_OP_EVAL(float, f32, wf)
HX_DEFINE_OP_EVAL(double, f64, wd)
#undef HX_DEFINE_OP_EVAL

#endif
