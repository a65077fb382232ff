/* The halox command: `halox run [options]`, `halox info`, `halox --help`. */
#include <stdio.h>
#include <string.h>

#include "halox/halox.h"

static void usage(FILE *out)
{
    fprintf(out, "halox %s: halo-exchange benchmark for distributed stencils (one MPI rank per GPU or CPU socket)\n\n"
                 "usage: mpirun -np N halox run [options]   run a stencil with halo exchanges and report timings\n"
                 "       halox info                         build, MPI, GPUs and transports\n"
                 "       halox run --help                   all run options\n",
            HALOX_VERSION);
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
    int first_opt = 2;
    if (argc > 1 && strncmp(argv[1], "--", 2) == 0 && strcmp(argv[1], "--help") != 0) {
        cmd = "run"; /* `halox --size ...` is `halox run --size ...` */
        first_opt = 1;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (rank == 0) usage(stdout);
    } else if (!strcmp(cmd, "info")) {
        hx_print_info(stdout, MPI_COMM_WORLD);
    } else if (!strcmp(cmd, "run")) {
        hx_config cfg;
        char err[320];
        hx_config_defaults(&cfg);
        int n = argc > first_opt ? argc - first_opt : 0;
        int rc = hx_config_parse(&cfg, n, argv + first_opt, err, sizeof err);
        if (rc == 1) {
            if (rank == 0) hx_config_usage(stdout);
        } else if (rc < 0) {
            if (rank == 0) fprintf(stderr, "halox: error: %s\n", err);
            code = HX_ERR_INPUT;
        } else {
            code = hx_run(&cfg, MPI_COMM_WORLD);
        }
    } else {
        if (rank == 0) fprintf(stderr, "halox: error: unknown command '%s': use run, info or --help\n", cmd);
        code = HX_ERR_INPUT;
    }
    MPI_Finalize();
    return code;
}
