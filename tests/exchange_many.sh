#!/usr/bin/env bash
# test_exchange_many (many fields in one exchange, per-axis halos and boundaries, CPU backend) at
# 1, 2, 3, 4, 6, 8 and 9 ranks. Usage: exchange_many.sh BIN MPIEXEC
set -u
BIN=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
for np in 1 2 3 4 6 8 9; do
    MPIRUN "$np" "$BIN" cpu mpi || { echo "FAIL: test_exchange_many at $np rank(s)"; exit 1; }
done
