/* hx_context: device choice, the rank's backend and its threads, shared communication resources,
 * errors. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_EQUAL */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compute/cpu_threads.h"
#include "core/node.h"
#include "core/objects.h"

int hx_fail(hx_context *ctx, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    return status;
}

int hx_agree(hx_context *ctx, int status)
{
    /* the lowest rank that failed of its own accord speaks; one that only saw another rank fail
     * ranks after all of those */
    int secondary = status != HX_OK && ctx->err_secondary;
    ctx->err_secondary = 0;
    int mine = status == HX_OK ? 2 * ctx->size : secondary ? ctx->size + ctx->rank : ctx->rank, first = 2 * ctx->size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, ctx->comm) != MPI_SUCCESS)
        return hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Allreduce failed while ranks agreed on a set-up step");
    if (first == 2 * ctx->size) return HX_OK;
    if (first >= ctx->size) first -= ctx->size;
    /* every rank reports the first failing rank's words */
    char msg[sizeof ctx->err];
    int code = status;
    if (ctx->rank == first) {
        if (ctx->size > 1 && strncmp(ctx->err, "rank ", 5)) snprintf(msg, sizeof msg, "rank %d: %s", first, ctx->err);
        else snprintf(msg, sizeof msg, "%s", ctx->err);
    }
    if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, ctx->comm) != MPI_SUCCESS ||
        MPI_Bcast(&code, 1, MPI_INT, first, ctx->comm) != MPI_SUCCESS)
        return hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Bcast failed while ranks agreed on a set-up step");
    memcpy(ctx->err, msg, sizeof msg);
    return code != HX_OK ? code : HX_ERR_RUNTIME;
}

hx_context_options hx_context_defaults(void)
{
    hx_context_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    return o;
}

/* The backend kind and device of this rank; status HX_OK or an error with ctx->err. */
static int choose_device(hx_context *ctx, const hx_context_options *o)
{
    int ndev = hx_cuda_built() ? hx_cuda_device_count() : 0, min_dev = 0;
    if (MPI_Allreduce(&ndev, &min_dev, 1, MPI_INT, MPI_MIN, ctx->comm) != MPI_SUCCESS)
        return hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Allreduce of the GPU counts failed");
    ctx->kind = o->backend;
    if (ctx->kind == HX_BACKEND_AUTO) ctx->kind = min_dev > 0 ? HX_BACKEND_CUDA : HX_BACKEND_CPU;
    ctx->device = -1;
    if (ctx->kind == HX_BACKEND_CPU) return HX_OK;
    if (ctx->kind != HX_BACKEND_CUDA) return hx_fail(ctx, HX_ERR_INPUT, "unknown backend kind %d", (int)ctx->kind);
    if (!hx_cuda_built())
        return hx_fail(ctx, HX_ERR_INPUT, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use the cpu backend");
    char why[256];
    if (hx_pick_device(o->devices, ctx->node_rank, ndev, &ctx->device, why, sizeof why))
        return hx_fail(ctx, HX_ERR_INPUT, "%s", why);
    return HX_OK;
}

/* The cores this process may run on: its affinity mask, or every online core where none is known. */
static void affinity(cpu_set_t *mask)
{
    CPU_ZERO(mask);
    if (sched_getaffinity(0, sizeof *mask, mask) == 0 && CPU_COUNT(mask) > 0) return;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++) CPU_SET((int)c, mask);
}

/* Ranks of the node whose mask equals masks[i], itself included. */
static int sharers(const cpu_set_t *masks, int n, int i)
{
    int k = 0;
    for (int j = 0; j < n; j++) k += CPU_EQUAL(&masks[i], &masks[j]) != 0;
    return k;
}

/* Collective over ctx->comm. The OpenMP threads of a CPU rank (on a GPU rank too, for
 * hx_context_threads, but set only on the CPU backend): ctx->threads when > 0, else
 * OMP_NUM_THREADS when the user set it, else the rank's share of the cores of its mask among the
 * node's ranks that have the same mask (ranks started unbound share the whole node). Spinning
 * threads on a shared core wait on each other at every barrier, so node rank 0 warns, once,
 * when the node's ranks still ask for more threads than their masks hold (and than one a rank). */
