/* The 2D resident kernel's sweep of a tile in shared memory (resident_kernel.cuh), in two modes:
 *   - two buffers: sweep A into B, one barrier a sweep, then swap (tiles whose two copies fit);
 *   - one buffer, in place, for tiles whose two copies do not fit (2048^2 a GPU: 2 x 157 KB). The
 *     region's rows are cut into bands of whole runs; a thread computes its runs of a band into
 *     registers, the block meets at a barrier, then stores them. A band's runs read R old rows above
 *     the band, which the band before may already have overwritten: those rows were copied into a
 *     scratch of two parities before that band's barrier. Rows below a band are still old when it
 *     reads them (the next band stores after the next barrier). J bands cost J barriers a sweep
 *     instead of one (and one more where hx_sweep_inplace says).
 * A sweep is the same arithmetic in both modes (halox/stencil.h): fields are bit-identical. */
#ifndef HALOX_RESIDENT_SWEEP_CUH
#define HALOX_RESIDENT_SWEEP_CUH

/* The stencil on values: a cell's row neighbours from shared memory, its column from registers. */
template <typename T, int ST> struct hx_vals;
template <typename T> struct hx_vals<T, HX_JACOBI5> {
    static constexpr int R = 1;
    static __device__ __forceinline__ T at(const T *p, const T *c) /* c: the column, c[R] the cell */
    {
        return sizeof(T) == 4 ? (T)hx_jacobi5v_f32((float)p[-1], (float)p[1], (float)c[0], (float)c[2])
                              : (T)hx_jacobi5v_f64((double)p[-1], (double)p[1], (double)c[0], (double)c[2]);
    }
};
template <typename T> struct hx_vals<T, HX_STAR9> {
    static constexpr int R = 2;
    static __device__ __forceinline__ T at(const T *p, const T *c)
    {
        return sizeof(T) == 4 ? (T)hx_star9v_f32((float)p[-1], (float)p[1], (float)c[1], (float)c[3], (float)p[-2], (float)p[2],
                                                 (float)c[0], (float)c[4])
                              : (T)hx_star9v_f64((double)p[-1], (double)p[1], (double)c[1], (double)c[3], (double)p[-2],
                                                 (double)p[2], (double)c[0], (double)c[4]);
    }
};

/* A thread's share of the tile: up to two runs of HX_RES_K rows down HX_RES_V adjacent columns of
 * the ring-and-core region (two buffers: fixed for the whole run, host: (region width / V) x
 * ceil(height / K) <= 2 x threads; one buffer: two runs a band). Floats go in pairs (8-byte shared
 * loads and stores), doubles alone; the column stays in registers. */
#ifdef HX_RES_K_ROWS /* a tuning build's rows per run */
#define HX_RES_K(elem) HX_RES_K_ROWS
#else
#define HX_RES_K(elem) 4
#endif
#define HX_RES_V(elem) ((elem) == 4 ? 2 : 1)
#define HX_RES3_COLS 2 /* 3D (resident3d_kernel.cuh): columns (x, y) of the tile's region a thread sweeps */
#define HX_RES3_THREADS 768 /* and its most threads a block: 85 registers a thread (1024 would leave 64, and spill) */
/* Rows of padding after each shared-memory buffer: a run loads all its K rows, starting up to K - 1
 * rows late, with R <= 2 rows below them, so its loads may pass the region's last row by 2K rows;
 * padding after each buffer keeps them off the other buffer, which the sweep writes. */
#define HX_RES_PAD_ROWS(elem) (2 * HX_RES_K(elem) + 1)
#define HX_RES_MAX_R 2       /* the largest 2D radius: rows of each parity of the one-buffer scratch */
#define HX_RES_MAX_BANDS 16  /* one buffer: at most this many bands (barriers) a sweep */
/* One buffer: runs as two buffers have them, two a thread a band. Two runs a band beat one (a
 * band's work hides its barrier); a run of four floats with its row neighbours shuffled between
 * lanes (fewer shared-memory wavefronts) was slower. */
#ifndef HX_RES_INPLACE_THREADS /* threads a block in place: 896 leave 72 registers a thread (1024: 64, and spills) */
#define HX_RES_INPLACE_THREADS 896
#endif
struct hx_units {
    int n;
    int x[2], y[2]; /* first cell of each run, absolute coordinates */
};

/* One buffer: a band's results, held in registers across its barrier (hx_held_store), and where the
 * band's rows above come from. */
