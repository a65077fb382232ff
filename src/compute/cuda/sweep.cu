/* The sweep op: the kernel (2D, 3D register, pair, pipelined or bulk-copy march) and the march
 * length for the box, by the rules below or the view's tuning (bk->tuning). */
#include <string.h>

#include "compute/cuda/common.cuh"
#include "compute/cuda/ops.h"

/* The two fields a sweep reads and writes overflow L2: the marches then stream from DRAM */
static bool fields_spill(hx_backend *bk, const hx_decomp *d)
{
    return 2.0 * (double)hx_alloc_cells(d) * (double)bk->elem > (double)state(bk)->dev.l2;
}

/* Whether the plain 3D sweeps of radius r on d take the march fed by bulk tensor copies
 * (sweep3d_tma.cu): as tuning.tma forces, else radius 2 where the two fields overflow L2 and the
 * tiles use 85% of their lanes. Radius 1's register march already reads little halo and is faster. */
static bool tma_pays(hx_backend *bk, const hx_decomp *d, int r)
{
    if (d->dim != 3 || !cu_tma_usable()) return false;
    if (bk->tuning.tma >= 0) return bk->tuning.tma == 1;
    if (r != 2 || !fields_spill(bk, d)) return false;
    /* lanes the tiles use (the field has a lead here: rows start on a vector): below 85% the
     * march's idle lanes cost more than it saves */
    const int V = (int)(16 / bk->elem), groups = (d->local[0] + V - 1) / V;
    return groups >= 0.85 * 32 * ((groups + 31) / 32);
}

/* compute/backend.h says why: radius 1's register marches, and the bulk-copy march, whose tiles
 * then start on the first owned cell (512 cells a row: 4 tiles of 32 lanes, not 5 of 26). */
int cu_field_lead(hx_backend *bk, const hx_decomp *d, int radius)
{
    if (d->dim != 3 || (radius != 1 && !tma_pays(bk, d, radius))) return 0;
    return (HX_ROW_ALIGN - d->ghost[0] % HX_ROW_ALIGN) % HX_ROW_ALIGN;
}

int cu_off_vector(hx_backend *bk, const void *src, const void *dst, const char *what)
{
    if ((uintptr_t)src % 16 == 0 && (uintptr_t)dst % 16 == 0) return 0;
    snprintf(bk->err, sizeof bk->err, "%s: fields at %p and %p do not start on a 16-byte vector", what, src, dst);
    return -1;
}

/* Shortest march the halving below leaves: 2D sweeps of small grids are bound by their march's
 * steps (an L2 round trip each), so they go down to 2 rows; 3D marches of 4 planes lost. */
enum { MIN_CHUNK2D = 2, MIN_CHUNK3D = 8 };

