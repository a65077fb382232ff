/* Host arithmetic of the kernel-initiated schedules that needs no GPU: the rank's geometry in
 * hx_pparams, the pass kernel's tiles and grid, and the resident kernel's tile shape. persistent_setup.cu
 * calls it with the GPU's answers (SM count, shared memory, occupancy); the host tests
 * (tests/test_resident_emu.cpp, tests/test_pass_emu.cpp, tests/test_ranks_emu.cpp) call it with
 * stand-ins, so they launch the tiles the library would. Include after persistent_kernel.cuh and
 * resident_kernel.cuh (hx_pparams, hx_f3plan, HX_RES_K/V, HX_RES3_COLS/THREADS). */
#ifndef HALOX_PERSISTENT_PLAN_CUH
#define HALOX_PERSISTENT_PLAN_CUH

#include <stddef.h>

#include "halox/plan.h"

/* Threads of a 3D pass block (a tuning build may set -DHX_PASS3D_THREADS=256: as many warps per SM,
 * smaller work items) */
#ifndef HX_PASS3D_THREADS
#define HX_PASS3D_THREADS 512
#endif

/* The rank's block in p: dimension, radius, pitches, owned box, and the sides where sweep boxes
 * stop (a fixed boundary). */
static inline void hx_pparams_domain(hx_pparams *p, const hx_decomp *d, int radius)
{
    p->dim = d->dim;
    p->radius = radius;
    p->sy = d->alloc[0];
    p->sz = (long)d->alloc[0] * d->alloc[1];
    hx_box owned = hx_owned_box(d);
    for (int a = 0; a < 3; a++) {
        p->olo[a] = owned.lo[a];
        p->ohi[a] = owned.hi[a];
        p->clip_lo[a] = d->boundary == HX_FIXED && a < d->dim && d->offset[a] == 0;
        p->clip_hi[a] = d->boundary == HX_FIXED && a < d->dim && d->offset[a] + d->local[a] == d->global[a];
    }
}

/* The pass kernel's shape: 2D tiles of tx x ty cores, `levels` sweeps per pass, shared-memory
 * rows `pitch` cells, `smem` bytes of dynamic shared memory a block (none in 3D), `threads` a block. */
typedef struct {
    int tx, ty, levels, pitch, threads;
    size_t smem;
} hx_pass_shape;

/* 2D tiles: each pass deals its tiles to the blocks in rounds, and a block's tile is a chain of
 * dependent steps (load, `levels` shared-memory sweeps, store) whose time is a fixed latency plus
 * its cells (core and halo, rows rounded up to whole warps) over the block's threads. The shape
 * minimises rounds x (those cells + HX_TILE_LATENCY_CELLS), among tiles whose two buffers stay
 * within HX_TILE_SMEM, so that two blocks fit on an SM of any sm_80+ GPU. A count of tiles just
 * above the blocks resident at once leaves most blocks idle through a second round (the simpler
 * rule, the largest tile still giving every SM two, did that). `sms`: SMs of the GPU. */
