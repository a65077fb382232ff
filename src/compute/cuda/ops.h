/* Host side of the CUDA backend shared by its files: error macros, the backend state, tile shapes, and the ops each file implements. */
#ifndef HALOX_CUDA_OPS_H
#define HALOX_CUDA_OPS_H

#include <cuda_runtime.h>

#include <stdio.h>

#include "compute/backend.h"

#define CU_TRY(bk, call)                                                                                   \
    do {                                                                                                   \
        cudaError_t e_ = (call);                                                                           \
        if (e_ != cudaSuccess) {                                                                           \
            snprintf((bk)->err, sizeof (bk)->err, "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
            return -1;                                                                                     \
        }                                                                                                  \
    } while (0)
#define CU_LAUNCHED(bk) CU_TRY(bk, cudaGetLastError())

/* Tile shape: threads per block in y (x is one warp of vectors) and cells each thread marches
 * along the slow axis. Longer marches re-read fewer of the 2R planes that start a march. */
typedef struct {
    int by2, chunk2; /* 2D: block 32 x by2, rows per thread */
    int by3, chunk3; /* 3D: block 32 x by3, planes per block */
    int pipe;        /* 3D: planes copied ahead through shared memory (1..3); 0 = register kernel;
                        -1 = by stencil: measured on an H200, the pipeline wins only for radius 2
                        in fp64 (77% vs 70% of copy bandwidth) and loses for radius 1 (66% vs 79%);
                        4 = the shared tile, fused3d.cuh's march with one level */
    int rows3;       /* 3D register kernel: rows per thread (1, 2, 4); more rows share their y
                        neighbours in registers (not yet measured on a GPU: default 1) */
    int sms;         /* multiprocessors: small boxes get shorter marches to fill them */
    int zsplit3;     /* fused 3D passes: z chunks of a pass, 0 = by the cost model (HALOX_FUSED3D_ZSPLIT
                        fixes it for tuning runs) */
    int lanes3;      /* fused 3D passes of floats: lanes of a tile row, 0 = by the cost model
                        (HALOX_FUSED3D_LANES = 16 or 32 fixes it for tuning runs) */
    long l2;         /* bytes of L2: plain sweeps of fields that do not fit prefetch into it */
    int prefetch;    /* -1: by that rule; 0 or 1 forced (HALOX_SWEEP_PREFETCH, for tuning runs) */
    int pair;        /* 3D fp32 register sweeps with two floats a thread (sweep3d_pair.cuh): -1 where the
                        16-byte march would hold two or more chunk layers at once; 0 or 1 forced
                        (HALOX_SWEEP_PAIR, for tuning runs) */
    int lead;        /* fields of plain 3D sweeps with their first owned cell on a 128-byte line
                        (cu_field_lead): -1 by its rule; 0 or 1 forced (HALOX_FIELD_LEAD, for tuning runs) */
    int pdl;         /* plain sweep and pack/unpack kernels launched as programmatic dependents
                        (launch_sweep_kernel): -1 or 1 where the device and the code it runs are sm_90 or
                        later; 0 off (HALOX_PDL=0, for tuning runs). Fused passes launch plainly (fused2d.cu) */
    int flip;        /* plain sweeps: a sweep that reads what the sweep before it wrote takes its layers in
                        the other order from that one (sweep_tile, common.cuh): -1 by cu_sweep's rule (2D,
                        and 3D floats of radius 1), 0 never, 1 every stencil (HALOX_SWEEP_FLIP, for tuning runs) */
    int tma;         /* plain 3D sweeps through the march fed by bulk tensor copies (sweep3d_tma.cu) on sm_90
                        and later: -1 by cu_sweep's rule (tma_pays), 0 or 1 forced (HALOX_SWEEP_TMA) */
} tile_shape;

typedef struct {
    cudaStream_t stream[HX_NUM_STREAMS]; /* what each slot runs on now */
    cudaStream_t own[HX_NUM_STREAMS];    /* the backend's own streams, destroyed at the end */
    cudaEvent_t event[HX_NUM_EVENTS];
    double *norm_dev;
    double *norm_host;
    tile_shape tile;
    cudaGraphExec_t graph[HX_MAX_GRAPHS];
    const void *last_dst; /* the field the last plain sweep wrote, and whether it took its layers */
    int last_flip;        /* last to first (cu_sweep) */
} cuda_state;

static inline cuda_state *state(hx_backend *bk) { return (cuda_state *)bk->impl; }

/* Index of a dtype in the kernel dispatch tables: anything but double is float, as the ops always did. */
static inline int dtype_slot(const hx_backend *bk) { return bk->dtype == HX_DOUBLE ? 1 : 0; }

/* sweep.cu: the tile shape (defaults, or HALOX_TILE; -1 with a one-line reason when it is malformed)
 * and the sweep op, which picks the march length and hands the box to sweep2d.cu or sweep3d.cu */
int cu_tile_shape(tile_shape *t, char *err, size_t errlen);
int cu_sweep(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst);
int cu_field_lead(hx_backend *bk, const hx_decomp *d, int radius);
/* 0 where src and dst start on a 16-byte vector, as the fused tiles take them (their tiles start at
 * x = 0; cu_field_lead gives no lead where they run); else -1 with bk->err naming `what` */
int cu_off_vector(hx_backend *bk, const void *src, const void *dst, const char *what);

/* One sweep launch as sweep.cu decided it; sweep2d.cu and sweep3d.cu turn it into a grid. */
struct sweep_args;
struct sweep_launch {
    const hx_decomp *d;
    const hx_box *b;
    const void *src;
    void *dst;
    cudaStream_t st;
    int by;     /* threads per block in y */
    int groups; /* vectors across the box in x */
    int chunk;  /* rows (2D: 2 to 64) or planes (3D: 4 to 64; the pair and pipelined marches: any) per march */
    int prefetch; /* 1: the kernel that prefetches rows or planes ahead into L2 (sweep2d_prefetch,
                     sweep3d_prefetch), for fields that L2 does not hold */
    const struct sweep_args *a;
    int pair; /* 3D fp32, one row a thread: the march of two floats a thread (sweep3d_pair.cuh) */
    int pdl;  /* launch as a programmatic dependent of the stream's previous kernel */
    int flip; /* take the layers last to first (sweep_tile) */
};

/* 1 where this GPU runs the kernels as compiled for sm_90 or later, with their grid_dep_enter: a
 * kernel built from older PTX has none and must not be launched as a dependent (sweep3d.cu) */
int cu_pdl_compiled(void);

/* Fused passes (fused2d.cu, fused3d.cu) launch plainly (pdl 0), though their kernels wait and
 * release as the sweeps do: as dependents, 3D 512^3 d8 f4 on 4 H200s ran 48.4 -> 49.4 us a sweep
 * and 8192^2 d32 f8 8.54 -> 8.59 (4096^2 d48 f8 3.18 -> 3.14; session 33). Their release still
 * lets the sweep or pack after a pass be placed early. */
enum { FUSED_PDL = 0 };

/* A sweep kernel's launch, as a programmatic dependent where pdl is set: its blocks may be placed
 * while the stream's previous kernel drains, so the launch gap between back-to-back sweeps
 * shrinks; the kernel's grid_dep_enter (common.cuh) keeps it from reading or writing early. An
 * error is left for CU_LAUNCHED. */
template <typename... P, typename... A>
static inline void launch_sweep_kernel(void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t st, int pdl,
                                       A... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = grid;
    c.blockDim = block;
    c.dynamicSmemBytes = smem;
    c.stream = st;
    c.attrs = attr;
    c.numAttrs = pdl ? 1 : 0;
    (void)cudaLaunchKernelEx(&c, kernel, args...);
}

/* Index of a march length in the kernel dispatch tables (-1: no kernel for it): 2 (2D only; the
 * 3D tables hold NULL there), 4, 8, 16, 32, 64 */
static inline int chunk_slot(int chunk)
{
    return chunk == 2 ? 0 : chunk == 4 ? 1 : chunk == 8 ? 2 : chunk == 16 ? 3 : chunk == 32 ? 4 : chunk == 64 ? 5 : -1;
}
/* -1 (and nothing launched) when no kernel is built for this dtype, radius, chunk or pipeline depth */
int cu_launch_sweep2d(const sweep_launch &l, int dslot, int radius);
int cu_launch_sweep3d(const sweep_launch &l, int dslot, int radius, int rows);
int cu_launch_sweep3d_pipe(const sweep_launch &l, int dslot, int radius, int pipe);
/* Blocks of 32 x by threads a multiprocessor holds for the 3D sweep kernel these choose (pipe 1..3
 * the pipelined one, else rows 1, 2 or 4 and the prefetching flag), by the occupancy calculator and
 * kept per kernel; 0 when unknown */
int cu_sweep3d_per_sm(int dslot, int radius, int by, int rows, int pipe, int prefetch);

/* sweep3d_tma.cu: 1 where this GPU and build can run the bulk-copy march (compute capability 9.0 or
 * later, kernels built for it, a driver with cuTensorMapEncodeTiled); its launch, -1 with bk->err
 * when the field's tensor map cannot be made. phase: the fields' vector phase (vec_phase). */
int cu_tma_usable(void);
int cu_launch_sweep3d_tma(hx_backend *bk, const sweep_launch &l, int dslot, int radius, int phase);

/* fused2d.cu: the sweep_fused op (2D there, 3D handed to fused3d.cu) */
int cu_sweep_fused(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst);
/* fused3d.cu: 3D passes, and their set-up at backend creation (shared memory above 48 KiB, occupancy) */
int cu_sweep_fused3d(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst);
void cu_fused3d_prepare(void);
/* A plain 3D sweep through the one-level march of fused3d.cuh (HALOX_TILE's PIPE 4) */
int cu_sweep_tile3d(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst);
/* cells.cu */
int cu_sweep_shell(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst);
/* pack.cu */
int cu_init_field(hx_backend *bk, void *field, uint64_t seed);
int cu_pack(hx_backend *bk, int stream, const hx_phase *ph, const void *field, void *buf);
int cu_unpack(hx_backend *bk, int stream, const hx_phase *ph, const void *buf, void *field);
int cu_diff_norm2(hx_backend *bk, int stream, const hx_box *box, const void *a, const void *b, double *result);
/* backend.cu */
int cu_sync(hx_backend *bk, int stream);

#endif
