/* Many fields in one exchange (hx_exchange_run_many): each phase sends one message per neighbour
 * that carries every field. The transport moves the messages as 4-byte words over a plan of its
 * own (the word plan: the cell plan's peers, tags and order, each message stride/4 words a cell),
 * and the exchange packs and unpacks each field at its place in the message:
 *
 *   message m of a phase, at byte offset msg.offset * stride of the packed buffer:
 *     field 0's box (count cells), then field 1's, ..., field i's box at msg.count * place[i]
 *
 * stride (bytes per cell of a whole message) and place[] are fixed at create from the dtypes, each
 * place a multiple of its field's size and stride a multiple of the largest, so every box is
 * aligned for its dtype. A call with n < nfields fields sends the first n boxes of each message.
 * Transports that pack inside their kernels (ipc-put) move the words of a packed buffer that the
 * exchange fills (send half) and empties (receive half). Private to src/. */
#ifndef HALOX_EXCHANGE_MANY_H
#define HALOX_EXCHANGE_MANY_H

#include "core/objects.h"

typedef struct hx_exchange_many {
    int nfields;
    hx_dtype dtype[HX_MAX_FIELDS];
    long place[HX_MAX_FIELDS]; /* bytes a cell before field i's box in a message */
    long stride;               /* bytes a cell of a message of all nfields fields */
    hx_plan wplan;             /* the word plan the transport was set up with */
    hx_plan nplan;             /* wplan's messages cut to the boxes of the last call's n fields */
    int nplan_n;
    hx_decomp wd;              /* the word plan's geometry: one row per phase buffer */
    hx_backend wbk;            /* the transport's backend view: 4-byte words */
    void *kbuf;                /* kernel-path transports: send words, then receive words */
    long kwords;               /* words of each half of kbuf */
    hx_decomp view[HX_MAX_FIELDS];
    hx_backend fbk[HX_MAX_FIELDS];
    void *base[HX_MAX_FIELDS];
    hx_phase ph;               /* scratch: a phase's messages at one field's offsets */
    hx_pack_fields pf;         /* the last call's fields, for a backend that packs them in one go */
} hx_exchange_many;

/* Collective: checks o's nfields and dtypes (the same on every rank; call on every rank, whatever
 * an earlier check said) and sets *many when the exchange needs many-field messages. */
int hx_many_check(hx_context *ctx, const hx_layout *l, const hx_exchange_options *o, int status, int *many);
/* Local: x->many from o and the built plan x->plan. */
int hx_many_create(hx_exchange *x, const hx_exchange_options *o);
/* Local, after the transport's set-up: the packed buffer of a kernel-path transport. */
int hx_many_buffers(hx_exchange *x);
void hx_many_destroy(hx_exchange *x);

#endif
