/* hx_exchange_create_opts on the CPU backend (public API), at 1 to 3 ranks (tests/exchange_opts.sh):
 * transport "auto" picks mpi, and its exchanges are bit-identical to an explicit mpi exchange of the
 * same field, both patterns, 2D and 3D; hx_exchange_create is create_opts with the defaults;
 * struct_size: a shorter struct gets the defaults for the fields it lacks, 0 means this version;
 * bad ll_bytes or host_fallback (on every rank, or on one rank only) is HX_ERR_INPUT on every rank
 * with a message naming the field; exchange creation writes nothing to stdout or stderr, delivers
 * nothing to a callback set below HX_LOG_INFO, and delivers one-line messages at HX_LOG_INFO (rank 0
 * says what auto picked). */
#include <halox/halox.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_mpi.h"

static int rank_ = 0;

typedef struct {
    int count, bad;
    char last[512];
} log_seen;

static void on_log(hx_log_level level, int rank, const char *msg, void *user)
{
    log_seen *s = user;
    s->count++;
    if (rank != rank_ || !msg[0] || strchr(msg, '\n') || level < HX_LOG_ERROR || level > HX_LOG_DEBUG) s->bad++;
    snprintf(s->last, sizeof s->last, "%s", msg);
}

static size_t field_bytes(const hx_layout *l, const hx_field *f)
{
    const hx_decomp *d = hx_layout_decomp(l);
    const hx_layout_desc *ld = hx_layout_describe(l);
    const size_t planes = ld->dim == 3 ? (size_t)(d->local[2] + 2 * f->ghost) : 1;
    return (size_t)f->pitch[0] * (size_t)f->pitch[1] * planes * (ld->dtype == HX_DOUBLE ? 8 : 4);
}

/* auto and mpi over the same initial field, with options o (transport replaced): equal bits, and
 * the exchange changed some ghost cell. */
static void check_auto_is_mpi(hx_context *ctx, int dim, hx_pattern pattern, hx_dtype dtype, int halo)
{
    hx_layout_desc ld = {.dim = dim, .global = {37, 23, dim == 3 ? 19 : 1}, .halo = 2, .dtype = dtype, .boundary = HX_PERIODIC};
    hx_layout *l = NULL;
    CHECK_EQ(hx_layout_create(ctx, &ld, &l), HX_OK);
    if (!l) return;
    hx_field f[2];
    memset(f, 0, sizeof f);
    hx_exchange *x[2] = {NULL, NULL};
    const char *names[2] = {"auto", "mpi"};
    for (int k = 0; k < 2; k++) {
        CHECK_EQ(hx_field_alloc(l, &f[k]), HX_OK);
        CHECK_EQ(hx_field_init(l, &f[k], 7), HX_OK);
        hx_exchange_options o = hx_exchange_defaults();
        o.transport = names[k];
        o.pattern = pattern;
        o.halo = halo;
        CHECK_EQ(hx_exchange_create_opts(l, &o, &x[k]), HX_OK);
        CHECK(x[k] && !strcmp(hx_exchange_transport(x[k]), "mpi"));
    }
    const size_t bytes = field_bytes(l, &f[0]);
    unsigned char *before = malloc(bytes);
    CHECK(before != NULL);
    if (before) memcpy(before, f[0].data, bytes);
    if (x[0] && x[1]) { /* a failed create leaves no exchange to run */
        for (int k = 0; k < 2; k++) CHECK_EQ(hx_exchange_run(x[k], &f[k], NULL), HX_OK);
        CHECK(hx_context_sync(ctx) == HX_OK);
        CHECK(memcmp(f[0].data, f[1].data, bytes) == 0);
        if (before) CHECK(memcmp(before, f[0].data, bytes) != 0); /* periodic: every rank fills ghosts */
        /* the same plan both ways */
        const hx_plan *p0 = hx_exchange_plan(x[0]), *p1 = hx_exchange_plan(x[1]);
        CHECK(p0->nphases == p1->nphases && p0->max_phase_cells == p1->max_phase_cells);
    }
    free(before);
    for (int k = 0; k < 2; k++) {
        hx_exchange_destroy(x[k]);
        hx_field_free(l, &f[k]);
    }
    hx_layout_destroy(l);
}

/* One bad option set (on `who`: -1 every rank, else that rank only): HX_ERR_INPUT on every rank,
 * a message naming `field` and no environment variable or flag. */
