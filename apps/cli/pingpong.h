/* `halox pingpong`: latency and bandwidth of one message between two ranks, per size and per
 * transport, through a hand-made exchange plan of the public API (docs/pingpong.md). */
#ifndef HALOX_CLI_PINGPONG_H
#define HALOX_CLI_PINGPONG_H

#include <mpi.h>

#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The option table (target struct private to pingpong.c). */
extern const hx_command hx_pingpong_command;

/* Collective over comm: argv[0] is the first option. Returns the process exit code (0, 2 bad
 * input, 3 run-time failure). The report goes to rank 0's stdout, progress and notes to stderr. */
int hx_pingpong_main(int argc, char **argv, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
