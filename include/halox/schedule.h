/* Schedules: how one exchange-plus-sweeps cycle is ordered. A schedule composes a backend
 * (compute) with a transport (communication); it never names a particular model. */
#ifndef HALOX_SCHEDULE_H
#define HALOX_SCHEDULE_H

#include "halox/config.h"
#include "halox/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const hx_config *cfg;
    const hx_decomp *d;
    const hx_plan *plan;
    hx_backend *bk;
    hx_transport *tr;
    MPI_Comm comm;
    int radius;
    void *field[2]; /* Jacobi double buffer: field[cur] holds the latest values */
    int cur;
    long sweeps_done;
    int graph_ready[HX_MAX_GRAPHS]; /* --graph: slot cur holds the cycle that starts from field[cur] */
    int graph_end_cur[HX_MAX_GRAPHS];   /* ... and leaves the newest iterate in field[this] */
    hx_clock clock;
    hx_times times;
    int print_norms;     /* rank 0 prints each --norm-every result */
    double last_norm;
    char err[320];
} hx_sim;

/* One cycle: exchange the halo once, then `sweeps` (<= depth) sweeps with shrinking regions.
 * With cfg->overlap, the first sweep's interior runs while the exchange is in flight. */
int hx_cycle(hx_sim *s, int sweeps);

/* `sweeps` sweeps as cycles of cfg->depth; waits for the device at the end. */
int hx_iterate(hx_sim *s, long sweeps);

#ifdef __cplusplus
}
#endif
#endif
