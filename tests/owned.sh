#!/usr/bin/env bash
# test_owned (hx_field_get_owned / set_owned, CPU backend) at 1 and 2 ranks. Usage: owned.sh BIN MPIEXEC
set -u
BIN=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
for np in 1 2; do
    MPIRUN "$np" "$BIN" || { echo "FAIL: test_owned at $np rank(s)"; exit 1; }
done
