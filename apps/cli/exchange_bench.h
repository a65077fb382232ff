/* `halox exchange`: one exchange of N fields in one call against N single-field exchanges. */
#ifndef HALOX_CLI_EXCHANGE_BENCH_H
#define HALOX_CLI_EXCHANGE_BENCH_H

#include <mpi.h>

#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const hx_command hx_exchange_bench_command;

/* Collective over comm: argv[0] is the first option. Returns the process exit code (0, 2 bad
 * input, 3 run-time failure); the report goes to rank 0's stdout. */
int hx_exchange_bench_main(int argc, char **argv, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
