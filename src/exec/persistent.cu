/* (About 540 lines: the set-up of the pass, resident and role kernels shares one device state and
 * its checks; the fused 3D pass kernel's instances and plans live in persistent_fused3d.cu, its
 * set-up here. Split the set-up per kernel when another comes.)
 * Host side of the kernel-initiated schedules (see persistent_kernel.cuh for the device side):
 * set-up of the device state (message table, barrier, watchdog report), co-residency, launch,
 * a host deadline on lack of progress, and the norms reduced after the run.
 *   persistent  one cooperative launch for all the sweeps of hx_iterate;
 *   fused       one cooperative launch per cycle, enqueued back to back (the host never waits). */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/persistent.h"
#include "exec/persistent_fused3d.h"
#include "exec/persistent_kernel.cuh"
#include "exec/resident_kernel.cuh"
#include "exec/resident3d_kernel.cuh"
#include "exec/roles_kernel.cuh"
#include "exec/persistent_plan.cuh"
#ifdef HALOX_HAVE_NVSHMEM_DEVICE
#include "exec/persistent_shmem.h"
#endif

struct hx_device_run {
    hx_dev_table *table;       /* on the device */
    hx_watch *watch_host, *watch_dev;
    int *abort_flag, *cur_out; /* device */
    unsigned *bar;             /* device */
    double *norm_dev;
    long norm_cap;
    void *kernel;
    int grid, threads, levels, tx, ty, pitch;
    size_t smem;
    /* resident kernel: tiles stay in shared memory for the whole run */
    int resident, ntx, nty, ring, tz, ntz, inplace;
    int shmem_api; /* the pass kernel puts with the NVSHMEM device API */
    int roles; /* the role-based fused kernel (roles_kernel.cuh, HALOX_ROLES=1) */
    int march2d; /* the 2D passes march register windows (pass2d_march.cuh) */
    int fused3d; /* the 3D passes fuse r->levels sweeps (persistent_fused3d.cu) */
    hx_f3params f3; /* their kernel's parameters: the plans (one per sweeps left in a cycle) filled at set-up, p at a launch */
    unsigned long long *ll_mail[2]; /* device, per parity: the mailbox of flagged words ([0] owns the allocation) */
    unsigned long long *prof;      /* device, HALOX_PROFILE=1 */
};

#define DEV_TRY(call)                                                                                        \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            snprintf(s->err, sizeof s->err, "%s: %s", #call, cudaGetErrorString(e_));                        \
            return -1;                                                                                       \
        }                                                                                                    \
    } while (0)

typedef void (*kernel_fn)(hx_pparams);
/* The pass kernel. In 3D (jacobi7, star13) its register-window variant (pass3d_march.cuh) is the
 * default: on one H200 it beat rows from L2 at every size and depth timed (docs/results.md, session
 * 7); HALOX_PASS3D=rows keeps the older 3D pass for comparison. In 2D (jacobi5, star9) with passes
 * of several sweeps (march2d: --fuse > 1), the register-window march in y (pass2d_march.cuh), the
 * cycle schedule's fused body; HALOX_PASS2D=tiles keeps the shared-memory tiles. */
static bool pass2d_march_wanted(void)
{
    const char *e = getenv("HALOX_PASS2D");
    return !(e && strcmp(e, "tiles") == 0);
}
static kernel_fn pick_kernel(hx_dtype t, hx_stencil_id st, bool march2d)
{
    static const kernel_fn table[2][HX_NUM_STENCILS] = {
        {hx_persistent_kernel<float, HX_JACOBI5>, hx_persistent_kernel<float, HX_JACOBI7>,
         hx_persistent_kernel<float, HX_STAR9>, hx_persistent_kernel<float, HX_STAR13>},
        {hx_persistent_kernel<double, HX_JACOBI5>, hx_persistent_kernel<double, HX_JACOBI7>,
         hx_persistent_kernel<double, HX_STAR9>, hx_persistent_kernel<double, HX_STAR13>},
    };
    static const kernel_fn march[2][HX_NUM_STENCILS] = {
        {hx_persistent_kernel<float, HX_JACOBI5, true>, hx_persistent_kernel<float, HX_JACOBI7, true>,
         hx_persistent_kernel<float, HX_STAR9, true>, hx_persistent_kernel<float, HX_STAR13, true>},
        {hx_persistent_kernel<double, HX_JACOBI5, true>, hx_persistent_kernel<double, HX_JACOBI7, true>,
         hx_persistent_kernel<double, HX_STAR9, true>, hx_persistent_kernel<double, HX_STAR13, true>},
    };
    const char *e = getenv("HALOX_PASS3D");
    const bool three_d = st == HX_JACOBI7 || st == HX_STAR13, rows = e && strcmp(e, "rows") == 0;
    return (three_d ? !rows : march2d) ? march[t == HX_DOUBLE][st] : table[t == HX_DOUBLE][st];
}

