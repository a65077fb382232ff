/* The halox command: `halox run [options]`, `halox info`, `halox roofline`, `halox --help`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halox/halox.h"
#include "run.h"

static void usage(FILE *out)
{
    fprintf(out, "halox %s: halo-exchange benchmark for distributed stencils (one MPI rank per GPU or CPU socket)\n\n"
                 "usage: mpirun -np N halox run [options]   run a stencil with halo exchanges and report timings\n"
                 "       halox info                         build, MPI, GPUs and transports\n"
                 "       halox roofline [options]           copy bandwidth vs each stencil's sweep rate on one device\n"
                 "       halox run --help                   all run options\n",
            HALOX_VERSION);
}

/* A sweep: option values with commas (except --devices) are lists; run every combination. */
typedef struct {
    int index;        /* argv index of the value (or of "--opt=value") */
    int prefix;       /* characters before the value */
    char *items[32];
    int nitems, pos;
} sweep_axis;

static int find_axes(int argc, char **argv, sweep_axis *ax, int max)
{
    int n = 0;
    for (int i = 0; i < argc && n < max; i++) {
        char *a = argv[i], *eq = strchr(a, '=');
        int is_opt = strncmp(a, "--", 2) == 0;
        if (!strncmp(a, "--devices", 9)) {
            if (!eq) i++;
            continue;
        }
        char *val = NULL;
        int idx = i, prefix = 0;
        if (is_opt && eq) val = eq + 1, prefix = (int)(eq + 1 - a);
        else if (!is_opt && i > 0) val = a;
        if (!val || !strchr(val, ',')) continue;
        sweep_axis *s = &ax[n++];
        s->index = idx;
        s->prefix = prefix;
        s->nitems = 0;
        s->pos = 0;
        char *copy = strdup(val), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t && s->nitems < 32; t = strtok_r(NULL, ",", &save)) {
            char *item = malloc((size_t)prefix + strlen(t) + 1);
            memcpy(item, a, (size_t)prefix);
            strcpy(item + prefix, t);
            s->items[s->nitems++] = item;
        }
        /* copy is referenced by nothing now */
        free(copy);
    }
    return n;
}

/* --transport all: the same problem over every transport of this build, then one table with
 * each one's time per sweep and its ratio to host-staged mpi, measured in this one job. */
static int run_all_transports(int rank, hx_config *cfg)
{
    char names[256], *save = NULL, *name[64];
    int n = 0, code = HX_OK;
    snprintf(names, sizeof names, "%s", hx_transport_names());
    for (char *t = strtok_r(names, ", ", &save); t && n < 64; t = strtok_r(NULL, ", ", &save)) name[n++] = t;
    double us[64];
    int verified[64];
    for (int i = 0; i < n; i++) {
        snprintf(cfg->transport, sizeof cfg->transport, "%s", name[i]);
        int c = hx_run(cfg, MPI_COMM_WORLD);
        us[i] = c == HX_OK ? hx_last_run()->us_per_sweep : -1;
        verified[i] = c == HX_OK ? hx_last_run()->verified : 0;
        if (c == HX_ERR_VERIFY) code = c;
        cfg->no_header = 1;
        if (rank == 0 && cfg->format == HX_FORMAT_TABLE) printf("\n");
    }
    strcpy(cfg->transport, "all");
    if (rank == 0) {
        double base = us[0]; /* the build's list starts with mpi */
        FILE *out = cfg->format == HX_FORMAT_TABLE ? stdout : stderr;
        fprintf(out, "%-10s %14s %14s %10s\n", "transport", "us/sweep", "vs mpi", "verified");
        for (int i = 0; i < n; i++) {
            if (us[i] < 0) fprintf(out, "%-10s %14s %14s %10s\n", name[i], "not run", "-", "-");
            else fprintf(out, "%-10s %14.2f %13.2fx %10s\n", name[i], us[i], base > 0 ? base / us[i] : 0,
                         verified[i] > 0 ? "yes" : verified[i] < 0 ? "FAILED" : "-");
        }
        fflush(out);
    }
    return code;
}

static int run_command(int rank, int argc, char **argv)
{
    sweep_axis ax[8];
    int nax = find_axes(argc, argv, ax, 8), code = HX_OK, first = 1;
    char **args = malloc(sizeof(char *) * (size_t)(argc + 1));
    for (;;) {
        memcpy(args, argv, sizeof(char *) * (size_t)argc);
        for (int k = 0; k < nax; k++) args[ax[k].index] = ax[k].items[ax[k].pos];
        hx_config cfg;
        char err[320];
        hx_config_defaults(&cfg);
        int rc = hx_config_parse(&cfg, argc, args, err, sizeof err);
        if (rc == 1) {
            if (rank == 0) hx_config_usage(stdout);
            break;
        }
        if (rc < 0) {
            if (rank == 0) fprintf(stderr, "halox: error: %s\n", err);
            code = HX_ERR_INPUT;
            break;
        }
        cfg.no_header = !first;
        int c;
        if (!strcmp(cfg.transport, "all")) {
            c = run_all_transports(rank, &cfg);
        } else {
            c = hx_run(&cfg, MPI_COMM_WORLD);
        }
        if (c != HX_OK) code = c;
        if (c == HX_ERR_INPUT) break; /* the same mistake would repeat in every combination */
        first = 0;
        int k = 0; /* odometer: the last list turns fastest */
        for (k = nax - 1; k >= 0; k--) {
            if (++ax[k].pos < ax[k].nitems) break;
            ax[k].pos = 0;
        }
        if (k < 0) break;
        if (cfg.format == HX_FORMAT_TABLE && rank == 0) printf("\n");
    }
    for (int k = 0; k < nax; k++)
        for (int j = 0; j < ax[k].nitems; j++) free(ax[k].items[j]);
    free(args);
    return code;
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "halox: error: MPI_Init failed: check the MPI installation (mpirun --version)\n");
        return HX_ERR_RUNTIME;
    }
    int rank, code = HX_OK;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *cmd = argc > 1 ? argv[1] : "run";
    int first_opt = argc > 1 ? 2 : 1;
    if (argc > 1 && strncmp(argv[1], "--", 2) == 0 && strcmp(argv[1], "--help") != 0) {
        cmd = "run"; /* `halox --size ...` is `halox run --size ...` */
        first_opt = 1;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (rank == 0) usage(stdout);
    } else if (!strcmp(cmd, "info")) {
        hx_print_info(stdout, MPI_COMM_WORLD);
    } else if (!strcmp(cmd, "roofline")) {
        if (rank == 0) code = hx_roofline_main(argc - 2, argv + 2);
    } else if (!strcmp(cmd, "reference")) {
        if (rank == 0) code = hx_reference_main(argc - 2, argv + 2);
    } else if (!strcmp(cmd, "run")) {
        code = run_command(rank, argc - first_opt, argv + first_opt);
    } else {
        if (rank == 0) fprintf(stderr, "halox: error: unknown command '%s': use run, info, roofline, reference or --help\n", cmd);
        code = HX_ERR_INPUT;
    }
    MPI_Finalize();
    return code;
}
