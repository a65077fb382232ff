/* The library's objects behind the opaque handles of include/halox: what a context, layout,
 * exchange and sweeper hold. Private: only src/ includes it. */
#ifndef HALOX_OBJECTS_H
#define HALOX_OBJECTS_H

#include "compute/backend.h"
#include "core/log.h"
#include "core/timing.h"
#include "exec/schedule.h"
#include "halox/halox.h"
#include "transport/transport.h"

/* Resources a context shares between its exchanges, created by the first transport that needs
 * them and released when the context goes (in reverse order of creation). */
typedef enum { HX_SHARED_NCCL_COMM = 0, HX_SHARED_NVSHMEM = 1, HX_NUM_SHARED } hx_shared_kind;

struct hx_context {
    MPI_Comm comm;
    int rank, size, node_rank, node_size;
    hx_backend_kind kind;
    int device;
    int have_backend;
    char device_name[256];
    hx_backend bk; /* the rank's backend: streams, events; layouts bind views of it */
    void *shared[HX_NUM_SHARED];
    void (*release[HX_NUM_SHARED])(void *);
    int shared_order[HX_NUM_SHARED], nshared;
    hx_logger log; /* the caller's diagnostics callback and level (hx_context_options) */
    int threads;     /* CPU backend: OpenMP threads asked for (0 = automatic) */
    int cpu_threads; /* the count chosen from it (hx_context_threads) */
    char err[512];
    int err_secondary; /* the last failure only reacts to another rank's (hx_agree prefers the cause) */
};

struct hx_layout {
    hx_context *ctx;
    hx_layout_desc desc;
    hx_decomp d;
    hx_backend bk; /* bound to d, the layout's dtype */
    void *stage;   /* host staging of hx_field_get/set_owned (alloc_host), grown on demand */
    size_t stage_bytes;
};

struct hx_exchange {
    hx_context *ctx;
    hx_layout *layout;
    int halo;
    hx_decomp d;      /* the layout's, ghost = halo: the geometry the plan's boxes refer to */
    hx_decomp fd;     /* d with the pitches of the field being exchanged */
    hx_plan plan;
    hx_backend bk;    /* bound to fd */
    hx_transport tr;
    int have_transport;
    hx_times times;   /* charged by exchanges started through the public calls */
    hx_clock clock;
    int started;      /* start called, finish pending */
    void *base;       /* the field's cells as the plan addresses them */
    struct hx_exchange_many *many; /* many-field messages (transport/exchange_many.c); NULL: one field */
};

struct hx_sweeper {
    hx_context *ctx;
    hx_layout *layout;
    hx_exchange *x;
    hx_sweep_options opt;
    hx_backend bk;    /* bound to the exchange's geometry and the stencil */
    hx_field field[2];
    int lead;         /* cells the fields' origins lie into their allocations (hx_field_lead) */
    hx_field coef[HX_OP_MAX_COEF]; /* copies of the operator's coefficient fields, with field[]'s
                                      geometry and lead, ghosts filled once at create */
    int ncoef;
    hx_sim sim;
};

/* Record msg as ctx's error. Returns status, for `return hx_fail(ctx, HX_ERR_INPUT, ...)`. */
int hx_fail(hx_context *ctx, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Collective agreement: returns HX_OK when every rank passed status HX_OK; otherwise every rank
 * gets the lowest failing rank's status, and its message (prefixed with its rank when the job
 * has several) in ctx->err. */
int hx_agree(hx_context *ctx, int status);

/* The geometry through which decomposition d (ghost = its halo) addresses field f: a copy of d
 * with f's pitches, and the address of the cell d counts as (0, 0, 0). Fails on a field that is
 * too small or has fewer ghost cells than d. */
int hx_field_geometry(hx_context *ctx, const hx_decomp *d, const hx_field *f, size_t elem, hx_decomp *view, void **base);

/* A layout's halo width and boundary of each axis (0 and periodic past dim). */
void hx_layout_axes(const hx_layout_desc *s, int halo[3], hx_boundary bnd[3]);

/* Shared resources (see hx_shared_kind). */
void *hx_context_shared(hx_context *ctx, hx_shared_kind k);
void hx_context_set_shared(hx_context *ctx, hx_shared_kind k, void *res, void (*release)(void *));

#endif
