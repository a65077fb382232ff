/* The device path of a transport: what GPU threads need to put a halo into a neighbour's memory,
 * signal it, and wait for their own halo, with no host involvement. Filled at set-up through the
 * exchange (addresses traded with the neighbours), copied to the GPU, read by the kernels of the
 * fused and persistent schedules (src/exec/persistent.cu). Plain C, shared with CUDA.
 *
 * Protocol, exchange number e = 1, 2, ...: the sender stores message m into
 * remote_recv[e % 2] (the neighbour's receive slot of that parity), fences, and sets
 * *remote_flag = e; the receiver waits until *my_flag >= e, then reads my_recv[e % 2] + offset.
 * Two parities suffice: a neighbour can be at most one exchange ahead (its next put needs our
 * data, which we send only after unpacking its previous one). */
#ifndef HALOX_DEVICE_TABLE_H
#define HALOX_DEVICE_TABLE_H

#include <stdint.h>

#include "halox/plan.h"

/* Bytes of one receive slot of a message of `count` cells: room for every 4-byte word of the
 * cells plus its exchange number (the resident kernel's flagged words); others use the first half.
 * Rounded up to 16 bytes, so that every slot can take 16-byte units (hx_copy_msgs). */
#define HX_DEV_SLOT_BYTES(count, elem) (((size_t)(count) * (size_t)(elem) * 2 + 15) / 16 * 16)

typedef struct {
    hx_box send_box, recv_box;   /* local coordinates, as in hx_message */
    long count;                  /* cells */
    int peer;
    char *remote_recv[2];        /* where this message's cells go at the peer, per parity */
    unsigned long long *remote_flag; /* the peer's flag for this message */
    char *my_recv[2];            /* where the incoming message of the same slot lands here */
    unsigned long long *my_flag; /* its flag */
    /* the NVSHMEM device API (transport nvshmem built with HALOX_NVSHMEM_DEVICE): the pass kernel
     * packs into stage (local) and one block puts it with nvshmemx_putmem_signal_block to put_dst
     * (the peer's slot, a symmetric address) setting put_sig (the peer's flag) to e; NULL otherwise */
    char *stage;
    char *put_dst[2];
    unsigned long long *put_sig;
} hx_dev_msg;

typedef struct {
    int nphases;
    int nmsg[HX_MAX_PHASES];
    hx_dev_msg msg[HX_MAX_PHASES][HX_MAX_MSGS];
} hx_dev_table;

#endif