static int set_cpu_threads(hx_context *ctx)
{
    MPI_Comm node;
    if (MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Comm_split_type failed");
    int nrank, n, st = HX_OK;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &n);
    cpu_set_t mine, *masks = malloc((size_t)n * sizeof *masks);
    int *threads = malloc((size_t)n * sizeof *threads);
    affinity(&mine);
    int bad = !masks || !threads, anybad = 1, t;
    if (MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, node) != MPI_SUCCESS || anybad) {
        st = hx_fail(ctx, HX_ERR_RUNTIME, bad ? "out of host memory" : "another rank of the node failed");
        goto done;
    }
    if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, masks, (int)sizeof mine, MPI_BYTE, node) != MPI_SUCCESS) {
        st = hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Allgather of the ranks' core masks failed");
        goto done;
    }
    ctx->cpu_threads = hx_cpu_thread_count(ctx->threads, hx_cpu_auto_threads(CPU_COUNT(&mine), sharers(masks, n, nrank)));
    t = ctx->kind == HX_BACKEND_CPU ? (ctx->cpu_threads = hx_cpu_set_threads(ctx->cpu_threads)) : 0;
    if (MPI_Gather(&t, 1, MPI_INT, threads, 1, MPI_INT, 0, node) != MPI_SUCCESS) {
        st = hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Gather of the ranks' thread counts failed");
        goto done;
    }
    if (nrank == 0) {
        cpu_set_t all;
        CPU_ZERO(&all);
        int sum = 0, squeezed = 0;
        for (int i = 0; i < n; i++) {
            CPU_OR(&all, &all, &masks[i]);
            sum += threads[i];
            squeezed |= threads[i] > 1 && threads[i] * sharers(masks, n, i) > CPU_COUNT(&masks[i]);
        }
        /* one thread a rank is the least there is: more ranks than cores is the launcher's choice */
        if (sum > (CPU_COUNT(&all) > n ? CPU_COUNT(&all) : n) || squeezed)
            hx_logf(&ctx->log, HX_LOG_WARN,
                    "the CPU backend's OpenMP threads oversubscribe this node's cores (%d threads over %d ranks, %d "
                    "cores in their bindings): threads that share a core wait on each other at every step; ask for "
                    "fewer threads per rank (hx_context_options.threads or OMP_NUM_THREADS) or leave the count automatic",
                    sum, n, CPU_COUNT(&all));
    }
done:
    free(masks);
    free(threads);
    MPI_Comm_free(&node);
    return st;
}

int hx_context_create(MPI_Comm comm, const hx_context_options *opts, hx_context **out)
{
    /* a caller compiled against an older, shorter struct: its fields, the rest by default */
    hx_context_options o = hx_context_defaults();
    if (opts) memcpy(&o, opts, opts->struct_size && opts->struct_size < sizeof o ? opts->struct_size : sizeof o);
    o.struct_size = sizeof o;
    hx_context *ctx = calloc(1, sizeof *ctx);
    *out = ctx;
    if (!ctx) return HX_ERR_RUNTIME;
    ctx->log.level = o.log_level;
    ctx->log.fn = o.log;
    ctx->log.user = o.log_user;
    ctx->threads = o.threads;
    ctx->comm = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &ctx->comm) != MPI_SUCCESS) {
        ctx->comm = MPI_COMM_NULL;
        return hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Comm_dup failed: is MPI initialised?");
    }
    /* errors come back as codes, which every call checks, instead of aborting the job */
    MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->size);
    ctx->log.rank = ctx->rank;
    int st = hx_node_rank(ctx->comm, &ctx->node_rank, &ctx->node_size)
                 ? hx_fail(ctx, HX_ERR_RUNTIME, "MPI_Comm_split_type failed")
                 : HX_OK;
    if ((st = hx_agree(ctx, st)) != HX_OK) return st;
    if (o.threads < 0)
        st = hx_fail(ctx, HX_ERR_INPUT, "hx_context_options.threads is %d: give 0 (automatic) or a thread count", o.threads);
    if ((st = hx_agree(ctx, st)) != HX_OK) return st;
    if ((st = hx_agree(ctx, choose_device(ctx, &o))) != HX_OK) return st;
    char why[256] = "";
    hx_backend_kind kind = ctx->kind;
    st = hx_backend_create(&ctx->bk, kind, NULL, HX_JACOBI5, HX_FLOAT, ctx->device, why, sizeof why) ? HX_ERR_RUNTIME : HX_OK;
    if (st) hx_fail(ctx, st, "%s", why[0] ? why : "creating the backend failed");
    else ctx->have_backend = 1;
    ctx->bk.log = &ctx->log;
    if (st == HX_OK && ctx->kind == HX_BACKEND_CUDA) hx_cuda_device_name(ctx->device, ctx->device_name, sizeof ctx->device_name);
    if ((st = hx_agree(ctx, st)) != HX_OK) return st;
    return hx_agree(ctx, set_cpu_threads(ctx));
}