static kernel_fn pick_resident(hx_dtype t, hx_stencil_id st, int inplace)
{
    if (st == HX_JACOBI5 && inplace)
        return t == HX_DOUBLE ? hx_resident_kernel<double, HX_JACOBI5, true> : hx_resident_kernel<float, HX_JACOBI5, true>;
    if (st == HX_STAR9 && inplace) return t == HX_DOUBLE ? hx_resident_kernel<double, HX_STAR9, true> : hx_resident_kernel<float, HX_STAR9, true>;
    if (st == HX_JACOBI5) return t == HX_DOUBLE ? hx_resident_kernel<double, HX_JACOBI5> : hx_resident_kernel<float, HX_JACOBI5>;
    if (st == HX_STAR9) return t == HX_DOUBLE ? hx_resident_kernel<double, HX_STAR9> : hx_resident_kernel<float, HX_STAR9>;
    if (st == HX_JACOBI7) return t == HX_DOUBLE ? hx_resident3d_kernel<double, HX_JACOBI7> : hx_resident3d_kernel<float, HX_JACOBI7>;
    if (st == HX_STAR13) return t == HX_DOUBLE ? hx_resident3d_kernel<double, HX_STAR13> : hx_resident3d_kernel<float, HX_STAR13>;
    return NULL;
}

int hx_device_fused3d_max_depth(int fuse) { return fuse + HX_F3_PLANS - 1; }

const char *hx_device_kernel(const hx_sim *s)
{
    const hx_device_run *r = s->device_run;
    return r ? (r->roles      ? "roles"
                : r->resident ? "resident"
                : r->shmem_api ? "passes-shmem"
                : r->march2d  ? "passes-march"
                : r->fused3d  ? "passes-fused3d"
                              : "passes")
             : NULL;
}

