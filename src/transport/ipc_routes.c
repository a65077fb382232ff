/* The routes of the ipc transports' messages. The link between two ranks is host-staged MPI when
 * they are on different nodes (MPI_COMM_TYPE_SHARED) or when the exchange's host_fallback marks
 * either of them; otherwise IPC. The rule is symmetric, so both ends of a message agree; a rank's
 * messages to itself always stay a copy on its GPU. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/log.h"
#include "core/node.h"
#include "transport/ipc_priv.h"

/* Rank 0 logs how many messages per exchange take each route. counts: by IPC, by MPI between
 * nodes, by MPI because of host_fallback. */
static int report_routes(hx_transport *t, const int counts[3], char *err, size_t n)
{
    int sum[3] = {0, 0, 0};
    HX_MPI_TRY(MPI_Reduce(counts, sum, 3, MPI_INT, MPI_SUM, 0, t->comm), err, n);
    if (t->bk->decomp->rank != 0 || !hx_log_on(t->bk->log, HX_LOG_INFO)) return 0;
    char why[96] = "";
    if (sum[1] && sum[2]) snprintf(why, sizeof why, " (%d off-node, %d by host_fallback)", sum[1], sum[2]);
    else if (sum[1]) snprintf(why, sizeof why, " (off-node)");
    else if (sum[2]) snprintf(why, sizeof why, " (by host_fallback)");
    hx_logf(t->bk->log, HX_LOG_INFO, "%s: per exchange, %d halo messages by IPC peer copy, %d by host-staged MPI%s", t->ops->name,
            sum[0], sum[1] + sum[2], why);
    return 0;
}

int hx_ipc_choose_routes(hx_transport *t, hx_ipc_state *s, char *err, size_t n)
{
    const hx_decomp *d = t->bk->decomp;
    int rank = d->rank, nranks = d->nranks, rc = -1, ok = 0, counts[3] = {0, 0, 0};
    int *leader = malloc(sizeof(int) * (size_t)nranks);
    unsigned char *off = malloc((size_t)nranks), *lo = malloc((size_t)nranks), *hi = malloc((size_t)nranks);
    if (!leader || !off || !lo || !hi) {
        snprintf(err, n, "out of host memory for the ipc transport");
        goto out;
    }
    if (hx_node_leaders(t->comm, leader)) {
        snprintf(err, n, "finding which ranks share a node failed (MPI_Comm_split_type or MPI_Allgather)");
        goto out;
    }
    ok = hx_ipc_fallback_parse(t->host_fallback, nranks, off, err, n) == 0;
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not read its host_fallback");
        goto out;
    }
    /* ranks given different values would choose different routes for one message and hang */
    if (MPI_Allreduce(off, lo, nranks, MPI_UNSIGNED_CHAR, MPI_MIN, t->comm) != MPI_SUCCESS ||
        MPI_Allreduce(off, hi, nranks, MPI_UNSIGNED_CHAR, MPI_MAX, t->comm) != MPI_SUCCESS) {
        snprintf(err, n, "MPI_Allreduce of the host_fallback ranks failed");
        goto out;
    }
    if (memcmp(lo, hi, (size_t)nranks)) {
        snprintf(err, n, "host_fallback differs between ranks: give every rank the same value");
        goto out;
    }
    for (int p = 0; p < t->plan->nphases; p++)
        for (int m = 0; m < t->plan->phase[p].nmsg; m++) {
            const hx_message *msg = &t->plan->phase[p].msg[m];
            int q = msg->peer, mpi = hx_ipc_link_over_mpi(leader, off, rank, q);
            s->ph[p].over_mpi[m] = (unsigned char)mpi;
            s->ph[p].nmpi += mpi;
            counts[!mpi ? 0 : leader[q] != leader[rank] ? 1 : 2]++;
            if (mpi && ok && (size_t)msg->count * t->bk->elem > INT_MAX) {
                snprintf(err, n, "a halo message to rank %d exceeds 2 GiB: use a narrower halo or more ranks", q);
                ok = 0;
            }
        }
    if (!hx_transport_all_ok(t->comm, ok)) {
        if (ok) snprintf(err, n, "another rank could not set up transport %s", t->ops->name);
        goto out;
    }
    rc = report_routes(t, counts, err, n);
out:
    free(leader);
    free(off);
    free(lo);
    free(hi);
    return rc;
}
