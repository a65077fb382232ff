/* Fused 3D sweep kernels (2.5D temporal blocking, --fuse in 3D), their set-up and launch. */
#include "compute/cuda/fused3d.cuh"
#include "compute/cuda/ops.h"

/* One block per multiprocessor (shared memory) */
template <typename T, int R, int L, int BY, int P, int RY, int S>
__global__ void __launch_bounds__(S * BY / RY, 1) sweep3d_fused(const T *__restrict__ src, T *__restrict__ dst, fused3d_args a)
{
    extern __shared__ __align__(16) unsigned char fused3d_raw[];
    grid_dep_enter();
    sweep3d_fused_body<T, R, L, BY, P, RY, S>(src, dst, a, blockIdx, reinterpret_cast<T *>(fused3d_raw), (int)threadIdx.x, (int)threadIdx.y);
}

/* Blocks per multiprocessor of each instance, from the occupancy calculator at set-up; 0 where the
 * kernel cannot run on this GPU (fused3d_why says why: too little shared memory, no kernel image).
 * The last index: tile rows of 32 lanes, or of 16 (floats' narrow tile, fused3d_tile). */
static int fused3d_occ[2][2][HX_FUSE_MAX_3D][2]; /* [dtype][radius - 1][levels - 1][S == 16] */
static cudaError_t fused3d_why[2][2][HX_FUSE_MAX_3D][2];

template <typename T, int R, int L, int S> static void prepare_one(int dslot)
{
    typedef fused3d_tile<T, R, L, S> C;
    const size_t smem = fused3d_smem<T, R, L, C::BY, C::P, S>();
    cudaError_t e = cudaFuncSetAttribute(sweep3d_fused<T, R, L, C::BY, C::P, C::RY, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    int occ = 0;
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sweep3d_fused<T, R, L, C::BY, C::P, C::RY, S>, S * C::BY / C::RY, smem);
    if (e == cudaSuccess && occ < 1) e = cudaErrorInvalidConfiguration; /* the block does not fit this GPU */
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not sticky: reported when a pass asks for this kernel */
        occ = 0;
    }
    fused3d_occ[dslot][R - 1][L - 1][S == 16] = occ;
    fused3d_why[dslot][R - 1][L - 1][S == 16] = e;
}

template <typename T, int R, int L> static void prepare_levels(int dslot)
{
    prepare_one<T, R, L, 32>(dslot);
    if constexpr (sizeof(T) == 4) prepare_one<T, R, L, 16>(dslot);
}

template <typename T> static void prepare_dtype(int dslot)
{
    prepare_levels<T, 1, 2>(dslot);
    prepare_levels<T, 1, 3>(dslot);
    prepare_levels<T, 1, 4>(dslot);
    prepare_levels<T, 2, 2>(dslot);
}

/* At backend creation, outside any stream capture: the shared memory beyond 48 KiB is granted to
 * each kernel on the current device before it is launched. A kernel that cannot run here is only
 * an error when a pass asks for it. */
void cu_fused3d_prepare(void)
{
    prepare_dtype<float>(0);
    prepare_dtype<double>(1);
}

/* 0 where the instance of `levels` sweeps of radius r runs on this GPU; else -1 with bk->err naming
 * it and the reason prepare_one saw. Formats only on failure. */
static int fused3d_refused(hx_backend *bk, int dslot, int r, int levels)
{
    if (fused3d_occ[dslot][r - 1][levels - 1][0] >= 1) return 0;
    snprintf(bk->err, sizeof bk->err, "the fused 3D kernel for %d sweeps of radius %d cannot run on GPU %d: %s (it needs %s)", levels,
             r, bk->device, cudaGetErrorString(fused3d_why[dslot][r - 1][levels - 1][0]),
             "up to 196 KiB of shared memory per block and an sm_90 image");
    return -1;
}

template <typename T, int R, int L, int S> static void launch_one(const fused3d_launch &l, const void *src, void *dst, cudaStream_t st)
{
    typedef fused3d_tile<T, R, L, S> C;
    launch_sweep_kernel(sweep3d_fused<T, R, L, C::BY, C::P, C::RY, S>, l.grid, l.block, l.smem, st, FUSED_PDL, (const T *)src, (T *)dst, l.a);
}

/* A pass of L sweeps: the wide tile's plan, or the narrow one's where fused3d_pick_lanes takes it
 * (and its kernel runs here) */
template <typename T, int R, int L>
static void launch_fused3d(const hx_decomp *d, const hx_box *boxes, const void *src, void *dst, cudaStream_t st, int sms, int dslot,
                           const hx_tuning *t)
{
    const int *occ = fused3d_occ[dslot][R - 1][L - 1];
    const fused3d_launch wide = fused3d_plan<T, R, L, 32>(boxes, d->alloc, (long)sms * occ[0], t->zsplit);
    if constexpr (sizeof(T) == 4) {
        if (occ[1] >= 1) {
            const fused3d_launch narrow = fused3d_plan<T, R, L, 16>(boxes, d->alloc, (long)sms * occ[1], t->zsplit);
            if (fused3d_pick_lanes<T>(narrow.cost, wide.cost, t->lanes) == 16) return launch_one<T, R, L, 16>(narrow, src, dst, st);
        }
    }
    launch_one<T, R, L, 32>(wide, src, dst, st);
}

static_assert(HX_FUSE_MAX_3D == 4, "fused3d_table holds levels x radius <= 4");

typedef void (*fused3d_fn)(const hx_decomp *, const hx_box *, const void *, void *, cudaStream_t, int, int, const hx_tuning *);

/* [dtype: float, double][radius 1, 2][levels 2, 3, 4]: levels x radius <= HX_FUSE_MAX_3D (4) */
static const fused3d_fn fused3d_table[2][2][3] = {
    {{launch_fused3d<float, 1, 2>, launch_fused3d<float, 1, 3>, launch_fused3d<float, 1, 4>}, {launch_fused3d<float, 2, 2>, NULL, NULL}},
    {{launch_fused3d<double, 1, 2>, launch_fused3d<double, 1, 3>, launch_fused3d<double, 1, 4>}, {launch_fused3d<double, 2, 2>, NULL, NULL}},
};

int cu_sweep_fused3d(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst)
{
    const hx_decomp *d = bk->decomp;
    const int r = hx_stencil_get(bk->stencil)->radius, dslot = dtype_slot(bk);
    const fused3d_fn fn = d->dim == 3 && r >= 1 && r <= 2 && levels >= 2 && levels <= 4 && levels * r <= HX_FUSE_MAX_3D
                              ? fused3d_table[dslot][r - 1][levels - 2]
                              : NULL;
    if (!fn) {
        snprintf(bk->err, sizeof bk->err, "fused sweeps in 3D take 2 to %d sweeps of radius %d (asked %d)", HX_FUSE_MAX_3D / r, r,
                 levels);
        return -1;
    }
    if (hx_box_cells(&boxes[levels - 1]) == 0) return 0;
    if (cu_off_vector(bk, src, dst, "fused 3D pass")) return -1;
    if (fused3d_refused(bk, dslot, r, levels)) return -1;
    fn(d, boxes, src, dst, state(bk)->stream[stream], state(bk)->dev.sms, dslot, &bk->tuning);
    CU_LAUNCHED(bk);
    return 0;
}