/* HALOX_PROFILE=1: each rank prints where its blocks' cycles went (mean and slowest block). */
static void print_profile(const hx_sim *s, const hx_device_run *r)
{
    unsigned long long *h = (unsigned long long *)malloc((size_t)r->grid * 4 * sizeof *h);
    if (!h || cudaMemcpy(h, r->prof, (size_t)r->grid * 4 * sizeof *h, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(h);
        return;
    }
    double mean[3] = {0, 0, 0}, worst[3] = {0, 0, 0};
    for (int b = 0; b < r->grid; b++)
        for (int k = 0; k < 3 && h[4 * b + 3]; k++) {
            const double us = 1e-3 * (double)h[4 * b + k] / (double)h[4 * b + 3];
            mean[k] += us / r->grid;
            if (us > worst[k]) worst[k] = us;
        }
    if (r->resident)
        fprintf(stderr, "halox: rank %d resident profile, us per cycle (mean / slowest block of %d, %llu cycles): publish %.2f / %.2f, "
                "wait+gather %.2f / %.2f, sweeps %.2f / %.2f\n", s->d->rank, r->grid, h[3], mean[0], worst[0], mean[1], worst[1],
                mean[2], worst[2]);
    else
        fprintf(stderr, "halox: rank %d pass-kernel profile, us per cycle (mean / slowest block of %d, %llu cycles): exchange %.2f / "
                "%.2f, sweeps %.2f / %.2f (of which at grid barriers %.2f / %.2f)\n", s->d->rank, r->grid, h[3], mean[1], worst[1],
                mean[2], worst[2], mean[0], worst[0]);
    free(h);
}

void hx_device_release(hx_sim *s)
{
    hx_device_run *r = s->device_run;
    if (!r) return;
    if (r->prof) print_profile(s, r);
    cudaFree(r->table);
    cudaFreeHost(r->watch_host);
    cudaFree(r->abort_flag);
    cudaFree(r->cur_out);
    cudaFree(r->bar);
    cudaFree(r->norm_dev);
    cudaFree(r->ll_mail[0]);
    cudaFree(r->prof);
    free(r);
    s->device_run = NULL;
}

/* HALOX_PROFILE=1: four counters a block (print_profile), zeroed. */
static int alloc_profile(hx_sim *s, hx_device_run *r)
{
    const char *e = getenv("HALOX_PROFILE");
    if (!e || atoi(e) != 1) return 0;
    DEV_TRY(cudaMalloc((void **)&r->prof, (size_t)r->grid * 4 * sizeof(unsigned long long)));
    DEV_TRY(cudaMemset(r->prof, 0, (size_t)r->grid * 4 * sizeof(unsigned long long)));
    return 0;
}

/* hx_resident_choose's occupancy query: blocks of the resident kernel an SM holds (one: the
 * one-buffer kernel's, whose 72 registers a thread hold fewer blocks than the other's 64 can). */
typedef struct {
    hx_sim *s;
    kernel_fn kernel, kernel1;
} occupancy_query;
static int occupancy(void *ctx, int threads, size_t smem, int one, int *out)
{
    hx_sim *s = ((occupancy_query *)ctx)->s;
    kernel_fn kernel = one ? ((occupancy_query *)ctx)->kernel1 : ((occupancy_query *)ctx)->kernel;
    int per_sm = 0;
    DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (void *)kernel, threads, smem));
    *out = per_sm;
    return 0;
}

/* The resident kernel, where it applies: every ghost cell from a message of one phase (the direct
 * pattern: no forwarded ghosts), a ring that fits the ghost width, and tiles that fit on the GPU at
 * once (2D: resident_kernel.cuh; 3D: resident3d_kernel.cuh, only with HALOX_RESIDENT3D=1: on 4
 * H200s at 256^3 it takes 18.9 us a sweep at depth 3 against 17.0 for the pass kernel and 11.5 for
 * the cycle schedule, docs/results.md, session 21). The shape minimises the cells an SM updates per
 * sweep (its blocks x a tile and its average ring). Returns 1 when set up, 0 when it does not
 * apply, -1 on error. */
