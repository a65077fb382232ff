/* halox mg: both colours of a GSRB sweep in one pass (mg_kernels.h gsrb2; included by mg_cuda.cu
 * inside its anonymous namespace, after mg_cuda_kernels.cuh).
 *
 * Two colour launches read every coefficient line twice, once per colour. This pass reads them
 * once: a block marches up a chunk of z planes over an x-y tile; at each plane it computes colour 0
 * from the old field into shared memory (the old value where it stays), then colour 1 one plane
 * below from those values. It writes out of place (un from uo): in place, a block's colour 1 would
 * overwrite cells that the next block still reads as old values for its tile edge.
 *
 * Every value is the one the two in-place colours leave (mg_gsrb_c, the same expression), on
 * E = mg_box(ring) and one layer around it, which holds every cell the colours read or write:
 *   - colour 0 in mg_box(ring) and colour 1 in mg_box(ring - 1): smoothed;
 *   - a domain-face ghost of such a cell: minus it (mg_store_smoothed, written by the cell's thread);
 *   - anything else: the old value.
 * A tile's outermost cells in x and y are computed for colour 0 only, as the next tile's neighbours
 * (the same expression of the same values, so the same bits); each cell of E is written by the one
 * block whose inner tile holds it. */
#ifndef HALOX_MG_CUDA_GSRB2_CUH
#define HALOX_MG_CUDA_GSRB2_CUH

#ifndef G2_TY
#define G2_TY 12 /* threads (rows) along y */
#endif
#ifndef G2_MIN_BLOCKS
#define G2_MIN_BLOCKS 2 /* resident blocks an SM: at most 85 registers a thread, no spill */
#endif
enum {
    G2_TX = 32,       /* threads along x; each holds two adjacent cells of a row */
    G2_W = 2 * G2_TX, /* cells a block row spans, its two edge cells included */
};

__device__ __forceinline__ int g2_in(const int lo[3], const int hi[3], int i, int j, int k)
{
    return i >= lo[0] && i <= hi[0] && j >= lo[1] && j <= hi[1] && k >= lo[2] && k <= hi[2];
}

/* the global red-black colour of cell (i, j, k), as k_gsrb picks it */
__device__ __forceinline__ int g2_colour(const mg_geom &g, int i, int j, int k)
{
    return (g.off[0] + i - 1 + g.off[1] + j - 1 + g.off[2] + k - 1) & 1;
}

/* a plane's slot in the three-plane ring buffer (planes start above -3 * 12) */
__device__ __forceinline__ int g2_slot(int k) { return (k + 36) % 3; }

struct g2_boxes {
    int rl[3], rh[3]; /* colour 0 updates mg_box(ring) */
    int bl[3], bh[3]; /* colour 1 updates mg_box(ring - 1) */
};

__device__ __forceinline__ int g2_updated(const mg_geom &g, const g2_boxes &b, int i, int j, int k)
{
    return g2_colour(g, i, j, k) == 0 ? g2_in(b.rl, b.rh, i, j, k) : g2_in(b.bl, b.bh, i, j, k);
}

/* cell c is a domain-face ghost whose inner cell this sweep smooths: that cell's thread writes it */
__device__ __forceinline__ int g2_mirror_of_updated(const mg_geom &g, const g2_boxes &b, const int c[3])
{
    for (int a = 0; a < 3; a++) {
        int m[3] = {c[0], c[1], c[2]};
        if (c[a] == 0 && g.bnd_lo[a]) m[a] = 1;
        else if (c[a] == g.n[a] + 1 && g.bnd_hi[a]) m[a] = g.n[a];
        else continue;
        if (g2_updated(g, b, m[0], m[1], m[2])) return 1;
    }
    return 0;
}

__device__ __forceinline__ int g2_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* the cell of box lo..hi nearest to (i, j, k): a safe address for a load whose value is not used */
__device__ __forceinline__ long g2_near(const mg_geom &g, const int lo[3], const int hi[3], int i, int j, int k)
{
    return at(g, g2_clamp(i, lo[0], hi[0]), g2_clamp(j, lo[1], hi[1]), g2_clamp(k, lo[2], hi[2]));
}