int cu_sweep(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst)
{
    if (bk->op) return cu_op_sweep(bk, stream, box, src, dst);
    if (hx_box_cells(box) == 0) return 0;
    const hx_decomp *d = bk->decomp;
    const hx_box *b = box;
    const int r = hx_stencil_get(bk->stencil)->radius;
    const hx_tuning &t = bk->tuning;
    const cu_device &dev = state(bk)->dev;
    const int dslot = dtype_slot(bk);
    const int V = dslot ? (int)vec16<double>::n : (int)vec16<float>::n;
    sweep_args a;
    for (int i = 0; i < 3; i++) {
        a.lo[i] = b->lo[i];
        a.hi[i] = b->hi[i];
    }
    const int phase = vec_phase(src, bk->elem, V);
    if ((uintptr_t)src % bk->elem || (uintptr_t)dst % bk->elem || vec_phase(dst, bk->elem, V) != phase) {
        snprintf(bk->err, sizeof bk->err, "sweep: fields at %p and %p do not start at the same place in a 16-byte vector", src, dst);
        return -1;
    }
    a.pitch = d->alloc[0];
    sweep_args_vectors(a, phase, V);
    a.sy = d->alloc[0];
    a.sz = (long)d->alloc[0] * d->alloc[1];
    const int groups = (b->hi[0] - a.xbase + V - 1) / V;
    /* threads of a block in y, and the march: 2D 4 x 8 rows, 3D 8 x the rule's planes below */
    const int by = t.block_rows > 0 ? t.block_rows : d->dim == 2 ? 4 : 8;
    int chunk = t.march > 0 ? t.march : d->dim == 2 ? 8 : 0;
    /* the bulk-copy march maps x + phase (sweep3d_tma.cu): the cells a stored output reads must lie below the pitch there */
    const bool tma = d->dim == 3 && tma_pays(bk, d, r) && b->hi[0] + r + phase <= d->alloc[0];
    /* the shared-memory pipeline wins over the register march only for radius 2 in fp64 */
    const int pipe = !tma && d->dim == 3 && r == 2 && dslot == 1;
    /* prefetching into L2 pays only where the two fields do not stay there */
    const bool spill = fields_spill(bk, d);
    const int prefetch = t.prefetch >= 0 ? t.prefetch : spill;
    const int ytile = d->dim == 2 ? 1 : by; /* rows of a 3D block */
    const long columns = (long)((groups + 31) / 32) * ((b->hi[1] - b->lo[1] + ytile - 1) / ytile);
    const long slow = d->dim == 2 ? 1 : (b->hi[2] - b->lo[2]);
    const int per_sm = d->dim == 3 ? cu_sweep3d_per_sm(dslot, r, by, pipe, prefetch) : 0;
    /* the blocks the multiprocessors hold span two or more layers of the launch (one-row columns) */
    const bool two_layers = per_sm > 0 && (long)per_sm * dev.sms >= 2 * columns;
    /* 3D marches: 8 planes for radius 1 and for the pipelined march, 16 otherwise; the bulk-copy
     * march takes 0, its own rule (sweep3d_tma.cu) */
    if (d->dim == 3 && chunk == 0 && !tma) chunk = r == 1 || pipe ? 8 : 16;
    /* Halve the march until the box gives every multiprocessor a few blocks: in 3D until the launch
     * fills the blocks the multiprocessors hold three times over, where that count is known. */
    const long enough = per_sm > 0 ? 3L * per_sm * dev.sms : 4L * dev.sms;
    while (!tma && t.march == 0 && chunk > (d->dim == 2 ? MIN_CHUNK2D : MIN_CHUNK3D)) {
        long blocks = d->dim == 2 ? columns / ((long)by * chunk) : columns * ((slow + chunk - 1) / chunk);
        if (blocks >= enough) break;
        chunk /= 2;
    }
    /* 3D floats: two floats a thread (sweep3d_pair.cuh says why) for radius 2 where the 16-byte
     * march would hold two or more chunk layers at once; for radius 1 (fields with a lead) from
     * five resident layers, where the 16-byte launch fills the places the multiprocessors hold
     * once but not twice (it is the faster from twice on). */
    const long places = (long)per_sm * dev.sms, blocks3 = columns * ((slow + chunk - 1) / chunk);
    const bool pair_pays = r == 2 ? two_layers : places >= 5 * columns && blocks3 >= places && blocks3 < 2 * places;
    const int pair = !tma && d->dim == 3 && dslot == 0 && !pipe && pair_pays;
    /* the pair march, whose length is a kernel argument, halves on to 6 planes where 8 leave the
     * launch short of blocks */
    if (pair && t.march == 0 && chunk == 8 && blocks3 < enough) chunk = 6;
    /* A sweep of what the last one wrote takes its layers in the other order, so that it starts on
     * the rows or planes that sweep wrote last, still in L2 (sweep_tile). It pays for 2D and 3D fp32
     * radius 1, and only where the fields overflow L2; radius 2 and fp64 3D lose with it. */
    cuda_state *cs = state(bk);
    const bool flip_pays = spill && (d->dim == 2 || (dslot == 0 && r == 1));
    const int flip = flip_pays && src == cs->last_dst && !cs->last_flip;
    cs->last_dst = dst;
    cs->last_flip = flip;
    sweep_launch l = {d, b, src, dst, cs->stream[stream], by, groups, chunk, prefetch, &a, pair, cu_pdl(bk), flip};
    if (tma) {
        if (cu_launch_sweep3d_tma(bk, l, dslot, r, phase)) return -1;
        CU_LAUNCHED(bk);
        return 0;
    }
    const int rc = pipe ? cu_launch_sweep3d_pipe(l, dslot, r) : d->dim == 2 ? cu_launch_sweep2d(l, dslot, r) : cu_launch_sweep3d(l, dslot, r);
    if (rc) {
        snprintf(bk->err, sizeof bk->err, "no CUDA sweep kernel for radius %d, %dD, march %d", r, d->dim, chunk);
        return -1;
    }
    CU_LAUNCHED(bk);
    return 0;
}
