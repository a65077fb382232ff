#!/usr/bin/env bash
# The CPU backend's threads at 2 ranks started unbound (mpirun --bind-to none), OMP_NUM_THREADS unset:
# test_threads (the automatic count is cores / ranks, the oversubscription warning), then a verified
# halox run at 2 unbound ranks.
# Usage: threads.sh TEST_BIN HALOX MPIEXEC
set -u
BIN=$1 HALOX=$2 MPIEXEC=$3
. "$(dirname "$0")/mpi_env.sh"
unset OMP_NUM_THREADS
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT

MPIRUN 2 --bind-to none "$BIN" || { echo "FAIL: test_threads at 2 unbound ranks"; exit 1; }

# The same job through halox: unbound ranks run and report (the speed itself is a benchmark:
# bench/run.sh binding)
MPIRUN 2 --bind-to none "$HALOX" run --backend cpu --size 256x256 --iters 4 --verify --quiet >/dev/null 2>"$ERR" ||
    { echo "FAIL: halox run at 2 unbound ranks"; cat "$ERR"; exit 1; }
echo "threads: passed"
