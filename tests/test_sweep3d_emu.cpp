/* The 3D register-window sweep bodies (src/compute/cuda/sweep3d.cuh) run on the host through
 * tests/emu/cuda_runtime.h, every block and thread in turn, against a plain loop over the same
 * stencil expressions: bit-identical inside the box, nothing written outside it. Checks the
 * bodies' index arithmetic, clamping and grids (march_grid, sweep3d_grid) on machines without a GPU, for one
 * row per thread (the entering plane 1 to 3 planes ahead) and for two floats a thread (sweep3d_pair.cuh), both dtypes, radius 1 and 2, boxes that start off the vector
 * boundary and reach into the ghost cells, partial blocks in every axis; and the 2D body the same way. Timing and memory
 * ordering on a real GPU are the GPU suite's (tests/gpu_*.sh). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "compute/cuda/sweep2d.cuh"
#include "compute/cuda/sweep3d.cuh"
#include "compute/cuda/sweep3d_pair.cuh"

static int failures = 0, checks = 0;

/* The same expression the bodies evaluate, cell by cell. */
template <typename T> static T reference(const T *f, long i, long sy, long sz, int R)
{
    if (R == 1) return apply3(f[i - 1], f[i + 1], f[i - sy], f[i + sy], f[i - sz], f[i + sz], (T)0, (T)0, (T)0, (T)0, (T)0, (T)0, 1);
    return apply3(f[i - 1], f[i + 1], f[i - sy], f[i + sy], f[i - sz], f[i + sz], f[i - 2], f[i + 2], f[i - 2 * sy],
                  f[i + 2 * sy], f[i - 2 * sz], f[i + 2 * sz], 2);
}

struct grid_case {
    int n[3];   /* owned cells */
    int g;      /* ghost width */
    int expand; /* the box reaches this far into the ghosts (a deep-halo sweep) */
    int by;     /* threads per block in y */
};

/* PAIR: the march of two floats a thread (T float), its grid of pairs across x; lead: the
 * field's origin lies that many cells into its allocation (compute/backend.h: hx_field_lead), which
 * moves its vectors to x = -lead (mod V), with slack after the field as hx_backend_alloc_field
 * leaves; the emulator's __ldg refuses a vector off its alignment */
template <typename T, int R, int CHUNK, int AHEAD = 1, int PF = 0, bool PAIR = false>
static void run_case(const grid_case &gc, int lead = 0)
{
    const int V = vec16<T>::n;
    int alloc[3];
    for (int a = 0; a < 3; a++) alloc[a] = gc.n[a] + 2 * gc.g;
    alloc[0] = (alloc[0] + 7) / 8 * 8; /* rows padded as the layouts pad them */
    const long sy = alloc[0], sz = (long)alloc[0] * alloc[1], cells = sz * alloc[2] + lead + 64;
    std::vector<T> src((size_t)cells), dst((size_t)cells), want((size_t)cells);
    uint64_t s = 0x9e3779b97f4a7c15ULL * (uint64_t)(R + 3 + 7 * CHUNK + gc.n[0] + 11 * AHEAD);
    for (long i = 0; i < cells; i++) {
        s = hx_splitmix64(s);
        src[(size_t)i] = (T)((double)(s >> 11) * 0x1.0p-53 - 0.5);
        dst[(size_t)i] = want[(size_t)i] = (T)-7; /* outside the box: must stay */
    }
    sweep_args a;
    for (int d = 0; d < 3; d++) {
        a.lo[d] = gc.g - gc.expand;
        a.hi[d] = gc.g + gc.n[d] + gc.expand;
    }
    a.pitch = alloc[0];
    sweep_args_vectors(a, lead % V, V); /* as cu_sweep sets them */
    a.sy = sy;
    a.sz = sz;
    for (int z = a.lo[2]; z < a.hi[2]; z++)
        for (int y = a.lo[1]; y < a.hi[1]; y++)
            for (int x = a.lo[0]; x < a.hi[0]; x++) {
                const long i = lead + x + y * sy + z * sz;
                want[(size_t)i] = reference(src.data(), i, sy, sz, R);
            }
    const T *in = src.data() + lead;
    T *out = dst.data() + lead;
    const int per = PAIR ? 2 : V; /* cells a thread */
    const int groups = (a.hi[0] - a.xbase + per - 1) / per;
    const int rows = a.hi[1] - a.lo[1];
    const march_grid g = march_grid_for(groups, march_tail_column<R>()); /* as sweep3d.cu launches one row a thread */
    const dim3 grid = march_dim(g, rows, gc.by, a.hi[2] - a.lo[2], CHUNK);
    hx_emu_launch(grid, dim3(32, (unsigned)gc.by), [&] {
        if (PAIR) sweep3d_pair_body<R, AHEAD, PF>((const float *)in, (float *)out, a, g, blockIdx, CHUNK);
        else sweep3d_body<T, R, CHUNK, AHEAD, PF>(in, out, a, g, blockIdx);
    });
    checks++;
    if (memcmp(dst.data(), want.data(), (size_t)cells * sizeof(T)) == 0) return;
    failures++;
    for (long i = 0; i < cells; i++)
        if (memcmp(&dst[(size_t)i], &want[(size_t)i], sizeof(T))) {
            const long c = i - lead;
            printf("FAIL %s%s R=%d chunk=%d ahead=%d by=%d n=%dx%dx%d expand=%d lead=%d: first difference at x=%ld y=%ld "
                   "z=%ld (%.9g, want %.9g)\n", sizeof(T) == 4 ? "float" : "double", PAIR ? " pairs" : "", R, CHUNK, AHEAD, gc.by, gc.n[0], gc.n[1],
                   gc.n[2], gc.expand, lead, c % sy, c / sy % alloc[1], c / sz, (double)dst[(size_t)i], (double)want[(size_t)i]);
            return;
        }
}

