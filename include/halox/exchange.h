/* hx_exchange: fills the ghost cells of fields of one layout from their neighbours, with one
 * communication model (transport) and pattern. It owns its message plan and packed buffers;
 * set-up trades buffer addresses and offsets between neighbours. A context may hold many
 * exchanges: one per multigrid level, one per halo width, several over the same layout.
 *
 * Transports (see hx_transport_names): "mpi" (host-staged MPI), "mpi-cuda" (CUDA-aware MPI),
 * "ipc" (CUDA IPC peer copies), "ipc-put" (CUDA IPC, kernel-initiated: kernels on the stream
 * store into the neighbour, signal, wait and unpack; one GPU per rank, one node), "nccl" (NCCL
 * send/recv on a stream), "nvshmem" (put + signal on a stream). Patterns: HX_DIRECT (one message
 * per neighbour, corners included, one phase) and HX_STAGED (faces only, axis by axis, forwarding
 * corners). */
#ifndef HALOX_EXCHANGE_H
#define HALOX_EXCHANGE_H

#include "halox/layout.h"
#include "halox/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_exchange hx_exchange;

/* Collective over the layout's context. halo: ghost cells to fill per side (<= the layout's
 * halo; 0 means the layout's). */
int hx_exchange_create(hx_layout *l, const char *transport, hx_pattern pattern, int halo, hx_exchange **out);
/* Collective: an exchange of a hand-made plan (a ping-pong, an irregular neighbourhood): the
 * messages' peers, tags and boxes are the caller's; the plan is copied. */
int hx_exchange_create_plan(hx_layout *l, const char *transport, const hx_plan *plan, hx_exchange **out);
/* Collective. */
void hx_exchange_destroy(hx_exchange *x);

/* Exchange the ghosts of field f, ordered on `stream` (a cudaStream_t; NULL = the context's
 * stream): start packs and sends (the first phase, for the staged pattern), finish completes
 * every phase and leaves the unpack enqueued on the stream; the ghosts are valid for work issued
 * on that stream afterwards. Between the two, the caller may compute on cells that read no ghost.
 * hx_exchange_run is start + finish. A rank whose block faces no other rank (no neighbour, no
 * periodic axis to itself) has no message: the three only check the field and return. */
int hx_exchange_start(hx_exchange *x, const hx_field *f, void *stream);
int hx_exchange_finish(hx_exchange *x, const hx_field *f, void *stream);
int hx_exchange_run(hx_exchange *x, const hx_field *f, void *stream);

/* After the stream of the exchanges is synchronized: HX_OK, or HX_ERR_RUNTIME when a device wait
 * of a kernel-initiated exchange (ipc-put) gave up, the message naming the rank, the neighbour
 * it waited for and the exchange. start and finish report it too, but only of kernels that have
 * finished by then. */
int hx_exchange_check(hx_exchange *x);

/* What the exchange sends: its plan (phases, messages, boxes). */
const hx_plan *hx_exchange_plan(const hx_exchange *x);
const char *hx_exchange_transport(const hx_exchange *x);

/* The transports of this build, as a comma-separated list; and why a known one is absent (NULL
 * when it is built, or unknown to halox). */
const char *hx_transport_names(void);
const char *hx_transport_absent_reason(const char *name);
/* Control paths of a built transport: HX_PATH_* bits, 0 when unknown. HX_PATH_REPLAY: its stream
 * path enqueues the same work every exchange, so a captured exchange replays from a CUDA graph. */
enum { HX_PATH_HOST = 1u, HX_PATH_STREAM = 2u, HX_PATH_DEVICE = 4u, HX_PATH_REPLAY = 8u };
unsigned hx_transport_paths(const char *name);

#ifdef __cplusplus
}
#endif
#endif
