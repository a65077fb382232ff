/* Set-up of the kernel-initiated schedules: which kernel runs (hx_kernel, the rules of
 * halox/sweeper.h), its launch shape, and the device state it needs (message table, barrier,
 * watchdog report, mailbox, profile counters). Made at hx_sweeper_create, so that a kernel asked
 * for that cannot run here is an input error agreed by every rank rather than a failed sweep. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exec/persistent_fused3d.h"
#include "exec/persistent_op.h"
#include "exec/persistent_run.h"
#include "exec/resident_kernel.cuh"
#include "exec/resident3d_kernel.cuh"
#include "exec/roles_kernel.cuh"
#include "exec/persistent_plan.cuh"
#ifdef HALOX_HAVE_NVSHMEM_DEVICE
#include "exec/persistent_shmem.h"
#endif

#define DEV_TRY HX_DEV_TRY

typedef void (*kernel_fn)(hx_pparams);

/* The pass kernel: in 3D its passes march register windows in z (pass3d_march.cuh); in 2D, passes
 * of several sweeps (march2d: fuse > 1) march them in y (pass2d_march.cuh), single sweeps tile
 * shared memory. */
static kernel_fn pick_kernel(hx_dtype t, hx_stencil_id st, bool march2d)
{
    static const kernel_fn tiles[2][2] = {
        {hx_persistent_kernel<float, HX_JACOBI5>, hx_persistent_kernel<float, HX_STAR9>},
        {hx_persistent_kernel<double, HX_JACOBI5>, hx_persistent_kernel<double, HX_STAR9>},
    };
    static const kernel_fn march[2][HX_NUM_STENCILS] = {
        {hx_persistent_kernel<float, HX_JACOBI5, true>, hx_persistent_kernel<float, HX_JACOBI7, true>,
         hx_persistent_kernel<float, HX_STAR9, true>, hx_persistent_kernel<float, HX_STAR13, true>},
        {hx_persistent_kernel<double, HX_JACOBI5, true>, hx_persistent_kernel<double, HX_JACOBI7, true>,
         hx_persistent_kernel<double, HX_STAR9, true>, hx_persistent_kernel<double, HX_STAR13, true>},
    };
    const bool three_d = st == HX_JACOBI7 || st == HX_STAR13;
    return three_d || march2d ? march[t == HX_DOUBLE][st] : tiles[t == HX_DOUBLE][st == HX_STAR9];
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

/* opt.profile: four counters a block (hx_device_release logs them), zeroed. */
static int alloc_profile(hx_sim *s, hx_device_run *r)
{
    if (!s->opt.profile) return 0;
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

/* Where a kernel asked for does not apply: HX_DEVICE_REFUSED with the reason in s->err. */
static int refuse(hx_sim *s, const char *kernel, const char *why)
{
    snprintf(s->err, sizeof s->err, "the %s kernel cannot run here: %s", kernel, why);
    return HX_DEVICE_REFUSED;
}

/* The resident kernel, where it applies: every ghost cell from a message of one phase (the direct
 * pattern: no forwarded ghosts), a ring that fits the ghost width, and tiles that fit on the GPU at
 * once (2D: resident_kernel.cuh; 3D: resident3d_kernel.cuh, only when asked for: the pass kernel
 * and the cycle schedule beat it in 3D). The shape minimises the cells an SM updates per sweep
 * (its blocks x a tile and its average ring). Returns 1 when set up, 0 when it does not apply
 * (asked for: HX_DEVICE_REFUSED), -1 on error. */
static int setup_resident(hx_sim *s, const hx_dev_table *table, int sms, bool asked)
{
    hx_device_run *r = s->device_run;
    const hx_decomp *d = s->d;
    /* hx_resident_choose: 1 one buffer only, -1 two only, 0 its own choice */
    const int inplace = s->opt.tuning.inplace == 1 ? 1 : s->opt.tuning.inplace == 0 ? -1 : 0;
    const int H = s->opt.depth * s->radius, W = d->local[0], Hy = d->local[1], dev = s->bk->device;
    kernel_fn kernel = pick_resident(s->bk->dtype, s->bk->stencil, 0), kernel1 = pick_resident(s->bk->dtype, s->bk->stencil, 1);
    if (!asked && d->dim == 3) return 0;
    if (!kernel) return asked ? refuse(s, "resident", "no resident kernel for this stencil") : 0;
    for (int a = 0; a < d->dim; a++)
        if (H > d->ghost[a]) return asked ? refuse(s, "resident", "its ring (depth x radius) is wider than the ghost cells") : 0;
    /* ranks that share a GPU (a test set-up): two processes' cooperative grids time-slicing one GPU
     * can keep a tile from ever seeing its neighbour's words */
    if (s->shared_gpu) return asked ? refuse(s, "resident", "ranks share this GPU; use one GPU per rank") : 0;
    for (int ph = 1; ph < table->nphases; ph++)
        if (table->nmsg[ph])
            return asked ? refuse(s, "resident", "the staged pattern forwards corners through phases; use the direct pattern") : 0;
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
    if (fits == 0) /* too large to stay on chip: the pass kernel streams it */
        return asked ? refuse(s, "resident", inplace > 0 ? "a rank's block does not fit in the GPU's shared memory in one buffer"
                                                         : "a rank's block does not fit in the GPU's shared memory")
                     : 0;
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
    if (d->rank == 0)
        hx_logf(s->bk->log, HX_LOG_INFO, "%s schedule: resident tiles %dx%dx%d (%dx%dx%d blocks of %d threads, %zu B of shared memory), ring %d%s",
                hx_schedule_name(s->opt.schedule), r->tx, r->ty, r->tz, r->ntx, r->nty, r->ntz, r->threads, r->smem, H,
                r->inplace ? ", one buffer swept in bands" : "");
    return 1;
}

/* The role-based kernel (roles_kernel.cuh: 1 receiver, N sender/interior blocks, M boundary blocks
 * on an atomic ticket), only when asked for: the fused schedule at depth 1 with every ghost cell
 * from a message of phase 0 (the direct pattern, or no neighbours). Bit-identical to the others,
 * but slower than the pass and resident kernels where it was timed. Returns 1 when set up,
 * HX_DEVICE_REFUSED where it does not apply, -1 on error. */
static int setup_roles(hx_sim *s, const hx_dev_table *table, int sms)
{
    hx_device_run *r = s->device_run;
    const hx_decomp *d = s->d;
    if (s->opt.schedule != HX_SCHEDULE_FUSED) return refuse(s, "roles", "it runs one cycle a launch; use the fused schedule");
    if (s->opt.depth != 1) return refuse(s, "roles", "it exchanges before every sweep; use depth 1");
    for (int ph = 1; ph < table->nphases; ph++)
        if (table->nmsg[ph]) return refuse(s, "roles", "the staged pattern forwards corners through phases; use the direct pattern");
    int per_sm = 0;
    r->kernel = (void *)pick_roles(s->bk->dtype, s->bk->stencil);
    r->threads = HX_ROLE_THREADS;
    r->smem = 0;
    DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, r->kernel, r->threads, 0));
    if ((long)per_sm * sms < 3) return refuse(s, "roles", "it needs 3 co-resident blocks on this GPU");
    r->grid = hx_roles_grid((long)d->local[0] * d->local[1] * (d->dim > 2 ? d->local[2] : 1), per_sm, sms);
    r->levels = 1;
    r->roles = 1;
    if (d->rank == 0) hx_logf(s->bk->log, HX_LOG_INFO, "fused schedule: role kernel, %d blocks of %d threads", r->grid, r->threads);
    return 1;
}

