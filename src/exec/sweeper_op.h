/* The sweeper's part for user operators (sweeper_op.c). Private: only src/ includes it. */
#ifndef HALOX_SWEEPER_OP_H
#define HALOX_SWEEPER_OP_H

#include "core/objects.h"

/* o->op against layout l: dimension, dtype, ncoef, and each coefficient field's geometry. */
int hx_sweeper_check_operator(hx_context *ctx, const hx_layout *l, const hx_sweep_options *o);
/* Collective, on every rank whatever st (the status so far; returned agreed): with an operator,
 * copies of o->coef with the geometry and lead of s->field[], their ghosts exchanged once over x,
 * and s->bk.op and s->bk.coef[] set. */
int hx_sweeper_take_coefficients(hx_sweeper *s, hx_layout *l, hx_exchange *x, const hx_sweep_options *o, int st);

#endif
