/* The `halox run` driver, callable from any MPI program. */
#ifndef HALOX_RUN_H
#define HALOX_RUN_H

#include <mpi.h>

#include "halox/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over comm. Returns the process exit code: 0, HX_ERR_INPUT, HX_ERR_RUNTIME or HX_ERR_VERIFY.
 * Messages go to stderr (one line, from one rank), the report to rank 0's stdout. */
int hx_run(const hx_config *cfg, MPI_Comm comm);

/* What the last successful hx_run measured (all ranks hold it). */
typedef struct {
    double us_per_sweep; /* slowest rank, median over repeats */
    int verified;        /* 1 bit-identical, -1 differs, 0 not checked */
} hx_run_result;
const hx_run_result *hx_last_run(void);

/* `halox info`: build, MPI, GPUs, backends and transports. Rank 0 prints. */
void hx_print_info(FILE *out, MPI_Comm comm);

/* `halox roofline [options]` (one process). Returns the exit code. */
int hx_roofline_main(int argc, char **argv);

/* CUDA part of `halox info` (a line saying CUDA is absent when it is). */
void hx_cuda_print_info(FILE *out);

#ifdef __cplusplus
}
#endif
#endif
