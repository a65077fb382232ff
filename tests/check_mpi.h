/* Assertions of the MPI unit tests: check.h, and whether every rank returned the same status. */
#ifndef HALOX_TEST_CHECK_MPI_H
#define HALOX_TEST_CHECK_MPI_H
#include <halox/halox.h>
#include <mpi.h>
#include <string.h>

#include "check.h"

/* The same status on every rank (a collective call's failure must be agreed). */
static int agreed(int st)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* A refusal of bad input: status st is HX_ERR_INPUT, alike on every rank, and ctx's message is one
 * line that contains `part` (printed when it does not). */
#define CHECK_REFUSED(ctx, st, part)                                                                               \
    do {                                                                                                           \
        const int st_ = (st);                                                                                      \
        CHECK_EQ(st_, HX_ERR_INPUT);                                                                               \
        CHECK(agreed(st_));                                                                                        \
        const char *e_ = hx_context_error(ctx), *p_ = (part);                                                      \
        if (!strstr(e_, p_) || strchr(e_, '\n')) {                                                                 \
            int r_ = 0;                                                                                            \
            MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                                    \
            fprintf(stderr, "%s:%d: rank %d: message '%s' lacks '%s' or is not one line\n", __FILE__, __LINE__, r_, e_, p_); \
            hx_test_failures++;                                                                                    \
        }                                                                                                          \
    } while (0)
#endif