#define HX_TILE_LATENCY_CELLS 8192
#define HX_TILE_SMEM (96 * 1024)
static inline void hx_pass_tiles(const hx_decomp *d, int radius, int levels, int sms, int depth, size_t elem, hx_pass_shape *out)
{
    static const int xs[] = {16, 32, 48, 64, 96, 128, 192, 256}, ys[] = {8, 16, 24, 32, 48, 64, 80, 96, 128};
    const hx_box b = hx_sweep_box(d, (depth - 1) * radius);
    const long w = b.hi[0] - b.lo[0], h = b.hi[1] - b.lo[1], slots = 2L * sms;
    const int H = levels * radius;
    double best = -1;
    out->tx = xs[0], out->ty = ys[0];
    for (int i = 0; i < (int)(sizeof xs / sizeof xs[0]); i++)
        for (int j = 0; j < (int)(sizeof ys / sizeof ys[0]); j++) {
            const int tx = xs[i], ty = ys[j];
            const long cells = (long)(tx + 2 * H) * (ty + 2 * H);
            if (2 * (size_t)cells * elem > HX_TILE_SMEM && (i || j)) continue; /* the smallest shape always qualifies */
            if ((i && xs[i - 1] >= w) || (j && ys[j - 1] >= h)) continue;       /* same tiles as a smaller shape */
            /* a warp sweeps a row 32 cells at a time: a row's cost rounds up to whole warps */
            const long lanes = (long)(ty + 2 * H) * ((tx + 2 * H + 31) / 32 * 32);
            const long tiles = ((w + tx - 1) / tx) * ((h + ty - 1) / ty), rounds = (tiles + slots - 1) / slots;
            const double cost = (double)rounds * (double)(lanes + HX_TILE_LATENCY_CELLS);
            if (best < 0 || cost < best) best = cost, out->tx = tx, out->ty = ty;
        }
    out->levels = levels;
    out->pitch = out->tx + 2 * levels * radius;
    out->smem = (d->dim == 2 ? 2 * (size_t)out->pitch * (out->ty + 2 * levels * radius) : 0) * elem;
    out->threads = d->dim == 2 ? 256 : HX_PASS3D_THREADS;
}

/* The pass kernel's grid: as many blocks as the work has tiles (2D) or rows for a warp each (3D),
 * never more than can be resident at once (per_sm blocks on each of `sms` SMs). */
static inline int hx_pass_grid(const hx_decomp *d, int radius, int depth, const hx_pass_shape *sh, int per_sm, int sms)
{
    long work;
    if (d->dim == 2) {
        hx_box b = hx_sweep_box(d, (depth - 1) * radius);
        work = (long)((b.hi[0] - b.lo[0] + sh->tx - 1) / sh->tx) * ((b.hi[1] - b.lo[1] + sh->ty - 1) / sh->ty);
    } else {
        work = ((long)d->local[1] * d->local[2] + (sh->threads / 32) - 1) / (sh->threads / 32); /* a warp per row */
    }
    long grid = (long)per_sm * sms;
    return (int)(work < grid ? (work > 0 ? work : 1) : grid);
}

/* The 3D pass kernel's fused passes of L sweeps of radius R (hx_pass3d_fused) in tiles of S-lane
 * rows: for a pass that starts with q sweeps left in the cycle, the cycle schedule's launch
 * arithmetic (fused3d_plan) over the boxes of sweeps m-q .. m-q+L-1, with the grid's `slots`
 * blocks in place of the blocks resident at once. */
template <typename T, int R, int L, int S> static inline fused3d_launch hx_f3_pass(const hx_decomp *d, int q, long slots)
{
    hx_box boxes[L];
    for (int j = 0; j < L; j++) boxes[j] = hx_sweep_box(d, (q - 1 - j) * R);
    return fused3d_plan<T, R, L, S>(boxes, d->alloc, slots);
}
/* The plans for q = L .. depth: out holds depth - L + 1 of them. */
template <typename T, int R, int L, int S> static inline void hx_f3_plans(const hx_decomp *d, int depth, long slots, hx_f3plan *out)
{
    for (int q = L; q <= depth; q++) {
        const fused3d_launch l = hx_f3_pass<T, R, L, S>(d, q, slots);
        hx_f3plan &pl = out[q - L];
        pl.a = l.a;
        pl.ntx = (int)l.grid.x, pl.nty = (int)l.grid.y, pl.nz = (int)l.grid.z;
    }
}
/* The model's cost of a cycle's full passes (q = depth, depth - L, ... >= L), for the choice of S
 * (fused3d_pick_lanes). */
template <typename T, int R, int L, int S> static inline double hx_f3_cost(const hx_decomp *d, int depth, long slots)
{
    double c = 0;
    for (int q = depth; q >= L; q -= L) c += hx_f3_pass<T, R, L, S>(d, q, slots).cost;
    return c;
}

/* The resident kernel's tiles: tx x ty cores, ntx x nty of them (a block each, `threads` threads,
 * `smem` bytes of dynamic shared memory), a ring of H cells, shared-memory rows `pitch` cells;
 * inplace > 0: one buffer swept in bands of that many rows of runs (resident_sweep.cuh) instead of
 * two buffers (0). */