static int setup_resident(hx_sim *s, const hx_dev_table *table, int sms)
{
    hx_device_run *r = s->device_run;
    const hx_decomp *d = s->d;
    const char *env = getenv("HALOX_RESIDENT");
    const char *env3 = getenv("HALOX_RESIDENT3D");
    /* HALOX_RESIDENT_INPLACE=1: the one-buffer sweep wherever a tile fits (to compare), 0: never */
    const char *envi = getenv("HALOX_RESIDENT_INPLACE");
    const int inplace = !envi ? 0 : strcmp(envi, "1") == 0 ? 1 : strcmp(envi, "0") == 0 ? -1 : 0;
    const int H = s->opt.depth * s->radius, W = d->local[0], Hy = d->local[1], dev = s->bk->device;
    kernel_fn kernel = pick_resident(s->bk->dtype, s->bk->stencil, 0), kernel1 = pick_resident(s->bk->dtype, s->bk->stencil, 1);
    if ((env && strcmp(env, "0") == 0) || (d->dim == 3 && !(env3 && strcmp(env3, "1") == 0)) || !kernel) return 0;
    for (int a = 0; a < d->dim; a++)
        if (H > d->ghost[a]) return 0;
    /* ranks let share a GPU (HALOX_SHARE_GPU=1): the pass kernel; the resident one hung there once, two
     * processes' cooperative grids time-slicing one GPU (docs/results.md, session 6) */
    const char *share = getenv("HALOX_SHARE_GPU");
    if (share && strcmp(share, "1") == 0) return 0;
    for (int ph = 1; ph < table->nphases; ph++)
        if (table->nmsg[ph]) return 0;
    int optin = 0, most = 0;
    cudaFuncAttributes fa;
    DEV_TRY(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    optin = most;
    /* the dynamic part: the block's static shared memory counts too (the one-buffer kernel: 2D;
     * in 3D both are the 3D kernel) */
    for (int k = 0; k < 2; k++) {
        kernel_fn f = k ? kernel1 : kernel;
        if (!f) continue;
        DEV_TRY(cudaFuncGetAttributes(&fa, (const void *)f));
        if (most - (int)fa.sharedSizeBytes < optin) optin = most - (int)fa.sharedSizeBytes;
    }
    for (int k = 0; k < 2; k++)
        if (k ? kernel1 : kernel) DEV_TRY(cudaFuncSetAttribute((void *)(k ? kernel1 : kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    occupancy_query q = {s, kernel, kernel1};
    hx_resident_shape sh;
    const int fits = d->dim == 3 ? hx_resident3d_choose(W, Hy, d->local[2], H, s->bk->elem, sms, optin, occupancy, &q, &sh)
                                 : hx_resident_choose(W, Hy, H, s->bk->elem, sms, optin, inplace, occupancy, &q, &sh);
    if (fits < 0) return -1;
    if (fits == 0) return 0; /* too large to stay on chip: the pass kernel streams it */
    r->tx = sh.tx, r->ty = sh.ty, r->threads = sh.threads, r->smem = sh.smem, r->ntx = sh.ntx, r->nty = sh.nty;
    r->tz = sh.tz, r->ntz = sh.ntz;
    r->resident = 1;
    r->ring = sh.ring;
    r->inplace = sh.inplace;
    r->pitch = sh.pitch;
    r->grid = sh.grid;
    r->kernel = (void *)(sh.inplace ? kernel1 : kernel);
    /* the mailbox: a flagged word per 4 bytes of every cell, per parity, zeroed (no valid number) */
    const size_t words = (size_t)hx_alloc_cells(d) * (s->bk->elem / 4);
    DEV_TRY(cudaMalloc((void **)&r->ll_mail[0], 2 * words * sizeof(unsigned long long)));
    DEV_TRY(cudaMemset(r->ll_mail[0], 0, 2 * words * sizeof(unsigned long long)));
    r->ll_mail[1] = r->ll_mail[0] + words;
    if (alloc_profile(s, r)) return -1;
    if (getenv("HALOX_VERBOSE") && d->rank == 0)
        fprintf(stderr, "halox: %s schedule: resident tiles %dx%dx%d (%dx%dx%d blocks of %d threads, %zu B of shared memory), ring %d%s\n",
                hx_schedule_name(s->opt.schedule), r->tx, r->ty, r->tz, r->ntx, r->nty, r->ntz, r->threads, r->smem, H,
                r->inplace ? ", one buffer swept in bands" : "");
    return 1;
}

static kernel_fn pick_roles(hx_dtype t, hx_stencil_id st)
{
    static const kernel_fn table[2][HX_NUM_STENCILS] = {
        {hx_roles_kernel<float, HX_JACOBI5>, hx_roles_kernel<float, HX_JACOBI7>, hx_roles_kernel<float, HX_STAR9>,
         hx_roles_kernel<float, HX_STAR13>},
        {hx_roles_kernel<double, HX_JACOBI5>, hx_roles_kernel<double, HX_JACOBI7>, hx_roles_kernel<double, HX_STAR9>,
         hx_roles_kernel<double, HX_STAR13>},
    };
    return table[t == HX_DOUBLE][st];
}

/* The role-based kernel (roles_kernel.cuh: 1 receiver, N sender/interior blocks, M boundary blocks
 * on an atomic ticket), where it applies: the fused schedule at depth 1 with every ghost cell from
 * a message of phase 0 (the direct pattern, or no neighbours), and only with HALOX_ROLES=1: it is
 * bit-identical on the GPU (1 rank, 2 ranks sharing one) and on the host emulator, but on one GPU
 * it is slower than the pass and resident kernels (docs/results.md, session 6) and is unmeasured on
 * several, so those stay the default. Returns 1 when set up, 0 when it does not apply, -1 on error. */
static int setup_roles(hx_sim *s, const hx_dev_table *table, int sms)
{
    hx_device_run *r = s->device_run;
    const hx_decomp *d = s->d;
    const char *env = getenv("HALOX_ROLES");
    if (!env || strcmp(env, "1") != 0 || s->opt.schedule != HX_SCHEDULE_FUSED || s->opt.depth != 1) return 0;
    for (int ph = 1; ph < table->nphases; ph++)
        if (table->nmsg[ph]) return 0;
    int per_sm = 0;
    r->kernel = (void *)pick_roles(s->bk->dtype, s->bk->stencil);
    r->threads = HX_ROLE_THREADS;
    r->smem = 0;
    DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, r->kernel, r->threads, 0));
    if ((long)per_sm * sms < 3)
        return snprintf(s->err, sizeof s->err, "the role kernel needs 3 co-resident blocks on GPU %d", s->bk->device), -1;
    r->grid = hx_roles_grid((long)d->local[0] * d->local[1] * (d->dim > 2 ? d->local[2] : 1), per_sm, sms);
    r->levels = 1;
    r->roles = 1;
    if (getenv("HALOX_VERBOSE") && d->rank == 0)
        fprintf(stderr, "halox: fused schedule: role kernel, %d blocks of %d threads\n", r->grid, r->threads);
    return 1;
}

/* Fused 3D passes of floats: the narrow tile (rows of 16 lanes, fused3d_tile) where
 * fused3d_pick_lanes takes it for a cycle's passes over the grid's blocks and its kernel keeps as
 * many blocks per SM; f3 and the launch shape follow it. */
static int f3_choose_lanes(hx_sim *s, hx_device_run *r, hx_f3_kernel *f3, int per_sm)
{
    hx_f3_kernel narrow;
    if (hx_f3_pick(s->bk->dtype, s->bk->stencil, s->opt.fuse, 16, &narrow)) return 0; /* doubles: none */
    const hx_decomp *d = s->bk->decomp;
    const double c16 = narrow.cost(d, s->opt.depth, r->grid), c32 = f3->cost(d, s->opt.depth, r->grid);
    if (fused3d_pick_lanes<float>(c16, c32, s->bk->tuning.lanes) != 16) return 0;
    int narrow_per_sm = 0;
    DEV_TRY(cudaFuncSetAttribute(narrow.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)narrow.smem));
    DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&narrow_per_sm, narrow.kernel, narrow.threads, narrow.smem));
    if (narrow_per_sm < per_sm) return 0; /* the grid must stay resident */
    *f3 = narrow;
    r->kernel = narrow.kernel, r->threads = narrow.threads, r->smem = narrow.smem;
    return 0;
}

