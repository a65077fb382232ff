/* The CUDA backend's ops table and its non-kernel ops: memory, copies, streams, events, timeouts, graphs; create and destroy. */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "compute/cuda/ops.h"

/* A failure where the op cannot return one (free, destroy): recorded in err unless an earlier
 * failure is already there (cleanup after an error keeps the cause), and cleared from the runtime's
 * last error so that a later launch check does not report it. */
static void note_failure(hx_backend *bk, cudaError_t e, const char *fmt, ...)
{
    if (e == cudaSuccess) return;
    cudaGetLastError();
    if (bk->err[0]) return;
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(bk->err, sizeof bk->err, "%s on GPU %d failed: %s", what, bk->device, cudaGetErrorString(e));
}

/* ---------------------------------------------------------------- memory and copies */

static void *cu_alloc(hx_backend *bk, size_t bytes)
{
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e == cudaSuccess) {
        e = cudaMemset(p, 0, bytes);
        /* the memset runs on the legacy stream, which the backend's non-blocking streams do not wait for */
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e == cudaSuccess) return p;
        snprintf(bk->err, sizeof bk->err, "zeroing %zu bytes on GPU %d failed: %s", bytes, bk->device,
                 cudaGetErrorString(e));
        cudaFree(p); /* the error above is the one to report */
    } else {
        snprintf(bk->err, sizeof bk->err, "cudaMalloc of %zu bytes on GPU %d failed: %s", bytes, bk->device,
                 cudaGetErrorString(e));
    }
    cudaGetLastError(); /* not sticky: a later launch check must not report it */
    return NULL;
}

static void cu_free(hx_backend *bk, void *p) { note_failure(bk, cudaFree(p), "cudaFree"); }

static void *cu_alloc_host(hx_backend *bk, size_t bytes)
{
    void *p = NULL;
    cudaError_t e = cudaMallocHost(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        snprintf(bk->err, sizeof bk->err, "cudaMallocHost of %zu bytes (pinned host memory for GPU %d) failed: %s", bytes,
                 bk->device, cudaGetErrorString(e));
        cudaGetLastError();
        return NULL;
    }
    return p;
}

static void cu_free_host(hx_backend *bk, void *p) { note_failure(bk, cudaFreeHost(p), "cudaFreeHost"); }

static int cu_to_host(hx_backend *bk, int stream, void *host, const void *dev, size_t bytes)
{
    CU_TRY(bk, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, state(bk)->stream[stream]));
    return 0;
}

static int cu_to_device(hx_backend *bk, int stream, void *dev, const void *host, size_t bytes)
{
    CU_TRY(bk, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, state(bk)->stream[stream]));
    return 0;
}

static int cu_copy(hx_backend *bk, int stream, void *dst, const void *src, size_t bytes)
{
    CU_TRY(bk, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, state(bk)->stream[stream]));
    return 0;
}

/* ---------------------------------------------------------------- ordering, waiting, timing */

static int cu_record(hx_backend *bk, int stream, int event)
{
    CU_TRY(bk, cudaEventRecord(state(bk)->event[event], state(bk)->stream[stream]));
    return 0;
}

static int cu_wait_event(hx_backend *bk, int stream, int event)
{
    CU_TRY(bk, cudaStreamWaitEvent(state(bk)->stream[stream], state(bk)->event[event], 0));
    return 0;
}

/* Waits on the device end in an error after HALOX_TIMEOUT seconds (default 60) instead of a hang:
 * a stream that never finishes is a neighbour's exchange that never arrived. */
typedef cudaError_t (*query_fn)(void *);
static cudaError_t query_stream(void *p) { return cudaStreamQuery((cudaStream_t)p); }
static cudaError_t query_event(void *p) { return cudaEventQuery((cudaEvent_t)p); }

static int wait_deadline(hx_backend *bk, query_fn query, void *what, const char *name)
{
    cudaError_t e = query(what);
    if (e == cudaSuccess) return 0;
    const double limit = hx_timeout_seconds();
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (e == cudaErrorNotReady) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > limit) {
            snprintf(bk->err, sizeof bk->err,
                     "GPU %d: %s did not complete within %.0f s: a neighbour's exchange never arrived "
                     "(raise HALOX_TIMEOUT if the run is just long)", bk->device, name, limit);
            return -1;
        }
        e = query(what);
    }
    CU_TRY(bk, e);
    return 0;
}

