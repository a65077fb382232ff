/* Private to the ipc and ipc-put transports (ipc.c, ipc_routes.c, ipc_put_host.c): their state,
 * which both share, and the steps of set-up that ipc-put reuses. */
#ifndef HALOX_IPC_PRIV_H
#define HALOX_IPC_PRIV_H

#include <cuda_runtime_api.h>

#include "transport/ipc_device.h"
#include "transport/ipc_put.h"
#include "transport/transport.h"

typedef struct {
    int npeers;                               /* distinct IPC neighbours of the phase */
    int peer[HX_MAX_MSGS];
    void *remote_recv[HX_MAX_MSGS];           /* per IPC message: where its bytes go */
    unsigned char over_mpi[HX_MAX_MSGS];      /* per message: 1 for host-staged MPI */
    int nmpi;                                 /* messages over MPI */
    void *host_send, *host_recv;              /* pinned mirrors of send_buf/recv_buf (same offsets), when nmpi */
    cudaEvent_t peer_sent[HX_MAX_MSGS];       /* per distinct IPC neighbour */
    cudaEvent_t peer_unpacked[HX_MAX_MSGS];
    cudaEvent_t sent, unpacked;               /* this rank's, exported */
} hx_ipc_phase;

typedef struct {
    hx_ipc_phase ph[HX_MAX_PHASES];
    hx_ipc_device *dev;                       /* the device path (ipc_device.c) */
    hx_ipc_put *kern;                         /* transport ipc-put's kernels (ipc_put.cu) */
    void *opened[1024];                       /* mapped buffers and events, to close at the end */
    int nopened;
    cudaEvent_t opened_ev[1024];
    int nopened_ev;
    /* requests: the phase's MPI messages first (posted in post, completed in wait), tokens after */
    MPI_Request req[4 * HX_MAX_MSGS];
    int rpeer[4 * HX_MAX_MSGS];
    const char *what[4 * HX_MAX_MSGS];
    int ndata;
    char token_out, token_in[HX_MAX_MSGS];
} hx_ipc_state;

/* Collective: the route of every message (ipc_routes.c: IPC, or host-staged MPI between nodes and
 * for the ranks of t->host_fallback), in s->ph[p].over_mpi and nmpi; rank 0 logs the counts at
 * HX_LOG_INFO. Every rank returns the same outcome: 0, or -1 with err. */
int hx_ipc_choose_routes(hx_transport *t, hx_ipc_state *s, char *err, size_t n);

/* Both transports' availability (ipc.c): 1 where bk is a GPU backend, else 0 with why saying so,
 * after `what` (the transport and what it does there). */
int hx_ipc_on_gpus(const hx_backend *bk, const char *what, char *why, size_t n);

/* ipc's set-up and release (ipc.c), which ipc-put's (ipc_put_host.c) wraps. */
int hx_ipc_setup(hx_transport *t, char *err, size_t n);
void hx_ipc_destroy(hx_transport *t);

#endif
