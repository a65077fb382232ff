/* `mg_cuda_emu [halox mg options]`: halox mg on the CPU backend with the CUDA kernels compiled for
 * the host (tests/mg_cuda_emu.cpp), to compare with `halox mg --backend cpu` bit for bit. */
#include <mpi.h>

int hx_mg_main(int argc, char **argv);

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 3;
    int code = hx_mg_main(argc - 1, argv + 1);
    MPI_Finalize();
    return code;
}
