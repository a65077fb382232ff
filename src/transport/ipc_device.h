/* The device path of the ipc transport (ipc_device.c). */
#ifndef HALOX_IPC_DEVICE_H
#define HALOX_IPC_DEVICE_H

#include "transport/transport.h"

typedef struct hx_ipc_device hx_ipc_device;

/* Collective: allocate, export and map the device areas; over_mpi marks messages routed over MPI. */
int hx_ipc_device_setup(hx_transport *t, const unsigned char (*over_mpi)[HX_MAX_MSGS], hx_ipc_device **out, char *err, size_t n);
/* The message table for kernels; fails while any message crosses nodes. */
int hx_ipc_device_table(const hx_ipc_device *dv, hx_dev_table *table, char *err, size_t n);
/* Local; call after every rank is done with the areas (the transport's closing barrier). */
void hx_ipc_device_destroy(hx_ipc_device *dv);

#endif
