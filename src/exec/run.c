/* `halox run`: set up decomposition, backend and transport, run warm-up and timed repeats,
 * verify and write the field, report. Every set-up error is agreed on by all ranks, so they
 * all stop together with one message. */
#include "halox/run.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "halox/field_io.h"
#include "halox/node.h"
#include "halox/reference.h"
#include "halox/report.h"
#include "halox/schedule.h"

static hx_run_result last_result;
const hx_run_result *hx_last_run(void) { return &last_result; }

/* Collective: 1 if any rank failed. The lowest failing rank prints its message. */
static int any_failed(MPI_Comm comm, int failed, const char *msg)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = failed ? rank : size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        fprintf(stderr, "halox: error: MPI_Allreduce failed while checking set-up; aborting\n");
        MPI_Abort(comm, HX_ERR_RUNTIME);
    }
    if (first == size) return 0;
    if (rank == first) {
        if (size > 1 && failed == 2) fprintf(stderr, "halox: error (rank %d): %s\n", rank, msg);
        else fprintf(stderr, "halox: error: %s\n", msg);
        fflush(stderr);
    }
    return 1;
}

/* A failure in the middle of a run: other ranks may be blocked in a message, so stop them all. */
static void die(MPI_Comm comm, int rank, const char *msg)
{
    fprintf(stderr, "halox: error (rank %d): %s\n", rank, msg);
    fflush(stderr);
    MPI_Abort(comm, HX_ERR_RUNTIME);
}

static int choose_backend(const hx_config *cfg, MPI_Comm comm, int node_rank, hx_backend_kind *kind, int *device,
                          char *err, size_t n)
{
    int ndev = hx_cuda_built() ? hx_cuda_device_count() : 0, min_dev;
    MPI_Allreduce(&ndev, &min_dev, 1, MPI_INT, MPI_MIN, comm);
    *kind = cfg->backend;
    if (*kind == HX_BACKEND_AUTO) *kind = min_dev > 0 ? HX_BACKEND_CUDA : HX_BACKEND_CPU;
    *device = -1;
    if (*kind == HX_BACKEND_CPU) return 0;
    if (!hx_cuda_built()) {
        snprintf(err, n, "this halox was built without CUDA: install the CUDA toolkit and rebuild, or use --backend cpu");
        return 1;
    }
    return hx_pick_device(cfg->devices, node_rank, ndev, device, err, n) ? 2 : 0;
}

static int reinit(hx_sim *s, uint64_t seed)
{
    for (int i = 0; i < 2; i++)
        if (s->bk->ops->init_field(s->bk, s->field[i], seed)) return -1;
    s->cur = 0;
    s->sweeps_done = 0;
    memset(&s->times, 0, sizeof s->times);
    hx_clock_init(&s->clock, s->bk, &s->times);
    return s->bk->ops->sync(s->bk, HX_STREAM_MAIN);
}

/* Gather the final field and compare it with the single-domain reference on rank 0. */
static int verify(hx_sim *s, const void *owned, hx_report *rep)
{
    const hx_config *cfg = s->cfg;
    const hx_decomp *d = s->d;
    long cells = (long)d->global[0] * d->global[1] * d->global[2];
    void *global = NULL, *ref = NULL;
    int ok = 1;
    if (d->rank == 0) {
        global = malloc((size_t)cells * s->bk->elem);
        ref = malloc((size_t)cells * s->bk->elem);
        ok = global && ref;
    }
    if (any_failed(s->comm, !ok, "out of host memory for --verify: verify a smaller --size")) return free(global), free(ref), -1;
    char err[256];
    if (hx_gather_global(s->comm, d, cfg->dtype, owned, global, err, sizeof err)) die(s->comm, d->rank, err);
    double res[2] = {0, 0};
    if (d->rank == 0) {
        if (hx_reference_run(cfg, ref)) die(s->comm, 0, "out of host memory for the reference run: verify a smaller --size");
        long first;
        res[0] = (double)hx_compare_fields(cfg->dtype, global, ref, cells, &res[1], &first);
        if (res[0] > 0) {
            long x = first % d->global[0], y = (first / d->global[0]) % d->global[1], z = first / ((long)d->global[0] * d->global[1]);
            fprintf(stderr, "halox: verify: first differing cell (x=%ld, y=%ld, z=%ld)\n", x, y, z);
        }
    }
    free(global);
    free(ref);
    MPI_Bcast(res, 2, MPI_DOUBLE, 0, s->comm);
    rep->bad_cells = (long)res[0];
    rep->max_diff = res[1];
    rep->verified = rep->bad_cells == 0 ? 1 : -1;
    return 0;
}

