/* `halox tune`: searches how to run one problem (transport, schedule, kernel, depth, fuse, pattern,
 * overlap, graph) in stages within a time budget, or over the full grid, and prints the winner and
 * the halox run command that reproduces it. See docs/tune.md. */
#ifndef HALOX_TUNE_H
#define HALOX_TUNE_H

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `halox tune [options]` (argv[0] is the first option). Collective over MPI_COMM_WORLD: every
 * rank calls it with the same arguments. Returns the exit code: 0, HX_ERR_INPUT (bad input, one
 * line on stderr), HX_ERR_RUNTIME (no candidate could run) or HX_ERR_VERIFY (the winner's
 * --verify run found a difference). */
int hx_tune_main(int argc, char **argv);

/* Its own options (--budget, --transport, --grid-search, --compare-grid, --candidates, --verify);
 * the problem options are halox run's. */
extern const hx_command hx_tune_command;

#ifdef __cplusplus
}
#endif
#endif