int cu_sync(hx_backend *bk, int stream)
{
    return wait_deadline(bk, query_stream, (void *)state(bk)->stream[stream], "the work queued on a stream");
}

static int cu_elapsed(hx_backend *bk, int a, int b, double *seconds)
{
    float ms = 0;
    if (wait_deadline(bk, query_event, (void *)state(bk)->event[b], "a timed segment")) return -1;
    CU_TRY(bk, cudaEventElapsedTime(&ms, state(bk)->event[a], state(bk)->event[b]));
    *seconds = 1e-3 * (double)ms;
    return 0;
}

/* ---------------------------------------------------------------- streams and graphs */

static void *cu_native_stream(hx_backend *bk, int stream) { return (void *)state(bk)->stream[stream]; }

static int cu_use_stream(hx_backend *bk, int stream, void *native)
{
    cuda_state *s = state(bk);
    s->stream[stream] = native ? (cudaStream_t)native : s->own[stream];
    return 0;
}

/* Thread-local capture: calls of other threads (an MPI progress thread, say) stay outside it. */
static int cu_capture_begin(hx_backend *bk, int stream)
{
    CU_TRY(bk, cudaStreamBeginCapture(state(bk)->stream[stream], cudaStreamCaptureModeThreadLocal));
    return 0;
}

static int cu_capture_end(hx_backend *bk, int stream, int slot)
{
    cuda_state *s = state(bk);
    cudaGraph_t g = NULL;
    CU_TRY(bk, cudaStreamEndCapture(s->stream[stream], &g));
    if (s->graph[slot]) {
        cudaError_t e = cudaGraphExecDestroy(s->graph[slot]);
        s->graph[slot] = NULL;
        if (e != cudaSuccess) {
            cudaGraphDestroy(g); /* the error being reported is e's */
            CU_TRY(bk, e);
        }
    }
    cudaError_t e = cudaGraphInstantiate(&s->graph[slot], g, 0);
    cudaError_t e2 = cudaGraphDestroy(g); /* the executable graph keeps what it needs */
    CU_TRY(bk, e);
    CU_TRY(bk, e2);
    /* upload now, so that the first replay costs no more than the others */
    CU_TRY(bk, cudaGraphUpload(s->graph[slot], s->stream[stream]));
    return 0;
}

static void cu_drop_graphs(hx_backend *bk)
{
    cuda_state *s = state(bk);
    for (int i = 0; i < HX_MAX_GRAPHS; i++)
        if (s->graph[i]) {
            note_failure(bk, cudaGraphExecDestroy(s->graph[i]), "cudaGraphExecDestroy");
            s->graph[i] = NULL;
        }
}

static int cu_graph_launch(hx_backend *bk, int stream, int slot)
{
    CU_TRY(bk, cudaGraphLaunch(state(bk)->graph[slot], state(bk)->stream[stream]));
    return 0;
}

/* ---------------------------------------------------------------- create and destroy */

