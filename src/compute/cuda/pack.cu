/* Pack/unpack (one launch per phase), init_field and diff_norm2: the ops whose kernels are not sweeps. */
#include "compute/cuda/ops.h"
#include "compute/cuda/pack.cuh"

template <typename T, bool TO_BUF>
__global__ void move_phase(T *__restrict__ field, T *__restrict__ buf, dev_phase ph, long sy, long sz)
{
    grid_dep_enter();
    move_phase_body<T, TO_BUF>(field, buf, ph, sy, sz, blockIdx.y, blockIdx.x, gridDim.x);
}

template <bool TO_BUF>
__global__ void move_fields(char *buf, dev_phase ph, hx_pack_fields fs)
{
    grid_dep_enter();
    move_fields_body<TO_BUF>(buf, ph, fs, blockIdx.y, blockIdx.z, blockIdx.x, gridDim.x);
}

template <typename T>
__global__ void init_kernel(T *f, int lx, int gx, int gy, int ox, int oy, int oz, long sy, long sz,
                            unsigned long long seed)
{
    init_body<T>(f, lx, gx, gy, ox, oy, oz, sy, sz, seed, blockIdx);
}

template <typename T>
__global__ void diff_kernel(const T *a, const T *b, sweep_args r, double *out)
{
    diff_body<T>(a, b, r, out, blockIdx.x, gridDim.x);
}

/* ---------------------------------------------------------------- launches, by dtype */

template <typename T, bool TO_BUF>
static void launch_move_t(dim3 grid, int threads, cudaStream_t st, int pdl, void *field, void *buf, const dev_phase &dp, long sy, long sz)
{
    launch_sweep_kernel(move_phase<T, TO_BUF>, grid, dim3(threads), 0, st, pdl, (T *)field, (T *)buf, dp, sy, sz);
}
typedef void (*move_fn)(dim3, int, cudaStream_t, int, void *, void *, const dev_phase &, long, long);
/* [dtype: float, double][unpack, pack] */
static const move_fn move_table[2][2] = {
    {launch_move_t<float, false>, launch_move_t<float, true>},
    {launch_move_t<double, false>, launch_move_t<double, true>},
};

template <typename T>
static void launch_init_t(dim3 grid, cudaStream_t st, void *field, long first, const hx_decomp *d, long sy, long sz, uint64_t seed)
{
    init_kernel<T><<<grid, 256, 0, st>>>((T *)field + first, d->local[0], d->global[0], d->global[1], d->offset[0],
                                         d->offset[1], d->offset[2], sy, sz, seed);
}
typedef void (*init_fn)(dim3, cudaStream_t, void *, long, const hx_decomp *, long, long, uint64_t);
static const init_fn init_table[2] = {launch_init_t<float>, launch_init_t<double>}; /* [dtype] */

template <typename T>
static void launch_diff_t(unsigned blocks, cudaStream_t st, const void *a, const void *b, const sweep_args &r, double *out)
{
    diff_kernel<T><<<blocks, 256, 0, st>>>((const T *)a, (const T *)b, r, out);
}
typedef void (*diff_fn)(unsigned, cudaStream_t, const void *, const void *, const sweep_args &, double *);
static const diff_fn diff_table[2] = {launch_diff_t<float>, launch_diff_t<double>}; /* [dtype] */

/* ---------------------------------------------------------------- ops */

/* Every field of a many-field phase in one launch: blocks of a message's share (x), the message (y),
 * the field (z). */
