/* Fused 2D sweep kernels (temporal blocking, --fuse), their launch, and the sweep_fused op. */
#include "compute/cuda/fused2d.cuh"
#include "compute/cuda/ops.h"

/* 128 threads and at least 4 blocks (16 warps) per multiprocessor, so ptxas keeps a thread to 128
 * registers: that made the passes that needed more faster (fp32 N = 7 and 8 spill 24-128 bytes, in
 * L1) and changed the rest little, but fp64 radius 1 with N = 5 and 6 and fp32 radius 1 with N = 6
 * and 7 run faster with 2 blocks, where ptxas takes what it needs (up to 255 registers) without
 * spilling. A tuning build may set HX_FUSED2D_MINB for every instance. */
template <typename T, int R, int L> constexpr int fused2d_min_blocks()
{
#ifdef HX_FUSED2D_MINB
    return HX_FUSED2D_MINB;
#else
    return R == 1 && (sizeof(T) == 8 ? L == 5 || L == 6 : L == 6 || L == 7) ? 2 : 4;
#endif
}
/* ROWS: the march's rows, or 0 for `rows` (fused2d_plan's any_rows: marches of any length) */
template <typename T, int R, int L, int ROWS>
__global__ void __launch_bounds__(128, fused2d_min_blocks<T, R, L>()) sweep2d_fused(const T *__restrict__ src, T *__restrict__ dst, fused_args a,
                                                                                    int rows)
{
    extern __shared__ __align__(16) unsigned char fused2d_raw[];
    grid_dep_enter();
    sweep2d_fused_body<T, R, L, HX_LD_NC, fused2d_ring<T, R, L>()>(src, dst, a, (int)blockIdx.x, (int)(blockIdx.y * blockDim.y + threadIdx.y),
                                                                  ROWS ? ROWS : rows, reinterpret_cast<T *>(fused2d_raw),
                                                                  (int)(threadIdx.y * blockDim.x + threadIdx.x), (int)(blockDim.x * blockDim.y));
}

template <typename T, int R, int L, int ROWS>
static void launch_fused_rows(const fused2d_launch &l, const T *src, T *dst, cudaStream_t st)
{
    launch_sweep_kernel(sweep2d_fused<T, R, L, ROWS>, l.grid, l.block, l.smem, st, FUSED_PDL, src, dst, l.a, l.rows);
}

template <typename T, int R, int L>
static void launch_fused(const hx_decomp *d, const hx_box *boxes, const void *vsrc, void *vdst, cudaStream_t st, int sms)
{
    const T *src = (const T *)vsrc;
    T *dst = (T *)vdst;
    static int per_sm = -1; /* blocks of the any-rows instance a multiprocessor holds (0: unknown) */
    if (per_sm < 0 && cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweep2d_fused<T, R, L, 0>, 128,
                                                                    (size_t)fused2d_ring<T, R, L>() * 128 * 16) != cudaSuccess) {
        (void)cudaGetLastError();
        per_sm = 0;
    }
    const fused2d_launch l = fused2d_plan<T, R, L>(boxes, d->alloc, sms, 4L * per_sm * sms);
    if (l.any_rows) return launch_fused_rows<T, R, L, 0>(l, src, dst, st);
    if constexpr (fused2d_deep_rows<T>() == 256) /* doubles: the 256-row instances exist only there */
        if (l.rows == 256) return launch_fused_rows<T, R, L, 256>(l, src, dst, st);
    if (l.rows == 128) launch_fused_rows<T, R, L, 128>(l, src, dst, st);
    else if (l.rows == 64) launch_fused_rows<T, R, L, 64>(l, src, dst, st);
    else if (l.rows == 32) launch_fused_rows<T, R, L, 32>(l, src, dst, st);
    else launch_fused_rows<T, R, L, 16>(l, src, dst, st);
}

static_assert(HX_FUSE_MAX == 8, "fused_table holds levels x radius <= 8");

typedef void (*fused_fn)(const hx_decomp *, const hx_box *, const void *, void *, cudaStream_t, int);

/* [dtype: float, double][radius 1, 2][levels 2 .. 8]: levels x radius <= HX_FUSE_MAX (8) */
#define R1(T) {launch_fused<T, 1, 2>, launch_fused<T, 1, 3>, launch_fused<T, 1, 4>, launch_fused<T, 1, 5>, \
               launch_fused<T, 1, 6>, launch_fused<T, 1, 7>, launch_fused<T, 1, 8>}
#define R2(T) {launch_fused<T, 2, 2>, launch_fused<T, 2, 3>, launch_fused<T, 2, 4>, NULL, NULL, NULL, NULL}
static const fused_fn fused_table[2][2][7] = {{R1(float), R2(float)}, {R1(double), R2(double)}};
#undef R1
#undef R2

/* levels sweeps (2 .. HX_FUSE_MAX / radius) in one pass; boxes[j] is the box of the j-th. 2D here,
 * 3D handed to fused3d.cu. */
int cu_sweep_fused(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst)
{
    if (bk->op) return cu_op_sweep_fused(bk, stream, levels, boxes, src, dst);
    const hx_decomp *d = bk->decomp;
    const int r = hx_stencil_get(bk->stencil)->radius;
    if (d->dim == 3) return cu_sweep_fused3d(bk, stream, levels, boxes, src, dst);
    const fused_fn fn = d->dim == 2 && r >= 1 && r <= 2 && levels >= 2 && levels <= 8 && levels * r <= HX_FUSE_MAX
                            ? fused_table[dtype_slot(bk)][r - 1][levels - 2]
                            : NULL;
    if (!fn) {
        snprintf(bk->err, sizeof bk->err, "fused sweeps in 2D take 2 to %d sweeps of radius %d (asked %d)", HX_FUSE_MAX / r, r,
                 levels);
        return -1;
    }
    if (hx_box_cells(&boxes[levels - 1]) == 0) return 0;
    if (cu_off_vector(bk, src, dst, "fused 2D pass")) return -1;
    fn(d, boxes, src, dst, state(bk)->stream[stream], state(bk)->dev.sms);
    CU_LAUNCHED(bk);
    return 0;
}
