/* Moving whole fields off the ranks: extracting the owned block, gathering it to rank 0, and
 * writing it as a NumPy .npy file with MPI-IO. */
#ifndef HALOX_FIELD_IO_H
#define HALOX_FIELD_IO_H

#include <mpi.h>

#include "compute/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host bytes the two calls below stage through for a field of geometry d: from the first owned
 * cell to the last, the ghost cells between them included. */
size_t hx_owned_stage_bytes(const hx_decomp *d, size_t elem);

/* Copy the owned cells of a backend field into a contiguous host array (local sizes, x fastest),
 * through `stage` (host memory of hx_owned_stage_bytes; the backend's alloc_host makes it pinned
 * where that matters). */
int hx_owned_to_host(hx_backend *bk, const void *field, void *owned, void *stage, char *err, size_t errlen);

/* The reverse: owned cells from a contiguous host array into a backend field (ghosts kept). */
int hx_owned_from_host(hx_backend *bk, void *field, const void *owned, void *stage, char *err, size_t errlen);

/* Gather every rank's owned block into the global array on rank 0 (global may be NULL elsewhere). */
int hx_gather_global(MPI_Comm comm, const hx_decomp *d, hx_dtype t, const void *owned, void *global, char *err,
                     size_t errlen);

/* Write the global field as .npy: C order, shape (NY, NX) or (NZ, NY, NX), little-endian. Collective. */
int hx_write_npy(MPI_Comm comm, const char *path, const hx_decomp *d, hx_dtype t, const void *owned, char *err,
                 size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
