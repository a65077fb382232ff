/* Host side of the CUDA backend shared by its files: error macros, the backend state, and the ops each file implements. */
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

/* What the launch rules need to know of the device, read at backend creation. The launch shapes
 * themselves come from each view's hx_tuning (bk->tuning): 0 or HX_AUTO there is the rule. */
typedef struct {
    int sms;    /* multiprocessors: small boxes get shorter marches to fill them */
    long l2;    /* bytes of L2: plain sweeps of fields that do not fit prefetch into it */
    int pdl_ok; /* the device and the code it runs are sm_90 or later (griddepcontrol) */
} cu_device;

typedef struct {
    cudaStream_t stream[HX_NUM_STREAMS]; /* what each slot runs on now */
    cudaStream_t own[HX_NUM_STREAMS];    /* the backend's own streams, destroyed at the end */
    cudaEvent_t event[HX_NUM_EVENTS];
    double *norm_dev;
    double *norm_host;
    cu_device dev;
    cudaGraphExec_t graph[HX_MAX_GRAPHS];
    const void *last_dst; /* the field the last plain sweep wrote, and whether it took its layers */
    int last_flip;        /* last to first (cu_sweep) */
} cuda_state;

static inline cuda_state *state(hx_backend *bk) { return (cuda_state *)bk->impl; }

/* Index of a dtype in the kernel dispatch tables: anything but double is float, as the ops always did. */
static inline int dtype_slot(const hx_backend *bk) { return bk->dtype == HX_DOUBLE ? 1 : 0; }

/* Plain sweeps and packing launch as programmatic dependents: asked (tuning.pdl not 0) and possible */
static inline int cu_pdl(hx_backend *bk) { return bk->tuning.pdl != 0 && state(bk)->dev.pdl_ok; }

/* sweep.cu: the sweep op, which picks the kernel and march length and hands the box to sweep2d.cu,
 * sweep3d.cu or sweep3d_tma.cu */
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
 * release as the sweeps do: as dependents the large 2D and 3D passes measured slower. Their
 * release still lets the sweep or pack after a pass be placed early. */
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
/* -1 (and nothing launched) when no kernel is built for this dtype, radius or chunk */
int cu_launch_sweep2d(const sweep_launch &l, int dslot, int radius);
int cu_launch_sweep3d(const sweep_launch &l, int dslot, int radius);
/* the march through a cp.async shared-memory ring (sweep3d_pipe.cuh): fp64 radius 2 only */
int cu_launch_sweep3d_pipe(const sweep_launch &l, int dslot, int radius);
/* Blocks of 32 x by threads a multiprocessor holds for the 3D sweep kernel these choose (pipe: the
 * pipelined one, else the register march with or without prefetches), by the occupancy calculator
 * and kept per kernel; 0 when unknown */
int cu_sweep3d_per_sm(int dslot, int radius, int by, int pipe, int prefetch);

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
/* cells.cu */
int cu_sweep_shell(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst);
/* pack.cu */
int cu_init_field(hx_backend *bk, void *field, uint64_t seed);
int cu_pack(hx_backend *bk, int stream, const hx_phase *ph, const void *field, void *buf);
int cu_unpack(hx_backend *bk, int stream, const hx_phase *ph, const void *buf, void *field);
int cu_pack_many(hx_backend *bk, int stream, const hx_phase *ph, const hx_pack_fields *fs, void *buf, int to_buf);
int cu_diff_norm2(hx_backend *bk, int stream, const hx_box *box, const void *a, const void *b, double *result);
/* backend.cu */
int cu_sync(hx_backend *bk, int stream);
/* op_sweep.cu: the sweep, sweep_shell and sweep_fused ops for a user operator (bk->op set): -1 with
 * one line in bk->err where the operator's radius or levels x radius is beyond the kernels' limits;
 * and their set-up at backend creation */
int cu_op_sweep(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst);
int cu_op_sweep_shell(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst);
int cu_op_sweep_fused(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst);
void cu_op_prepare(void);

#endif