template <typename T, int R> static void run_radius()
{
    /* odd extents: partial vectors, warps, blocks and marches; boxes reaching into the ghosts up to
     * the last that leaves R ghost cells for the neighbours (expand <= g - R) */
    const grid_case cases[] = {
        {{13, 11, 9}, 2 * R, 0, 3},
        {{13, 11, 9}, 2 * R, R, 1},
        {{70, 9, 21}, 3 * R, 2 * R, 2},
        {{5, 17, 3}, 2 * R, R, 3},
        {{130, 13, 4}, R, 0, 2}, /* a full column of blocks and a partial one */
        {{2 * 32 * 4 + 1, 5, 3}, R, 0, 1}, /* one vector past whole blocks (x = 512 at fp32) */
        /* a last column of blocks with 1 or 2 leftover vectors (512 cells from x = R) and with
         * a few (300, 200), blocks of 8 and 4 rows */
        {{512, 300, 3}, R, 0, 8},
        {{300, 37, 4}, 2 * R, R, 8},
        {{200, 70, 5}, 2 * R, R, 4},
        /* rows ending in 8, 9 and 2 vectors past whole blocks at fp32 (pairs and doubles: 16, 18
         * and 4): partial block columns, where only one lane past whole blocks takes the tail
         * column (march_grid; the 257- and 512-cell boxes above) */
        {{288 - R, 40, 5}, R, 0, 8},
        {{292 - R, 33, 4}, R, 0, 2},
        {{264 - R, 45, 3}, R, 0, 4},
    };
    for (const grid_case &gc : cases) {
        run_case<T, R, 8>(gc);
        run_case<T, R, 16>(gc);
        run_case<T, R, 8, 2>(gc); /* the entering plane 2 and 3 planes ahead */
        run_case<T, R, 16, 3>(gc);
        run_case<T, R, 8, 1, 2>(gc); /* with prefetches (no-ops here: their bounds and the march) */
        run_case<T, R, 16, 1, 8>(gc);
        run_case<T, R, 32>(gc);
        run_case<T, R, 4>(gc); /* 4-plane marches (tuning.march), shorter than the window and planes ahead */
        run_case<T, R, 4, 3, 2>(gc);
        if (sizeof(T) == 4) { /* two floats a thread, its planes ahead and prefetches, and others */
            run_case<T, R, 8, sweep3d_pair_ahead<R>(), sweep3d_pair_prefetch<R>(), true>(gc);
            run_case<T, R, 6, sweep3d_pair_ahead<R>(), sweep3d_pair_prefetch<R>(), true>(gc); /* small boxes' march */
            run_case<T, R, 4, sweep3d_pair_ahead<R>(), sweep3d_pair_prefetch<R>(), true>(gc);
            run_case<T, R, 16, sweep3d_pair_ahead<R>(), sweep3d_pair_prefetch<R>(), true>(gc);
            run_case<T, R, 8, 3, 0, true>(gc);
        }
        /* the first owned cell on a line (hx_field_lead's lead), and a lead of every phase */
        for (int lead : {(32 - gc.g % 32) % 32, 1, 2, 3}) {
            run_case<T, R, 8>(gc, lead);
            run_case<T, R, 16, 3, 2>(gc, lead);
            if (sizeof(T) == 4) run_case<T, R, 8, sweep3d_pair_ahead<R>(), sweep3d_pair_prefetch<R>(), true>(gc, lead);
        }
    }
}

