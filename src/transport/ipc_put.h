/* Host side of transport ipc-put's kernels (ipc_put.cu; the device side is ipc_put.cuh):
 * the device copy of the message table, the exchange counter, the watchdog report, and the two
 * launches of a phase. Plain C interface. */
#ifndef HALOX_IPC_PUT_H
#define HALOX_IPC_PUT_H

#include <stddef.h>

#include "halox/kernels/detail/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_ipc_put hx_ipc_put;

/* Local: device state for table (the ipc device path's, fully mapped) on the current GPU. Messages
 * of phase p of at most ll_bytes[p] travel as flagged words (ipc_put.cuh; 0: none); every rank must
 * pass the same. */
int hx_ipc_put_create(const hx_dev_table *table, int rank, size_t elem, const long *ll_bytes, hx_ipc_put **out, char *err,
                      size_t n);
void hx_ipc_put_destroy(hx_ipc_put *k);

/* What a launch does for one phase: the put, the get, or both in one kernel (nothing to overlap). */
typedef enum { HX_IK_PUT, HX_IK_GET, HX_IK_PUTGET } hx_ik_kind;

/* Enqueue on `stream` (a cudaStream_t) the `kind` kernel of `phase` for the field at `field`, whose
 * rows are sy cells apart and planes sz. Fails (with why in err) when a device wait of an earlier
 * exchange gave up, or a launch fails. */
int hx_ipc_put_launch(hx_ipc_put *k, hx_ik_kind kind, int phase, void *stream, void *field, long sy, long sz, char *err,
                      size_t n);
/* 0, or -1 with why in err when a device wait gave up (read from host-mapped memory: it sees
 * kernels that have finished; synchronize the stream first to see them all). */
int hx_ipc_put_check(hx_ipc_put *k, char *err, size_t n);

#ifdef __cplusplus
}
#endif
#endif