typedef struct {
    int tx, ty, threads, ntx, nty, ring, pitch, grid;
    size_t smem;
    int tz, ntz; /* 3D (hx_resident3d_choose); 2D: 1 */
    int inplace;
} hx_resident_shape;

/* Rows of one of the resident kernel's shared-memory buffers (the tile, its ring and the padding of
 * HX_RES_PAD_ROWS), and its dynamic shared memory: both buffers (or one and the bands' scratch of
 * two parities) and the ring's table. */
static inline size_t hx_resident_rows(int ty, int H, size_t elem) { return (size_t)(ty + 2 * H + HX_RES_PAD_ROWS(elem)); }
static inline size_t hx_resident_smem(int pitch, int ty, int H, size_t elem, int inplace)
{
    const size_t one = (size_t)pitch * hx_resident_rows(ty, H, elem) * elem;
    return (inplace ? one + 2 * HX_RES_MAX_R * (size_t)pitch * elem : 2 * one) +
           2 * sizeof(unsigned) * (size_t)hx_ring_cells(pitch - 2 * H, ty, H);
}

/* The shape for a W x Hy block, ring H, `elem` bytes a cell, on `sms` SMs that grant `optin` bytes
 * of dynamic shared memory a block: the largest-throughput shape whose tiles are all resident at
 * once, minimising the cells an SM updates per sweep (its blocks x a tile and its average ring).
 * inplace: -1 two buffers only, 1 one buffer only, 0 two where some shape fits, else one (the
 * bands' extra barriers cost little beside the tiles it lets stay on chip: 2048^2 a GPU).
 * occupancy(ctx, threads, smem, one, &blocks per SM) is the GPU's occupancy query for the two-buffer
 * kernel (one = 0) or the one-buffer kernel (one = 1: its own registers; nonzero: it failed).
 * Returns 1 with *out, 0 when no shape fits (the pass kernel streams the block), -1 when the query
 * failed. */
