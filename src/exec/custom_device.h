/* The device schedules of hx_custom (custom_device.cu): the state a functor's persistent kernel
 * needs beside the fields (one device table a field, the watchdog's memory, the grid barrier), and
 * its launches. Built with CUDA only; custom.c refuses those schedules elsewhere. */
#ifndef HALOX_CUSTOM_DEVICE_H
#define HALOX_CUSTOM_DEVICE_H

#include "core/objects.h"
#include "halox/custom.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_custom_dev hx_custom_dev;

/* Local, after the exchange's device path is made (hx_device_path_prepare): the tables of nf
 * fields (elem bytes a cell, pitches sy and sz cells, the exchange's origin xoff cells into each)
 * in one message a neighbour over x's transport. Returns 0, or -1 with err. */
int hx_custom_dev_create(hx_exchange *x, long xoff, long sy, long sz, int nf, size_t elem, hx_custom_dev **out, char *err, size_t n);
/* r->sweeps sweeps of kernel table kt: one launch (persistent) or one a cycle (per_cycle), then a
 * wait watched for lack of progress. r: the geometry, fields, functor and stream (the rest is
 * filled here); *cur: in, the buffer holding the iterate; out, where it ends. Returns 0, or -1
 * with err (a device wait that gave up names the rank, the neighbour and the exchange). */
int hx_custom_dev_run(hx_custom_dev *dv, const hx_kernel_table *kt, hx_custom_run *r, int per_cycle, int *cur, char *err, size_t n);
void hx_custom_dev_destroy(hx_custom_dev *dv);

#ifdef __cplusplus
}
#endif
#endif
