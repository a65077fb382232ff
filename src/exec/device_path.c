/* What the kernel-initiated schedules need of a rank and its exchange, checked and set up the same
 * way for halox's sweeper and a user's functor kernels (hx_custom). */
#include <string.h>

#include "core/node.h"
#include "core/objects.h"
#include "exec/schedule.h"
#include "transport/fault.h"

int hx_device_path_check(hx_context *ctx, const hx_exchange *x, hx_schedule sc, const char *who, int *shared_out)
{
    /* two ranks of a node on one GPU: kernels that spin for each other could starve */
    int other = -1, shared = sc != HX_SCHEDULE_CYCLE && ctx->kind == HX_BACKEND_CUDA && hx_node_shares_gpu(ctx->comm, ctx->device, &other);
    if (shared_out) *shared_out = shared;
    if (sc == HX_SCHEDULE_CYCLE) return HX_OK;
    const char *name = hx_schedule_name(sc);
    if ((int)sc < 0 || sc > HX_SCHEDULE_PERSISTENT) return hx_fail(ctx, HX_ERR_INPUT, "%s: unknown schedule %d", who, (int)sc);
    if (ctx->kind != HX_BACKEND_CUDA) return hx_fail(ctx, HX_ERR_INPUT, "%s: schedule %s runs kernels: use the cuda backend", who, name);
    if (!(x->tr.ops->caps & HX_PATH_DEVICE) && x->tr.ops->put)
        return hx_fail(ctx, HX_ERR_INPUT, "%s: schedule %s runs its own kernels over a transport's device path; transport "
                       "%s launches kernels per exchange (the cycle schedule): use transport ipc for the same links", who, name,
                       x->tr.ops->name);
    if (!(x->tr.ops->caps & HX_PATH_DEVICE))
        return hx_fail(ctx, HX_ERR_INPUT, "%s: schedule %s needs a transport whose kernels put and signal themselves "
                       "(a device path: ipc, nccl or nvshmem); transport %s has none", who, name, x->tr.ops->name);
    char why[320];
    if (x->tr.ops->device_available && !x->tr.ops->device_available(why, sizeof why))
        return hx_fail(ctx, HX_ERR_INPUT, "%s: schedule %s: %s", who, name, why);
    /* test builds may let ranks share a GPU (hx_fault_share_gpu): time-sliced kernels still finish, slowly */
    if (shared && !hx_fault_share_gpu())
        return hx_fail(ctx, HX_ERR_INPUT, "%s: schedule %s needs one GPU per rank, but ranks %d and %d share GPU %d: run at most "
                       "as many ranks per node as GPUs", who, name, ctx->rank < other ? ctx->rank : other,
                       ctx->rank < other ? other : ctx->rank, ctx->device);
    return HX_OK;
}

int hx_device_path_prepare(hx_context *ctx, hx_exchange *x, hx_schedule sc, const char *who, int st)
{
    /* made and checked where ranks agree, rather than at the first sweep, where a failure could
     * only abort: one made on demand (nccl's) is set up, collectively, so all ranks come or none;
     * then it must reach every neighbour (not nccl's ranks outside its LSA team, ipc's links over
     * MPI: other nodes or host-staged fallbacks, nvshmem's unmapped PEs) */
    if (sc == HX_SCHEDULE_CYCLE || !hx_transport_all_ok(ctx->comm, st == HX_OK)) return st;
    hx_dev_table table;
    if ((x->tr.ops->device_prepare && x->tr.ops->device_prepare(&x->tr)) ||
        (x->tr.ops->device_table && x->tr.ops->device_table(&x->tr, &table))) {
        st = hx_fail(ctx, HX_ERR_RUNTIME, "%s: schedule %s over transport %s: %s", who, hx_schedule_name(sc), x->tr.ops->name, x->tr.err);
        if (strstr(x->tr.err, "another rank")) ctx->err_secondary = 1;
    }
    return st;
}
