/* The kernel-initiated schedules with a user operator (persistent_op.cu): the pass kernel that sums
 * the operator's terms, and its set-up. CUDA C++ only. */
#ifndef HALOX_PERSISTENT_OP_H
#define HALOX_PERSISTENT_OP_H

#include "exec/persistent_run.h"

/* The kernel for s->bk->op, as s->opt.kernel asks: passes (or AUTO) sets up the op pass kernel
 * and returns 0; resident and roles serve halox's built-in stencils only: HX_DEVICE_REFUSED with
 * the reason in s->err; -1 with s->err on a device failure. */
int hx_op_setup_passes(hx_sim *s, int sms);

#endif
