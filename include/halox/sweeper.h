/* hx_sweeper: halox runs the whole stencil loop for callers who want it: a Jacobi double
 * buffer of one of halox's stencils, deep-halo cycles (an exchange every `depth` sweeps, the
 * shrinking halo recomputed), overlap of the interior with the exchange, fused sweeps (temporal
 * blocking) and CUDA graphs. Every segment is timed (hx_sweeper_times). Results are bit-identical
 * to hx_reference_run for any rank count, depth, pattern, transport and schedule. */
#ifndef HALOX_SWEEPER_H
#define HALOX_SWEEPER_H

#include "halox/exchange.h"
#include "halox/types.h"
#include "halox/stencil.h"
#include "halox/operator.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_sweeper hx_sweeper;

/* HX_FUSE_MAX and HX_FUSE_MAX_3D, the deepest fused passes: halox/types.h */

/* Who drives a cycle:
 *   CYCLE       the host (host-path transports) or the stream (stream-path ones), one cycle after
 *               another: pack, exchange, unpack and sweeps as separate kernels and calls;
 *   FUSED       one kernel per cycle that packs, puts into the neighbours' memory, signals, waits,
 *               unpacks and sweeps, launched back to back by the host (device-path transports: ipc, nccl, nvshmem);
 *   PERSISTENT  one kernel for the whole run: every exchange, sweep and norm on the device, with no
 *               host involvement until the end (device-path transports: ipc, nccl, nvshmem). In 2D with the direct
 *               pattern, when a rank's block fits in the GPU's shared memory, each block keeps one
 *               tile there for the run and every sweep of a cycle runs in it (fuse does not apply);
 *               otherwise passes of `fuse` sweeps (fuse x radius <= 8 in 2D, <= HX_FUSE_MAX_3D in
 *               3D, where depth <= fuse + 15) stream the field.
 * FUSED and PERSISTENT launch their own kernels: leave graph off. */
typedef enum { HX_SCHEDULE_CYCLE = 0, HX_SCHEDULE_FUSED = 1, HX_SCHEDULE_PERSISTENT = 2 } hx_schedule;
const char *hx_schedule_name(hx_schedule s);

/* Which kernel family a device schedule (FUSED, PERSISTENT) runs. AUTO follows documented rules
 * (docs/design.md): RESIDENT where a 2D rank's block fits in shared memory with the direct
 * pattern and each rank has a GPU of its own, PASSES otherwise (never ROLES, never RESIDENT in
 * 3D). Asking for one that cannot run here (or any but AUTO on the CYCLE schedule) is an
 * HX_ERR_INPUT at hx_sweeper_create with the reason, agreed by every rank. */
typedef enum {
    HX_KERNEL_AUTO = 0,
    HX_KERNEL_RESIDENT = 1, /* persistent: each block keeps its tile in shared memory for the run,
                               tiles trade halos as flagged words (2D; 3D on request) */
    HX_KERNEL_PASSES = 2,   /* fused, persistent: the field streamed in passes of `fuse` sweeps */
    HX_KERNEL_ROLES = 3     /* fused, depth 1, direct pattern: one receiver block, N sender and
                               interior blocks, M boundary blocks (the GPUDirect Async design) */
} hx_kernel;
const char *hx_kernel_name(hx_kernel k);

/* Launch shapes of the CUDA kernels. Zero (or HX_AUTO for the switches) everywhere means "by
 * halox's rules", which is what hx_sweep_defaults gives; a value outside its range is an
 * HX_ERR_INPUT at hx_sweeper_create. `halox tune` searches these. */
#define HX_AUTO (-1)
typedef struct {
    int block_rows; /* plain sweeps: threads of a block in y (1..8); 0 auto (2D 4, 3D 8) */
    int march;      /* plain sweeps: cells each thread marches along the slow axis, a power of two:
                       2D 2..64 rows, 3D 4..64 planes; 0 auto (by the box and the GPU) */
    int zsplit;     /* fused 3D passes: z chunks of a pass (1..1024); 0 auto (a cost model) */
    int lanes;      /* fused 3D passes of floats: lanes of a tile row (16 or 32); 0 auto */
    int inplace;    /* 2D resident kernel: one buffer swept in bands (1), two (0), HX_AUTO (two where
                       a shape fits, else one) */
    int prefetch;   /* plain sweeps prefetch into L2 (1/0); HX_AUTO: where the fields exceed L2 */
    int pdl;        /* plain sweeps and packing as programmatic dependent launches where the GPU
                       and the build are sm_90 or later (1 or HX_AUTO), never (0) */
    int tma;        /* plain 3D sweeps fed by bulk tensor copies on sm_90 and later (1/0);
                       HX_AUTO: radius 2 where the fields exceed L2 */
} hx_tuning;

/* Every field automatic. */
hx_tuning hx_tuning_defaults(void);