int hx_run(const hx_config *cfg_in, MPI_Comm world)
{
    MPI_Comm comm;
    MPI_Comm_dup(world, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank, nranks, code = HX_ERR_INPUT;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    char err[320] = "";
    hx_config cfg = *cfg_in;
    memset(&last_result, 0, sizeof last_result);

    /* Every rank must run the same problem. */
    hx_config root = cfg;
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, comm);
    if (any_failed(comm, memcmp(&root, &cfg, sizeof cfg) != 0 ? 2 : 0,
                   "ranks were started with different options: give every rank the same command line"))
        goto out;
    if (any_failed(comm, hx_config_check(&cfg, nranks, err, sizeof err) ? 1 : 0, err)) goto out;

    int pgrid[3];
    hx_config_grid(&cfg, nranks, pgrid, err, sizeof err);
    const hx_stencil_info *st = hx_stencil_get(cfg.stencil);
    hx_decomp d;
    if (any_failed(comm, hx_decomp_init(&d, cfg.dim, cfg.size, pgrid, rank, nranks, cfg.boundary,
                                        cfg.depth * st->radius, err, sizeof err) ? 1 : 0, err))
        goto out;

    int node_rank = 0, node_size = 1, device = -1, bad;
    hx_backend_kind kind;
    if (any_failed(comm, hx_node_rank(comm, &node_rank, &node_size) ? 2 : 0, "MPI_Comm_split_type failed")) goto out;
    bad = choose_backend(&cfg, comm, node_rank, &kind, &device, err, sizeof err);
    if (any_failed(comm, bad, err)) goto out;

    const hx_transport_ops *tops = hx_transport_find(cfg.transport);
    if (!tops) {
        char names[256] = "";
        for (int i = 0; i < hx_transport_count(); i++) {
            strcat(names, i ? ", " : "");
            strcat(names, hx_transport_at(i)->name);
        }
        const char *why = hx_transport_missing(cfg.transport);
        if (why) snprintf(err, sizeof err, "--transport %s: %s (this build has %s)", cfg.transport, why, names);
        else snprintf(err, sizeof err, "unknown --transport '%s': this build has %s (see `halox info`)", cfg.transport, names);
        any_failed(comm, 1, err);
        goto out;
    }

    if (cfg.fuse > 1 && kind != HX_BACKEND_CUDA) {
        snprintf(err, sizeof err, "--fuse %d: fused sweeps run on the cuda backend: use --backend cuda or --fuse 1", cfg.fuse);
        if (any_failed(comm, 1, err)) goto out;
    }
    if (cfg.graph) {
        err[0] = 0;
        if (kind != HX_BACKEND_CUDA)
            snprintf(err, sizeof err, "--graph replays CUDA graphs: use it with --backend cuda, or leave it out");
        else if (!(tops->caps & HX_PATH_HOST) && !(tops->caps & HX_CAP_REPLAY))
            snprintf(err, sizeof err, "--graph: transport %s enqueues different work every exchange, so a captured "
                     "exchange cannot be replayed: use --transport nccl or a host transport, or leave --graph out", tops->name);
        if (any_failed(comm, err[0] ? 1 : 0, err)) goto out;
    }

    code = HX_ERR_RUNTIME;
    hx_backend bk;
    if (any_failed(comm, hx_backend_create(&bk, kind, &d, cfg.stencil, cfg.dtype, device, err, sizeof err) ? 2 : 0, err))
        goto out;
    hx_plan plan;
    hx_plan_build(&plan, &d, cfg.pattern);

    hx_sim s;
    memset(&s, 0, sizeof s);
    s.cfg = &cfg;
    s.d = &d;
    s.plan = &plan;
    s.bk = &bk;
    s.comm = comm;
    s.radius = st->radius;
    hx_clock_init(&s.clock, &bk, &s.times);
    hx_transport tr;
    int tbad = hx_transport_create(&tr, tops, &bk, &plan, comm, &s.clock, err, sizeof err) ? 2 : 0;
    if (any_failed(comm, tbad, err)) {
        /* no transport clean-up: its collective tear-down would wait for the ranks that failed */
        bk.ops->destroy(&bk);
        goto out;
    }
    s.tr = &tr;

    size_t bytes = (size_t)hx_alloc_cells(&d) * bk.elem;
    s.field[0] = bk.ops->alloc(&bk, bytes);
    s.field[1] = bk.ops->alloc(&bk, bytes);
    snprintf(err, sizeof err, "cannot allocate two fields of %zu bytes: use a smaller --size or more ranks", bytes);
    if (any_failed(comm, (!s.field[0] || !s.field[1]) ? 2 : 0, err)) goto cleanup;

    if (cfg.warmup > 0) {
        if (reinit(&s, cfg.seed) || hx_iterate(&s, cfg.warmup)) die(comm, rank, s.err[0] ? s.err : bk.err);
    }
    hx_rank_stats *reps = calloc((size_t)cfg.repeat, sizeof *reps);
    for (int r = 0; r < cfg.repeat; r++) {
        if (reinit(&s, cfg.seed)) die(comm, rank, bk.err);
        s.print_norms = !cfg.quiet && cfg.format == HX_FORMAT_TABLE && r == cfg.repeat - 1;
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        if (hx_iterate(&s, cfg.iters)) die(comm, rank, s.err);
        s.times.t[HX_SEG_TOTAL] = MPI_Wtime() - t0;
        if (hx_reduce_times(comm, &s.times, &reps[r])) die(comm, rank, "MPI_Allreduce of the timings failed");
    }

    hx_report rep;
    memset(&rep, 0, sizeof rep);
    rep.cfg = &cfg;
    rep.d = &d;
    rep.backend = bk.ops->name;
    rep.transport = tops->name;
    rep.nrep = cfg.repeat;
    rep.whole_graph = cfg.graph && !(tops->caps & HX_PATH_HOST);
    rep.reps = reps;
    rep.have_norm = cfg.norm_every > 0 && cfg.norm_every <= cfg.iters;
    rep.last_norm = s.last_norm;

    code = HX_OK;
    if (cfg.verify || cfg.output[0]) {
        void *owned = malloc((size_t)d.local[0] * d.local[1] * d.local[2] * bk.elem);
        if (!owned || hx_owned_to_host(&bk, s.field[s.cur], owned, err, sizeof err)) die(comm, rank, err);
        if (cfg.output[0]) {
            if (any_failed(comm, hx_write_npy(comm, cfg.output, &d, cfg.dtype, owned, err, sizeof err) ? 1 : 0, err))
                code = HX_ERR_RUNTIME;
        }
        if (cfg.verify && verify(&s, owned, &rep) == 0 && rep.verified < 0) code = HX_ERR_VERIFY;
        free(owned);
    }
    if (rank == 0) hx_report_print(stdout, &rep);
    last_result.us_per_sweep = 1e6 * hx_report_total_median(&rep) / (double)cfg.iters;
    last_result.verified = rep.verified;
    free(reps);

cleanup:
    if (bk.ops->drop_graphs) bk.ops->drop_graphs(&bk);
    for (int i = 0; i < 2; i++)
        if (s.field[i]) bk.ops->free(&bk, s.field[i]);
    hx_transport_destroy(&tr);
    bk.ops->destroy(&bk);
out:
    MPI_Comm_free(&comm);
    return code;
}
