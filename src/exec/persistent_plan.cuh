/* Host arithmetic of the kernel-initiated schedules that needs no GPU: the rank's geometry in
 * hx_pparams and the resident kernel's tile shape. persistent.cu calls it with the GPU's answers
 * (SM count, shared memory, occupancy); the host tests (tests/test_resident_emu.cpp) call it with
 * stand-ins, so they launch the tiles the library would. Include after persistent_kernel.cuh and
 * resident_kernel.cuh (hx_pparams, HX_RES_K/V). */
#ifndef HALOX_PERSISTENT_PLAN_CUH
#define HALOX_PERSISTENT_PLAN_CUH

#include <stddef.h>

#include "halox/plan.h"

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

/* The resident kernel's tiles: tx x ty cores, ntx x nty of them (a block each, `threads` threads,
 * `smem` bytes of dynamic shared memory), a ring of H cells, shared-memory rows `pitch` cells. */
typedef struct {
    int tx, ty, threads, ntx, nty, ring, pitch, grid;
    size_t smem;
} hx_resident_shape;

/* The shape for a W x Hy block, ring H, `elem` bytes a cell, on `sms` SMs that grant `optin` bytes
 * of dynamic shared memory a block: the largest-throughput shape whose tiles are all resident at
 * once, minimising the cells an SM updates per sweep (its blocks x a tile and its average ring).
 * occupancy(ctx, threads, smem, &blocks per SM) is the GPU's occupancy query (nonzero: it failed).
 * Returns 1 with *out, 0 when no shape fits (the pass kernel streams the block), -1 when the query
 * failed. */
static inline int hx_resident_choose(int W, int Hy, int H, size_t elem, int sms, int optin,
                                     int (*occupancy)(void *ctx, int threads, size_t smem, int *per_sm), void *ctx,
                                     hx_resident_shape *out)
{
    static const int xs[] = {16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}, ys[] = {4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
    const int K = HX_RES_K(elem), V = HX_RES_V(elem);
    double best = 0;
    for (int i = 0; i < (int)(sizeof xs / sizeof xs[0]); i++)
        for (int j = 0; j < (int)(sizeof ys / sizeof ys[0]); j++) {
            const int tx = xs[i], ty = ys[j];
            if ((i && xs[i - 1] >= W) || (j && ys[j - 1] >= Hy)) continue; /* same tiles as a smaller shape */
            const long ntiles = (long)((W + tx - 1) / tx) * ((Hy + ty - 1) / ty), bps = (ntiles + sms - 1) / sms;
            const size_t smem = 2 * (size_t)(tx + 2 * H) * (ty + 2 * H) * elem;
            if (bps > 4 || smem > (size_t)optin) continue;
            const int threads = bps == 1 ? 1024 : bps == 2 ? 512 : 256;
            /* a thread sweeps at most two runs of K rows x V columns of the region */
            if ((long)((tx + 2 * H) / V) * ((ty + 2 * H + K - 1) / K) > 2L * threads) continue;
            int per_sm = 0;
            if (occupancy(ctx, threads, smem, &per_sm)) return -1;
            if ((long)per_sm * sms < ntiles) continue;
            const double cost = (double)bps * (double)((tx < W ? tx : W) + H) * (double)((ty < Hy ? ty : Hy) + H);
            if (best == 0 || cost < best) {
                best = cost;
                out->tx = tx, out->ty = ty, out->threads = threads, out->smem = smem;
                out->ntx = (W + tx - 1) / tx, out->nty = (Hy + ty - 1) / ty;
            }
        }
    if (best == 0) return 0;
    out->ring = H;
    out->pitch = out->tx + 2 * H;
    out->grid = out->ntx * out->nty;
    return 1;
}

#endif