static int setup(hx_sim *s)
{
    hx_device_run *r = (hx_device_run *)calloc(1, sizeof *r);
    if (!r) return snprintf(s->err, sizeof s->err, "out of host memory for the device schedule"), -1;
    s->device_run = r;
    hx_dev_table table;
    if (!s->tr->ops->device_table || s->tr->ops->device_table(s->tr, &table))
        return snprintf(s->err, sizeof s->err, "transport %s: %s", s->tr->ops->name,
                        s->tr->ops->device_table ? s->tr->err : "no device path"), -1;
    DEV_TRY(cudaMalloc((void **)&r->table, sizeof table));
    DEV_TRY(cudaMemcpy(r->table, &table, sizeof table, cudaMemcpyHostToDevice));
    DEV_TRY(cudaHostAlloc((void **)&r->watch_host, sizeof(hx_watch), cudaHostAllocMapped));
    memset(r->watch_host, 0, sizeof(hx_watch));
    DEV_TRY(cudaHostGetDevicePointer((void **)&r->watch_dev, r->watch_host, 0));
    DEV_TRY(cudaMalloc((void **)&r->abort_flag, sizeof(int)));
    DEV_TRY(cudaMalloc((void **)&r->cur_out, sizeof(int)));
    DEV_TRY(cudaMalloc((void **)&r->bar, 64 * sizeof(unsigned)));
    DEV_TRY(cudaMemset(r->abort_flag, 0, sizeof(int)));
    DEV_TRY(cudaMemset(r->bar, 0, 64 * sizeof(unsigned)));

    const hx_decomp *d = s->d;
    const int levels = s->opt.fuse > 1 && d->dim == 2 ? s->opt.fuse : 1;
    int per_sm = 0, sms = 0, dev = s->bk->device;
    DEV_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int roles = setup_roles(s, &table, sms);
    if (roles) return roles < 0 ? -1 : 0;
    const int res = setup_resident(s, &table, sms);
    if (res) return res < 0 ? -1 : 0;
    hx_pass_shape ps;
    hx_pass_tiles(d, s->radius, levels, sms, s->opt.depth, s->bk->elem, &ps);
    r->tx = ps.tx, r->ty = ps.ty, r->levels = ps.levels, r->pitch = ps.pitch, r->smem = ps.smem, r->threads = ps.threads;
    bool march2d = d->dim == 2 && levels > 1 && pass2d_march_wanted();
    r->kernel = NULL;
    /* 3D with --fuse: the pass kernel whose full passes run the cycle schedule's fused body (every
     * transport stores through its mapping, nvshmem through nvshmem_ptr: no instance puts with the
     * NVSHMEM device API) */
    hx_f3_kernel f3 = {};
    if (d->dim == 3 && s->opt.fuse > 1) {
        if (hx_f3_pick(s->bk->dtype, s->bk->stencil, s->opt.fuse, 32, &f3))
            return snprintf(s->err, sizeof s->err, "fused 3D passes take 2 to %d sweeps of radius %d (asked %d)", HX_FUSE_MAX_3D / s->radius,
                            s->radius, s->opt.fuse), -1;
        if (s->opt.depth > hx_device_fused3d_max_depth(s->opt.fuse))
            return snprintf(s->err, sizeof s->err, "schedule %s with fused 3D passes of %d sweeps takes depth %d at most (asked %d): use "
                            "a smaller depth, or the cycle schedule", hx_schedule_name(s->opt.schedule), s->opt.fuse,
                            hx_device_fused3d_max_depth(s->opt.fuse), s->opt.depth), -1;
        r->kernel = f3.kernel, r->threads = f3.threads, r->smem = f3.smem, r->levels = s->opt.fuse, r->fused3d = 1;
    }
#ifdef HALOX_HAVE_NVSHMEM_DEVICE
    /* transport nvshmem: its puts by the NVSHMEM device API (HALOX_NVSHMEM_API=0: stores through
     * nvshmem_ptr, as the other kernels do) */
    const char *api = getenv("HALOX_NVSHMEM_API");
    if (!r->fused3d && strcmp(s->tr->ops->name, "nvshmem") == 0 && !(api && strcmp(api, "0") == 0)) {
        r->kernel = hx_shmem_pass_kernel(s->bk->dtype == HX_DOUBLE, s->bk->stencil); /* 2D: its tiles */
        r->shmem_api = 1;
        march2d = false;
    }
#endif
    if (!r->kernel) r->kernel = (void *)pick_kernel(s->bk->dtype, s->bk->stencil, march2d);
    if (march2d) r->threads = 128, r->smem = 0, r->march2d = 1;
    DEV_TRY(cudaFuncSetAttribute(r->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)r->smem));
    DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, r->kernel, r->threads, r->smem));
    if (per_sm < 1)
        return snprintf(s->err, sizeof s->err, "the persistent kernel does not fit on an SM of GPU %d (%zu bytes of shared memory)",
                        dev, r->smem), -1;
    /* march and fused 3D: every block resident, taking marches or tiles in turn */
    r->grid = march2d || r->fused3d ? per_sm * sms : hx_pass_grid(d, s->radius, s->opt.depth, &ps, per_sm, sms);
    if (r->fused3d) {
        if (f3_choose_lanes(s, r, &f3, per_sm)) return -1;
        f3.plans(d, s->opt.depth, r->grid, r->f3.plan); /* depth - levels + 1 of them (checked above) */
    }
    if (alloc_profile(s, r)) return -1;
    if (getenv("HALOX_VERBOSE") && d->rank == 0)
        fprintf(stderr, "halox: %s schedule: pass kernel, %d blocks of %d threads (%d per SM), %zu B of shared memory%s%s\n",
                hx_schedule_name(s->opt.schedule), r->grid, r->threads, per_sm, r->smem, r->fused3d ? ", fused 3D tile rows of " : "",
                r->fused3d ? (f3.lanes == 16 ? "16 lanes" : "32 lanes") : "");
    return 0;
}

