/* The sweep op: tile shape (defaults or HALOX_TILE), march length for the box, and the choice of 2D, 3D or pipelined kernel. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compute/cuda/common.cuh"
#include "compute/cuda/fused3d.cuh" /* fused3d_lanes_env */
#include "compute/cuda/ops.h"

/* Strictly "BY2,CHUNK2,BY3,CHUNK3[,PIPE[,ROWS3]]": four to six integers, commas between, nothing else. */
static int parse_tile(const char *e, tile_shape *u)
{
    int *field[6] = {&u->by2, &u->chunk2, &u->by3, &u->chunk3, &u->pipe, &u->rows3};
    const char *p = e;
    int n = 0;
    while (n < 6) {
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (end == p || errno || v < -1000 || v > 1000) return -1;
        *field[n++] = (int)v;
        p = end;
        if (*p != ',') break;
        p++;
    }
    return *p == 0 && n >= 4 ? 0 : -1;
}

/* A tuning switch: unset or empty leaves *v (-1, the rule: `unset` says which), 0 or 1 sets it, anything else is an error. */
static int env_switch(const char *name, const char *unset, int *v, char *err, size_t errlen)
{
    const char *e = getenv(name);
    if (!e || !*e) return 0;
    if (strcmp(e, "0") && strcmp(e, "1")) {
        snprintf(err, errlen, "%s='%s': give 0 or 1 (unset: %s)", name, e, unset);
        return -1;
    }
    *v = *e == '1';
    return 0;
}

int cu_tile_shape(tile_shape *t, char *err, size_t errlen)
{
    const tile_shape def = {4, 8, 8, 0, -1, 1, 132, 0, 0, 50L << 20, -1, -1, -1, -1, -1, -1}; /* chunk3 0: by cu_sweep's rule */
    *t = def;
    if (env_switch("HALOX_SWEEP_PREFETCH", "prefetch where the fields do not fit in L2", &t->prefetch, err, errlen) ||
        env_switch("HALOX_SWEEP_PAIR", "two floats a thread where four would hold two or more chunk layers at once", &t->pair,
                   err, errlen) ||
        env_switch("HALOX_FIELD_LEAD", "the first owned cell on a 128-byte line for plain 3D sweeps of radius 1", &t->lead, err,
                   errlen) ||
        env_switch("HALOX_PDL", "plain sweeps and halo packing launched as programmatic dependents on sm_90 and up",
                   &t->pdl, err, errlen) ||
        env_switch("HALOX_SWEEP_TMA", "3D sweeps of radius 2 fed by bulk tensor copies where the fields overflow L2, on sm_90 and up",
                   &t->tma, err, errlen) ||
        env_switch("HALOX_SWEEP_FLIP", "2D and 3D fp32 radius-1 sweeps of what the last one wrote take their layers in the "
                   "other order where the fields overflow L2", &t->flip, err, errlen))
        return -1;
    const char *z = getenv("HALOX_FUSED3D_ZSPLIT");
    if (z && *z) {
        char *end;
        long v = strtol(z, &end, 10);
        if (*end || v < 1 || v > 1024) {
            snprintf(err, errlen, "HALOX_FUSED3D_ZSPLIT='%s': give the z chunks of a fused 3D pass, 1 to 1024 (unset: by the cost model)", z);
            return -1;
        }
        t->zsplit3 = (int)v;
    }
    t->lanes3 = fused3d_lanes_env();
    if (t->lanes3 < 0) {
        snprintf(err, errlen, "HALOX_FUSED3D_LANES='%s': give 16 or 32, the lanes of a fused 3D pass's tile rows (unset: by the cost model)",
                 getenv("HALOX_FUSED3D_LANES"));
        return -1;
    }
    /* HALOX_TILE="BY2,CHUNK2,BY3,CHUNK3[,PIPE[,ROWS3]]" overrides, for tuning runs of `halox roofline` */
    const char *e = getenv("HALOX_TILE");
    if (!e) return 0;
    tile_shape u = *t;
    if (parse_tile(e, &u) || u.by2 < 1 || u.by2 > 8 || u.by3 < 1 || u.by3 > 8 || chunk_slot(u.chunk2) < 0 ||
        chunk_slot(u.chunk3) < 0 || u.chunk3 == 2 || u.pipe < -1 || u.pipe > 4 || (u.rows3 != 1 && u.rows3 != 2 && u.rows3 != 4)) {
        snprintf(err, errlen, "HALOX_TILE='%s': give BY2,CHUNK2,BY3,CHUNK3[,PIPE[,ROWS3]] with BY in 1..8, CHUNK2 2, 4, 8, "
                 "16, 32 or 64, CHUNK3 the same but 2, PIPE -1 (by stencil), 0..3 or 4 (shared tile), ROWS3 1, 2 or 4", e);
        return -1;
    }
    *t = u;
    return 0;
}

