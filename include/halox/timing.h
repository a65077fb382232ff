/* Timed segments and the clock that accumulates them.
 *
 * Device work is timed between backend events (resolved lazily, so timing never forces the
 * host to wait for the device in the middle of a run); host work (MPI calls, barriers) with
 * MPI_Wtime. */
#ifndef HALOX_TIMING_H
#define HALOX_TIMING_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HX_SEG_PACK = 0, /* gather faces into packed buffers (and stage them to the host if the model does) */
    HX_SEG_MESSAGE,  /* host time in the transport: posting and waiting for messages */
    HX_SEG_UNPACK,   /* scatter received buffers into ghost cells (and staging back) */
    HX_SEG_INNER,    /* overlap: interior of the first sweep after an exchange */
    HX_SEG_OUTER,    /* overlap: boundary shell of that sweep */
    HX_SEG_COMPUTE,  /* full-region sweeps */
    HX_SEG_DESYNC,   /* --desync-barrier: time ranks wait for each other before an exchange */
    HX_SEG_NORM,     /* --norm-every: update norm and its reduction */
    HX_SEG_TOTAL,    /* wall time of the whole iteration loop */
    HX_NUM_SEGS
} hx_segment;

extern const char *const hx_segment_names[HX_NUM_SEGS];

typedef struct {
    double t[HX_NUM_SEGS]; /* seconds, summed over the run */
} hx_times;

struct hx_backend;

/* Pending event pairs are resolved when the pool runs low and at hx_clock_flush. */
typedef struct {
    struct hx_backend *bk;
    hx_times *acc;
    int next_event;
    int npending;
    int paused;            /* while a CUDA graph is captured: events there cannot time anything */
    struct { int seg, start, end; } pending[128];
} hx_clock;

void hx_clock_init(hx_clock *c, struct hx_backend *bk, hx_times *acc);
/* Start a device-timed interval on stream; returns the start event. */
int hx_clock_start(hx_clock *c, int stream);
/* End it and charge it to seg. */
int hx_clock_stop(hx_clock *c, int stream, int seg, int start_event);
/* While paused, start and stop record nothing (used during graph capture). */
void hx_clock_pause(hx_clock *c, int paused);
/* Resolve all pending intervals (waits for their events). */
int hx_clock_flush(hx_clock *c);

#ifdef __cplusplus
}
#endif
#endif
