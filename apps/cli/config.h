/* Run configuration: the options of `halox run`, their defaults and their checks. The options
 * themselves (names, types, ranges, defaults, help, which ones sweep) are one table in config.c
 * (hx_run_command, see options.h). */
#ifndef HALOX_CONFIG_H
#define HALOX_CONFIG_H

#include <stdio.h>

#include "halox/halox.h"
#include "options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { HX_FORMAT_TABLE = 0, HX_FORMAT_CSV = 1, HX_FORMAT_JSON = 2 } hx_format;

typedef struct {
    int dim;
    int size[3];         /* global cells per axis (size[2] = 1 in 2D) */
    int grid[3];         /* forced process grid, 0 = choose */
    int depth;           /* halo depth in stencil radii */
    long iters;          /* sweeps */
    hx_stencil_id stencil; /* the built-in stencil; with an operator, the built-in of its dimension */
    int stencil_set;     /* --stencil given (else chosen from the dimension) */
    char stencil_arg[256]; /* --stencil as given: a built-in's name, box9, box27 or an operator file */
    int op;              /* 1: --stencil names an operator (box9, box27 or a file), resolved below */
    int op_dim, op_radius, op_ncoef;
    char op_name[64];
    hx_dtype dtype;
    hx_pattern pattern;
    int overlap;
    int graph;           /* replay each exchange cycle from a CUDA graph */
    hx_schedule schedule; /* cycle (host/stream driven), fused or persistent (kernel-initiated) */
    int fuse;            /* sweeps computed in one pass over the field (temporal blocking), 1 = off */
    hx_boundary boundary;
    uint64_t seed;
    hx_backend_kind backend;
    char transport[32];
    long ll_bytes;       /* --ll-bytes: hx_exchange_options.ll_bytes (-1 automatic) */
    char host_fallback[128]; /* --host-fallback: hx_exchange_options.host_fallback ("" none) */
    char devices[128];   /* --devices list, "" = node-local rank % device count */
    int threads;         /* --threads: CPU backend OpenMP threads per rank, 0 = automatic */
    int repeat;
    int warmup;          /* untimed sweeps, run once before the first timed repeat */
    int verify;
    char output[512];
    hx_format format;
    int desync_barrier;
    long norm_every;
    /* device schedules' kernel and the kernels' launch shapes (hx_sweep_options.kernel, .tuning,
     * .profile): 0 = automatic for the numbers, HX_AUTO for the switches */
    hx_kernel kernel;
    int block_rows, march, zsplit, lanes;
    int inplace, prefetch, pdl, tma;
    int profile;
    int quiet;
    int no_header;       /* CSV: leave out the header line (later runs of a sweep) */
    int skip_refusals;   /* --transport all: a set-up refusal is not printed; its reason goes to
                            hx_last_run()->refused, and the caller notes it once */
} hx_config;

/* `halox run`'s option table, with the target struct hx_config. */
extern const hx_command hx_run_command;
/* `halox roofline`'s (roofline.c; its target struct is private to it). */
extern const hx_command hx_roofline_command;

void hx_config_defaults(hx_config *c);

/* Parse `halox run` arguments (argv[0] is the first option). Returns 0; 1 when --help was
 * asked; -1 with a one-line message in err on bad input. */
int hx_config_parse(hx_config *c, int argc, char **argv, char *err, size_t errlen);

/* Checks that need the rank count: the grid, the dimension of the stencil, sizes vs halo. */
int hx_config_check(const hx_config *c, int nranks, char *err, size_t errlen);

/* Options that only the cuda backend runs (--graph, --fuse > 1, --schedule fused|persistent,
 * --kernel other than auto, --profile): 0,
 * or -1 with a one-line message naming the first of them, for a run that will have the CPU backend. */
int hx_config_gpu_only(const hx_config *c, char *err, size_t errlen);

/* The process grid to use for nranks (forced or chosen). Returns 0 or -1 with err. */
int hx_config_grid(const hx_config *c, int nranks, int pgrid[3], char *err, size_t errlen);

/* --stencil after parsing (operator_cli.c): a built-in's name sets stencil; box9, box27 or a file
 * path sets op and its dimension, radius, coefficient count and name (a file is read on this
 * process). Without --stencil, the built-in of the dimension. 0, or -1 with one line in err. */
int hx_config_resolve_stencil(hx_config *c, char *err, size_t errlen);
/* What runs: its dimension, radius and name (the operator's or the built-in stencil's). */
int hx_config_stencil_dim(const hx_config *c);
int hx_config_radius(const hx_config *c);
const char *hx_config_stencil_name(const hx_config *c);
/* Collective over ctx: c's operator (NULL for a built-in stencil), with the run's dtype. */
int hx_config_make_operator(hx_context *ctx, const hx_config *c, hx_operator **op);
/* c's operator on this process alone (a cpu context over MPI_COMM_SELF, which the caller destroys
 * after the operator): 0, or -1 with one line in err. */
int hx_config_operator_alone(const hx_config *c, hx_context **ctx, hx_operator **op, char *err, size_t errlen);
/* Collective: op's coefficient fields on l (NULL op: none), field k from seed + 1 + k, as the
 * reference makes them. */
int hx_config_make_coefficients(hx_layout *l, const hx_operator *op, uint64_t seed, hx_field *coef);

/* `halox run --help`, generated from hx_run_command. */
void hx_config_usage(FILE *out);
/* hx_pattern_name, hx_boundary_name, hx_dtype_name, hx_backend_name: halox/context.h */

#ifdef __cplusplus
}
#endif
#endif