/* Wait for the stream; give up when the device reports no progress for longer than the timeout
 * plus a margin (its own watchdog should have spoken first). */
static int wait_progress(hx_sim *s, cudaStream_t st)
{
    hx_device_run *r = s->device_run;
    const double limit = hx_timeout_seconds() + 10;
    volatile hx_watch *w = r->watch_host;
    unsigned long long last = w->progress;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cudaError_t e;
    while ((e = cudaStreamQuery(st)) == cudaErrorNotReady) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (w->progress != last) {
            last = w->progress;
            t0 = t;
        } else if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > limit) {
            return snprintf(s->err, sizeof s->err, "GPU %d: the %s kernel made no progress for %.0f s and did not stop",
                            s->bk->device, hx_schedule_name(s->opt.schedule), limit), -1;
        }
    }
    if (e != cudaSuccess) return snprintf(s->err, sizeof s->err, "the %s kernel failed: %s", hx_schedule_name(s->opt.schedule),
                                          cudaGetErrorString(e)), -1;
    if (w->state) {
        if (w->what == HX_WAIT_FLAG)
            snprintf(s->err, sizeof s->err, "rank %d waited %.1f s on the device for the halo of rank %d (phase %d, exchange %lld, "
                     "after sweep %lld) and gave up: that neighbour never put it", w->rank, w->waited_s, w->peer, w->phase,
                     w->exchange, w->sweep);
        else if (w->what == HX_WAIT_RELEASE)
            snprintf(s->err, sizeof s->err, "rank %d: a boundary block waited %.1f s for the receiver block's release (exchange %lld, "
                     "after sweep %lld) and gave up", w->rank, w->waited_s, w->exchange, w->sweep);
        else if (w->what == HX_WAIT_TILE)
            snprintf(s->err, sizeof s->err, "rank %d: a tile waited %.1f s for a neighbouring tile of its own GPU (exchange %lld, "
                     "after sweep %lld) and gave up", w->rank, w->waited_s, w->exchange, w->sweep);
        else
            snprintf(s->err, sizeof s->err, "rank %d: a block waited %.1f s at a grid barrier (exchange %lld, after sweep %lld) "
                     "and gave up", w->rank, w->waited_s, w->exchange, w->sweep);
        return -1;
    }
    return 0;
}