typedef struct {
    size_t struct_size;  /* sizeof(hx_sweep_options) as the caller was compiled; hx_sweep_defaults
                            sets it, 0 is taken as this version */
    hx_stencil_id stencil;
    hx_schedule schedule;
    int depth;           /* sweeps per exchange; the layout's halo must be >= depth x radius */
    int overlap;         /* first sweep of a cycle: interior while the exchange is in flight */
    int graph;           /* replay each cycle from a CUDA graph (cuda backend) */
    int fuse;            /* sweeps per pass over memory (cuda backend), 1 = off */
    long norm_every;     /* every K sweeps, ||u_new - u_old||_2 over all ranks; 0 = never */
    int desync_barrier;  /* an MPI barrier before each exchange, timed as "desync" */
    hx_kernel kernel;    /* device schedules' kernel family (AUTO) */
    hx_tuning tuning;    /* launch shapes (all automatic) */
    int profile;         /* device schedules: count where each block's cycles go; the summary is
                            logged at HX_LOG_INFO when the sweeper is destroyed */
    const hx_operator *op;  /* a user operator (halox/operator.h), used instead of `stencil`;
                               NULL: the built-in `stencil`. Must outlive the sweeper. */
    const hx_field *coef;   /* op's coefficient fields (op's ncoef of them), of the sweeper's layout;
                               caller-owned, read-only; their ghosts are filled once at create */
    int ncoef;
} hx_sweep_options;

/* depth 1, overlap off, no graph, fuse 1, no norms, for stencil s */
hx_sweep_options hx_sweep_defaults(hx_stencil_id s);

/* Collective. Allocates the two fields; the exchange must be over layout l with halo >= depth x radius.
 * A device schedule's kernel is chosen and set up here. o->struct_size smaller than this header's
 * hx_sweep_options (a caller built against an older halox): the fields beyond it take their
 * defaults. */
int hx_sweeper_create(hx_layout *l, hx_exchange *x, const hx_sweep_options *o, hx_sweeper **out);
void hx_sweeper_destroy(hx_sweeper *s);

/* Both buffers from the seed (hx_field_init); the sweep count and timings restart at 0. */
int hx_sweeper_init(hx_sweeper *s, uint64_t seed);
/* Collective: `sweeps` sweeps as cycles of depth; returns after the device is done. A failed
 * wait names the rank and its neighbours in hx_context_error. */
int hx_sweeper_iterate(hx_sweeper *s, long sweeps);
/* The field holding the newest iterate; the sweeper owns it (hx_sweeper_destroy frees it). Its data
 * points at cell 0, which on a GPU may lie a few cells into the sweeper's allocation (3D radius-1
 * fields of the cycle schedule start their first owned cell on a 128-byte line): index it by its
 * ghost and pitch, as any hx_field. */
hx_field hx_sweeper_field(const hx_sweeper *s);
long hx_sweeper_sweeps(const hx_sweeper *s);
/* The last norm computed (norm_every > 0), or -1. */
double hx_sweeper_last_norm(const hx_sweeper *s);
/* Called with each norm as it is computed (norm_every > 0), on every rank, with the sweep count it
 * follows; the persistent schedule calls it for each of its norms after its kernel ends. NULL
 * stops the calls. The library itself never prints them. */
typedef void (*hx_norm_fn)(long sweep, double norm, void *user);
void hx_sweeper_on_norm(hx_sweeper *s, hx_norm_fn fn, void *user);

/* Timed segments, summed on this rank since hx_sweeper_init. */
typedef enum {
    HX_SEG_PACK = 0, /* gather faces into packed buffers (and stage them to the host if the model does) */
    HX_SEG_MESSAGE,  /* host time in the transport passing messages, or device interval for stream transports */
    HX_SEG_UNPACK,   /* scatter received buffers into ghost cells (and staging back) */
    HX_SEG_INNER,    /* overlap: interior of the first sweep after an exchange */
    HX_SEG_OUTER,    /* overlap: boundary shell of that sweep */
    HX_SEG_COMPUTE,  /* full-region sweeps */
    HX_SEG_DESYNC,   /* desync_barrier: time ranks wait for each other before an exchange */
    HX_SEG_NORM,     /* norm_every: update norm and its reduction */
    HX_SEG_TOTAL,    /* wall time of the iteration loop (hx_sweeper_iterate) */
    HX_NUM_SEGS
} hx_segment;
extern const char *const hx_segment_names[HX_NUM_SEGS];
typedef struct {
    double t[HX_NUM_SEGS]; /* seconds */
} hx_times;
int hx_sweeper_times(const hx_sweeper *s, hx_times *t);
/* 1 when whole cycles were replayed as graphs: then only total is timed. */
int hx_sweeper_whole_graph(const hx_sweeper *s);
/* Which kernel a device schedule (fused, persistent) runs, chosen at hx_sweeper_create: "resident" (tiles kept in shared memory for the run), "roles" (the role-based
 * fused kernel), "passes" (the field streamed pass by pass), "passes-march" (2D passes of several
 * sweeps marching register windows), "passes-fused3d" (3D passes of fuse sweeps) or "passes-shmem"
 * (passes putting with the NVSHMEM device API);
 * NULL for the cycle schedule. */
const char *hx_sweeper_kernel(const hx_sweeper *s);

#ifdef __cplusplus
}
#endif
#endif
