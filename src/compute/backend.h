/* Compute backend: where fields live and how sweeps, packing and reductions run.
 *
 * Every operation is issued on a numbered stream and may be asynchronous (CUDA) or complete on
 * return (CPU). Schedules order work only through streams and events, so one schedule serves
 * both backends. Timing goes through events too: the CPU backend stamps the wall clock, the
 * CUDA backend records cudaEvents. */
#ifndef HALOX_BACKEND_H
#define HALOX_BACKEND_H

#include "halox/context.h"
#include "halox/sweeper.h" /* HX_FUSE_MAX */
#include "halox/plan.h"
#include "halox/stencil.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* main: packing, exchanges, shells, sweeps; inner: the overlapped interior (lower priority);
 * user: a slot a library caller binds to its own stream (use_stream), so that exchanges it
 * starts are ordered with its own kernels. */
enum { HX_STREAM_MAIN = 0, HX_STREAM_INNER = 1, HX_STREAM_USER = 2, HX_NUM_STREAMS = 3 };
#define HX_MAX_GRAPHS 2   /* one captured cycle per field parity */
#define HX_MAX_EVENTS 512 /* timing events, used as a ring by hx_clock */
/* events reserved for ordering streams, after the timing ones */
enum { HX_EVENT_CYCLE_START = HX_MAX_EVENTS, HX_EVENT_INNER_DONE, HX_NUM_EVENTS };


typedef struct hx_backend hx_backend;

/* The fields of a many-field exchange (hx_exchange_run_many) for pack_many: field f's origin (the
 * cell the plan's boxes count from), its rows sy[f] and planes sz[f] cells apart, esize[f] bytes a
 * cell; message m of a phase holds field f's box at byte offset
 * m.offset * stride + m.count * place[f] of the packed buffer (transport/exchange_many.h). */
#define HX_PACK_MAX_FIELDS 32 /* HX_MAX_FIELDS (halox/exchange.h) */
typedef struct {
    int n;
    long stride;
    void *field[HX_PACK_MAX_FIELDS];
    long sy[HX_PACK_MAX_FIELDS], sz[HX_PACK_MAX_FIELDS], place[HX_PACK_MAX_FIELDS];
    int esize[HX_PACK_MAX_FIELDS];
} hx_pack_fields;

typedef struct {
    const char *name;
    /* memory in the backend's space (device memory for CUDA) */
    void *(*alloc)(hx_backend *bk, size_t bytes);
    void (*free)(hx_backend *bk, void *p);
    /* host memory the backend can copy to and from fast (pinned for CUDA) */
    void *(*alloc_host)(hx_backend *bk, size_t bytes);
    void (*free_host)(hx_backend *bk, void *p);
    /* copies between host and backend memory, in stream order */
    int (*to_host)(hx_backend *bk, int stream, void *host, const void *dev, size_t bytes);
    int (*to_device)(hx_backend *bk, int stream, void *dev, const void *host, size_t bytes);
    /* copy within backend memory (the bandwidth yardstick of `halox roofline`) */
    int (*copy)(hx_backend *bk, int stream, void *dst, const void *src, size_t bytes);
    /* owned cells from the seed, every other cell 0 */
    int (*init_field)(hx_backend *bk, void *field, uint64_t seed);
    /* dst = stencil(src) on box */
    int (*sweep)(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst);
    /* the same on up to HX_MAX_OUTER_BOXES thin boxes (a boundary shell) at once */
    int (*sweep_shell)(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst);
    /* all messages of a phase in one call: field -> packed buffer, packed buffer -> field */
    int (*pack)(hx_backend *bk, int stream, const hx_phase *ph, const void *field, void *buf);
    int (*unpack)(hx_backend *bk, int stream, const hx_phase *ph, const void *buf, void *field);
    /* sum over box of (a - b)^2, in double; *result is valid after sync(stream) */
    int (*diff_norm2)(hx_backend *bk, int stream, const hx_box *box, const void *a, const void *b, double *result);
    /* ordering and timing */
    int (*record)(hx_backend *bk, int stream, int event);
    int (*wait_event)(hx_backend *bk, int stream, int event);
    int (*sync)(hx_backend *bk, int stream);
    int (*elapsed)(hx_backend *bk, int start_event, int end_event, double *seconds);
    /* the backend's own handle for a stream (a cudaStream_t), for transports that enqueue work */
    void *(*native_stream)(hx_backend *bk, int stream);
    /* graphs (NULL where the backend has none): record the work issued on `stream`, and on streams
     * joined to it through events, into graph slot `slot` < HX_MAX_GRAPHS; then replay it */
    int (*capture_begin)(hx_backend *bk, int stream);
    int (*capture_end)(hx_backend *bk, int stream, int slot);
    int (*graph_launch)(hx_backend *bk, int stream, int slot);
    /* release the graphs: before the transport goes, since a graph may hold its resources (NCCL's
     * communicator waits for the graphs that captured it) */
    void (*drop_graphs)(hx_backend *bk);
    /* temporal blocking (NULL where absent): `levels` sweeps in one pass over the field, sweep j
     * on boxes[j]; dst gets the last one on boxes[levels-1], bit-identical to separate sweeps */
    int (*sweep_fused)(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst);
    /* point stream slot `stream` at the caller's native stream (a cudaStream_t), or back at the
     * backend's own with NULL; NULL op where the backend has no streams (CPU: all work is synchronous) */
    int (*use_stream)(hx_backend *bk, int stream, void *native);
    /* all fields of a phase in one call (to_buf 1: fields -> buf, 0: buf -> fields), laid out as
     * hx_pack_fields says; NULL where absent (the exchange packs field by field with pack/unpack) */
    int (*pack_many)(hx_backend *bk, int stream, const hx_phase *ph, const hx_pack_fields *fs, void *buf, int to_buf);
    /* hx_field_lead's answer for this backend's kernels (NULL: 0) */
    int (*field_lead)(hx_backend *bk, const hx_decomp *d, int radius);
    void (*destroy)(hx_backend *bk);
} hx_backend_ops;

