/* Transport: how packed halo buffers travel between ranks.
 *
 * One interface, three control paths, so every communication model is one file:
 *   host path    post(phase) then wait(phase): the CPU drives each exchange (MPI, CUDA-aware MPI,
 *                IPC peer copies);
 *   stream path  enqueue(phase, stream): the exchange is ordered on a backend stream and the host
 *                never waits for it (NCCL send/recv, NVSHMEM put+signal on stream); or put and
 *                get(phase, stream, field): kernels on the stream pack, store into the neighbour,
 *                signal, wait and unpack themselves (ipc-put);
 *   device path  device_table(): addresses and flags that kernel threads use to put, signal and
 *                wait themselves (IPC, NVSHMEM or NCCL-window stores plus flags; device_table.h).
 * A transport fills the ops of the paths it supports and sets the matching bits in caps; a
 * schedule asks for the path it needs and refuses, with a message, a transport that lacks it.
 *
 * The transport owns the packed buffers (send_buf/recv_buf), because where they must live
 * depends on the model: plain device memory, pinned host mirrors, IPC-exported or symmetric heap. */
#ifndef HALOX_TRANSPORT_H
#define HALOX_TRANSPORT_H

#include <mpi.h>

#include "compute/backend.h"
#include "halox/exchange.h"
#include "halox/kernels/detail/table.h"
#include "transport/fault.h"
#include "core/timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* HX_PATH_HOST, HX_PATH_STREAM, HX_PATH_DEVICE: halox/exchange.h */
/* The stream path enqueues the same work every exchange (no per-exchange host state such as
 * changing signal values), so one captured exchange can be replayed from a CUDA graph. */
enum { HX_CAP_REPLAY = HX_PATH_REPLAY };

typedef struct hx_transport hx_transport;


typedef struct {
    const char *name;
    const char *summary;
    unsigned caps;
    /* 1 if usable with this backend in this build and job; otherwise 0 and why. */
    int (*available)(const hx_backend *bk, char *why, size_t n);
    int (*setup)(hx_transport *t, char *err, size_t errlen);
    /* host path: post sends what pack wrote on `stream`; after wait returns, recv_buf is ready
     * for an unpack issued on `stream` */
    int (*post)(hx_transport *t, int phase, int stream);
    int (*wait)(hx_transport *t, int phase, int stream);
    /* stream path */
    int (*enqueue)(hx_transport *t, int phase, int stream);
    /* kernel path, a stream path whose data kernels move (ipc-put): put packs phase `phase` of
     * the field at `field` straight into the neighbours and signals them; get waits on the device
     * for the phase's messages and unpacks them into the field. Both only enqueue on `stream`;
     * they replace pack, enqueue and unpack; putget does both in one launch, where nothing runs
     * between them. check: 0, or -1 with err when a device wait gave up (what finished kernels
     * reported: synchronize the stream first). NULL without the path. */
    int (*put)(hx_transport *t, int phase, int stream, void *field);
    int (*get)(hx_transport *t, int phase, int stream, void *field);
    int (*putget)(hx_transport *t, int phase, int stream, void *field);
    int (*check)(hx_transport *t);
    /* device path: fill the message table (host copy) that kernels put, signal and wait with */
    int (*device_table)(hx_transport *t, hx_dev_table *table);
    /* optional, device path: 1 when this process may take it, else 0 and why (local; nccl: the
     * library at run time must be the release it was built with). NULL: whenever caps say so. */
    int (*device_available)(char *why, size_t n);
    /* optional, device path made on demand (nccl): collective, every rank calls it at once (the
     * sweeper does, at creation, for the kernel-initiated schedules); the first call sets it up,
     * later ones return the same outcome; -1 with err. NULL: set-up made it. */
    int (*device_prepare)(hx_transport *t);
    void (*destroy)(hx_transport *t);
} hx_transport_ops;

struct hx_context;

