/* Return-code checks for MPI calls: turn a failure into a one-line message and an error return. */
#ifndef HALOX_CHECK_H
#define HALOX_CHECK_H

#include <mpi.h>
#include <stdio.h>

#define HX_MPI_TRY(call, err, errlen)                                                   \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        if (rc_ != MPI_SUCCESS) {                                                        \
            char s_[MPI_MAX_ERROR_STRING];                                               \
            int l_ = 0;                                                                  \
            MPI_Error_string(rc_, s_, &l_);                                              \
            snprintf((err), (errlen), "%s failed (%s:%d): %s", #call, __FILE__, __LINE__, s_); \
            return -1;                                                                   \
        }                                                                                \
    } while (0)

#endif
