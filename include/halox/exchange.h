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
 * corners).
 *
 * "auto" (or NULL) picks one of the built transports by these rules, from facts every rank
 * agrees on (so every rank picks the same):
 *   1. cpu backend: "mpi" (fields live in host memory; the only host transport).
 *   2. cuda backend, every rank on one node, each with a GPU of its own, and every pair of the
 *      job's GPUs with peer access: "ipc-put" (no host step per exchange, replayable from a CUDA
 *      graph; the fastest cycle transport within a node: docs/performance.md).
 *   3. cuda backend, one node otherwise (ranks share a GPU, or a pair lacks peer access): "ipc"
 *      (peer copies ordered by the host, which work with shared GPUs).
 *   4. cuda backend, ranks on several nodes: "nccl" when built and every rank has a GPU of its
 *      own (stream-ordered, NCCL's network transport between nodes); else "mpi-cuda" when the MPI
 *      library is CUDA-aware; else "ipc" (peer copies within a node, host-staged MPI between).
 * The kernel-initiated schedules (fused, persistent) need a transport with a device path (ipc,
 * nccl, nvshmem): name one for them; ipc-put, which rule 2 picks, has none. */
#ifndef HALOX_EXCHANGE_H
#define HALOX_EXCHANGE_H

#include "halox/layout.h"
#include "halox/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_exchange hx_exchange;

/* Collective over the layout's context. transport: a name of hx_transport_names, or "auto";
 * halo: ghost cells to fill per side (<= the layout's halo; 0 means the layout's). The same as
 * hx_exchange_create_opts with these three fields and the other defaults. Every create returns the
 * same status on every rank; on failure (a transport this build lacks or that refuses here, such
 * as mpi-cuda without a CUDA-aware MPI) *out is NULL and hx_context_error says why. */
int hx_exchange_create(hx_layout *l, const char *transport, hx_pattern pattern, int halo, hx_exchange **out);

/* Exchange options. Set struct_size to sizeof(hx_exchange_options) (hx_exchange_defaults does):
 * a caller built against an older, shorter struct gets the defaults for the fields it lacks. */
typedef struct {
    size_t struct_size;        /* 0 = this version's size */
    const char *transport;     /* a transport name, or "auto" (NULL: "auto") */
    hx_pattern pattern;        /* HX_STAGED (default) or HX_DIRECT */
    int halo;                  /* ghost cells to fill per side; 0 = the layout's halo (a per-axis
                                  layout: each axis's width, capped at halo when halo > 0) */
    long ll_bytes;             /* ipc-put: phases whose messages are all of at most ll_bytes bytes (on
                                  every rank) travel as flagged words, each 4-byte value beside the
                                  exchange number, with no fence and no flag; larger phases as plain
                                  stores and a flag. -1 = automatic (65536), 0 = never. Every rank
                                  must give the same value. Other transports ignore it. */
    const char *host_fallback; /* ipc and ipc-put: NULL, "" or "none"; "all"; or a comma list of ranks
                                  ("1,3"): every link that touches one of those ranks goes through
                                  host-staged MPI, as links between nodes do (ipc-put then refuses).
                                  Every rank must give the same value. Others ignore it. */
    int nfields;               /* most fields one call moves (hx_exchange_run_many), 1..HX_MAX_FIELDS;
                                  0 = 1. Buffers are sized for this many at create. */
    const hx_dtype *dtypes;    /* nfields dtypes, field i of a call having dtypes[i]; NULL: every
                                  field has the layout's dtype */
} hx_exchange_options;

/* transport "auto", HX_STAGED, halo 0, ll_bytes -1, host_fallback NULL, nfields 1, dtypes NULL;
 * struct_size set. */
hx_exchange_options hx_exchange_defaults(void);
/* Collective. o may be NULL (the defaults). A bad field (ll_bytes below -1, a host_fallback that
 * names no rank, nfields outside 0..HX_MAX_FIELDS, an unknown dtype, nfields or dtypes that differ
 * between ranks) returns HX_ERR_INPUT on every rank. */
int hx_exchange_create_opts(hx_layout *l, const hx_exchange_options *o, hx_exchange **out);
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

/* The same for n fields at once (1 <= n <= the exchange's nfields, else HX_ERR_INPUT; field i has
 * dtypes[i]): each phase sends one message per neighbour carrying all n fields, on every transport
 * and pattern, bit-identical to one exchange per field. The fields share the layout's geometry
 * (their own ghost and pitch each). On an exchange of nfields > 1, hx_exchange_run(x, f, s) is
 * hx_exchange_run_many(x, 1, f, s); with nfields 1 and the layout's dtype, run_many(x, 1, f, s)
 * is hx_exchange_run(x, f, s). */
#define HX_MAX_FIELDS 32
int hx_exchange_start_many(hx_exchange *x, int n, const hx_field *fields, void *stream);
int hx_exchange_finish_many(hx_exchange *x, int n, const hx_field *fields, void *stream);
int hx_exchange_run_many(hx_exchange *x, int n, const hx_field *fields, void *stream);

/* After the stream of the exchanges is synchronized: HX_OK, or HX_ERR_RUNTIME when a device wait
 * of a kernel-initiated exchange (ipc-put) gave up, the message naming the rank, the neighbour
 * it waited for and the exchange. start and finish report it too, but only of kernels that have
 * finished by then. */
int hx_exchange_check(hx_exchange *x);

/* What the exchange sends: its plan (phases, messages, boxes). */
const hx_plan *hx_exchange_plan(const hx_exchange *x);
/* The transport that runs the exchange (what "auto" picked; never "auto"). */
const char *hx_exchange_transport(const hx_exchange *x);

/* Collective over the context: the transport "auto" picks for exchanges of ctx (see the rules at
 * the top), and in why (n bytes; may be NULL) a one-line reason. The same name on every rank. */
const char *hx_transport_auto(hx_context *ctx, char *why, size_t n);

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