/* Fused 3D passes of floats: the narrow tile (rows of 16 lanes, fused3d_tile) where
 * fused3d_pick_lanes takes it (or opt.tuning.lanes asks for it) for a cycle's passes over the
 * grid's blocks and its kernel keeps as many blocks per SM; f3 and the launch shape follow it. */
static int f3_choose_lanes(hx_sim *s, hx_device_run *r, hx_f3_kernel *f3, int per_sm)
{
    hx_f3_kernel narrow;
    if (hx_f3_pick(s->bk->dtype, s->bk->stencil, s->opt.fuse, 16, &narrow)) return 0; /* doubles: none */
    const hx_decomp *d = s->bk->decomp;
    const double c16 = narrow.cost(d, s->opt.depth, r->grid), c32 = f3->cost(d, s->opt.depth, r->grid);
    if (fused3d_pick_lanes<float>(c16, c32, s->opt.tuning.lanes) != 16) return 0;
    int narrow_per_sm = 0;
    DEV_TRY(cudaFuncSetAttribute(narrow.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)narrow.smem));
    DEV_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&narrow_per_sm, narrow.kernel, narrow.threads, narrow.smem));
    if (narrow_per_sm < per_sm) return 0; /* the grid must stay resident */
    *f3 = narrow;
    r->kernel = narrow.kernel, r->threads = narrow.threads, r->smem = narrow.smem;
    return 0;
}