int cu_pack_many(hx_backend *bk, int stream, const hx_phase *ph, const hx_pack_fields *fs, void *buf, int to_buf)
{
    if (ph->nmsg == 0 || fs->n == 0) return 0;
    dev_phase dp;
    long most;
    dev_phase_of(ph, to_buf != 0, dp, &most);
    const int threads = 256;
    long blocks = (most + threads * MOVE_BATCH - 1) / (threads * MOVE_BATCH);
    if (blocks > 4096) blocks = 4096;
    const dim3 grid((unsigned)blocks, (unsigned)ph->nmsg, (unsigned)fs->n);
    cudaStream_t st = state(bk)->stream[stream];
    if (to_buf) launch_sweep_kernel(move_fields<true>, grid, dim3(threads), 0, st, cu_pdl(bk), (char *)buf, dp, *fs);
    else launch_sweep_kernel(move_fields<false>, grid, dim3(threads), 0, st, cu_pdl(bk), (char *)buf, dp, *fs);
    CU_LAUNCHED(bk);
    return 0;
}

static int launch_move(hx_backend *bk, int stream, const hx_phase *ph, void *field, void *buf, bool to_buf)
{
    if (ph->nmsg == 0) return 0;
    const hx_decomp *d = bk->decomp;
    dev_phase dp;
    long most;
    dev_phase_of(ph, to_buf, dp, &most);
    const int threads = 256;
    long blocks = (most + threads * MOVE_BATCH - 1) / (threads * MOVE_BATCH); /* MOVE_BATCH cells a thread */
    if (blocks > 4096) blocks = 4096;
    dim3 grid((unsigned)blocks, (unsigned)ph->nmsg);
    const long sy = d->alloc[0], sz = (long)d->alloc[0] * d->alloc[1];
    move_table[dtype_slot(bk)][to_buf](grid, threads, state(bk)->stream[stream], cu_pdl(bk), field, buf, dp, sy, sz);
    CU_LAUNCHED(bk);
    return 0;
}

int cu_pack(hx_backend *bk, int stream, const hx_phase *ph, const void *field, void *buf)
{
    return launch_move(bk, stream, ph, (void *)field, buf, true);
}

int cu_unpack(hx_backend *bk, int stream, const hx_phase *ph, const void *buf, void *field)
{
    return launch_move(bk, stream, ph, field, (void *)buf, false);
}

int cu_init_field(hx_backend *bk, void *field, uint64_t seed)
{
    const hx_decomp *d = bk->decomp;
    cudaStream_t st = state(bk)->stream[HX_STREAM_MAIN];
    CU_TRY(bk, cudaMemsetAsync(field, 0, (size_t)hx_alloc_cells(d) * bk->elem, st));
    const long sy = d->alloc[0], sz = (long)d->alloc[0] * d->alloc[1];
    const long first = hx_local_index(d, d->ghost[0], d->ghost[1], d->ghost[2]);
    dim3 grid((d->local[0] + 255) / 256, d->local[1], d->local[2]);
    init_table[dtype_slot(bk)](grid, st, field, first, d, sy, sz, seed);
    CU_LAUNCHED(bk);
    return 0;
}

int cu_diff_norm2(hx_backend *bk, int stream, const hx_box *box, const void *a, const void *b, double *result)
{
    cuda_state *s = state(bk);
    cudaStream_t st = s->stream[stream];
    const hx_decomp *d = bk->decomp;
    sweep_args r;
    for (int i = 0; i < 3; i++) {
        r.lo[i] = box->lo[i];
        r.hi[i] = box->hi[i];
    }
    r.sy = d->alloc[0];
    r.sz = (long)d->alloc[0] * d->alloc[1];
    CU_TRY(bk, cudaMemsetAsync(s->norm_dev, 0, sizeof(double), st));
    long n = hx_box_cells(box), blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    if (blocks < 1) blocks = 1;
    diff_table[dtype_slot(bk)]((unsigned)blocks, st, a, b, r, s->norm_dev);
    CU_LAUNCHED(bk);
    CU_TRY(bk, cudaMemcpyAsync(s->norm_host, s->norm_dev, sizeof(double), cudaMemcpyDeviceToHost, st));
    /* the reduction result is needed by the host at once (an MPI_Allreduce follows) */
    if (cu_sync(bk, stream)) return -1;
    *result = *s->norm_host;
    return 0;
}
