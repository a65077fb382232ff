/* See wait.h. */
#include "wait.h"

#include <stdio.h>

#include "core/check.h"
#include "compute/backend.h"

int hx_wait_all(MPI_Comm comm, int n, MPI_Request *req, const int *peer, const char *const *what, char *err,
                size_t errlen)
{
    const double deadline = MPI_Wtime() + hx_timeout_seconds();
    int done = 0;
    for (;;) {
        int rc = MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int l = 0;
            MPI_Error_string(rc, s, &l);
            snprintf(err, errlen, "MPI_Testall failed: %s", s);
            return -1;
        }
        if (done) return 0;
        if (MPI_Wtime() > deadline) break;
    }
    int me;
    MPI_Comm_rank(comm, &me);
    for (int i = 0; i < n; i++) {
        int flag = 0;
        if (req[i] == MPI_REQUEST_NULL) continue;
        MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            snprintf(err, errlen, "rank %d waited %.0f s for %s rank %d, which never came (raise HALOX_TIMEOUT if the run is just slow)",
                     me, hx_timeout_seconds(), what[i], peer[i]);
            return -1;
        }
    }
    snprintf(err, errlen, "rank %d: messages timed out", me);
    return -1;
}

int hx_post_messages(MPI_Comm comm, const hx_phase *ph, size_t elem, const unsigned char *only, void *send,
                     void *recv, MPI_Request *req, int *peer, const char **what, int *n, char *err, size_t errlen)
{
    /* receives first, so that no message arrives unexpected */
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < ph->nmsg; m++) {
            const hx_message *msg = &ph->msg[m];
            if (only && !only[m]) continue;
            char *base = (char *)(pass ? send : recv) + (size_t)msg->offset * elem;
            int bytes = (int)((size_t)msg->count * elem);
            peer[*n] = msg->peer;
            what[*n] = pass ? "its halo to be taken by" : "the halo from";
            if (pass) HX_MPI_TRY(MPI_Isend(base, bytes, MPI_BYTE, msg->peer, msg->send_tag, comm, &req[(*n)++]), err, errlen);
            else HX_MPI_TRY(MPI_Irecv(base, bytes, MPI_BYTE, msg->peer, msg->recv_tag, comm, &req[(*n)++]), err, errlen);
        }
    return 0;
}
