/* Schedules: how one exchange-plus-sweeps cycle is ordered, on the host path (the host posts and
 * waits) or the stream path (the exchange is enqueued and the host never waits). A schedule
 * composes a backend (compute) with a transport (communication); it never names a model.
 * The public face of this is hx_sweeper (halox/sweeper.h). */
#ifndef HALOX_SCHEDULE_H
#define HALOX_SCHEDULE_H

#include "halox/sweeper.h"
#include "transport/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    hx_sweep_options opt; /* depth, overlap, graph, fuse, norms */
    const hx_decomp *d;
    const hx_plan *plan;
    hx_backend *bk;
    hx_transport *tr;
    MPI_Comm comm;
    int radius;
    void *field[2]; /* Jacobi double buffer: field[cur] holds the latest values */
    int cur;
    long sweeps_done;
    int graph_ready[HX_MAX_GRAPHS]; /* graphs: slot cur holds the cycle that starts from field[cur] */
    int graph_end_cur[HX_MAX_GRAPHS];   /* ... and leaves the newest iterate in field[this] */
    hx_clock clock;
    hx_times times;
    hx_norm_fn norm_fn;  /* the caller's norm callback (hx_sweeper_on_norm), or NULL */
    void *norm_user;
    int shared_gpu;      /* ranks share this GPU (allowed only in fault-injection builds' tests) */
    double last_norm;
    struct hx_device_run *device_run; /* fused and persistent schedules (persistent_run.h) */
    char err[320];
} hx_sim;

/* One cycle: exchange the halo once, then `sweeps` (<= depth) sweeps with shrinking regions.
 * With opt.overlap, the first sweep's interior runs while the exchange is in flight. */
int hx_cycle(hx_sim *s, int sweeps);

/* `sweeps` sweeps as cycles of opt.depth; waits for the device at the end. */
int hx_iterate(hx_sim *s, long sweeps);

struct hx_context;
struct hx_exchange;
/* Collective (device_path.c): whether schedule sc's kernels can run over exchange x here: the
 * cuda backend, a transport with a device path this process may take, one GPU a rank; *shared:
 * whether ranks share this GPU. HX_OK for the cycle schedule; else hx_fail's status, its message
 * prefixed with `who`. */
int hx_device_path_check(struct hx_context *ctx, const struct hx_exchange *x, hx_schedule sc, const char *who, int *shared);
/* Collective: x's device path made (nccl's on demand) and checked to reach every neighbour, where
 * every rank's status st so far is HX_OK and sc is not the cycle schedule; returns the status. */
int hx_device_path_prepare(struct hx_context *ctx, struct hx_exchange *x, hx_schedule sc, const char *who, int st);

#ifdef __cplusplus
}
#endif
#endif
