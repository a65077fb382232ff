/* The run of the kernel-initiated schedules (persistent_setup.cu chooses and sets up the kernel;
 * persistent_kernel.cuh and its neighbours are the device side): launch, a host deadline on lack
 * of progress, the norms reduced after the run, and the release of the device state.
 *   persistent  one cooperative launch for all the sweeps of hx_iterate;
 *   fused       one cooperative launch per cycle, enqueued back to back (the host never waits). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "exec/persistent_run.h"
#include "exec/resident_kernel.cuh" /* persistent_plan.cuh needs it */
#include "exec/persistent_plan.cuh"    /* hx_pparams_domain */

#define DEV_TRY HX_DEV_TRY

/* opt.profile: each rank logs where its blocks' cycles went (mean and slowest block). */
static void log_profile(const hx_sim *s, const hx_device_run *r)
{
    const hx_logger *lg = s->bk->log;
    if (!hx_log_on(lg, HX_LOG_INFO)) return;
    unsigned long long *h = (unsigned long long *)malloc((size_t)r->grid * 4 * sizeof *h);
    if (!h || cudaMemcpy(h, r->prof, (size_t)r->grid * 4 * sizeof *h, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(h);
        hx_logf(lg, HX_LOG_WARN, "the kernel profile could not be read back from the device");
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
        hx_logf(lg, HX_LOG_INFO, "resident profile, us per cycle (mean / slowest block of %d, %llu cycles): publish %.2f / %.2f, "
                "wait+gather %.2f / %.2f, sweeps %.2f / %.2f", r->grid, h[3], mean[0], worst[0], mean[1], worst[1], mean[2], worst[2]);
    else
        hx_logf(lg, HX_LOG_INFO, "pass-kernel profile, us per cycle (mean / slowest block of %d, %llu cycles): exchange %.2f / "
                "%.2f, sweeps %.2f / %.2f (of which at grid barriers %.2f / %.2f)", r->grid, h[3], mean[1], worst[1], mean[2],
                worst[2], mean[0], worst[0]);
    free(h);
}

void hx_device_release(hx_sim *s)
{
    hx_device_run *r = s->device_run;
    if (!r) return;
    if (r->prof) log_profile(s, r);
    cudaFree(r->table);
    hx_dev_watch_free(&r->w);
    cudaFree(r->norm_dev);
    cudaFree(r->ll_mail[0]);
    cudaFree(r->prof);
    free(r->opq);
    free(r);
    s->device_run = NULL;
}

/* Wait for the stream; give up when the device reports no progress for longer than the timeout
 * plus a margin (its own watchdog should have spoken first). */
int hx_device_wait(void *stream, const void *watch_host, const char *what, int device, char *err, size_t n)
{
    cudaStream_t st = (cudaStream_t)stream;
    const double limit = hx_timeout_seconds() + 10;
    volatile const hx_watch *w = (volatile const hx_watch *)watch_host;
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
            return snprintf(err, n, "GPU %d: the %s kernel made no progress for %.0f s and did not stop", device, what, limit), -1;
        }
    }
    if (e != cudaSuccess) return snprintf(err, n, "the %s kernel failed: %s", what, cudaGetErrorString(e)), -1;
    if (w->state) {
        if (w->what == HX_WAIT_FLAG)
            snprintf(err, n, "rank %d waited %.1f s on the device for the halo of rank %d (phase %d, exchange %lld, "
                     "after sweep %lld) and gave up: that neighbour never put it", w->rank, w->waited_s, w->peer, w->phase,
                     w->exchange, w->sweep);
        else if (w->what == HX_WAIT_RELEASE)
            snprintf(err, n, "rank %d: a boundary block waited %.1f s for the receiver block's release (exchange %lld, "
                     "after sweep %lld) and gave up", w->rank, w->waited_s, w->exchange, w->sweep);
        else if (w->what == HX_WAIT_TILE)
            snprintf(err, n, "rank %d: a tile waited %.1f s for a neighbouring tile of its own GPU (exchange %lld, "
                     "after sweep %lld) and gave up", w->rank, w->waited_s, w->exchange, w->sweep);
        else
            snprintf(err, n, "rank %d: a block waited %.1f s at a grid barrier (exchange %lld, after sweep %lld) "
                     "and gave up", w->rank, w->waited_s, w->exchange, w->sweep);
        return -1;
    }
    return 0;
}

static int wait_progress(hx_sim *s, cudaStream_t st)
{
    return hx_device_wait(st, s->device_run->w.host, hx_schedule_name(s->opt.schedule), s->bk->device, s->err, sizeof s->err);
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
    p.skip_from = hx_fault_skip_puts(d->rank); /* test builds: this rank stops putting */
    p.levels = r->levels;
    p.tx = r->tx;
    p.ty = r->ty;
    p.pitch = r->pitch;
    p.timeout_ns = (unsigned long long)(hx_timeout_seconds() * 1e9);
    p.watch = r->w.dev;
    p.abort_flag = r->w.abort_flag;
    p.bar = r->w.bar;
    p.rank = d->rank;
    p.cur_out = r->w.cur_out;
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
    if (r->opq) { /* hx_op_pparams starts with its hx_pparams */
        memcpy(r->opq, &p, sizeof p);
        args[0] = r->opq;
    }
    DEV_TRY(cudaLaunchCooperativeKernel(r->kernel, dim3((unsigned)r->grid), dim3((unsigned)r->threads), args, r->smem, st));
    /* exchanges this launch makes: one per cycle */
    s->tr->dev_exchanges += (unsigned long long)((sweeps + s->opt.depth - 1) / s->opt.depth);
    return 0;
}

int hx_device_iterate(hx_sim *s, long sweeps)
{
    if (!s->device_run && hx_device_setup(s)) return -1;
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
    DEV_TRY(cudaMemcpyAsync(r->w.cur_out, &s->cur, sizeof(int), cudaMemcpyHostToDevice, st));
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
    DEV_TRY(cudaMemcpy(&s->cur, r->w.cur_out, sizeof(int), cudaMemcpyDeviceToHost));
    s->sweeps_done += sweeps;
    if (nnorm) {
        double *local = (double *)malloc((size_t)nnorm * sizeof(double)), *global = (double *)malloc((size_t)nnorm * sizeof(double));
        if (!local || !global) return free(local), free(global), snprintf(s->err, sizeof s->err, "out of host memory for the norms"), -1;
        cudaError_t e = cudaMemcpy(local, r->norm_dev, (size_t)nnorm * sizeof(double), cudaMemcpyDeviceToHost);
        int bad = e != cudaSuccess || MPI_Allreduce(local, global, (int)nnorm, MPI_DOUBLE, MPI_SUM, s->comm) != MPI_SUCCESS;
        for (long i = 0; !bad && i < nnorm; i++) {
            s->last_norm = sqrt(global[i]);
            if (s->norm_fn) s->norm_fn((done0 / every + 1 + i) * every, s->last_norm, s->norm_user);
        }
        free(local);
        free(global);
        if (bad) return snprintf(s->err, sizeof s->err, "reducing the device norms failed"), -1;
    }
    return 0;
}