static long long skip_from(const hx_sim *s)
{
    const char *e = getenv("HALOX_FAULT_SKIP_PUTS");
    return e && *e && atoi(e) == s->d->rank ? 3 : 0; /* from the third exchange on */
}

static int launch(hx_sim *s, long sweeps, long done0, cudaStream_t st)
{
    hx_device_run *r = s->device_run;
    const hx_decomp *d = s->d;
    hx_pparams p;
    memset(&p, 0, sizeof p);
    p.field[0] = s->field[0];
    p.field[1] = s->field[1];
    hx_pparams_domain(&p, d, s->radius);
    p.depth = s->opt.depth;
    p.sweeps = sweeps;
    p.done0 = done0;
    p.norm_every = s->opt.norm_every;
    p.norm_acc = r->norm_dev; /* slots count from the first norm of this hx_device_iterate */
    p.norm_base = s->opt.norm_every > 0 ? s->sweeps_done / s->opt.norm_every : 0;
    p.table = r->table;
    p.exch0 = s->tr->dev_exchanges; /* kept by the transport: another sweeper on it continues the count */
    p.skip_from = skip_from(s);
    p.levels = r->levels;
    p.tx = r->tx;
    p.ty = r->ty;
    p.pitch = r->pitch;
    p.timeout_ns = (unsigned long long)(hx_timeout_seconds() * 1e9);
    p.watch = r->watch_dev;
    p.abort_flag = r->abort_flag;
    p.bar = r->bar;
    p.rank = d->rank;
    p.cg_sync = getenv("HALOX_CG_SYNC") && atoi(getenv("HALOX_CG_SYNC")) == 1;
    p.cur_out = r->cur_out;
    p.ntx = r->ntx;
    p.nty = r->nty;
    p.tz = r->tz;
    p.ntz = r->ntz;
    p.ring = r->ring;
    p.inplace = r->inplace;
    p.ll_mail[0] = r->ll_mail[0];
    p.ll_mail[1] = r->ll_mail[1];
    p.prof = r->prof;
    void *args[] = {&p};
    if (r->fused3d) {
        r->f3.p = p;
        args[0] = &r->f3;
    }
    DEV_TRY(cudaLaunchCooperativeKernel(r->kernel, dim3((unsigned)r->grid), dim3((unsigned)r->threads), args, r->smem, st));
    /* exchanges this launch makes: one per cycle */
    s->tr->dev_exchanges += (unsigned long long)((sweeps + s->opt.depth - 1) / s->opt.depth);
    return 0;
}

