/* hx_context: one per job and communicator. It picks this rank's device, owns the backend (device
 * memory, streams, events) and the communication libraries' one-time set-up (one NCCL
 * communicator, NVSHMEM initialised once), which every exchange of the context shares.
 *
 * Errors: every call returns HX_OK (0) or a status; hx_context_error() gives a one-line message
 * for the last failure of the context or of any object made from it. Creation and destruction
 * are collective over the communicator, and so is every object's creation: when set-up fails on
 * one rank, every rank returns an error (no rank is left waiting in a collective). */
#ifndef HALOX_CONTEXT_H
#define HALOX_CONTEXT_H

#include <mpi.h>
#include <stdio.h>

#include "halox/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_context hx_context;

typedef enum { HX_BACKEND_AUTO = 0, HX_BACKEND_CPU = 1, HX_BACKEND_CUDA = 2 } hx_backend_kind;

/* Diagnostics. The library never writes to stdout or stderr by itself: what it has to say goes to
 * the callback of hx_context_options, and only at or below the level asked for. */
typedef enum {
    HX_LOG_OFF = 0,   /* nothing */
    HX_LOG_ERROR = 1, /* a failure; the call also returns its status and hx_context_error says why */
    HX_LOG_WARN = 2,  /* a setting that will run, but slower or otherwise than asked */
    HX_LOG_INFO = 3,  /* what was chosen: kernels, tiles, message plans */
    HX_LOG_DEBUG = 4  /* per-run detail: profiles, device tables */
} hx_log_level;

/* One message, without a trailing newline. rank: the context's rank that speaks. */
typedef void (*hx_log_fn)(hx_log_level level, int rank, const char *msg, void *user);

typedef struct {
    size_t struct_size;      /* sizeof(hx_context_options) as the caller was compiled; 0 = this
                                version (hx_context_defaults sets it) */
    hx_backend_kind backend; /* AUTO: cuda when every rank sees a GPU, else cpu */
    const char *devices;     /* comma list of GPU ordinals, taken by node-local rank modulo its
                                length; NULL or "": node-local rank modulo the device count */
    hx_log_level log_level;  /* messages above this level are not formatted (default HX_LOG_OFF) */
    hx_log_fn log;           /* receives the messages; NULL: none are delivered */
    void *log_user;          /* passed to log */
    int threads;             /* CPU backend: OpenMP threads of this rank (omp_set_num_threads, which
                                the whole process shares). 0 = automatic: OMP_NUM_THREADS when the
                                user set it, else the cores of the rank's affinity mask divided
                                among the node's ranks that have the same mask (ranks bound to
                                their own cores take them all; ranks started unbound share the
                                node: cores / ranks, at least 1). When the node's ranks still ask
                                for more threads than their cores, node rank 0 logs one
                                HX_LOG_WARN message at creation. */
} hx_context_options;

/* Automatic backend and devices, no log, automatic threads; struct_size set. */
hx_context_options hx_context_defaults(void);
/* Change the log level or callback of a live context (e.g. after it was created quiet). */
void hx_context_set_log(hx_context *ctx, hx_log_level level, hx_log_fn fn, void *user);
/* A callback that writes "halox: LEVEL: msg" lines to the FILE * passed as user (stderr when
 * NULL); what the command-line tool uses. */
void hx_log_to_file(hx_log_level level, int rank, const char *msg, void *user);
const char *hx_log_level_name(hx_log_level l);

/* Collective over comm (which is duplicated; the caller keeps its own). *out is set even on
 * failure, so that hx_context_error() can say why; destroy it either way. opts may be NULL (the
 * defaults); fields past opts->struct_size take their defaults. Errors: HX_ERR_INPUT for a backend
 * this build or machine lacks, a bad device list or threads < 0; HX_ERR_RUNTIME when MPI or the
 * device fails. */
int hx_context_create(MPI_Comm comm, const hx_context_options *opts, hx_context **out);
/* The same from a Fortran communicator handle (MPI_Comm_f2c of it): what Fortran's `integer` comm,
 * mpi_f08's comm%MPI_VAL and mpi4py's comm.py2f() give, for callers that cannot name a C MPI_Comm. */
int hx_context_create_f(MPI_Fint fcomm, const hx_context_options *opts, hx_context **out);
/* Collective. Destroy every exchange, layout and sweeper of the context first. NULL is a no-op. */
void hx_context_destroy(hx_context *ctx);

/* The last error of ctx or of an object made from it ("" when none). */
const char *hx_context_error(const hx_context *ctx);

hx_backend_kind hx_context_backend(const hx_context *ctx); /* CPU or CUDA, never AUTO */
int hx_context_device(const hx_context *ctx);              /* CUDA ordinal, -1 on the CPU */
const char *hx_context_device_name(const hx_context *ctx); /* the GPU's name, NULL on the CPU */
/* 1 when this build holds backend k (HX_BACKEND_CPU always; HX_BACKEND_CUDA when built with nvcc). */
int hx_backend_built(hx_backend_kind k);
/* GPUs visible to this process (0 without CUDA or a driver). */
int hx_gpu_count(void);
MPI_Comm hx_context_comm(const hx_context *ctx);           /* the context's duplicate */
int hx_context_rank(const hx_context *ctx);
int hx_context_size(const hx_context *ctx);
/* The OpenMP threads of this rank's CPU work, as hx_context_options.threads chose them: the CPU
 * backend's count, or on a GPU rank the count a CPU context made by this rank should ask for (e.g.
 * for work moved off the GPU) so that the node's ranks do not oversubscribe its cores. */
int hx_context_threads(const hx_context *ctx);
/* The stream halox computes and exchanges on when a caller passes none (a cudaStream_t; NULL on the CPU). */
void *hx_context_stream(const hx_context *ctx);
/* Wait for all work halox issued on its own streams (with the context's timeout). */
int hx_context_sync(hx_context *ctx);

/* Names, for messages and reports. */
const char *hx_backend_name(hx_backend_kind k);
const char *hx_dtype_name(hx_dtype t);
const char *hx_pattern_name(hx_pattern p);
const char *hx_boundary_name(hx_boundary b);
/* Collective over comm: what this build holds (backends, transports and their control paths,
 * library versions) and what the machine offers (GPUs, peer access, which ranks share a node).
 * Rank 0 prints to out. */
void hx_print_info(FILE *out, MPI_Comm comm);

/* halox's version, "MAJOR.MINOR.PATCH" */
const char *hx_version(void);

#ifdef __cplusplus
}
#endif
#endif