/* A backend is created once per rank (device, streams, events) and then bound, as a cheap copy
 * (hx_backend_bind), to each decomposition, stencil and dtype it computes on: every copy shares
 * the streams and events of the one it came from, and only that first one is destroyed. */
struct hx_backend {
    const hx_backend_ops *ops;
    const hx_decomp *decomp;
    hx_stencil_id stencil;
    hx_dtype dtype;
    size_t elem;   /* bytes per cell */
    int device;    /* CUDA device ordinal, -1 on the CPU */
    int host_accessible; /* backend memory can be handed to plain MPI (CPU backend) */
    int async;           /* operations return before they complete (CUDA) */
    char err[256];       /* why the last operation failed */
    const struct hx_logger *log; /* the context's diagnostics (core/log.h); NULL: none */
    hx_tuning tuning;    /* launch shapes of this view's sweeps (hx_backend_set_tuning; automatic
                            where never set) */
    const struct hx_operator *op; /* a user operator swept instead of `stencil` (NULL: the stencil) */
    const void *coef[HX_OP_MAX_COEF]; /* op's coefficient fields, laid out as the swept fields */
    void *impl;
};

/* The radius of what this view sweeps: its operator's, else its stencil's. */
int hx_backend_radius(const hx_backend *bk);

/* Create a backend for this rank. Returns 0, or -1 with a one-line reason in err. */
int hx_backend_create(hx_backend *bk, hx_backend_kind kind, const hx_decomp *d, hx_stencil_id stencil,
                      hx_dtype dtype, int device, char *err, size_t errlen);
/* A copy of base that computes on decomposition d (which must outlive it) with this stencil and dtype. */
void hx_backend_bind(hx_backend *view, const hx_backend *base, const hx_decomp *d, hx_stencil_id stencil, hx_dtype dtype);
int hx_cpu_backend_create(hx_backend *bk, char *err, size_t errlen);
int hx_cuda_backend_create(hx_backend *bk, int device, char *err, size_t errlen);

