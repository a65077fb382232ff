#!/usr/bin/env bash
# test_custom_host (a user's functor kernels through hx_custom, cpu backend) at 1, 2, 3, 4, 6, 8
# and 9 ranks. Usage: custom.sh BIN MPIEXEC
set -u
BIN=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
for np in 1 2 3 4 6 8 9; do
    MPIRUN "$np" "$BIN" || { echo "FAIL: test_custom_host at $np rank(s)"; exit 1; }
done
