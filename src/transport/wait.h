/* Halo messages over MPI for the host-path transports: posting them from host memory, and
 * waiting for MPI requests with a deadline, so that a neighbour that never answers ends the run
 * with a message naming both ranks instead of a hang. */
#ifndef HALOX_TRANSPORT_WAIT_H
#define HALOX_TRANSPORT_WAIT_H

#include <mpi.h>
#include <stddef.h>

#include "halox/plan.h"

/* Post MPI_Irecv for the messages of phase ph, then MPI_Isend, from buffers laid out like the
 * packed ones (elem bytes per cell); only[m] == 0 leaves message m out (only == NULL: all).
 * Requests, their peers and descriptions go to req/peer/what from index *n on; *n grows.
 * Returns 0, or -1 with a message in err. */
int hx_post_messages(MPI_Comm comm, const hx_phase *ph, size_t elem, const unsigned char *only, void *send,
                     void *recv, MPI_Request *req, int *peer, const char **what, int *n, char *err, size_t errlen);

/* Wait for n requests; peer[i] and what[i] describe request i for the message. Returns 0, or -1
 * with a message in err after hx_timeout_seconds(). */
int hx_wait_all(MPI_Comm comm, int n, MPI_Request *req, const int *peer, const char *const *what, char *err,
                size_t errlen);

#endif
