/* The CPU backend's OpenMP threads (hx_context_options.threads): the automatic count as a pure
 * function; the count a context sets when OMP_NUM_THREADS is unset; one warning, on node rank 0
 * only, when the ranks of a node are forced to more threads than its cores; struct_size honoured;
 * a negative count refused. Run by tests/threads.sh at 2 ranks started unbound, without OMP_NUM_THREADS. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <halox/halox.h>
#include <omp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compute/cpu_threads.h"

typedef struct {
    int warn, other;
    int threads; /* hx_context_threads */
    char last[1024];
} log_count;

static void count_log(hx_log_level level, int rank, const char *msg, void *user)
{
    log_count *c = user;
    (void)rank;
    if (level == HX_LOG_WARN) c->warn++;
    else c->other++;
    snprintf(c->last, sizeof c->last, "%s", msg);
}

static void check_auto_threads(void)
{
    CHECK_EQ(hx_cpu_auto_threads(2, 2), 1);   /* unbound: the node's cores / its ranks */
    CHECK_EQ(hx_cpu_auto_threads(64, 4), 16);
    CHECK_EQ(hx_cpu_auto_threads(64, 3), 21); /* rounded down */
    CHECK_EQ(hx_cpu_auto_threads(2, 9), 1);   /* more ranks than cores: still one */
    CHECK_EQ(hx_cpu_auto_threads(8, 1), 8);   /* bound to its own cores: all of them */
    CHECK_EQ(hx_cpu_auto_threads(1, 1), 1);
    CHECK_EQ(hx_cpu_auto_threads(16, 0), 16); /* no count of sharers: as if alone */
    CHECK_EQ(hx_cpu_auto_threads(0, 1), 1);
}

/* A CPU context with threads and a counting log at level; returns the counts. */
static log_count create(int threads, hx_log_level level, size_t struct_size)
{
    log_count c = {0, 0, 0, ""};
    hx_context_options o = hx_context_defaults();
    o.backend = HX_BACKEND_CPU;
    o.threads = threads;
    o.log_level = level;
    o.log = count_log;
    o.log_user = &c;
    if (struct_size) o.struct_size = struct_size;
    hx_context *ctx;
    int st = hx_context_create(MPI_COMM_WORLD, &o, &ctx);
    CHECK_EQ(st, HX_OK);
    if (st) fprintf(stderr, "hx_context_create: %s\n", hx_context_error(ctx));
    else c.threads = hx_context_threads(ctx);
    hx_context_destroy(ctx);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nrank, nsize;
    MPI_Comm node;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    check_auto_threads();

    /* automatic: unbound ranks (a mask of the whole node) take their share of its cores, and a
     * node that is not oversubscribed hears nothing */
    const int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t mask;
    int whole = sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) == cores;
    CHECK(getenv("OMP_NUM_THREADS") == NULL);
    log_count c = create(0, HX_LOG_DEBUG, 0);
    CHECK_EQ(c.threads, omp_get_max_threads());
    if (whole) CHECK_EQ(omp_get_max_threads(), cores / nsize > 1 ? cores / nsize : 1);
    else if (rank == 0) printf("note: ranks are bound here; the unbound count is checked by the unit checks only\n");
    CHECK_EQ(c.warn, 0);

    /* forced above the node's cores: one warning on node rank 0, nothing anywhere else */
    const int many = cores >= 64 ? cores : 64;
    c = create(many, HX_LOG_WARN, 0);
    CHECK_EQ(omp_get_max_threads(), many);
    CHECK_EQ(c.threads, many);
    CHECK_EQ(c.warn, nrank == 0 ? 1 : 0);
    CHECK_EQ(c.other, 0);
    if (c.warn) {
        CHECK(strstr(c.last, "oversubscribe") != NULL);
        CHECK(strstr(c.last, "--") == NULL); /* the library names no command-line flag */
    }
    int warns = 0, nodes = 0, first = nrank == 0;
    MPI_Allreduce(&c.warn, &warns, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(warns, nodes);

    /* the same below the level asked for: not delivered */
    c = create(many, HX_LOG_ERROR, 0);
    CHECK_EQ(c.warn + c.other, 0);

    /* a caller compiled before threads existed: the field past its struct_size is not read */
    c = create(many, HX_LOG_WARN, offsetof(hx_context_options, threads));
    CHECK_EQ(c.warn, 0);
    if (whole) CHECK_EQ(omp_get_max_threads(), cores / nsize > 1 ? cores / nsize : 1);

    /* a negative count is refused, on every rank */
    hx_context_options o = hx_context_defaults();
    o.backend = HX_BACKEND_CPU;
    o.threads = -1;
    hx_context *ctx;
    CHECK_EQ(hx_context_create(MPI_COMM_WORLD, &o, &ctx), HX_ERR_INPUT);
    CHECK(strstr(hx_context_error(ctx), "threads") != NULL);
    hx_context_destroy(ctx);

    int failed = hx_test_failures, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    MPI_Finalize();
    if (rank != 0) return failed ? 1 : 0;
    hx_test_failures = any;
    TEST_DONE();
}
