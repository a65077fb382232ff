/* The sweeps of a user operator (bk->op): plain sweeps and fused passes through the tile body
 * (op_tile.cuh), boundary shells through the per-cell body (op_cells.cuh), and their set-up. */
#include "compute/cuda/op_cells.cuh"
#include "compute/cuda/op_tile.cuh"
#include "compute/cuda/ops.h"

template <typename T, int DIM, int H, bool C>
__global__ void __launch_bounds__(256) op_tile_kernel(const T *__restrict__ src, T *__restrict__ dst, const op_dev<T> o, const op_tile_args a)
{
    extern __shared__ __align__(16) unsigned char op_tile_raw[];
    op_tile_body<T, DIM, H, C>(src, dst, o, a, blockIdx, reinterpret_cast<T *>(op_tile_raw), (int)threadIdx.x, (int)threadIdx.y);
}

template <typename T, bool C>
__global__ void __launch_bounds__(256) op_cells_kernel(const T *__restrict__ src, T *__restrict__ dst, const box_set set, const op_dev<T> o,
                                                       long sy, long sz)
{
    op_cells_body<T, C>(src, dst, set, o, sy, sz, blockIdx.x, gridDim.x, threadIdx.x, blockDim.x);
}

/* Halos (levels x radius) with a tile kernel: 1 .. HX_FUSE_MAX in 2D, 1 .. HX_FUSE_MAX_3D in 3D */
enum { OP_HMAX = HX_FUSE_MAX };
static_assert(HX_FUSE_MAX_3D <= HX_FUSE_MAX, "the 3D halos are a prefix of the 2D ones");

/* What the set-up gave each tile kernel: its two buffers' shared memory, or why not */
static cudaError_t op_prepared[2][2][OP_HMAX][2]; /* [dtype][dim - 2][H - 1][C] */

/* 0, or -1 where an offset overflows an int (nothing launched); a launch error is left for CU_LAUNCHED */
typedef int (*op_launch_fn)(const hx_backend *bk, int levels, int r, const hx_box *boxes, const void *src, void *dst, cudaStream_t st);
typedef cudaError_t (*op_prepare_fn)(void);

template <typename T, int DIM, int H, bool C> static cudaError_t op_prepare_one(void)
{
    const size_t smem = op_tile_smem<T, DIM, H>(2);
    if (smem <= 48 * 1024) return cudaSuccess;
    const cudaError_t e = cudaFuncSetAttribute(op_tile_kernel<T, DIM, H, C>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) (void)cudaGetLastError(); /* reported when a sweep asks for this kernel */
    return e;
}

template <typename T, int DIM, int H, bool C>
static int op_launch(const hx_backend *bk, int levels, int r, const hx_box *boxes, const void *src, void *dst, cudaStream_t st)
{
    typedef op_shape<DIM, H> S;
    const hx_decomp *d = bk->decomp;
    op_dev<T> o;
    if (op_tile_fill<T, DIM, H>(o, bk->op, bk->coef, d->alloc)) return -1;
    const op_tile_args a = op_tile_make(boxes, levels, r, d->alloc, DIM);
    const dim3 grid = op_tile_grid<DIM, H>(a);
    op_tile_kernel<T, DIM, H, C><<<grid, dim3(S::TX, S::TY), op_tile_smem<T, DIM, H>(levels), st>>>((const T *)src, (T *)dst, o, a);
    return 0;
}

/* [dtype][dim - 2][H - 1][C]; 3D halos above HX_FUSE_MAX_3D hold NULL */
#define OP_ROW(X, T, DIM, C) \
    {X<T, DIM, 1, C>, X<T, DIM, 2, C>, X<T, DIM, 3, C>, X<T, DIM, 4, C>, X<T, DIM, 5, C>, X<T, DIM, 6, C>, X<T, DIM, 7, C>, X<T, DIM, 8, C>}
#define OP_ROW3(X, T, C) {X<T, 3, 1, C>, X<T, 3, 2, C>, X<T, 3, 3, C>, X<T, 3, 4, C>, NULL, NULL, NULL, NULL}
#define OP_TABLE(X)                                                                                                          \
    {{{OP_ROW(X, float, 2, false), OP_ROW(X, float, 2, true)}, {OP_ROW3(X, float, false), OP_ROW3(X, float, true)}},          \
     {{OP_ROW(X, double, 2, false), OP_ROW(X, double, 2, true)}, {OP_ROW3(X, double, false), OP_ROW3(X, double, true)}}}
static_assert(HX_FUSE_MAX == 8 && HX_FUSE_MAX_3D == 4, "the tables hold halos 1 .. 8 (2D) and 1 .. 4 (3D)");
static const op_launch_fn op_launch_table[2][2][2][OP_HMAX] = OP_TABLE(op_launch);   /* [dtype][dim - 2][C][H - 1] */
static const op_prepare_fn op_prepare_table[2][2][2][OP_HMAX] = OP_TABLE(op_prepare_one);
#undef OP_TABLE
#undef OP_ROW3
#undef OP_ROW

/* At backend creation, outside any stream capture: shared memory beyond 48 KiB for the tile
 * kernels whose two buffers need it. One that cannot have it is an error only when asked for. */
