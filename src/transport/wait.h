/* Waiting for MPI requests with a deadline, so that a neighbour that never answers ends the run
 * with a message naming both ranks instead of a hang. Shared by the host-path transports. */
#ifndef HALOX_TRANSPORT_WAIT_H
#define HALOX_TRANSPORT_WAIT_H

#include <mpi.h>
#include <stddef.h>

/* Wait for n requests; peer[i] and what[i] describe request i for the message. Returns 0, or -1
 * with a message in err after hx_timeout_seconds(). */
int hx_wait_all(MPI_Comm comm, int n, MPI_Request *req, const int *peer, const char *const *what, char *err,
                size_t errlen);

#endif
