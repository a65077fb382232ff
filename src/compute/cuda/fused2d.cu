/* Fused 2D sweep kernels (temporal blocking, --fuse), their launch, and the sweep_fused op. */
#include "compute/cuda/fused2d.cuh"
#include "compute/cuda/ops.h"

template <typename T, int R, int L, int ROWS>
__global__ void __launch_bounds__(128) sweep2d_fused(const T *__restrict__ src, T *__restrict__ dst, fused_args a)
{
    sweep2d_fused_body<T, R, L, ROWS>(src, dst, a, blockIdx);
}

template <typename T, int R, int L, int ROWS>
static void launch_fused_rows(const fused_args &a, int strips, int chunks, const T *src, T *dst, cudaStream_t st)
{
    dim3 block(32, 4), grid((unsigned)strips, (unsigned)((chunks + 3) / 4));
    sweep2d_fused<T, R, L, ROWS><<<grid, block, 0, st>>>(src, dst, a);
}

template <typename T, int R, int L>
static void launch_fused(const hx_decomp *d, const hx_box *boxes, const void *vsrc, void *vdst, cudaStream_t st, int sms)
{
    const T *src = (const T *)vsrc;
    T *dst = (T *)vdst;
    const int V = vec16<T>::n;
    const hx_box *out = &boxes[L - 1];
    fused_args a;
    for (int j = 0; j < L; j++)
        for (int i = 0; i < 2; i++) {
            a.lo[j][i] = boxes[j].lo[i];
            a.hi[j][i] = boxes[j].hi[i];
        }
    a.margin = (L * R + V - 1) / V;
    a.xstart = out->lo[0] / V * V;
    a.pitch = d->alloc[0];
    a.rows = d->alloc[1];
    a.sy = d->alloc[0];
    const int per_strip = 32 - 2 * a.margin;
    const int strips = ((out->hi[0] - a.xstart + V - 1) / V + per_strip - 1) / per_strip;
    const int ny = out->hi[1] - out->lo[1];
    /* long marches amortise the 2LR rows that start one; shorten them until the GPU is full */
    int rows = 64;
    while (rows > 16 && (long)strips * ((ny + rows - 1) / rows) < 16L * sms) rows /= 2;
    const int chunks = (ny + rows - 1) / rows;
    if (rows == 64) launch_fused_rows<T, R, L, 64>(a, strips, chunks, src, dst, st);
    else if (rows == 32) launch_fused_rows<T, R, L, 32>(a, strips, chunks, src, dst, st);
    else launch_fused_rows<T, R, L, 16>(a, strips, chunks, src, dst, st);
}

static_assert(HX_FUSE_MAX == 4, "fused_table holds levels x radius <= 4");

typedef void (*fused_fn)(const hx_decomp *, const hx_box *, const void *, void *, cudaStream_t, int);

/* [dtype: float, double][radius 1, 2][levels 2, 3, 4]: levels x radius <= HX_FUSE_MAX (4), so radius 2 has only 2 */
static const fused_fn fused_table[2][2][3] = {
    {{launch_fused<float, 1, 2>, launch_fused<float, 1, 3>, launch_fused<float, 1, 4>}, {launch_fused<float, 2, 2>, NULL, NULL}},
    {{launch_fused<double, 1, 2>, launch_fused<double, 1, 3>, launch_fused<double, 1, 4>}, {launch_fused<double, 2, 2>, NULL, NULL}},
};

/* levels sweeps (2..HX_FUSE_MAX/radius) in one pass; boxes[j] is the box of the j-th. 2D only. */
int cu_sweep_fused(hx_backend *bk, int stream, int levels, const hx_box *boxes, const void *src, void *dst)
{
    const hx_decomp *d = bk->decomp;
    const int r = hx_stencil_get(bk->stencil)->radius;
    const fused_fn fn = d->dim == 2 && r >= 1 && r <= 2 && levels >= 2 && levels <= 4 ? fused_table[dtype_slot(bk)][r - 1][levels - 2] : NULL;
    if (!fn || levels * r > HX_FUSE_MAX) {
        snprintf(bk->err, sizeof bk->err, "fused sweeps are 2D only, 2 to %d sweeps of radius %d (asked %d in %dD)",
                 HX_FUSE_MAX / r, r, levels, d->dim);
        return -1;
    }
    if (hx_box_cells(&boxes[levels - 1]) == 0) return 0;
    fn(d, boxes, src, dst, state(bk)->stream[stream], state(bk)->tile.sms);
    CU_LAUNCHED(bk);
    return 0;
}
