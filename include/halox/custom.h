/* A user's own stencil as code: a functor compiled into kernels (halox/kernels.cuh makes them and
 * their table), swept by halox over many state fields with deep halos and fused passes.
 *
 * The table is plain C, so a C program can drive kernels that a .cu (or, for the CPU backend only,
 * a .cpp) file of its own instantiated:
 *
 *   extern const hx_kernel_table hx_kernels_gray_scott;     (HX_DECLARE_KERNELS(gray_scott))
 *   hx_custom_create(layout, exchange, &opts, &hx_kernels_gray_scott, &params, &s);
 *   hx_custom_init_field(s, 0, seed); ...; hx_custom_iterate(s, 1000); hx_custom_field(s, 0);
 *
 * A cycle is one exchange of every state field, then `depth` sweeps on boxes that shrink by the
 * radius each sweep (deep halos), run as passes of up to `fuse` sweeps each (one pass over memory
 * per `fuse` sweeps on the GPU; the CPU runs them one by one). The cycle schedule exchanges with
 * hx_exchange_run_many from the host; the fused and persistent schedules run the table's
 * persistent kernel, which exchanges on the device. Every variant gives the bits of separate
 * sweeps at one rank: docs/custom.md. */
#ifndef HALOX_CUSTOM_H
#define HALOX_CUSTOM_H

#include "halox/exchange.h"
#include "halox/layout.h"
#include "halox/sweeper.h" /* hx_schedule */

#ifdef __cplusplus
extern "C" {
#endif

#define HX_CUSTOM_MAX_FIELDS 8 /* state fields of a functor */

/* One launch of a table's kernel: `levels` sweeps from src to dst, sweep j on box[j] (local array
 * coordinates, ghosts included); every field has the same geometry. */
typedef struct {
    int nfields;
    const void *src[HX_CUSTOM_MAX_FIELDS];
    void *dst[HX_CUSTOM_MAX_FIELDS];
    long sy, sz;      /* cells between rows and between planes (0 in 2D) */
    int alloc[3];     /* allocated cells per axis (alloc[2] = 1 in 2D) */
    int levels;       /* 1 for sweep and sweep_host; 1 .. HX_FUSE_MAX for fused */
    hx_box box[HX_FUSE_MAX];
    const void *params; /* the functor object: param_bytes bytes */
    void *stream;     /* cudaStream_t (device kernels) */
    char *err;        /* a one-line reason on failure */
    size_t errlen;
} hx_custom_launch;

/* One launch of a table's persistent kernel (halox/kernels/persistent.cuh), filled by halox: whole
 * cycles, each one device exchange of every state field (one message a neighbour) and the cycle's
 * passes of up to `fuse` sweeps, a grid barrier after each. */
typedef struct {
    int nfields;
    void *field[2][HX_CUSTOM_MAX_FIELDS]; /* both buffers of every state field; cur_out says which holds the iterate */
    long xoff;                 /* cells from a field's data to the exchange's origin (its boxes' (0, 0, 0)) */
    long sy, sz;
    int alloc[3];
    int own_lo[3], own_hi[3];  /* the owned box (local array coordinates; 0 .. 1 past dim) */
    int grow_lo[3], grow_hi[3];/* 1 where sweep boxes grow by the halo still valid (a neighbour there) */
    int depth, fuse;
    long sweeps;               /* in this launch: whole cycles of depth, the last maybe shorter */
    const void *tables;        /* device memory: nfields device tables of the exchange */
    unsigned long long exch0;  /* exchanges made over them before this launch */
    long long skip_from;       /* fault injection: from this exchange on, put nothing (0 never) */
    unsigned long long timeout_ns; /* every device wait's limit */
    void *watch;               /* where a wait that gives up says what it waited for (device address) */
    int *abort_flag;           /* device: raised by the first wait that gives up */
    unsigned *bar;             /* device: the grid barrier's counters, 64 words, zero */
    int *cur_out;              /* device: in, the buffer holding the iterate; out, where it ends */
    int rank;
    const void *params;        /* the functor object */
    void *stream;              /* cudaStream_t */
    char *err;
    size_t errlen;
} hx_custom_run;

/* The kernels of one functor and element type. A function returns 0, or non-zero with a reason in
 * the launch's err. sweep and fused are NULL where the table was compiled without nvcc. */
typedef struct hx_kernel_table {
    const char *name;
    int dim, radius, nfields;
    hx_dtype dtype;
    size_t param_bytes;
    int (*sweep)(const hx_custom_launch *);      /* device: levels 1, enqueued on stream */
    int (*fused)(const hx_custom_launch *);      /* device: levels sweeps in one pass */
    int (*sweep_host)(const hx_custom_launch *); /* host memory, synchronous, levels 1 */
    size_t (*fused_smem)(int levels);            /* shared memory of a fused pass, bytes */
    int (*persistent)(const hx_custom_run *);    /* device: a cooperative launch, enqueued on stream; NULL without nvcc */
} hx_kernel_table;

/* The table HX_DEFINE_KERNELS(F, T) defined in another file, for C and C++ alike */
#ifdef __cplusplus
#define HX_DECLARE_KERNELS(F) extern "C" const hx_kernel_table hx_kernels_##F
#else
#define HX_DECLARE_KERNELS(F) extern const hx_kernel_table hx_kernels_##F
#endif

typedef struct hx_custom hx_custom;

typedef struct {
    size_t struct_size; /* 0 = this version's size */
    int depth;          /* sweeps per exchange, 0 = 1; the exchange's halo >= depth x radius */
    int fuse;           /* sweeps per pass over memory (GPU), 0 = 1; <= depth */
    hx_schedule schedule; /* cycle (0): a host exchange and kernels per cycle; fused: a kernel per cycle
                             and persistent: one kernel for the whole iterate, both exchanging on the
                             device (cuda backend, a transport with a device path, one GPU a rank) */
} hx_custom_options;

/* depth 1, fuse 1, cycle schedule, struct_size set. */
hx_custom_options hx_custom_defaults(void);

/* Collective. x: an exchange of l made with nfields >= the table's (hx_exchange_options.nfields)
 * and their dtypes the layout's. params: the functor object (kt->param_bytes bytes, copied).
 * Allocates 2 x nfields fields of l, every cell 0. HX_ERR_INPUT on every rank for a table of
 * another dim or dtype than the layout, a halo below depth x radius, fuse x radius beyond
 * HX_FUSE_MAX (2D) or HX_FUSE_MAX_3D (3D), fuse > depth, or more fields than the exchange moves. */
int hx_custom_create(hx_layout *l, hx_exchange *x, const hx_custom_options *o, const hx_kernel_table *kt, const void *params,
                     hx_custom **out);
/* Collective. */
void hx_custom_destroy(hx_custom *s);
/* State field i: halox's seeded values (hx_field_init), or the owned cells from a host array
 * (local x fastest, as hx_field_set_owned). */
int hx_custom_init_field(hx_custom *s, int i, uint64_t seed);
int hx_custom_set_field(hx_custom *s, int i, const void *owned);
/* Collective: `sweeps` sweeps (a last cycle of fewer than depth where sweeps is no multiple).
 * Returns once the work is done (the context's stream synchronized). */
int hx_custom_iterate(hx_custom *s, long sweeps);
/* The current state field i (valid until the next iterate), for hx_field_checksum,
 * hx_field_write_npy, hx_field_get_owned. */
const hx_field *hx_custom_field(const hx_custom *s, int i);
/* Sweeps done so far. */
long hx_custom_sweeps(const hx_custom *s);

#ifdef __cplusplus
}
#endif
#endif