/* The two fields a sweep reads and writes overflow L2: the marches then stream from DRAM */
static bool fields_spill(hx_backend *bk, const hx_decomp *d)
{
    return 2.0 * (double)hx_alloc_cells(d) * (double)bk->elem > (double)state(bk)->tile.l2;
}

/* Whether the plain 3D sweeps of radius r on d take the march fed by bulk tensor copies
 * (sweep3d_tma.cu): HALOX_SWEEP_TMA where set, none where HALOX_TILE names a kernel (PIPE), else
 * radius 2 where the two fields overflow L2 and the tiles use 85% of their lanes. Measured
 * (session 38, call 7, one H200, 3 rounds, us a sweep, the register marches as session 37's rule
 * left them against the bulk copies with boxes on 128-byte lines): star13 fp64 512^3 637.1 ->
 * 606.0 (84.3% of copy), 448^3 420.5 -> 401.2, 384^3 268.6 -> 256.6, 320^3 159.0 -> 153.4,
 * 256x256x512 163.2 -> 158.7; fp32 512^3 316.2 -> 308.1, 448^3 218.9 -> 213.4, 384^3 138.2 ->
 * 135.5, 256x256x512 86.2 -> 84.3 (session 37's boxes, one vector before the tile, lost at 512^3
 * and 448^3 floats: those kept the register march until this session). Radius 1 keeps its
 * marches: jacobi7 with the bulk copies 7-12% slower at every size (fp32 512^3 280.3 -> 312.1). */
static bool tma_pays(hx_backend *bk, const hx_decomp *d, int r)
{
    const tile_shape &t = state(bk)->tile;
    if (d->dim != 3 || !cu_tma_usable()) return false;
    if (t.tma >= 0) return t.tma == 1;
    if (t.pipe >= 0 || r != 2 || !fields_spill(bk, d)) return false;
    /* lanes the tiles use (the field has a lead here: rows start on a vector): at least 85%, or the
     * march's idle lanes cost more than it saves (star13 fp32 320^3, 80 vectors in 3 tiles of 27,
     * 83%: 93.9 us against the register march's 87.5, session 38 call 7; 448^3, 4 tiles of 28,
     * 87.5%: 213.4 against 218.9; 256x256x512 without the lead, 5 tiles of 26 for 129 vectors:
     * 115.5 against 91.0, session 37) */
    const int V = (int)(16 / bk->elem), groups = (d->local[0] + V - 1) / V;
    return groups >= 0.85 * 32 * ((groups + 31) / 32);
}

/* compute/backend.h says why; measured for the register marches of radius 1 (pair, 16-byte), and
 * correct for every kernel cu_sweep launches but the shared-tile one (fused3d.cu), which takes
 * x = 0 on a vector. The bulk-copy march takes it too: its tiles then start on the first owned
 * cell (512 cells a row: 4 tiles of 32 lanes, not 5 of 26). */
int cu_field_lead(hx_backend *bk, const hx_decomp *d, int radius)
{
    const tile_shape &t = state(bk)->tile;
    if (d->dim != 3 || t.pipe == 4 || t.lead == 0 || (t.lead < 0 && radius != 1 && !tma_pays(bk, d, radius))) return 0;
    return (HX_ROW_ALIGN - d->ghost[0] % HX_ROW_ALIGN) % HX_ROW_ALIGN;
}

int cu_off_vector(hx_backend *bk, const void *src, const void *dst, const char *what)
{
    if ((uintptr_t)src % 16 == 0 && (uintptr_t)dst % 16 == 0) return 0;
    snprintf(bk->err, sizeof bk->err, "%s: fields at %p and %p do not start on a 16-byte vector", what, src, dst);
    return -1;
}

