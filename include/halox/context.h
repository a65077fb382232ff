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

typedef struct {
    hx_backend_kind backend; /* AUTO: cuda when every rank sees a GPU, else cpu */
    const char *devices;     /* comma list of GPU ordinals, taken by node-local rank modulo its
                                length; NULL or "": node-local rank modulo the device count */
} hx_context_options;

/* Zeroed options: automatic backend and devices. */
hx_context_options hx_context_defaults(void);

/* Collective over comm (which is duplicated; the caller keeps its own). *out is set even on
 * failure, so that hx_context_error() can say why; destroy it either way. opts may be NULL. */
int hx_context_create(MPI_Comm comm, const hx_context_options *opts, hx_context **out);
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
