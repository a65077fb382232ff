/* Reducing segment times over ranks and repeats, and printing them as a table, CSV or JSON.
 *
 * What a report holds is one table of fields (report.c, hx_report_fields): each field's key is
 * its CSV column and JSON key, and names it in the table's header lines, so the three formats
 * carry the same values under the same names. The segment columns keep their names (pack,
 * message, unpack, inner, outer, compute, desync, norm, total; min/mean/max).
 *
 * `message` has two meanings under one name, told apart by the field message_kind:
 *   host   (host-path transports: mpi, mpi-cuda, ipc) host time spent posting messages and
 *          waiting for them (MPI_Isend/Irecv/Waitall, IPC copies and tokens), waiting for late
 *          neighbours included;
 *   device (stream-path transports: nccl, nvshmem) the device interval between events recorded
 *          around the exchange enqueued on the stream: the host only enqueues and never waits.
 * Schema 3 is this layout (2 had `kernel` for the kernel that ran, now `kernel_ran`; `kernel` is
 * the one asked for, and the launch shapes have columns); any change of a key or of its meaning
 * raises HX_REPORT_SCHEMA. */
#ifndef HALOX_REPORT_H
#define HALOX_REPORT_H

#include <mpi.h>
#include <stdio.h>

#include "config.h"
#include "halox/halox.h"

#define HX_REPORT_SCHEMA 3

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
    const char *gpu_name;      /* rank 0's GPU (e.g. "NVIDIA H200"), NULL on the CPU: reported as "-" */
    const char *kernel_ran;    /* the device schedule's kernel that ran (hx_sweeper_kernel); NULL for cycle */
} hx_report;

/* One report field. */
typedef enum {
    HX_RF_INT,      /* an integer */
    HX_RF_U64,      /* an unsigned 64-bit integer (the seed) */
    HX_RF_BOOL,     /* CSV 0/1, JSON true/false, table on/off */
    HX_RF_VERIFIED, /* 1, -1, 0: CSV as is, JSON true/false/null, table yes/FAILED/- */
    HX_RF_REAL,     /* a number, printed with the field's format */
    HX_RF_STR,      /* text; NULL is "-" (JSON null) */
    HX_RF_DIMS,     /* 2 or 3 numbers: CSV three columns (csv names them), JSON an array, table AxB[xC] */
    HX_RF_SEGMENTS  /* the timed segments: CSV <seg>_min_s, <seg>_mean_s, <seg>_max_s; JSON "segments";
                       the table's rows */
} hx_rfield_type;

typedef struct {
    int absent;         /* no value (an unset norm, no GPU): CSV "" or "-", JSON null */
    long long i;
    unsigned long long u;
    double x;
    const char *s;
    int dims[3], ndims;
} hx_rvalue;

enum { HX_IN_CSV = 1, HX_IN_JSON = 2, HX_IN_TABLE = 4, HX_IN_ALL = 7 };
typedef enum { HX_SEC_RUN, HX_SEC_CONFIG, HX_SEC_RESULT } hx_rsection; /* JSON: top level, "config", top level */

typedef struct {
    const char *key;      /* CSV column and JSON key; the table's label */
    hx_rfield_type type;
    hx_rsection section;
    const char *line;     /* the table's header line that shows it; NULL: the segment rows or the closing lines */
    unsigned formats;     /* HX_IN_* */
    const char *csv;      /* DIMS: the three CSV columns, e.g. "nx,ny,nz" */
    const char *fmt;      /* REAL: printf format */
    void (*get)(const hx_report *r, hx_rvalue *v);
    const char *doc;
} hx_report_field;

/* The fields in CSV column order (the columns of schema 1 first, at the same positions). */
const hx_report_field *hx_report_fields(int *count);
const hx_report_field *hx_report_field_find(const char *key);

/* The value of field f in report r (absent where it has none). */
hx_rvalue hx_report_value(const hx_report *r, const hx_report_field *f);

typedef struct {
    double med_min, med_mean, med_max; /* medians over repeats of the rank statistics */
    double rep_min, rep_max;           /* range over repeats of the rank maximum */
} hx_seg_summary;
/* Segment seg (hx_segment) of r over its repeats. */
hx_seg_summary hx_report_summarise(const hx_report *r, int seg);

/* Collective: min, mean and max of each segment over the ranks of comm. */
int hx_reduce_times(MPI_Comm comm, const hx_times *t, hx_rank_stats *out);

void hx_report_print(FILE *out, const hx_report *r);

/* Median over repeats of the slowest rank's total, seconds. */
double hx_report_total_median(const hx_report *r);
/* The same for any segment (hx_segment), seconds summed over a run. */
double hx_report_segment_median(const hx_report *r, int seg);

#ifdef __cplusplus
}
#endif
#endif
