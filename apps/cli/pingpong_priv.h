/* Private to `halox pingpong` (pingpong.c, and pingpong_kernel.c for the device-initiated models):
 * its configuration, one row of the report, and what the two files share. */
#ifndef HALOX_CLI_PINGPONG_PRIV_H
#define HALOX_CLI_PINGPONG_PRIV_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "halox/halox.h"

#define PP_LARGE_BYTES (1L << 20) /* sizes above this use --large-iters */

typedef struct {
    long min_bytes, max_bytes;
    long iters, large_iters;
    int warmup;
    int pairs_all;
    int compute_us;
    long ll_bytes;  /* ipc-kernel: flagged words up to this size; -1 automatic (64 KiB), 0 never */
    int ll_threads; /* ipc-kernel: threads of the flagged-word kernel; 0 automatic */
    char transport[128];
    hx_backend_kind backend;
    char devices[128];
    hx_format format;
    int quiet;
} pp_config;

typedef struct {
    const char *transport;
    const char *backend;
    int rank_a, rank_b;
    long bytes, iters;
    int warmup, compute_us;
    long ll_bytes;
    int ll_threads;
    double median_us, p99_us, min_us, mean_us, bandwidth_gbs;
} pp_row;

/* Statistics of iters samples (sorted in place) into row; bandwidth = bytes / (median - compute_us). */
void hx_pp_stats(pp_row *row, double *samples, long iters, int compute_us);
/* Collective: rank a holds row's statistics; rank 0 receives them, appends the row and prints the
 * progress line (unless quiet). */
void hx_pp_collect(MPI_Comm comm, const pp_row *row, pp_row *rows, int *nrows, int quiet);
/* Rank 0: the report of rows in c's format, with the skipped transports ("name: reason" lines). */
void hx_pp_print_report(FILE *out, const pp_config *c, const pp_row *rows, int nrows, const char *skipped);
/* Rank 0: note a skipped transport on stderr and in the report's list. */
void hx_pp_skip(char *skipped, size_t n, const char *transport, const char *why);
/* Print "halox: error (rank R): msg" and end the job with exit code 3. */
void hx_pp_die(MPI_Comm comm, int rank, const char *msg);

/* The models that are not transports of the library: "ipc-kernel" (device-initiated ping-pong
 * over CUDA IPC) and "memcpy-peer" (cudaMemcpyPeer, the copy-engine reference).
 * hx_pp_device_names: ", ipc-kernel, memcpy-peer" in a CUDA build, "" otherwise (for `all`). */
int hx_pp_is_device_model(const char *name);
const char *hx_pp_device_names(void);
/* Collective: every pair and size of one device model; rows appended on rank 0, refusals noted
 * there (per pair). Run-time failures end the job (exit 3). samples holds max(iters, large_iters). */
void hx_pp_device_model(hx_context *ctx, const pp_config *c, const char *name, int (*pairs)[2], int npairs,
                        double *samples, pp_row *rows, int *nrows, char *skipped, size_t nskipped);

#endif
