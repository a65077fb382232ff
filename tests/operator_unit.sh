#!/usr/bin/env bash
# test_operator (hx_operator, its file reader, the sweeper's checks and coefficient sweeps against
# the reference) at 1 and 2 ranks. Usage: operator_unit.sh BIN MPIEXEC DATA_DIR
set -u
BIN=$1 MPIEXEC=$2 DATA=$3
. "$(dirname "$0")/mpi_env.sh"
for np in 1 2; do
    MPIRUN "$np" "$BIN" "$DATA" || { echo "FAIL: test_operator at $np rank(s)"; exit 1; }
done
