#!/usr/bin/env bash
# The bit-for-bit matrix of mpi_matrix.sh on the CUDA backend (ranks share GPUs when there are
# more ranks than GPUs). Skipped without a GPU. Usage: gpu_matrix.sh HALOX MPIEXEC NP
set -u
HALOX=$1
. "$(dirname "$0")/gpu_common.sh"
HALOX_EXTRA="--backend cuda" exec "$(dirname "$0")/mpi_matrix.sh" "$@"