int hx_device_iterate(hx_sim *s, long sweeps)
{
    if (!s->device_run) {
        if (setup(s)) return -1;
        /* set-up zeroes the mailbox, barrier and abort flag with cudaMemset on the legacy stream, which
         * the backend's non-blocking streams do not wait for: a first launch could publish into a
         * mailbox still being zeroed and wait for ever (seen once, 3D resident kernel, 72 MB mailbox) */
        DEV_TRY(cudaDeviceSynchronize());
    }
    hx_device_run *r = s->device_run;
    hx_backend *bk = s->bk;
    cudaStream_t st = (cudaStream_t)bk->ops->native_stream(bk, HX_STREAM_MAIN);
    const long every = s->opt.norm_every, done0 = s->sweeps_done;
    const long nnorm = every > 0 ? (done0 + sweeps) / every - done0 / every : 0;
    if (nnorm > r->norm_cap) {
        cudaFree(r->norm_dev);
        r->norm_dev = NULL;
        DEV_TRY(cudaMalloc((void **)&r->norm_dev, (size_t)nnorm * sizeof(double)));
        r->norm_cap = nnorm;
    }
    if (nnorm) DEV_TRY(cudaMemsetAsync(r->norm_dev, 0, (size_t)nnorm * sizeof(double), st));
    DEV_TRY(cudaMemcpyAsync(r->cur_out, &s->cur, sizeof(int), cudaMemcpyHostToDevice, st));
    if (s->opt.schedule == HX_SCHEDULE_PERSISTENT) {
        if (sweeps > 0 && launch(s, sweeps, done0, st)) return -1;
    } else {
        /* fused: one launch per cycle, queued without waiting; each starts from the iterate the
         * previous one left (the kernels keep `cur` in device memory) */
        for (long done = 0; done < sweeps;) {
            long m = sweeps - done < s->opt.depth ? sweeps - done : s->opt.depth;
            if (launch(s, m, done0 + done, st)) return -1;
            done += m;
        }
    }
    if (wait_progress(s, st)) return -1;
    DEV_TRY(cudaMemcpy(&s->cur, r->cur_out, sizeof(int), cudaMemcpyDeviceToHost));
    s->sweeps_done += sweeps;
    if (nnorm) {
        double *local = (double *)malloc((size_t)nnorm * sizeof(double)), *global = (double *)malloc((size_t)nnorm * sizeof(double));
        if (!local || !global) return free(local), free(global), snprintf(s->err, sizeof s->err, "out of host memory for the norms"), -1;
        cudaError_t e = cudaMemcpy(local, r->norm_dev, (size_t)nnorm * sizeof(double), cudaMemcpyDeviceToHost);
        int bad = e != cudaSuccess || MPI_Allreduce(local, global, (int)nnorm, MPI_DOUBLE, MPI_SUM, s->comm) != MPI_SUCCESS;
        for (long i = 0; !bad && i < nnorm; i++) {
            s->last_norm = sqrt(global[i]);
            if (s->print_norms && s->d->rank == 0)
                printf("norm  sweep %-8ld ||u_new - u_old||_2 = %.9e\n", (done0 / every + 1 + i) * every, s->last_norm);
        }
        free(local);
        free(global);
        if (bad) return snprintf(s->err, sizeof s->err, "reducing the device norms failed"), -1;
    }
    return 0;
}