void cu_op_prepare(void)
{
    for (int t = 0; t < 2; t++)
        for (int dm = 0; dm < 2; dm++)
            for (int c = 0; c < 2; c++)
                for (int h = 0; h < OP_HMAX; h++)
                    op_prepared[t][dm][h][c] = op_prepare_table[t][dm][c][h] ? op_prepare_table[t][dm][c][h]() : cudaSuccess;
}

/* 0 where bk->op can be swept in `levels` sweeps a pass here; else -1 with one line in bk->err */
static int op_check(hx_backend *bk, int levels, int *r_out)
{
    const hx_operator *op = bk->op;
    const int dim = bk->decomp->dim, r = op->radius;
    const int rmax = dim == 3 ? HX_OP_MAX_RADIUS_3D : HX_OP_MAX_RADIUS_2D, hmax = dim == 3 ? HX_FUSE_MAX_3D : HX_FUSE_MAX;
    const int missing = op_missing_coef(op, bk->coef);
    *r_out = r;
    if (missing >= 0)
        snprintf(bk->err, sizeof bk->err, "operator %s reads coefficient field %d, but the sweep was given none", op->name, missing);
    else if (op->desc.dim != dim)
        snprintf(bk->err, sizeof bk->err, "operator %s is %dD but the field is %dD: use a %dD operator", op->name, op->desc.dim, dim, dim);
    else if (r < 1 || r > rmax)
        snprintf(bk->err, sizeof bk->err, "operator %s: radius %d: the CUDA sweeps take 1 to %d in %dD", op->name, r, rmax, dim);
    else if (levels < 1 || levels * r > hmax)
        snprintf(bk->err, sizeof bk->err, "operator %s: fused passes in %dD take 2 to %d sweeps of radius %d (asked %d)", op->name, dim,
                 hmax / r, r, levels);
    else
        return 0;
    return -1;
}

/* levels sweeps of bk->op in one pass, sweep j on boxes[j] (levels 1: a plain sweep) */
static int op_pass(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst)
{
    int r;
    if (op_check(bk, levels, &r)) return -1;
    if (hx_box_cells(&boxes[levels - 1]) == 0) return 0;
    const int dslot = dtype_slot(bk), dm = bk->decomp->dim - 2, h = levels * r, c = op_has_coef(bk->op);
    const op_launch_fn fn = op_launch_table[dslot][dm][c][h - 1];
    const cudaError_t why = op_prepared[dslot][dm][h - 1][c];
    if (levels > 1 && why != cudaSuccess) {
        snprintf(bk->err, sizeof bk->err, "the operator pass of %d sweeps of radius %d in %dD cannot run on GPU %d: %s (it needs "
                 "shared memory beyond 48 KiB per block)", levels, r, bk->decomp->dim, bk->device, cudaGetErrorString(why));
        return -1;
    }
    if (fn(bk, levels, r, boxes, src, dst, state(bk)->stream[stream])) {
        snprintf(bk->err, sizeof bk->err, "operator %s: the field's planes are too large for int offsets", bk->op->name);
        return -1;
    }
    CU_LAUNCHED(bk);
    return 0;
}

int cu_op_sweep(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst)
{
    return op_pass(bk, stream, 1, box, src, dst);
}

int cu_op_sweep_fused(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst)
{
    if (levels < 2) {
        snprintf(bk->err, sizeof bk->err, "operator %s: a fused pass takes 2 or more sweeps (asked %d)", bk->op->name, levels);
        return -1;
    }
    return op_pass(bk, stream, levels, boxes, src, dst);
}

template <typename T, bool C>
static int op_cells_launch(const hx_backend *bk, const box_set &set, const void *src, void *dst, cudaStream_t st)
{
    const hx_decomp *d = bk->decomp;
    const long sy = d->alloc[0], sz = d->dim == 3 ? (long)d->alloc[0] * d->alloc[1] : 0;
    op_dev<T> o;
    if (op_dev_fill(o, bk->op, bk->coef, sy, sz, sy, sz)) return -1;
    long blocks = (set.first[set.n] + 255) / 256;
    if (blocks > 8192) blocks = 8192;
    op_cells_kernel<T, C><<<(unsigned)blocks, 256, 0, st>>>((const T *)src, (T *)dst, set, o, sy, sz);
    return 0;
}

typedef int (*op_cells_fn)(const hx_backend *, const box_set &, const void *, void *, cudaStream_t);
static const op_cells_fn op_cells_table[2][2] = {{op_cells_launch<float, false>, op_cells_launch<float, true>},
                                                 {op_cells_launch<double, false>, op_cells_launch<double, true>}};

int cu_op_sweep_shell(hx_backend *bk, int stream, int nbox, const hx_box *boxes, const void *src, void *dst)
{
    int r;
    if (op_check(bk, 1, &r)) return -1;
    const box_set set = op_box_set(nbox, boxes);
    if (set.n == 0) return 0;
    if (op_cells_table[dtype_slot(bk)][op_has_coef(bk->op)](bk, set, src, dst, state(bk)->stream[stream])) {
        snprintf(bk->err, sizeof bk->err, "operator %s: the field's planes are too large for int offsets", bk->op->name);
        return -1;
    }
    CU_LAUNCHED(bk);
    return 0;
}
