/* The device area that both device paths lay out the same way (ipc_device.c: CUDA IPC;
 * nvshmem.cu: NVSHMEM's symmetric heap): one 64-bit flag per incoming message, padded to 256
 * bytes; then, for each phase and message in plan order, the message's parity-0 slot followed by
 * its parity-1 slot, HX_DEV_SLOT_BYTES each (twice the message's bytes: the resident kernel sends
 * every 4-byte word with its exchange number). Where each message lands at its receiver is traded
 * (hx_transport_trade), so no rank computes another's layout. Plain C. */
#ifndef HALOX_DEVICE_AREA_H
#define HALOX_DEVICE_AREA_H

#include <stddef.h>

#include "halox/plan.h"
#include "halox/kernels/detail/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HX_DEV_FLAG_BYTES ((HX_MAX_PHASES * HX_MAX_MSGS * sizeof(unsigned long long) + 255) / 256 * 256)

/* mine[p][m]: the byte offset of incoming message (p, m)'s parity-0 slot in this rank's area, and
 * its flag's index; returns the bytes the slots end at. */
size_t hx_dev_area_layout(const hx_plan *plan, size_t elem, long (*mine)[HX_MAX_MSGS][2]);

/* Message msg's entry, this rank's side: boxes, count, peer, and its slots and flag in `area`. */
void hx_dev_msg_own(hx_dev_msg *dm, const hx_message *msg, char *area, const long mine[2], size_t elem);

/* The peer's side: the slots and flag of msg at the peer, in the peer's area as this rank addresses
 * it (`peer_area`), at the offset and index the peer traded (`theirs`). */
void hx_dev_msg_peer(hx_dev_msg *dm, const hx_message *msg, char *peer_area, const long theirs[2], size_t elem);

/* Tables for nf fields of elem bytes a cell in one message a neighbour, from a transport's table
 * `base` (its cells `unit` bytes, as its plan counts them) and the fields' cell plan `plan` (the
 * same phases and messages, in order): out[i] holds the plan's boxes and counts, and its slots at
 * field i's place in each message's slot (16-byte aligned where room allows); out[0]'s flags stand
 * for all. Returns 0, or -1 with err when the tables do not match or a slot has too little room. */
int hx_dev_tables_fields(const hx_dev_table *base, size_t unit, const hx_plan *plan, int nf, size_t elem, hx_dev_table *out, char *err,
                         size_t n);

#ifdef __cplusplus
}
#endif

#endif