template <typename T> struct hx_held {
    static constexpr int K = HX_RES_K(sizeof(T)), V = HX_RES_V(sizeof(T));
    T v[2][K * V];
    int at[2], rows[2]; /* a run's first stored cell in the buffer and its rows to store (0: none) */
    const T *up;        /* rows [top - R, top) of the region, pitch PW, old values */
    int top;            /* the band's first row */
};

/* Run u's column: rows ya - R + i (i < K + 2R); in place, rows above the band from the scratch. */
template <typename T, bool INPLACE, int R>
__device__ __forceinline__ T hx_col_load(const T *col, int i, int ya, int x, const hx_rtile &t, int PW, const hx_held<T> *h)
{
    if (INPLACE && i < R && ya - R + i < h->top) return h->up[(ya - R + i - (h->top - R)) * PW + (x - t.rx0)];
    return col[PW * (i - R)];
}

/* One sweep of [x0, x1) x [y0, y1) from A into B (shared memory, row pitch PW, origin rx0, ry0),
 * each run keeping its column in registers: a cell costs 2R + 1 shared loads instead of 4R + 1.
 * Every load of a run comes before its first store: stores to B would otherwise keep the compiler
 * from hoisting the next row's loads of A (it cannot tell the buffers apart), and each row would
 * wait a full shared-memory round trip. Rows past yb are loaded too (from the padding that
 * hx_resident_smem adds) and dropped. With CHECK, cells outside the sweep box keep their value
 * (fixed-boundary ghosts); without, the whole region lies inside it. With NORM, returns the
 * squared change summed over the core. INPLACE: results go to *h instead of B. */
template <typename T, int ST, bool CHECK, bool NORM, bool INPLACE>
__device__ __forceinline__ double hx_level(const T *__restrict__ A, T *__restrict__ B, int PW, const hx_units &un,
                                           const hx_rtile &t, int x0, int x1, int y0, int y1, const hx_box &sb, hx_held<T> *h)
{
    constexpr int R = hx_vals<T, ST>::R, K = HX_RES_K(sizeof(T));
    double acc = 0;
#pragma unroll
    for (int u = 0; u < 2; u++) {
        const int x = un.x[u], ya = max(un.y[u], y0), yb = min(un.y[u] + K, y1);
        if (INPLACE) h->rows[u] = 0;
        if (u >= un.n || x < x0 || x >= x1 || ya >= yb) continue;
        const T *col = A + (x - t.rx0) + PW * (ya - t.ry0);
        T c[K + 2 * R], v[K];
#pragma unroll
        for (int i = 0; i < K + 2 * R; i++) c[i] = hx_col_load<T, INPLACE, R>(col, i, ya, x, t, PW, h);
        const bool xin = !CHECK || (x >= sb.lo[0] && x < sb.hi[0]);
#pragma unroll
        for (int k = 0; k < K; k++) {
            T w[2 * R + 1]; /* w[R + j]: the cell at x + j (the centre is c's) */
#pragma unroll
            for (int j = 1; j <= R; j++) w[R - j] = col[PW * k - j], w[R + j] = col[PW * k + j];
            const int y = ya + k;
            v[k] = xin && (!CHECK || (y >= sb.lo[1] && y < sb.hi[1])) ? hx_vals<T, ST>::at(w + R, c + k) : c[k + R];
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int y = ya + k;
            if (INPLACE) h->v[u][k] = v[k];
            else if (y < yb) B[(col - A) + PW * k] = v[k];
            if (NORM && y < yb && x >= t.cx0 && x < t.cx1 && y >= t.cy0 && y < t.cy1) {
                const double d = (double)v[k] - (double)c[k + R];
                acc += d * d;
            }
        }
        if (INPLACE) h->at[u] = (int)(col - A), h->rows[u] = yb - ya;
    }
    return acc;
}

/* hx_level for floats, two cells (x, x + 1) per step with 8-byte shared accesses: the pair's
 * row neighbours are the pairs at x - 2 and x + 2, its column neighbours the pairs above and
 * below, kept in registers. Cells of a pair outside [x0, x1) keep their old value (which keeps
 * fixed-boundary ghosts intact); nothing outside the region is read that a result depends on.
 * Loads first, as in hx_level. */
