/* The device path of the nccl transport (nccl_device.cu): the device area of device_area.h in an
 * NCCL symmetric memory window, the neighbours' parts reached by loads and stores (LSA). */
#ifndef HALOX_NCCL_DEVICE_H
#define HALOX_NCCL_DEVICE_H

#include <nccl.h>

#include "transport/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_nccl_device hx_nccl_device;

/* 1 when this process may take the device path: the NCCL library at run time is the release halox
 * was built with (the window's device structure changes between releases); else 0 and why. Local. */
int hx_nccl_device_usable(char *why, size_t n);

/* Collective over t->comm (every rank calls it at once): allocate, zero and register the area in
 * comm, trade the slots and find the neighbours' parts. Every rank returns the same outcome; on
 * failure *out is NULL and nothing stays allocated. */
int hx_nccl_device_setup(hx_transport *t, ncclComm_t comm, hx_nccl_device **out, char *err, size_t n);

/* The message table for kernels; fails while any neighbour is outside this rank's LSA team. */
int hx_nccl_device_table(const hx_nccl_device *dv, hx_dev_table *table, char *err, size_t n);

/* Local; call after every rank is done with the areas (the transport's closing barrier). */
void hx_nccl_device_destroy(hx_nccl_device *dv);

#ifdef __cplusplus
}
#endif
#endif
