/* Reducing segment times over ranks and repeats, and printing them as a table, CSV or JSON. */
#ifndef HALOX_REPORT_H
#define HALOX_REPORT_H

#include <mpi.h>
#include <stdio.h>

#include "config.h"
#include "halox/decomp.h"
#include "core/timing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double min[HX_NUM_SEGS], mean[HX_NUM_SEGS], max[HX_NUM_SEGS]; /* over ranks, seconds */
} hx_rank_stats;

typedef struct {
    const hx_config *cfg;
    const hx_decomp *d;
    const char *backend;
    const char *transport;
    int nrep;
    int whole_graph; /* --graph captured whole cycles: segments other than total are not timed */
    const hx_rank_stats *reps; /* one per repeat */
    int verified;              /* 1 bit-identical, -1 differs, 0 not checked */
    long bad_cells;
    double max_diff;
    int have_norm;
    double last_norm;
} hx_report;

/* Collective: min, mean and max of each segment over the ranks of comm. */
int hx_reduce_times(MPI_Comm comm, const hx_times *t, hx_rank_stats *out);

void hx_report_print(FILE *out, const hx_report *r);

/* Median over repeats of the slowest rank's total, seconds. */
double hx_report_total_median(const hx_report *r);

#ifdef __cplusplus
}
#endif
#endif
