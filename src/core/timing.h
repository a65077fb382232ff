/* Timed segments and the clock that accumulates them.
 *
 * Device work is timed between backend events (resolved lazily, so timing never forces the
 * host to wait for the device in the middle of a run); host work (MPI calls, barriers) with
 * MPI_Wtime. */
#ifndef HALOX_TIMING_H
#define HALOX_TIMING_H

#include "halox/sweeper.h"

#ifdef __cplusplus
extern "C" {
#endif

/* segments and hx_times: halox/sweeper.h */

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