struct hx_transport {
    const hx_transport_ops *ops;
    struct hx_context *ctx;           /* shared resources (one NCCL communicator, NVSHMEM) */
    hx_backend *bk;
    const hx_plan *plan;
    MPI_Comm comm;
    hx_clock *clock;                  /* the transport charges HX_SEG_MESSAGE (host time passing
                                         messages) and its staging copies to pack/unpack */
    void *send_buf[HX_MAX_PHASES];    /* backend memory: pack writes here */
    void *recv_buf[HX_MAX_PHASES];    /* backend memory: unpack reads here */
    char err[256];                    /* why the last call failed */
    void *impl;
    unsigned long long dev_exchanges; /* exchanges made through the device path so far: its flags
                                         only grow, whichever sweeper drives it */
    long ll_bytes;                    /* hx_exchange_options.ll_bytes (ipc-put; -1 = automatic) */
    const char *host_fallback;        /* hx_exchange_options.host_fallback (ipc); valid during set-up */
};

/* The transports of this build, by name. */
const hx_transport_ops *hx_transport_find(const char *name);
int hx_transport_count(void);
/* Why a known model is absent from this build (NULL for names halox does not know). */
const char *hx_transport_missing(const char *name);
const hx_transport_ops *hx_transport_at(int i);

/* Collective: set up ops for plan over bk's decomposition, with the transport fields of opt
 * (ll_bytes, host_fallback; NULL: the defaults). Every rank returns the same outcome (ranks agree
 * before any step a failed rank would skip). */
int hx_transport_create(hx_transport *t, const hx_transport_ops *ops, struct hx_context *ctx, hx_backend *bk,
                        const hx_plan *plan, const hx_exchange_options *opt, MPI_Comm comm, hx_clock *clock, char *err,
                        size_t errlen);

/* Collective over comm: the transport "auto" picks (halox/exchange.h) for ranks of backend kind
 * `kind` on CUDA device `device` (-1: none), the same on every rank, with a one-line reason in
 * why. Used by hx_transport_auto and `halox info`. */
const char *hx_transport_pick(MPI_Comm comm, hx_backend_kind kind, int device, char *why, size_t n);
void hx_transport_destroy(hx_transport *t);

/* For transports whose packed buffers are plain backend memory: one send and one receive buffer
 * per phase, each max_phase_cells long; and their release. */
int hx_transport_alloc_buffers(hx_transport *t, char *err, size_t errlen);
void hx_transport_free_buffers(hx_transport *t);

/* Collective: for every message of the plan, where its bytes go at the receiving end: the cell
 * offset of the message in the peer's packed receive buffer, and the peer's index of that
 * message in its phase. Traded with the neighbours, so no rank recomputes another's plan. */
int hx_transport_trade_offsets(hx_transport *t, long remote_offset[HX_MAX_PHASES][HX_MAX_MSGS],
                               int remote_index[HX_MAX_PHASES][HX_MAX_MSGS], char *err, size_t errlen);
/* The same, with two more values per message that the receiver chooses (extra_mine, indexed by
 * the receiver's own message) and the sender gets (extra_theirs, indexed by the sender's). */
int hx_transport_trade(hx_transport *t, const long (*extra_mine)[HX_MAX_MSGS][2], long remote_offset[HX_MAX_PHASES][HX_MAX_MSGS],
                       int remote_index[HX_MAX_PHASES][HX_MAX_MSGS], long (*extra_theirs)[HX_MAX_MSGS][2], char *err,
                       size_t errlen);

/* 1 when both all ranks of comm pass ok (an MPI_Allreduce): call before a step that a failed rank
 * would skip, such as a communication library's collective initialisation. */
int hx_transport_all_ok(MPI_Comm comm, int ok);

/* hx_fault_setup, hx_fault_share_gpu, hx_fault_skip_puts: transport/fault.h */

#ifdef __cplusplus
}
#endif
#endif
