/* Region geometry: which boxes each exchange phase sends and receives, and which boxes each
 * sweep of a deep-halo cycle updates (and, for overlap, its interior and boundary shell). */
#ifndef HALOX_PLAN_H
#define HALOX_PLAN_H

#include "halox/decomp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One message pair with one neighbour: this rank sends send_box toward direction dir and
 * fills recv_box, its ghost cells on the same side, from the same neighbour. */
typedef struct {
    int peer;        /* neighbour rank (never HX_NO_RANK: such messages are left out) */
    int dir;         /* direction index of the side this message serves */
    int send_tag;    /* tag of the outgoing message */
    int recv_tag;    /* tag the neighbour uses for the message we receive */
    hx_box send_box; /* owned (or, staged, forwarded ghost) cells that go out */
    hx_box recv_box; /* ghost cells that come in */
    long count;      /* cells in each box (both boxes have the same shape) */
    long offset;     /* cell offset of this message in the phase's packed send and receive buffers */
} hx_message;

typedef struct {
    int nmsg;
    hx_message msg[HX_MAX_MSGS];
    long cells; /* packed cells of all messages of this phase, each way */
} hx_phase;

typedef struct {
    hx_pattern pattern;
    int nphases;
    hx_phase phase[HX_MAX_PHASES];
    long max_phase_cells; /* size of one packed buffer, in cells */
} hx_plan;

/* Build the message plan for a decomposition whose ghost width is d->ghost. */
void hx_plan_build(hx_plan *p, const hx_decomp *d, hx_pattern pattern);

/* The owned cells, in local coordinates. */
hx_box hx_owned_box(const hx_decomp *d);

/* Cells updated by a sweep that leaves `expand` further cells valid around the owned block:
 * the owned box grown by expand in active axes; with fixed boundaries, never past the global edge. */
hx_box hx_sweep_box(const hx_decomp *d, int expand);

/* Split a sweep box into the interior that needs no ghost cell (reads stay inside the owned
 * block, radius r) and up to six slabs of boundary shell. Returns the number of shell boxes;
 * *inner may be empty (hx_box_cells == 0), in which case the single shell box is the whole region. */
int hx_split_interior(const hx_decomp *d, int radius, const hx_box *region, hx_box *inner,
                      hx_box outer[HX_MAX_OUTER_BOXES]);

#ifdef __cplusplus
}
#endif
#endif