template <int ST, bool CHECK, bool NORM, bool INPLACE>
__device__ __forceinline__ double hx_level_pairs(const float *__restrict__ A, float *__restrict__ B, int PW, const hx_units &un,
                                                 const hx_rtile &t, int x0, int x1, int y0, int y1, const hx_box &sb,
                                                 hx_held<float> *h)
{
    constexpr int R = hx_vals<float, ST>::R, K = HX_RES_K(4);
    double acc = 0;
#pragma unroll
    for (int u = 0; u < 2; u++) {
        const int xa = un.x[u], ya = max(un.y[u], y0), yb = min(un.y[u] + K, y1);
        if (INPLACE) h->rows[u] = 0;
        if (u >= un.n || xa + 2 <= x0 || xa >= x1 || ya >= yb) continue;
        const float *col = A + (xa - t.rx0) + PW * (ya - t.ry0);
        float2 c[K + 2 * R], L[K], Rt[K];
        /* hx_col_load's choice, written out: through a shared pointer helper the two-buffer kernel
         * spilled 8 bytes where it spills none */
#pragma unroll
        for (int i = 0; i < K + 2 * R; i++) {
            if (INPLACE && i < R && ya - R + i < h->top)
                c[i] = *(const float2 *)(h->up + (ya - R + i - (h->top - R)) * PW + (xa - t.rx0));
            else
                c[i] = *(const float2 *)(col + PW * (i - R));
        }
#pragma unroll
        for (int k = 0; k < K; k++) L[k] = *(const float2 *)(col + PW * k - 2), Rt[k] = *(const float2 *)(col + PW * k + 2);
        bool live[2];
#pragma unroll
        for (int hh = 0; hh < 2; hh++)
            live[hh] = xa + hh >= x0 && xa + hh < x1 && (!CHECK || (xa + hh >= sb.lo[0] && xa + hh < sb.hi[0]));
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int y = ya + k;
            const float2 m = c[k + R];
            const bool yin = !CHECK || (y >= sb.lo[1] && y < sb.hi[1]);
            float2 v;
            if constexpr (ST == HX_JACOBI5) {
                v.x = hx_jacobi5v_f32(L[k].y, m.y, c[k].x, c[k + 2].x);
                v.y = hx_jacobi5v_f32(m.x, Rt[k].x, c[k].y, c[k + 2].y);
            } else {
                v.x = hx_star9v_f32(L[k].y, m.y, c[k + 1].x, c[k + 3].x, L[k].x, Rt[k].x, c[k].x, c[k + 4].x);
                v.y = hx_star9v_f32(m.x, Rt[k].x, c[k + 1].y, c[k + 3].y, L[k].y, Rt[k].y, c[k].y, c[k + 4].y);
            }
            if (!(live[0] && yin)) v.x = m.x;
            if (!(live[1] && yin)) v.y = m.y;
            if (INPLACE) h->v[u][2 * k] = v.x, h->v[u][2 * k + 1] = v.y;
            else if (y < yb) *(float2 *)(B + (col - A) + PW * k) = v;
            if (NORM && y < yb && y >= t.cy0 && y < t.cy1) {
                const double d0 = (double)v.x - (double)m.x, d1 = (double)v.y - (double)m.y;
                if (xa >= t.cx0 && xa < t.cx1) acc += d0 * d0;
                if (xa + 1 >= t.cx0 && xa + 1 < t.cx1) acc += d1 * d1;
            }
        }
        if (INPLACE) h->at[u] = (int)(col - A), h->rows[u] = yb - ya;
    }
    return acc;
}

/* One sweep of the tile (two buffers) or of one band's runs (in place, into *h): pairs of floats,
 * single doubles. */
template <typename T, int ST, bool CHECK, bool NORM, bool INPLACE = false>
__device__ __forceinline__ double hx_sweep_tile(const T *A, T *B, int PW, const hx_units &un, const hx_rtile &t, int x0, int x1, int y0,
                                                int y1, const hx_box &sb, hx_held<T> *h = nullptr)
{
    if constexpr (sizeof(T) == 4)
        return hx_level_pairs<ST, CHECK, NORM, INPLACE>((const float *)A, (float *)B, PW, un, t, x0, x1, y0, y1, sb, (hx_held<float> *)h);
    else return hx_level<T, ST, CHECK, NORM, INPLACE>(A, B, PW, un, t, x0, x1, y0, y1, sb, h);
}

/* In place: the held results of a band go into the buffer (after the band's barrier). */
template <typename T> __device__ __forceinline__ void hx_held_store(T *A, int PW, const hx_held<T> &h)
{
    constexpr int K = hx_held<T>::K;
#pragma unroll
    for (int u = 0; u < 2; u++)
#pragma unroll
        for (int k = 0; k < K; k++) {
            if (k >= h.rows[u]) continue;
            if constexpr (sizeof(T) == 4) {
                float2 v;
                v.x = h.v[u][2 * k], v.y = h.v[u][2 * k + 1];
                *(float2 *)((float *)A + h.at[u] + PW * k) = v;
            } else A[h.at[u] + PW * k] = h.v[u][k];
        }
}