static inline int hx_resident_choose(int W, int Hy, int H, size_t elem, int sms, int optin, int inplace,
                                     int (*occupancy)(void *ctx, int threads, size_t smem, int one, int *per_sm), void *ctx,
                                     hx_resident_shape *out)
{
#if defined(HX_RES_TILE_X) && defined(HX_RES_TILE_Y) /* a tuning build's one shape */
    static const int xs[] = {HX_RES_TILE_X}, ys[] = {HX_RES_TILE_Y};
#else
    static const int xs[] = {16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}, ys[] = {4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
#endif
    const int K = HX_RES_K(elem), V = HX_RES_V(elem);
    double best = 0;
    for (int one = inplace > 0; one <= (inplace >= 0) && best == 0; one++)
        for (int i = 0; i < (int)(sizeof xs / sizeof xs[0]); i++)
            for (int j = 0; j < (int)(sizeof ys / sizeof ys[0]); j++) {
                const int tx = xs[i], ty = ys[j];
                if ((i && xs[i - 1] >= W) || (j && ys[j - 1] >= Hy)) continue; /* same tiles as a smaller shape */
                const long ntiles = (long)((W + tx - 1) / tx) * ((Hy + ty - 1) / ty), bps = (ntiles + sms - 1) / sms;
                const int pitch = tx + 2 * H;
                const size_t smem = hx_resident_smem(pitch, ty, H, elem, one);
                if (bps > 4 || smem > (size_t)optin) continue;
                const int threads = bps == 1 ? (one ? HX_RES_INPLACE_THREADS : 1024) : bps == 2 ? 512 : 256;
                const long w = pitch / V, rb = (ty + 2 * H + K - 1) / K;
                /* two buffers: a thread sweeps at most two runs of K rows x V columns of the region;
                 * one: two runs a band, at most HX_RES_MAX_BANDS bands */
                if (!one && w * rb > 2L * threads) continue;
                const long per = 2L * threads / w;
                if (one && (per < 1 || (rb + per - 1) / per > HX_RES_MAX_BANDS)) continue;
                int per_sm = 0;
                if (occupancy(ctx, threads, smem, one, &per_sm)) return -1;
                if ((long)per_sm * sms < ntiles) continue;
                const double cost = (double)bps * (double)((tx < W ? tx : W) + H) * (double)((ty < Hy ? ty : Hy) + H);
                /* of equal costs the wider tile: a warp's runs lie along x, so a wider region keeps
                 * more lanes busy as the ring shrinks */
                if (best == 0 || cost < best || (cost == best && tx > out->tx)) {
                    best = cost;
                    out->tx = tx, out->ty = ty, out->threads = threads, out->smem = smem;
                    /* the fewest bands, as even as they go (a band's barrier waits for its slowest run) */
                    out->inplace = one ? (int)((rb + (rb + per - 1) / per - 1) / ((rb + per - 1) / per)) : 0;
#ifdef HX_RES_BANDS_UNEVEN /* a tuning build: the most rows a band */
                    out->inplace = one ? (int)per : 0;
#endif
                    out->ntx = (W + tx - 1) / tx, out->nty = (Hy + ty - 1) / ty;
                }
            }
    if (best == 0) return 0;
    out->ring = H;
    out->pitch = out->tx + 2 * H;
    out->grid = out->ntx * out->nty;
    out->tz = out->ntz = 1;
    return 1;
}

/* The 3D resident kernel's tiles (resident3d_kernel.cuh) for a W x Hy x D block: one block per tile
 * and every tile resident at once (one block an SM: its buffer is most of the SM's shared memory),
 * a thread sweeping at most HX_RES3_COLS columns of the tile's region, (tx + 2H)(ty + 2H)(tz + 2H)
 * cells of `elem` bytes in `optin` bytes. Of those, the fewest cells an SM updates per sweep (a
 * tile and its average ring), then the wider tile (a warp's columns lie along x). Returns 1 with
 * *out, 0 when no shape fits, -1 when the occupancy query failed. */
static inline int hx_resident3d_choose(int W, int Hy, int D, int H, size_t elem, int sms, int optin,
                                       int (*occupancy)(void *ctx, int threads, size_t smem, int one, int *per_sm), void *ctx,
                                       hx_resident_shape *out)
{
    static const int ext[] = {8, 12, 16, 20, 24, 32, 40, 48, 64};
    const int n = (int)(sizeof ext / sizeof ext[0]);
    double best = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                const int tx = ext[i], ty = ext[j], tz = ext[k];
                if ((i && ext[i - 1] >= W) || (j && ext[j - 1] >= Hy) || (k && ext[k - 1] >= D)) continue;
                const long ntiles = (long)((W + tx - 1) / tx) * ((Hy + ty - 1) / ty) * ((D + tz - 1) / tz);
                const long cols = (long)(tx + 2 * H) * (ty + 2 * H);
                const size_t smem = (size_t)cols * (size_t)(tz + 2 * H) * elem;
                if (ntiles > sms || smem > (size_t)optin || cols > (long)HX_RES3_COLS * HX_RES3_THREADS) continue;
                const int threads = (int)(((cols + HX_RES3_COLS - 1) / HX_RES3_COLS + 31) / 32 * 32);
                int per_sm = 0;
                if (occupancy(ctx, threads, smem, 0, &per_sm)) return -1;
                if (per_sm < 1) continue;
                const double cost = (double)((tx < W ? tx : W) + H) * ((ty < Hy ? ty : Hy) + H) * ((tz < D ? tz : D) + H);
                if (best == 0 || cost < best || (cost == best && tx > out->tx)) {
                    best = cost;
                    out->tx = tx, out->ty = ty, out->tz = tz, out->threads = threads, out->smem = smem, out->inplace = 0;
                    out->ntx = (W + tx - 1) / tx, out->nty = (Hy + ty - 1) / ty, out->ntz = (D + tz - 1) / tz;
                }
            }
    if (best == 0) return 0;
    out->ring = H;
    out->pitch = out->tx + 2 * H;
    out->grid = out->ntx * out->nty * out->ntz;
    return 1;
}

#endif
