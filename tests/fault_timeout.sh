#!/usr/bin/env bash
# A rank that stops exchanging in the middle of a run: its neighbours must stop with an error
# naming themselves and the silent rank after HALOX_TIMEOUT, not hang. Needs a build with fault
# injection (skipped otherwise).
# Usage: fault_timeout.sh HALOX MPIEXEC [extra run args, e.g. --backend cuda --transport nccl]
set -u
HALOX=$1 MPIEXEC=$2
shift 2
. "$(dirname "$0")/mpi_env.sh"
. "$(dirname "$0")/faults.sh"
need_faults
export HALOX_TIMEOUT=3 HALOX_FAULT_SILENT_RANK=1
start=$(date +%s)
err=$(timeout 60 "$MPIEXEC" -x HALOX_TIMEOUT -x HALOX_FAULT_SILENT_RANK -np 4 "$HALOX" run --size 256x256 --iters 60 \
    --warmup 0 --quiet "$@" 2>&1 >/dev/null)
rc=$?
took=$(($(date +%s) - start))
fail=0
if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then echo "FAIL: exit $rc (want an error, not success or a hang)"; fail=1; fi
if ! grep -Eq "halox: error \(rank [023]\).*(rank 1|ranks .*1)" <<<"$err"; then
    echo "FAIL: no error naming a waiting rank and the silent rank 1"; fail=1
fi
echo "$err" | grep "halox: error" | head -3
echo "stopped after ${took}s with exit $rc"
[ $fail -eq 0 ]
