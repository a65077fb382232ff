/* Shared by the custom-kernel tests on the CPU (test_custom_host) and the GPU (test_custom_gpu):
 * one functor case through hx_custom, every gathered field checked bit for bit against the
 * single-domain host loop of custom_ref.h. */
#ifndef HALOX_TEST_CUSTOM_CASE_H
#define HALOX_TEST_CUSTOM_CASE_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include <halox/halox.h>

#include "check_mpi.h"
#include "custom_ref.h"

static int rank_ = 0, size_ = 1;

static void start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

/* The end of a test program: every rank's failures summed, rank 0 reports; the exit code */
static int finish(hx_context *ctx)
{
    hx_context_destroy(ctx);
    int fails = hx_test_failures, all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    hx_test_failures = all;
    MPI_Finalize();
    if (rank_ != 0) return all ? 1 : 0;
    TEST_DONE();
}

static hx_layout *make_layout(hx_context *ctx, int dim, const int n[3], int halo, hx_dtype dt, hx_boundary b)
{
    hx_layout_desc ld;
    memset(&ld, 0, sizeof ld);
    ld.dim = dim;
    for (int a = 0; a < 3; a++) ld.global[a] = n[a];
    ld.halo = halo;
    ld.dtype = dt;
    ld.boundary = b;
    hx_layout *l = NULL;
    return hx_layout_create(ctx, &ld, &l) == HX_OK ? l : NULL;
}

static hx_exchange *make_exchange(hx_layout *l, int nf, hx_pattern p, const char *transport = "mpi")
{
    hx_exchange_options xo = hx_exchange_defaults();
    xo.transport = transport;
    xo.pattern = p;
    xo.nfields = nf;
    hx_exchange *x = NULL;
    return hx_exchange_create_opts(l, &xo, &x) == HX_OK ? x : NULL;
}

/* One case: functor fn over an n grid, depth and fuse, `sweeps` sweeps in schedule sched with
 * exchanges over transport, against ref_run */
template <class F, typename T>
static void run_case(hx_context *ctx, const hx_kernel_table *kt, const F &fn, const int n[3], int depth, int fuse, hx_boundary b,
                     hx_pattern p, int sweeps, hx_schedule sched = HX_SCHEDULE_CYCLE, const char *transport = "mpi")
{
    const int NF = F::nfields, D = F::dim;
    const hx_dtype dt = sizeof(T) == 4 ? HX_FLOAT : HX_DOUBLE;
    hx_layout *l = make_layout(ctx, D, n, depth * F::radius, dt, b);
    CHECK(l != NULL);
    if (!l) return;
    hx_exchange *x = make_exchange(l, NF, p, transport);
    CHECK(x != NULL);
    hx_custom_options o = hx_custom_defaults();
    o.depth = depth;
    o.fuse = fuse;
    o.schedule = sched;
    hx_custom *s = NULL;
    CHECK_EQ(hx_custom_create(l, x, &o, kt, &fn, &s), HX_OK);
    const hx_decomp *d = hx_layout_decomp(l);
    const long owned = (long)d->local[0] * d->local[1] * d->local[2], total = (long)n[0] * n[1] * (D == 3 ? n[2] : 1);
    std::vector<T> g[NF], mine(owned), got(total);
    for (int q = 0; q < NF; q++) {
        g[q].resize(total);
        for (long i = 0; i < total; i++) g[q][i] = (T)ref_initial(q, (int)(i % n[0]), (int)(i / n[0] % n[1]), (int)(i / ((long)n[0] * n[1])));
        for (long i = 0; i < owned; i++) {
            const int x0 = (int)(i % d->local[0]) + d->offset[0], y0 = (int)(i / d->local[0] % d->local[1]) + d->offset[1];
            const int z0 = (int)(i / ((long)d->local[0] * d->local[1])) + d->offset[2];
            mine[i] = g[q][x0 + (long)n[0] * (y0 + (long)n[1] * z0)];
        }
        if (s) CHECK_EQ(hx_custom_set_field(s, q, mine.data()), HX_OK);
    }
    if (s) CHECK_EQ(hx_custom_iterate(s, sweeps), HX_OK);
    if (s) CHECK_EQ(hx_custom_sweeps(s), sweeps);
    if (rank_ == 0) ref_run<F, T>(fn, g, n, b == HX_PERIODIC, sweeps);
    for (int q = 0; q < NF && s; q++) {
        CHECK_EQ(hx_field_gather(l, hx_custom_field(s, q), got.data()), HX_OK);
        if (rank_ != 0) continue;
        long bad = -1;
        for (long i = 0; i < total && bad < 0; i++)
            if (memcmp(&got[i], &g[q][i], sizeof(T))) bad = i;
        if (bad >= 0)
            fprintf(stderr, "FAIL %s %dD %dx%dx%d ranks %d schedule %d %s depth %d fuse %d %s field %d sweeps %d: cell %ld is %.17g, want %.17g\n",
                    kt->name, D, n[0], n[1], n[2], size_, (int)sched, transport, depth, fuse, b == HX_PERIODIC ? "periodic" : "fixed", q,
                    sweeps, bad, (double)got[bad], (double)g[q][bad]);
        CHECK(bad < 0);
    }
    hx_custom_destroy(s);
    hx_exchange_destroy(x);
    hx_layout_destroy(l);
}

#endif
