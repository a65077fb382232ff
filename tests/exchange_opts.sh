#!/usr/bin/env bash
# test_exchange_opts (hx_exchange_create_opts, transport auto, the library's quiet, CPU backend) at
# 1, 2 and 3 ranks. Usage: exchange_opts.sh BIN MPIEXEC
set -u
BIN=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
for np in 1 2 3; do
    MPIRUN "$np" "$BIN" || { echo "FAIL: test_exchange_opts at $np rank(s)"; exit 1; }
done
