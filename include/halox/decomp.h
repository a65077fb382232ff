/* Domain decomposition: the process grid, each rank's block of the global grid, its ghost width
 * and its neighbours in all 8 (2D) or 26 (3D) directions. Pure arithmetic, no MPI, so it can be
 * unit-tested for any rank count on one process. */
#ifndef HALOX_DECOMP_H
#define HALOX_DECOMP_H

#include "halox/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HX_NO_RANK (-1)  /* no neighbour: fixed boundary; cells there stay 0 */
#define HX_NUM_DIRS 27   /* offsets {-1,0,1}^3, index 13 is the rank itself */
#define HX_ROW_ALIGN 32  /* row pitch in cells is a multiple of this */

/* Direction index of offset (ox, oy, oz), each in {-1, 0, 1}. */
static inline int hx_dir_index(int ox, int oy, int oz) { return (ox + 1) + 3 * (oy + 1) + 9 * (oz + 1); }
static inline void hx_dir_offset(int dir, int o[3])
{
    o[0] = dir % 3 - 1;
    o[1] = (dir / 3) % 3 - 1;
    o[2] = dir / 9 - 1;
}
static inline int hx_dir_opposite(int dir) { return HX_NUM_DIRS - 1 - dir; }

typedef struct {
    int dim;                 /* 2 or 3 */
    int global[HX_MAX_DIM];  /* NX, NY, NZ (NZ = 1 in 2D) */
    int pgrid[HX_MAX_DIM];   /* ranks per axis (1 in unused axes) */
    int coords[HX_MAX_DIM];  /* this rank's position in the process grid */
    int local[HX_MAX_DIM];   /* owned cells per axis */
    int offset[HX_MAX_DIM];  /* global index of the first owned cell */
    int ghost[HX_MAX_DIM];   /* ghost width per side: the halo width of each active axis, 0 otherwise */
    int alloc[HX_MAX_DIM];   /* allocated extent: local + 2 * ghost, x rounded up to HX_ROW_ALIGN */
    hx_boundary boundary;
    int rank, nranks;
    int neighbour[HX_NUM_DIRS]; /* rank at each offset, HX_NO_RANK outside a fixed boundary */
    hx_boundary boundary_axis[HX_MAX_DIM]; /* the boundary of each axis (all `boundary` unless per axis) */
} hx_decomp;

/* Rank <-> process-grid coordinates (x fastest). */
int hx_grid_rank(const int pgrid[3], const int coords[3]);
void hx_grid_coords(const int pgrid[3], int rank, int coords[3]);

/* Split n cells over p ranks: the first n % p ranks get one more. */
void hx_split_extent(int n, int p, int c, int *count, int *first);

/* Choose a process grid for nranks: among all factorisations whose smallest block still holds
 * min_local cells per axis, the one with the smallest halo surface per rank (the most cubic blocks).
 * Returns 0, or -1 when no factorisation fits. */
int hx_choose_grid(int nranks, int dim, const int global[3], int min_local, int pgrid[3]);

/* Fill d for one rank. halo is the ghost width (depth * radius). Returns 0, or -1 with a
 * message in err when the grid does not match nranks or a block is smaller than the halo. */
int hx_decomp_init(hx_decomp *d, int dim, const int global[3], const int pgrid[3], int rank, int nranks,
                   hx_boundary boundary, int halo, char *err, size_t errlen);

/* The same with a ghost width and a boundary per axis (halo[a] may be 0: a block along a then needs
 * only one cell). `boundary` above becomes HX_FIXED when any active axis is fixed. */
int hx_decomp_init_axes(hx_decomp *d, int dim, const int global[3], const int pgrid[3], int rank, int nranks,
                        const hx_boundary boundary[3], const int halo[3], char *err, size_t errlen);

/* Index of local cell (x, y, z) in the allocated array. */
static inline long hx_local_index(const hx_decomp *d, int x, int y, int z)
{
    return (long)x + (long)d->alloc[0] * ((long)y + (long)d->alloc[1] * (long)z);
}
static inline long hx_alloc_cells(const hx_decomp *d)
{
    return (long)d->alloc[0] * d->alloc[1] * d->alloc[2];
}

#ifdef __cplusplus
}
#endif
#endif