/* The pass kernel: the field streamed pass by pass. */
static int setup_passes(hx_sim *s, int sms)
{
    hx_device_run *r = s->device_run;
    const hx_decomp *d = s->d;
    const int levels = s->opt.fuse > 1 && d->dim == 2 ? s->opt.fuse : 1, dev = s->bk->device;
    int per_sm = 0;
    hx_pass_shape ps;
    hx_pass_tiles(d, s->radius, levels, sms, s->opt.depth, s->bk->elem, &ps);
    r->tx = ps.tx, r->ty = ps.ty, r->levels = ps.levels, r->pitch = ps.pitch, r->smem = ps.smem, r->threads = ps.threads;
    bool march2d = d->dim == 2 && levels > 1;
    r->kernel = NULL;
    /* 3D with fuse > 1: the pass kernel whose full passes run the cycle schedule's fused body (every
     * transport stores through its mapping, nvshmem through nvshmem_ptr: no instance puts with the
     * NVSHMEM device API) */
    hx_f3_kernel f3 = {};
    if (d->dim == 3 && s->opt.fuse > 1) {
        if (hx_f3_pick(s->bk->dtype, s->bk->stencil, s->opt.fuse, 32, &f3))
            return snprintf(s->err, sizeof s->err, "fused 3D passes take 2 to %d sweeps of radius %d (asked %d)", HX_FUSE_MAX_3D / s->radius,
                            s->radius, s->opt.fuse), HX_DEVICE_REFUSED;
        if (s->opt.depth > hx_device_fused3d_max_depth(s->opt.fuse))
            return snprintf(s->err, sizeof s->err, "schedule %s with fused 3D passes of %d sweeps takes depth %d at most (asked %d): use "
                            "a smaller depth, or the cycle schedule", hx_schedule_name(s->opt.schedule), s->opt.fuse,
                            hx_device_fused3d_max_depth(s->opt.fuse), s->opt.depth), HX_DEVICE_REFUSED;
        r->kernel = f3.kernel, r->threads = f3.threads, r->smem = f3.smem, r->levels = s->opt.fuse, r->fused3d = 1;
    }
#ifdef HALOX_HAVE_NVSHMEM_DEVICE
    /* transport nvshmem in a build with the NVSHMEM device API: its puts by that API */
    if (!r->fused3d && strcmp(s->tr->ops->name, "nvshmem") == 0) {
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
    if (d->rank == 0)
        hx_logf(s->bk->log, HX_LOG_INFO, "%s schedule: pass kernel, %d blocks of %d threads (%d per SM), %zu B of shared memory%s%s",
                hx_schedule_name(s->opt.schedule), r->grid, r->threads, per_sm, r->smem, r->fused3d ? ", fused 3D tile rows of " : "",
                r->fused3d ? (f3.lanes == 16 ? "16 lanes" : "32 lanes") : "");
    return 0;
}

static int setup_kernel(hx_sim *s, const hx_dev_table *table)
{
    int sms = 0;
    DEV_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->bk->device));
    if (s->bk->op) return hx_op_setup_passes(s, sms); /* a user operator: its own pass kernel, or a refusal */
    const hx_kernel k = s->opt.kernel;
    if (k == HX_KERNEL_ROLES) {
        const int st = setup_roles(s, table, sms);
        return st == 1 ? 0 : st;
    }
    if (k == HX_KERNEL_AUTO || k == HX_KERNEL_RESIDENT) {
        const int st = setup_resident(s, table, sms, k == HX_KERNEL_RESIDENT);
        if (st) return st == 1 ? 0 : st;
    }
    return setup_passes(s, sms);
}

int hx_device_setup(hx_sim *s)
{
    if (s->device_run) return 0;
    hx_device_run *r = (hx_device_run *)calloc(1, sizeof *r);
    if (!r) return snprintf(s->err, sizeof s->err, "out of host memory for the device schedule"), -1;
    s->device_run = r;
    hx_dev_table table;
    if (!s->tr->ops->device_table || s->tr->ops->device_table(s->tr, &table))
        return snprintf(s->err, sizeof s->err, "transport %s: %s", s->tr->ops->name,
                        s->tr->ops->device_table ? s->tr->err : "no device path"), -1;
    DEV_TRY(cudaMalloc((void **)&r->table, sizeof table));
    DEV_TRY(cudaMemcpy(r->table, &table, sizeof table, cudaMemcpyHostToDevice));
    if (hx_dev_watch_alloc(&r->w, 1, s->err, sizeof s->err)) return -1;
    const int st = setup_kernel(s, &table);
    if (st) return st;
    /* the zeroing above ran with cudaMemset on the legacy stream, which the backend's non-blocking
     * streams do not wait for: a first launch could publish into a mailbox still being zeroed */
    DEV_TRY(cudaDeviceSynchronize());
    return 0;
}