/* In place: the bands of a tile's region. A band is `per` rows of runs (K rows each) across the
 * region's w = PW / V runs, per <= 2 x threads / w (the host's choice; tests take fewer to see many
 * bands); thread i takes the band's runs i and i + threads. */
struct hx_bands {
    int per, n;      /* rows of runs a band, bands */
    int q[2], r[2];  /* this thread's runs: row within the band, column (-1: none) */
};
__device__ __forceinline__ hx_bands hx_bands_of(int PW, int V, int K, int rows, int threads, int per)
{
    hx_bands b;
    const int w = PW / V, rb = (rows + K - 1) / K;
    b.per = max(1, min(per, 2 * threads / w));
    b.n = (rb + b.per - 1) / b.per;
    for (int u = 0; u < 2; u++) {
        const int idx = (int)threadIdx.x + u * threads;
        b.q[u] = idx < b.per * w ? idx / w : -1;
        b.r[u] = idx < b.per * w ? idx % w : -1;
    }
    return b;
}
/* Band j's runs of this thread, and its first row. */
__device__ __forceinline__ hx_units hx_band_units(const hx_bands &b, int j, int V, int K, const hx_rtile &t, int *top)
{
    hx_units un;
    un.n = 0;
    *top = t.ry0 + K * b.per * j;
#pragma unroll
    for (int u = 0; u < 2; u++) {
        const int y = *top + K * b.q[u];
        if (b.q[u] < 0 || y >= t.ry1) break;
        un.x[u] = t.rx0 + V * b.r[u], un.y[u] = y, un.n++;
    }
    return un;
}

/* One sweep of a tile in place, band by band (the header's protocol). scratch: 2 parities of
 * HX_RES_MAX_R rows of PW cells. Returns the norm's part (norm). Ends with the block's barrier
 * where the next sweep's first band could read what this one's last band stores (two bands or
 * fewer: the first band reads R rows of the second), or when `fence` (the cycle's last sweep: the
 * exchange reads the core next); else the next sweep's first band runs on beside this one's last
 * stores (one barrier in four fewer at 4096^2 on 4 GPUs, three bands). */
template <typename T, int ST>
__device__ __forceinline__ double hx_sweep_inplace(T *A, T *scratch, int PW, const hx_bands &bs, const hx_rtile &t, int x0, int x1,
                                                   int y0, int y1, const hx_box &sb, bool check, bool norm, bool fence)
{
    constexpr int R = hx_vals<T, ST>::R, K = hx_held<T>::K, V = hx_held<T>::V;
    double acc = 0;
    hx_held<T> h;
    for (int j = 0; j < bs.n; j++) {
        const hx_units un = hx_band_units(bs, j, V, K, t, &h.top);
        h.up = scratch + (size_t)((j + 1) & 1) * HX_RES_MAX_R * PW; /* band j - 1 wrote parity (j - 1) & 1 */
        if (norm) acc += check ? hx_sweep_tile<T, ST, true, true, true>(A, A, PW, un, t, x0, x1, y0, y1, sb, &h)
                               : hx_sweep_tile<T, ST, false, true, true>(A, A, PW, un, t, x0, x1, y0, y1, sb, &h);
        else if (check) hx_sweep_tile<T, ST, true, false, true>(A, A, PW, un, t, x0, x1, y0, y1, sb, &h);
        else hx_sweep_tile<T, ST, false, false, true>(A, A, PW, un, t, x0, x1, y0, y1, sb, &h);
        const int next = h.top + K * bs.per; /* the old rows the next band reads above it */
        if (j + 1 < bs.n) {
            T *to = scratch + (size_t)(j & 1) * HX_RES_MAX_R * PW;
            hx_rect(t.rx0, t.rx1, next - R, next, [&](int x, int y) { to[(y - next + R) * PW + (x - t.rx0)] = A[(x - t.rx0) + PW * (y - t.ry0)]; });
        }
        __syncthreads();
        hx_held_store(A, PW, h);
    }
#ifdef HX_RES_SWEEP_FENCE /* a tuning build: a barrier after every sweep */
    fence = true;
#endif
    if (fence || bs.n <= 2) __syncthreads();
    return acc;
}

#endif
