/* Assertions of the MPI unit tests: check.h, and whether every rank returned the same status. */
#ifndef HALOX_TEST_CHECK_MPI_H
#define HALOX_TEST_CHECK_MPI_H
#include <mpi.h>

#include "check.h"

/* The same status on every rank (a collective call's failure must be agreed). */
static int agreed(int st)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}
#endif