static void cu_destroy(hx_backend *bk)
{
    cuda_state *s = state(bk);
    if (!s) return;
    note_failure(bk, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    /* only the backend's own streams: a slot bound by use_stream holds the caller's */
    for (int i = 0; i < HX_NUM_STREAMS; i++)
        if (s->own[i]) note_failure(bk, cudaStreamDestroy(s->own[i]), "cudaStreamDestroy");
    for (int i = 0; i < HX_NUM_EVENTS; i++)
        if (s->event[i]) note_failure(bk, cudaEventDestroy(s->event[i]), "cudaEventDestroy");
    cu_drop_graphs(bk);
    if (s->norm_dev) note_failure(bk, cudaFree(s->norm_dev), "cudaFree");
    if (s->norm_host) note_failure(bk, cudaFreeHost(s->norm_host), "cudaFreeHost");
    free(s);
    bk->impl = NULL;
}

static const hx_backend_ops cuda_ops = {
    .name = "cuda",
    .alloc = cu_alloc,
    .free = cu_free,
    .alloc_host = cu_alloc_host,
    .free_host = cu_free_host,
    .to_host = cu_to_host,
    .to_device = cu_to_device,
    .copy = cu_copy,
    .init_field = cu_init_field,     /* pack.cu */
    .sweep = cu_sweep,               /* sweep.cu */
    .sweep_shell = cu_sweep_shell,   /* cells.cu */
    .pack = cu_pack,                 /* pack.cu */
    .unpack = cu_unpack,             /* pack.cu */
    .diff_norm2 = cu_diff_norm2,     /* pack.cu */
    .record = cu_record,
    .wait_event = cu_wait_event,
    .sync = cu_sync,
    .elapsed = cu_elapsed,
    .native_stream = cu_native_stream,
    .capture_begin = cu_capture_begin,
    .capture_end = cu_capture_end,
    .graph_launch = cu_graph_launch,
    .drop_graphs = cu_drop_graphs,
    .sweep_fused = cu_sweep_fused,   /* fused2d.cu (3D: fused3d.cu) */
    .use_stream = cu_use_stream,
    .pack_many = cu_pack_many,       /* pack.cu */
    .field_lead = cu_field_lead,     /* sweep.cu */
    .destroy = cu_destroy,
};

extern "C" int hx_cuda_backend_create(hx_backend *bk, int device, char *err, size_t errlen)
{
    bk->ops = &cuda_ops;
    bk->device = device;
    bk->host_accessible = 0;
    bk->async = 1;
    bk->impl = NULL;
    bk->tuning = hx_tuning_defaults();
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(err, errlen, "cannot use GPU %d: %s: check --devices and CUDA_VISIBLE_DEVICES", device, cudaGetErrorString(e));
        return -1;
    }
    cuda_state *s = (cuda_state *)calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "setting up GPU %d: out of host memory", device);
        return -1;
    }
    bk->impl = s;
    s->dev.sms = 132; /* where the attributes cannot be read */
    s->dev.l2 = 50L << 20;
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess && sms > 0) s->dev.sms = sms;
    else cudaGetLastError(); /* keep the default; a later launch check must not see this */
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) cudaGetLastError();
    /* griddepcontrol needs sm_90, in the device and in the code it runs */
    s->dev.pdl_ok = major >= 9 && cu_pdl_compiled();
    int l2 = 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) == cudaSuccess && l2 > 0) s->dev.l2 = l2;
    else cudaGetLastError();
    int lo = 0, hi = 0;
    const char *step = "cudaDeviceGetStreamPriorityRange";
    e = cudaDeviceGetStreamPriorityRange(&lo, &hi);
    /* main carries packing and the boundary shell: highest priority; the interior yields to it */
    if (e == cudaSuccess) step = "cudaStreamCreateWithPriority", e = cudaStreamCreateWithPriority(&s->stream[HX_STREAM_MAIN], cudaStreamNonBlocking, hi);
    if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&s->stream[HX_STREAM_INNER], cudaStreamNonBlocking, lo);
    if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&s->stream[HX_STREAM_USER], cudaStreamNonBlocking, hi);
    for (int i = 0; i < HX_NUM_STREAMS; i++) s->own[i] = s->stream[i];
    for (int i = 0; i < HX_NUM_EVENTS && e == cudaSuccess; i++) {
        step = "cudaEventCreate";
        e = cudaEventCreateWithFlags(&s->event[i], i < HX_MAX_EVENTS ? cudaEventDefault : cudaEventDisableTiming);
    }
    if (e == cudaSuccess) step = "cudaMalloc", e = cudaMalloc(&s->norm_dev, sizeof(double));
    if (e == cudaSuccess) step = "cudaMallocHost", e = cudaMallocHost(&s->norm_host, sizeof(double));
    if (e != cudaSuccess) {
        snprintf(err, errlen, "setting up GPU %d failed in %s: %s", device, step, cudaGetErrorString(e));
        cudaGetLastError();
        cu_destroy(bk);
        return -1;
    }
    /* kernel attributes are set here, outside any stream capture (fused3d.cu) */
    cu_fused3d_prepare();
    cu_op_prepare();
    return 0;
}