int hx_context_create_f(MPI_Fint fcomm, const hx_context_options *opts, hx_context **out)
{
    return hx_context_create(MPI_Comm_f2c(fcomm), opts, out);
}

void hx_context_set_log(hx_context *ctx, hx_log_level level, hx_log_fn fn, void *user)
{
    if (!ctx) return;
    ctx->log.level = level;
    ctx->log.fn = fn;
    ctx->log.user = user;
}

void *hx_context_shared(hx_context *ctx, hx_shared_kind k) { return ctx->shared[k]; }

void hx_context_set_shared(hx_context *ctx, hx_shared_kind k, void *res, void (*release)(void *))
{
    ctx->shared[k] = res;
    ctx->release[k] = release;
    ctx->shared_order[ctx->nshared++] = (int)k;
}

void hx_context_destroy(hx_context *ctx)
{
    if (!ctx) return;
    for (int i = ctx->nshared - 1; i >= 0; i--) {
        int k = ctx->shared_order[i];
        if (ctx->release[k]) ctx->release[k](ctx->shared[k]);
    }
    if (ctx->have_backend) ctx->bk.ops->destroy(&ctx->bk);
    if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
    free(ctx);
}

const char *hx_context_error(const hx_context *ctx) { return ctx ? ctx->err : "out of host memory creating the context"; }
hx_backend_kind hx_context_backend(const hx_context *ctx) { return ctx->kind; }
int hx_context_device(const hx_context *ctx) { return ctx->device; }
const char *hx_context_device_name(const hx_context *ctx) { return ctx->device_name[0] ? ctx->device_name : NULL; }
int hx_gpu_count(void) { return hx_cuda_built() ? hx_cuda_device_count() : 0; }
int hx_backend_built(hx_backend_kind k) { return k == HX_BACKEND_CPU || (k == HX_BACKEND_CUDA && hx_cuda_built()); }
MPI_Comm hx_context_comm(const hx_context *ctx) { return ctx->comm; }
int hx_context_rank(const hx_context *ctx) { return ctx->rank; }
int hx_context_size(const hx_context *ctx) { return ctx->size; }
int hx_context_threads(const hx_context *ctx) { return ctx->cpu_threads; }

void *hx_context_stream(const hx_context *ctx)
{
    hx_backend *bk = (hx_backend *)&ctx->bk;
    return ctx->kind == HX_BACKEND_CUDA ? bk->ops->native_stream(bk, HX_STREAM_MAIN) : NULL;
}

int hx_context_sync(hx_context *ctx)
{
    for (int s = 0; s < HX_NUM_STREAMS; s++)
        if (ctx->bk.ops->sync(&ctx->bk, s)) return hx_fail(ctx, HX_ERR_RUNTIME, "%s", ctx->bk.err);
    return HX_OK;
}

const char *hx_version(void) { return HALOX_VERSION; }
const char *hx_backend_name(hx_backend_kind k) { return k == HX_BACKEND_CPU ? "cpu" : k == HX_BACKEND_CUDA ? "cuda" : "auto"; }
const char *hx_dtype_name(hx_dtype t) { return t == HX_DOUBLE ? "double" : "float"; }
const char *hx_pattern_name(hx_pattern p) { return p == HX_DIRECT ? "direct" : "staged"; }
const char *hx_boundary_name(hx_boundary b) { return b == HX_FIXED ? "fixed" : "periodic"; }