static void check_refused(hx_layout *l, hx_context *ctx, int who, long ll_bytes, const char *fallback, const char *field)
{
    hx_exchange_options o = hx_exchange_defaults();
    o.transport = "mpi";
    if (who < 0 || who == rank_) o.ll_bytes = ll_bytes, o.host_fallback = fallback;
    hx_exchange *x = NULL;
    CHECK_REFUSED(ctx, hx_exchange_create_opts(l, &o, &x), field);
    const char *e = hx_context_error(ctx);
    CHECK(!strstr(e, "HALOX_") && !strstr(e, "--"));
    CHECK(x == NULL); /* a refused exchange is released by the library */
    hx_exchange_destroy(x);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    /* a quiet context first: creation writes nothing to stdout or stderr */
    hx_context_options co = hx_context_defaults();
    co.backend = HX_BACKEND_CPU;
    hx_context *ctx = NULL;
    CHECK_EQ(hx_context_create(MPI_COMM_WORLD, &co, &ctx), HX_OK);
    hx_layout_desc ld = {.dim = 2, .global = {40, 30, 1}, .halo = 1, .dtype = HX_DOUBLE, .boundary = HX_PERIODIC};
    hx_layout *l = NULL;
    CHECK_EQ(hx_layout_create(ctx, &ld, &l), HX_OK);
    {
        char path[] = "/tmp/halox_quiet_XXXXXX";
        const int fd = mkstemp(path);
        CHECK(fd >= 0);
        fflush(stdout), fflush(stderr);
        const int out = dup(1), err = dup(2);
        dup2(fd, 1), dup2(fd, 2);
        hx_exchange *x = NULL, *y = NULL;
        const int st = hx_exchange_create(l, "auto", HX_DIRECT, 0, &x), st2 = hx_exchange_create_opts(l, NULL, &y);
        hx_exchange_destroy(x);
        hx_exchange_destroy(y);
        fflush(stdout), fflush(stderr);
        dup2(out, 1), dup2(err, 2);
        close(out), close(err);
        const off_t size = lseek(fd, 0, SEEK_END);
        close(fd);
        unlink(path);
        CHECK_EQ(st, HX_OK);
        CHECK_EQ(st2, HX_OK);
        CHECK_EQ(size, 0);
    }

    /* hx_transport_auto: mpi on the cpu backend, with a reason */
    char why[256] = "";
    CHECK(!strcmp(hx_transport_auto(ctx, why, sizeof why), "mpi") && why[0] && !strchr(why, '\n'));
    CHECK(!strcmp(hx_transport_auto(ctx, NULL, 0), "mpi"));

    /* auto against mpi, bit for bit */
    for (int dim = 2; dim <= 3; dim++)
        for (int pat = 0; pat < 2; pat++) {
            check_auto_is_mpi(ctx, dim, pat ? HX_DIRECT : HX_STAGED, dim == 2 ? HX_DOUBLE : HX_FLOAT, 0);
            check_auto_is_mpi(ctx, dim, pat ? HX_DIRECT : HX_STAGED, HX_DOUBLE, 1); /* halo 1 of the layout's 2 */
        }

    /* defaults and struct_size */
    hx_exchange_options d = hx_exchange_defaults();
    CHECK(d.struct_size == sizeof d && !strcmp(d.transport, "auto") && d.pattern == HX_STAGED && d.halo == 0 &&
          d.ll_bytes == -1 && d.host_fallback == NULL);
    hx_exchange *x = NULL;
    hx_exchange_options o = hx_exchange_defaults();
    o.struct_size = offsetof(hx_exchange_options, ll_bytes); /* an older caller: the rest is not its */
    o.ll_bytes = -7;
    o.host_fallback = "not a rank list";
    CHECK_EQ(hx_exchange_create_opts(l, &o, &x), HX_OK);
    CHECK(x && !strcmp(hx_exchange_transport(x), "mpi"));
    hx_exchange_destroy(x);
    x = NULL;
    o.struct_size = 0; /* this version: every field is read, and -7 is refused */
    CHECK_EQ(hx_exchange_create_opts(l, &o, &x), HX_ERR_INPUT);
    hx_exchange_destroy(x);
    x = NULL;
    o = hx_exchange_defaults();
    o.struct_size = 0;
    o.transport = "mpi";
    o.ll_bytes = 4096;
    o.host_fallback = nranks > 1 ? "1" : "all"; /* valid values: only ipc and ipc-put use them */
    CHECK_EQ(hx_exchange_create_opts(l, &o, &x), HX_OK);
    hx_exchange_destroy(x);

    /* bad values, everywhere or on the last rank only: refused on every rank */
    const int last = nranks - 1;
    check_refused(l, ctx, -1, -2, NULL, "ll_bytes");
    check_refused(l, ctx, last, -100, NULL, "ll_bytes");
    check_refused(l, ctx, -1, -1, "x", "host fallback");
    check_refused(l, ctx, -1, -1, "all,", "host fallback");
    char beyond[16];
    snprintf(beyond, sizeof beyond, "%d", nranks); /* one past the last rank */
    check_refused(l, ctx, last, -1, beyond, "host fallback");
    /* an unknown transport is bad input too, and "auto" is never reported as the transport */
    x = NULL;
    o = hx_exchange_defaults();
    o.transport = "carrier-pigeon";
    CHECK_EQ(hx_exchange_create_opts(l, &o, &x), HX_ERR_INPUT);
    CHECK(x == NULL);
    hx_exchange_destroy(x);

    /* a callback below HX_LOG_INFO gets nothing from a good creation; at HX_LOG_INFO, one-line messages */
    log_seen seen;
    memset(&seen, 0, sizeof seen);
    hx_context_set_log(ctx, HX_LOG_WARN, on_log, &seen);
    x = NULL;
    CHECK_EQ(hx_exchange_create(l, "auto", HX_STAGED, 0, &x), HX_OK);
    hx_exchange_destroy(x);
    CHECK_EQ(seen.count, 0);
    hx_context_set_log(ctx, HX_LOG_INFO, on_log, &seen);
    x = NULL;
    CHECK_EQ(hx_exchange_create(l, "auto", HX_STAGED, 0, &x), HX_OK);
    hx_exchange_destroy(x);
    CHECK_EQ(seen.bad, 0);
    if (rank_ == 0) CHECK(seen.count >= 1 && strstr(seen.last, "mpi") != NULL); /* rank 0 tells what auto picked */
    hx_context_set_log(ctx, HX_LOG_OFF, NULL, NULL);

    hx_layout_destroy(l);
    hx_context_destroy(ctx);
    const int failed = hx_test_failures;
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank_ != 0) return failed ? 1 : 0;
    if (any && !failed) return 1;
    TEST_DONE();
}