/* The 2D body under its launch (sweep2d.cu: a block of 32 x by threads, ROWS rows each), with
 * partial columns of blocks. */
template <typename T, int R, int ROWS, int PF = 0> static void run_case2d(int nx, int ny, int g, int by)
{
    const int V = vec16<T>::n;
    const long sy = (nx + 2 * g + 7) / 8 * 8, cells = sy * (ny + 2 * g);
    std::vector<T> src((size_t)cells), dst((size_t)cells, (T)-7), want((size_t)cells, (T)-7);
    uint64_t s = 0x51ed270b27f7a1c3ULL * (uint64_t)(nx + 5 * ROWS + 3 * R);
    for (long i = 0; i < cells; i++) {
        s = hx_splitmix64(s);
        src[(size_t)i] = (T)((double)(s >> 11) * 0x1.0p-53 - 0.5);
    }
    sweep_args a;
    a.lo[0] = a.lo[1] = g;
    a.hi[0] = g + nx;
    a.hi[1] = g + ny;
    a.lo[2] = 0;
    a.hi[2] = 1;
    a.xbase = a.lo[0] / V * V;
    a.pitch = (int)sy;
    a.sy = sy;
    a.sz = cells;
    for (int y = a.lo[1]; y < a.hi[1]; y++)
        for (int x = a.lo[0]; x < a.hi[0]; x++) {
            const long i = x + y * sy;
            want[(size_t)i] = apply2(src[i - 1], src[i + 1], src[i - sy], src[i + sy], src[i - 2 < 0 ? 0 : i - 2],
                                     src[i + 2], src[i - 2 * sy < 0 ? 0 : i - 2 * sy], src[i + 2 * sy < cells ? i + 2 * sy : 0], R);
        }
    const int groups = (a.hi[0] - a.xbase + V - 1) / V;
    const dim3 grid((unsigned)((groups + 31) / 32), (unsigned)((ny + by * ROWS - 1) / (by * ROWS)));
    hx_emu_launch(grid, dim3(32, (unsigned)by), [&] { sweep2d_body<T, R, ROWS, PF>(src.data(), dst.data(), a, blockIdx); });
    checks++;
    if (memcmp(dst.data(), want.data(), (size_t)cells * sizeof(T)) == 0) return;
    failures++;
    printf("FAIL 2D %s R=%d rows=%d by=%d n=%dx%d\n", sizeof(T) == 4 ? "float" : "double", R, ROWS, by, nx, ny);
}

template <typename T, int R> static void run_radius2d()
{
    const int V = vec16<T>::n;
    run_case2d<T, R, 8>(13, 11, 2 * R, 2);          /* one partial block */
    run_case2d<T, R, 8>(32 * V + 1, 9, R, 4);       /* a full block and one vector past it */
    run_case2d<T, R, 16>(2 * 32 * V + 3 * V, 21, 2 * R, 1);
    run_case2d<T, R, 16, 4>(2 * 32 * V + 3 * V, 21, 2 * R, 1); /* with prefetches */
    /* the short marches small grids take (cu_sweep: down to 2 rows), partial blocks */
    run_case2d<T, R, 2>(13, 11, 2 * R, 2);
    run_case2d<T, R, 2>(32 * V + 1, 9, R, 4);
    run_case2d<T, R, 4>(2 * 32 * V + 3 * V, 21, 2 * R, 3);
    run_case2d<T, R, 2, 4>(2 * 32 * V + 3 * V, 21, 2 * R, 1);
}

int main(void)
{
    run_radius<float, 1>();
    run_radius<float, 2>();
    run_radius<double, 1>();
    run_radius<double, 2>();
    run_radius2d<float, 1>();
    run_radius2d<float, 2>();
    run_radius2d<double, 1>();
    run_radius2d<double, 2>();
    printf("sweep bodies (3D and 2D) on the host: %d of %d cases bit-identical to the reference loop\n", checks - failures, checks);
    return failures ? 1 : 0;
}
