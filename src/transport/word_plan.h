/* The word plan of a many-field exchange (exchange_many.h): the cell plan's phases and messages,
 * each message stride / 4 four-byte words a cell at word offset offset * stride / 4, its boxes
 * one row of a packed buffer: the send box in the send half [0, half), the receive box at the same
 * place in the receive half [half, 2 half), half = max_phase_cells * stride / 4. Plain C, shared
 * with the host emulator test of ipc-put's kernels. */
#ifndef HALOX_WORD_PLAN_H
#define HALOX_WORD_PLAN_H

#include <string.h>

#include "halox/plan.h"

/* w from c, stride bytes a cell (a multiple of 4); the caller checks that 2 half fits an int. */
static inline void hx_word_plan(hx_plan *w, const hx_plan *c, long stride)
{
    const long half = c->max_phase_cells * stride / 4;
    *w = *c;
    w->max_phase_cells = half;
    for (int p = 0; p < c->nphases; p++) {
        w->phase[p].cells = c->phase[p].cells * stride / 4;
        for (int m = 0; m < c->phase[p].nmsg; m++) {
            hx_message *msg = &w->phase[p].msg[m];
            msg->count = c->phase[p].msg[m].count * stride / 4;
            msg->offset = c->phase[p].msg[m].offset * stride / 4;
            memset(&msg->send_box, 0, sizeof msg->send_box);
            for (int a = 0; a < 3; a++) msg->send_box.hi[a] = 1;
            msg->recv_box = msg->send_box;
            msg->send_box.lo[0] = (int)msg->offset;
            msg->send_box.hi[0] = (int)(msg->offset + msg->count);
            msg->recv_box.lo[0] = (int)(half + msg->offset);
            msg->recv_box.hi[0] = (int)(half + msg->offset + msg->count);
        }
    }
}

#endif