int cu_sweep(hx_backend *bk, int stream, const hx_box *box, const void *src, void *dst)
{
    if (hx_box_cells(box) == 0) return 0;
    const hx_decomp *d = bk->decomp;
    const hx_box *b = box;
    const int r = hx_stencil_get(bk->stencil)->radius;
    const tile_shape &t = state(bk)->tile;
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
    const int by = d->dim == 2 ? t.by2 : t.by3;
    int chunk = d->dim == 2 ? t.chunk2 : t.chunk3;
    /* the bulk-copy march maps x + phase (sweep3d_tma.cu): the cells a stored output reads must lie below the pitch there */
    const bool tma = d->dim == 3 && tma_pays(bk, d, r) && b->hi[0] + r + phase <= d->alloc[0];
    const int pipe = tma ? 0 : t.pipe >= 0 ? t.pipe : (r == 2 && dslot == 1 ? 2 : 0);
    if (d->dim == 3 && pipe == 4) return cu_sweep_tile3d(bk, stream, box, src, dst);
    /* prefetching into L2 pays only where the two fields do not stay there (session 19: star9 fp32
     * 16384^2 +7%, 2048^2 -15%) */
    const bool spill = fields_spill(bk, d);
    const int prefetch = t.prefetch >= 0 ? t.prefetch : spill;
    const int ytile = d->dim == 2 ? 1 : by * t.rows3; /* rows of a 3D block */
    const long columns = (long)((groups + 31) / 32) * ((b->hi[1] - b->lo[1] + ytile - 1) / ytile);
    const long slow = d->dim == 2 ? 1 : (b->hi[2] - b->lo[2]);
    const int per_sm = d->dim == 3 ? cu_sweep3d_per_sm(dslot, r, by, t.rows3, pipe, prefetch) : 0;
    /* the blocks the multiprocessors hold span two or more layers of the launch (one-row columns) */
    const bool two_layers = per_sm > 0 && (long)per_sm * t.sms >= 2 * columns;
    /* The 3D march unless HALOX_TILE gives one: 8 planes for radius 1 and for the pipelined march,
     * 16 otherwise (session 29, one H200, 3 rounds, 8 against 16: jacobi7 fp64 512^3 569 -> 563 us,
     * 90.9% of copy, 256x256x512 153.8 -> 148.4; jacobi7 fp32 256x256x512 87.4 -> 83.7, 512^3
     * 297.2 -> 296.1; star13 fp64 256x256x512 178.4 -> 172.5; star13 fp32 1-5% slower; 4 planes
     * slower everywhere. Session 29 kept 16 for the pipelined march under two resident layers
     * (star13 fp64 512^3 653.8 -> 666.1 with 8); in session 32, 8 won at 384^3 and 448^3 in every
     * run (5 rounds: 282.6 -> 278.9, 443.2 -> 434.3) and tied at 512^3 over four runs (651.9 ->
     * 644.5, 654.8 -> 649.2, 651.9 -> 655.4, 654.9 -> 648.6)). */
    if (d->dim == 3 && chunk == 0 && !tma) chunk = r == 1 || pipe > 0 ? 8 : 16; /* the bulk-copy march: 0, its own rule */
    /* Halve the march until the box gives every multiprocessor a few blocks: in 3D until the launch
     * fills the blocks the multiprocessors hold three times over (session 27, one H200: at a 4-GPU
     * rank's blocks, 256x128x128 to 280x152x152, 16 planes left fp64 and star13 launches at 1.2-1.8
     * of those waves and 8 planes ran them 5-10% faster; 512^3 keeps the rule's march), where that count is known. */
    const long enough = per_sm > 0 ? 3L * per_sm * t.sms : 4L * t.sms;
    /* 2D marches halve down to 2 rows: a small grid's sweep is bound by its march's steps, an L2
     * round trip each (session 34, one H200, 3 rounds, graph-replayed batches, stopping at 8 / 4 /
     * 2 rows: jacobi5 fp32 128^2 3.35 / 2.27 / 1.68 us, 512^2 3.38 / 2.47 / 1.97, 1024^2 3.75 / 3.07
     * / 3.06; 2048^2 up keep 8). 3D marches stop at 8: 4 planes ran jacobi7 fp32 128^3 4.41 -> 5.10
     * and star13 3-12% slower, jacobi7 fp64 256x128x128 1.8% faster; the pair and pipelined marches
     * at 2 or 4 planes lost too (star13 fp64 128^3 11.4 -> 15.7 at 2). */
#ifndef HX_MIN_CHUNK2D /* tuning builds set another (scripts/variant_build.sh) */
#define HX_MIN_CHUNK2D 2
#endif
    while (!tma && chunk > (d->dim == 2 ? HX_MIN_CHUNK2D : 8)) {
        long blocks = d->dim == 2 ? columns / ((long)by * chunk) : columns * ((slow + chunk - 1) / chunk);
        if (blocks >= enough) break;
        chunk /= 2;
    }
    /* 3D floats, one row a thread: two floats a thread where the 16-byte march would hold two or
     * more chunk layers at once (sweep3d_pair.cuh says why; session 28, one H200: jacobi7 at every
     * size from 128^3 to 512^3 2-7% faster, star13 4-19% faster at 128^3 to 256x256x512; at 512^2
     * planes star13's 16-byte launch holds 1.2 layers and the pair march was 1.3% slower there).
     * Radius 1, on its fields with a lead (compute/backend.h), from five layers and where the
     * 16-byte launch fills the places the multiprocessors hold (session 31, one H200, 16-byte
     * against pair: 512^3, 3.1 layers, 286.4 against 291.3 us; 448^3, 3.5, 195.8 against 197.5;
     * 512x384x512, 4.1, 218.7 against 219.8; 384^3, 5.5, 127.9 against 126.7; 256x256x512, 12,
     * 83.3 against 78.3; 128^3, 256 blocks for 792 places, 5.75 against 6.27). Since the launches
     * of session 33 the 16-byte march is the faster where its launch fills those places twice or
     * more (session 36, one H200, 5 rounds, pair against 16-byte: 384^3 125.6 against 120.6 us,
     * 256^3 39.6 against 38.9, 320^3 74.1 against 73.9, 256x256x512 76.5 against 76.3), so radius 1
     * keeps the pair march where it fills them once (graph-replayed: 160^3 10.6 against 11.2,
     * 192^3 17.7 against 18.2). */
    const long places = (long)per_sm * t.sms, blocks3 = columns * ((slow + chunk - 1) / chunk);
    const bool pair_pays = r == 2 ? two_layers : places >= 5 * columns && blocks3 >= places && blocks3 < 2 * places;
    const int pair = !tma && d->dim == 3 && dslot == 0 && pipe == 0 && t.rows3 == 1 &&
                     (t.pair >= 0 ? t.pair : pair_pays);
    /* The pair march, whose length is a kernel argument, halves on to 6 planes where 8 leave the
     * launch short of blocks (session 35, one H200, graph-replayed, 3 rounds, 8 against 6: star13
     * fp32 128^3 8.35 -> 8.09 us, 256x128x128 14.68 -> 14.10, 192^3 24.23 -> 23.76; jacobi7 fp32
     * 192^3 18.75 -> 17.76, 128^3 and 256x128x128 unchanged; 5 or 7 planes no better, 4 slower). Where
     * 8 or 16 planes fill the launch, shorter marches lost (320^3 to 256x256x512: 0.5-9%), and so
     * did the pipelined march at any shorter length (star13 fp64 128^3 11.5 -> 12.7-13.1), and a
     * longer march that would fit the launch in one wave of the blocks the multiprocessors hold
     * (star13 fp32 128^3 8.41 -> 9.32 at 12 planes). */
    if (pair && t.chunk3 == 0 && chunk == 8 && blocks3 < enough) chunk = 6;
    /* A sweep of what the last one wrote takes its layers in the other order, so that it starts on
     * the rows or planes that sweep wrote last, still in L2 (sweep_tile). Measured (session 33, one
     * H200, 3 rounds): 2D sweeps 0-3.4% faster (jacobi5 fp32 4096^2 38.8 -> 37.5 us), 3D fp32
     * radius 1 0.3-1.5% (256x256x512 77.5 -> 76.5); star13 and jacobi7 fp64 lost 2-5% at 256^3 to
     * 512^3 (jacobi7 fp64 512^3 552.8 -> 571.0, star13 fp32 315.4 -> 326.0), so they keep one order.
     * Only where the fields overflow L2: where both stay there, no order finds more of them in it
     * (session 34: jacobi7 fp32 128^3 flipped 5.6-5.9 us, unflipped 5.0-5.7, the spread of runs). */
    cuda_state *cs = state(bk);
    const bool flip_pays = t.flip > 0 || (t.flip < 0 && spill && (d->dim == 2 || (dslot == 0 && r == 1)));
    const int flip = flip_pays && src == cs->last_dst && !cs->last_flip;
    cs->last_dst = dst;
    cs->last_flip = flip;
    sweep_launch l = {d, b, src, dst, cs->stream[stream], by, groups, chunk, prefetch, &a, pair, t.pdl > 0, flip};
#ifdef HX_TUNE_CHUNK3 /* tuning builds (scripts/variant_build.sh): HX_CHUNK3=N sets the pair and pipelined marches' length */
    if (d->dim == 3 && (pair || pipe > 0) && getenv("HX_CHUNK3")) l.chunk = atoi(getenv("HX_CHUNK3"));
#endif
    if (tma) {
        if (cu_launch_sweep3d_tma(bk, l, dslot, r, phase)) return -1;
        CU_LAUNCHED(bk);
        return 0;
    }
    const int rc = d->dim == 3 && pipe > 0 ? cu_launch_sweep3d_pipe(l, dslot, r, pipe)
                   : d->dim == 2           ? cu_launch_sweep2d(l, dslot, r)
                                           : cu_launch_sweep3d(l, dslot, r, t.rows3);
    if (rc) {
        snprintf(bk->err, sizeof bk->err, "no CUDA sweep kernel for radius %d, %dD, march %d, pipeline %d, rows %d", r,
                 d->dim, chunk, pipe, t.rows3);
        return -1;
    }
    CU_LAUNCHED(bk);
    return 0;
}