/* Block (bx, by, bz): x cells el[0] - 1 + bx (G2_W - 2) + 0 .. G2_W - 1 (the inner G2_W - 2 its
 * own), rows likewise with G2_TY, planes z0 .. z0 + tz - 1 of E. Thread (tx, ty) holds cells
 * x0 = .. + 2 tx and x0 + 1 of row j: one of each colour in every plane. Its loads of a plane do
 * not wait on each other or on a branch (addresses out of range are pointed at a cell in range and
 * the value dropped), and the next colour-1 cell's f and coefficients are fetched with them, so a
 * plane waits for memory once. */
__global__ void __launch_bounds__(G2_TX *G2_TY, G2_MIN_BLOCKS)
    k_gsrb2(mg_geom g, mg_op A, double *un, const double *uo, const double *f, int ring, int tz)
{
    __shared__ double R[3][G2_TY][G2_W]; /* planes after colour 0 */
    g2_boxes b;
    mg_box(&g, ring, b.rl, b.rh);
    mg_box(&g, ring - 1, b.bl, b.bh);
    int el[3], eh[3];
    for (int a = 0; a < 3; a++) el[a] = b.rl[a] - 1, eh[a] = b.rh[a] + 1;
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
    const int x0 = el[0] - 1 + (int)blockIdx.x * (G2_W - 2) + 2 * tx;
    const int j = el[1] - 1 + (int)blockIdx.y * (G2_TY - 2) + ty;
    const int z0 = el[2] + (int)blockIdx.z * tz, z1 = min(z0 + tz - 1, eh[2]);
    const int row_in = j >= el[1] && j <= eh[1];
    const int row_own = row_in && ty > 0 && ty < G2_TY - 1;
    for (int k = z0 - 1; k <= z1 + 1; k++) {
        const int kb = k - 1; /* colour 1's plane this step */
        const int xb = x0 + 1 - g2_colour(g, x0, j, kb), do_b = kb >= z0 && kb <= z1 && row_own;
        const int b_in = do_b && g2_in(b.bl, b.bh, xb, j, kb);
        /* its f and coefficients, fetched now: the first wait below covers them */
        const mg_cellc cb = mg_cellc_at(&A, f, g2_near(g, b.bl, b.bh, xb, j, kb), g.sy, g.sz);
        if (k >= el[2] && k <= eh[2]) { /* plane k after colour 0 */
            const int er = g2_colour(g, x0, j, k), xr = x0 + er, xo = x0 + 1 - er;
            const int r_in = row_in && g2_in(b.rl, b.rh, xr, j, k);
            const double vr = mg_gsrb_cell(&A, uo, f, g2_near(g, b.rl, b.rh, xr, j, k), g.sy, g.sz);
            const double ur = uo[g2_near(g, el, eh, xr, j, k)], uk = uo[g2_near(g, el, eh, xo, j, k)];
            R[g2_slot(k)][ty][2 * tx + er] = r_in ? vr : ur;
            R[g2_slot(k)][ty][2 * tx + 1 - er] = uk;
        }
        __syncthreads();
        if (do_b) /* plane kb after colour 1, written */
            for (int e = 0; e < 2; e++) {
                const int xi = 2 * tx + e, i = x0 + e;
                if (xi == 0 || xi == G2_W - 1 || i < el[0] || i > eh[0]) continue;
                const long p = at(g, i, j, kb);
                const double(*P)[G2_W] = R[g2_slot(kb)];
                double v = P[ty][xi];
                int smoothed = g2_colour(g, i, j, kb) == 0 ? g2_in(b.rl, b.rh, i, j, kb) : b_in;
                if (i == xb && b_in)
                    v = mg_gsrb_c(&A, &cb, v, P[ty][xi - 1], P[ty][xi + 1], P[ty - 1][xi], P[ty + 1][xi],
                                  R[g2_slot(kb - 1)][ty][xi], R[g2_slot(kb + 1)][ty][xi]);
                if (smoothed) {
                    mg_store_smoothed(&g, un, p, i, j, kb, v);
                } else {
                    const int c[3] = {i, j, kb};
                    if (!g2_mirror_of_updated(g, b, c)) un[p] = v;
                }
            }
        __syncthreads();
    }
}

#endif
