/* hx_layout: how a global grid is split over the ranks of a context, and the shape of each rank's
 * array. It answers the local box, the owned box with its ghosts, strides and neighbour ranks.
 * A layout holds no field; many fields and exchanges can share it.
 *
 * Array geometry (hx_field): cells are stored x fastest; `data` points at the first allocated
 * cell, which is `ghost` cells before the first owned cell on every active axis; pitch[0] is the
 * number of cells in a row (>= local x + 2 ghost), pitch[1] the number of rows in a plane
 * (>= local y + 2 ghost; ignored in 2D). A field may have more ghost cells than its exchange's
 * halo width (a field shared by exchanges of several widths). */
#ifndef HALOX_LAYOUT_H
#define HALOX_LAYOUT_H

#include "halox/context.h"
#include "halox/decomp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hx_layout hx_layout;

typedef struct {
    int dim;           /* 2 or 3 */
    int global[3];     /* cells per axis (global[2] ignored in 2D) */
    int pgrid[3];      /* ranks per axis, all 0: chosen for the smallest halo surface */
    int halo;          /* ghost cells per side on every active axis (depth x stencil radius) */
    hx_dtype dtype;
    hx_boundary boundary;
    /* Per-axis halos and boundaries (cuDecomp's and GHEX's model), e.g. periodic in x and fixed in
     * y and z for a channel. per_axis 0 (as an older caller's zeroed struct has it): `halo` and
     * `boundary` apply to every active axis. per_axis 1: halo_axis[a] ghost cells are exchanged on
     * axis a (0 allowed: that axis is never exchanged) and boundary_axis[a] applies there; fields
     * keep max(halo_axis) ghost cells on every axis, and `halo` is ignored (hx_layout_describe
     * then reports that widest width in `halo`). Each block must hold halo_axis[a] cells along a. */
    int per_axis;
    int halo_axis[3];
    hx_boundary boundary_axis[3];
} hx_layout_desc;

typedef struct {
    void *data;   /* first allocated cell, in the context's memory (device memory on CUDA) */
    int ghost;    /* ghost cells per side on active axes, >= the halo width of exchanges used on it */
    int pitch[2]; /* cells per row, rows per plane */
} hx_field;

/* Every call returns HX_OK or a status (HX_ERR_INPUT: bad arguments; HX_ERR_RUNTIME: memory, MPI
 * or the device failed), with hx_context_error(ctx) saying why.
 *
 * Collective. Fails (on every rank) when the grid does not fit the rank count or a block is
 * smaller than the halo. */
int hx_layout_create(hx_context *ctx, const hx_layout_desc *desc, hx_layout **out);
void hx_layout_destroy(hx_layout *l);

/* Everything about this rank's block: process grid and coordinates, local and global offsets,
 * ghost widths, the allocated extents of halox's own arrays, and the neighbour in each of the
 * 27 directions (hx_dir_index; HX_NO_RANK beyond a fixed boundary). Valid while l lives. */
const hx_decomp *hx_layout_decomp(const hx_layout *l);
const hx_layout_desc *hx_layout_describe(const hx_layout *l);

/* Allocate a field of this layout in the context's memory: ghost = the layout's (widest) halo, pitch
 * padded for aligned rows, every cell 0. hx_field_free releases it. */
int hx_field_alloc(hx_layout *l, hx_field *f);
void hx_field_free(hx_layout *l, hx_field *f);
/* Fill the owned cells with halox's seeded initial values (hx_initial_value of the global index),
 * ghost cells with 0: the starting field of halox's reference problem. Ordered on the context stream. */
int hx_field_init(hx_layout *l, const hx_field *f, uint64_t seed);
/* Copy the owned cells of f to a contiguous host array (local x fastest), and back. Synchronous. */
int hx_field_get_owned(hx_layout *l, const hx_field *f, void *owned);
int hx_field_set_owned(hx_layout *l, const hx_field *f, const void *owned);
/* Collective: write the global field as .npy (C order: (NY, NX) or (NZ, NY, NX)) with MPI-IO. */
int hx_field_write_npy(hx_layout *l, const hx_field *f, const char *path);
/* Collective: gather the owned cells of every rank into the global array on rank 0 (NX*NY*NZ
 * cells, x fastest; `global` is ignored elsewhere and may be NULL there). */
int hx_field_gather(hx_layout *l, const hx_field *f, void *global);
/* Collective: an order-independent checksum of the global owned field: the sum, modulo 2^64, of
 * every cell's bit pattern. Equal checksums at any decomposition mean (practically) equal bits. */
int hx_field_checksum(hx_layout *l, const hx_field *f, uint64_t *sum);

#ifdef __cplusplus
}
#endif
#endif
