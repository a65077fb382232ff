/* The pass kernel's 2D pass of tiles in shared memory (hx_pass2d): one sweep a pass, or, in the
 * kernel that puts with the NVSHMEM device API, up to `levels` sweeps (temporal blocking: the tile
 * is loaded with a halo of levels x radius cells, which shrinks by the radius each level; the other
 * kernels march register windows for passes of several sweeps, pass2d_march.cuh). Included by
 * persistent_kernel.cuh after hx_pparams, hx_dev_sweep_box, hx_apply_smem and hx_block_add. */
#ifndef HALOX_PASS2D_TILES_CUH
#define HALOX_PASS2D_TILES_CUH

/* 2D: sweeps k .. k+levels-1 of a cycle of m, tile by tile in shared memory; dst gets the last.
 * Inside a tile, lane = x (stepping by 32), warp = row (stepping by the warps of the block). */
template <typename T, int ST>
__device__ void hx_pass2d(const hx_pparams &p, const T *src, T *dst, int k, int levels, int m, T *sm, double *norm)
{
    const int r = p.radius, H = levels * r;
    const hx_box out = hx_dev_sweep_box(p, (m - k - levels) * r);
    const int w = out.hi[0] - out.lo[0], h = out.hi[1] - out.lo[1];
    const int ntx = (w + p.tx - 1) / p.tx, nty = (h + p.ty - 1) / p.ty, PW = p.pitch;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    T *A0 = sm, *B0 = sm + (size_t)PW * (p.ty + 2 * p.levels * r);
    double acc = 0;
    for (int tile = blockIdx.x; tile < ntx * nty; tile += gridDim.x) {
        const int cx0 = out.lo[0] + (tile % ntx) * p.tx, cy0 = out.lo[1] + (tile / ntx) * p.ty;
        const int cx1 = min(cx0 + p.tx, out.hi[0]), cy1 = min(cy0 + p.ty, out.hi[1]);
        const int rx0 = cx0 - H, ry0 = cy0 - H;
        T *A = A0, *B = B0;
        /* the loads of a batch are all issued before any store: L2 latency, not bandwidth, bounds a
         * small tile, and a store between loads would serialise them (the compiler cannot tell
         * shared from global addresses apart here) */
        const int rw = cx1 - cx0 + 2 * H, n = rw * (cy1 - cy0 + 2 * H), step = HX_BATCH * blockDim.x;
        for (int i0 = threadIdx.x; i0 < n; i0 += step) {
            T v[HX_BATCH];
#pragma unroll
            for (int u = 0; u < HX_BATCH; u++) {
                const int i = i0 + u * blockDim.x, ly = i / rw;
                if (i < n) v[u] = __ldcg(src + (rx0 + i - ly * rw) + p.sy * (long)(ry0 + ly));
            }
#pragma unroll
            for (int u = 0; u < HX_BATCH; u++) {
                const int i = i0 + u * blockDim.x, ly = i / rw;
                if (i < n) A[(i - ly * rw) + PW * ly] = v[u];
            }
        }
        __syncthreads();
        for (int j = 0; j < levels; j++) {
            const int g = (levels - 1 - j) * r;
            const hx_box sb = hx_dev_sweep_box(p, (m - 1 - k - j) * r);
            for (int y = cy0 - g + warp; y < cy1 + g; y += warps) {
                const bool yin = y >= sb.lo[1] && y < sb.hi[1];
                for (int x0 = cx0 - g + lane; x0 < cx1 + g; x0 += 32 * HX_BATCH) {
                    T v[HX_BATCH];
#pragma unroll
                    for (int u = 0; u < HX_BATCH; u++) {
                        const int x = x0 + 32 * u, at = (x - rx0) + PW * (y - ry0);
                        /* outside its sweep box a cell keeps its value: fixed-boundary ghosts stay 0 */
                        if (x < cx1 + g) v[u] = yin && x >= sb.lo[0] && x < sb.hi[0] ? hx_apply_smem<T>(ST, A + at, PW) : A[at];
                    }
#pragma unroll
                    for (int u = 0; u < HX_BATCH; u++) {
                        const int x = x0 + 32 * u;
                        if (x < cx1 + g) B[(x - rx0) + PW * (y - ry0)] = v[u];
                    }
                }
            }
            __syncthreads();
            T *t = A;
            A = B;
            B = t;
        }
        for (int y = cy0 + warp; y < cy1; y += warps)
            for (int x = cx0 + lane; x < cx1; x += 32) {
                const int at = (x - rx0) + PW * (y - ry0);
                const T v = A[at];
                dst[x + p.sy * (long)y] = v;
                if (norm && x >= p.olo[0] && x < p.ohi[0] && y >= p.olo[1] && y < p.ohi[1]) {
                    const double d = (double)v - (double)B[at];
                    acc += d * d;
                }
            }
        __syncthreads();
    }
    if (norm) hx_block_add(acc, norm);
}

#endif