/* A field whose first owned cell starts a 128-byte line. The layouts start every row on a line
 * (pitches are multiples of HX_ROW_ALIGN cells), so x = ghost lies ghost cells into one and a 3D
 * row of 2^k owned cells ends one vector past whole warps of lanes, with its first and last 32-byte
 * sectors written in part. Moving the field's origin (cell 0) `lead` cells into its allocation
 * puts x = ghost on a line, which pays for radius 1 (radius 2 is faster with x = 0 on the line).
 * The sweep kernels find their vectors from the field's address, so any lead is correct.
 * hx_field_lead: the lead for fields of d swept one sweep a pass (plain sweeps) by stencils of
 * `radius` on bk (its tuning applies: set it first); 0 where none pays. */
int hx_field_lead(hx_backend *bk, const hx_decomp *d, int radius);
/* `bytes` of backend memory for a field whose origin lies `lead` cells in (returned: the origin),
 * with 2 x HX_ROW_ALIGN cells of slack after them for the vector loads of the last row; NULL with
 * bk->err on failure. Freed by hx_backend_free_field with the same lead. */
void *hx_backend_alloc_field(hx_backend *bk, size_t bytes, int lead);
void hx_backend_free_field(hx_backend *bk, void *origin, int lead);

/* Whether t's launch shapes are in range for a dim-D field (include/halox/sweeper.h): 0, or -1 with
 * one line in err naming the field and its valid range. */
static inline int hx_tuning_check(const hx_tuning *t, int dim, char *err, size_t errlen)
{
    const int m = t->march;
    const char *sw = t->prefetch < -1 || t->prefetch > 1 ? "prefetch" : t->pdl < -1 || t->pdl > 1 ? "pdl"
                   : t->tma < -1 || t->tma > 1         ? "tma"
                                                       : NULL;
    if (t->block_rows < 0 || t->block_rows > 8)
        snprintf(err, errlen, "tuning: block_rows %d: give 1 to 8 threads of a block in y, or 0 (automatic)", t->block_rows);
    else if (m != 0 && (m < (dim == 3 ? 4 : 2) || m > 64 || (m & (m - 1))))
        snprintf(err, errlen, "tuning: march %d: give %s 64 %s a thread marches, or 0 (automatic)", m,
                 dim == 3 ? "4, 8, 16, 32 or" : "2, 4, 8, 16, 32 or", dim == 3 ? "planes" : "rows");
    else if (t->zsplit < 0 || t->zsplit > 1024)
        snprintf(err, errlen, "tuning: zsplit %d: give 1 to 1024 z chunks of a fused 3D pass, or 0 (automatic)", t->zsplit);
    else if (t->lanes != 0 && t->lanes != 16 && t->lanes != 32)
        snprintf(err, errlen, "tuning: lanes %d: give 16 or 32 lanes of a fused 3D tile row, or 0 (automatic)", t->lanes);
    else if (sw)
        snprintf(err, errlen, "tuning: %s: give 1 (on), 0 (off) or HX_AUTO (-1)", sw);
    else
        return 0;
    return -1;
}

/* Give the view bk the launch shapes t for its sweeps and packing, checked against its
 * decomposition: 0, or -1 with bk->err (an input error). Views bound later from the base backend
 * keep the automatic shapes. */
static inline int hx_backend_set_tuning(hx_backend *bk, const hx_tuning *t)
{
    if (hx_tuning_check(t, bk->decomp ? bk->decomp->dim : 3, bk->err, sizeof bk->err)) return -1;
    bk->tuning = *t;
    return 0;
}

/* How long a wait for a neighbour may last before it is reported as an error: the environment
 * variable HALOX_TIMEOUT in seconds, default 60. */
double hx_timeout_seconds(void);

/* Whether this build holds the CUDA backend, and how many devices it sees (0 without one). */
int hx_cuda_built(void);
int hx_cuda_device_count(void);
/* The CUDA part of `halox info`: runtime, driver, GPUs, peer access (a line saying CUDA is absent when it is). */
void hx_cuda_print_info(FILE *out);
/* The most shared memory a block of GPU `device` may opt in to, bytes (0 when it cannot be read). */
int hx_cuda_max_smem(int device);
/* The name of GPU `device` ("" when it cannot be read). */
void hx_cuda_device_name(int device, char *name, size_t n);
/* The PCI bus id of GPU `device` ("0000:19:00.0"; "" when it cannot be read). */
void hx_cuda_device_pci(int device, char *bus, size_t n);

#ifdef __cplusplus
}
#endif
#endif
