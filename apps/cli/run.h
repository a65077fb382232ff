/* The `halox run` driver and the other subcommands of the CLI. */
#ifndef HALOX_RUN_H
#define HALOX_RUN_H

#include <mpi.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over comm: 1 if any rank passed failed != 0; the lowest failing rank prints msg as
 * "halox: error: msg" (every subcommand's set-up checks use it, so they all agree the same way). */
int hx_cli_any_failed(MPI_Comm comm, int failed, const char *msg);

/* Collective over comm, once a process: where the transports (a --transport value) include one that
 * a rank bound to one core slows (all but ipc and pingpong's device models) and a rank's CPU affinity
 * holds one core, rank 0 notes it on stderr with the fix (not under --quiet). Call it on the cuda
 * backend only. */
void hx_cli_note_one_core(MPI_Comm comm, const char *transports);

/* Collective over comm. Returns the process exit code: 0, HX_ERR_INPUT, HX_ERR_RUNTIME or HX_ERR_VERIFY.
 * Messages go to stderr (one line, from one rank), the report to rank 0's stdout. */
int hx_run(const hx_config *cfg, MPI_Comm comm);

/* What the last hx_run measured, or why its set-up refused (all ranks hold it). */
typedef struct {
    double us_per_sweep; /* slowest rank, median over repeats */
    int verified;        /* 1 bit-identical, -1 differs, 0 not checked */
    double us_segment[HX_NUM_SEGS]; /* per segment: slowest rank, median over repeats, us per sweep */
    int segments_timed;  /* 0 when only the total was timed (whole-cycle graphs, device schedules) */
    char kernel_ran[32]; /* the kernel family a device schedule ran (hx_sweeper_kernel), "" otherwise */
    char refused[320];   /* why set-up refused (context, layout, exchange or sweeper); "" otherwise */
} hx_run_result;
const hx_run_result *hx_last_run(void);


/* Diagnostics of every subcommand: --quiet (only the report), the default (warnings and the CLI's
 * notes), --verbose (also the library's info messages and the CLI's own), --verbose=2 (debug too).
 * halox.c sets the level once from the command line, before the subcommand parses its options. */
void hx_cli_set_verbosity(hx_log_level level);
hx_log_level hx_cli_verbosity(void);
/* 1 when warnings and the CLI's notes are shown (not --quiet). */
int hx_cli_noting(void);
/* Fills the log fields of a context's options: the stock stderr callback at the CLI's level. */
void hx_cli_log_options(hx_context_options *co);
/* One info line on rank 0's stderr ("halox: rank 0: ..." as the library's), only with --verbose;
 * other ranks print nothing. */
void hx_cli_info(int rank, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* `halox reference [run options]` (one process): prints the reference field's checksum. */
int hx_reference_main(int argc, char **argv);

/* `halox roofline [options]` (one process). Returns the exit code. */
int hx_roofline_main(int argc, char **argv);


#ifdef __cplusplus
}
#endif
#endif
