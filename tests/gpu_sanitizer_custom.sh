#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck (shared memory, every hazard reported) and synccheck over a
# user's functor kernels (test_custom_gpu): 2D and 3D, one and several state fields, the cycle,
# fused and persistent schedules, on small grids and on grids of more tiles than the persistent
# kernel has blocks; at 1 rank (messages to itself) and at 2 where two GPU slots are there. Each run
# must be bit-identical to the host loop and report nothing. Skipped without a GPU.
# Usage: gpu_sanitizer_custom.sh HALOX MPIEXEC TEST_CUSTOM_GPU
set -u
HALOX=$1 MPIEXEC=$2 BIN=${3:-}
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
need_sanitizer
unset OMPI_MCA_mpi_yield_when_idle
if [ ! -x "$BIN" ]; then
    echo "FAIL: test_custom_gpu not built"
    exit 1
fi
fail=0 runs=0
nps=1
[ "$gpu_slots" -ge 2 ] && nps="1 2"
for np in $nps; do
    for tool in memcheck racecheck synccheck; do
        for size in small wave; do
            extra=()
            [ $tool = racecheck ] && extra=(--racecheck-report all)
            runs=$((runs + 1))
            out=$(timeout 1500 "$MPIEXEC" -x HALOX_SHARE_GPU -np $np "$CS" --tool $tool "${extra[@]}" --error-exitcode 9 "$BIN" $size 2>&1)
            rc=$?
            if [ $rc -ne 0 ] || ! grep -q "all checks passed" <<<"$out" || sanitizer_dirty "$out"; then
                echo "FAIL ($tool, np=$np, exit $rc): test_custom_gpu $size"
                grep -v "^$" <<<"$out" | head -30
                fail=$((fail + 1))
            else
                echo "clean ($tool, np=$np): test_custom_gpu $size: $(grep -cE "ERROR SUMMARY: 0|RACECHECK SUMMARY: 0" <<<"$out") rank(s) report nothing"
            fi
        done
    done
done
echo "gpu_sanitizer_custom: $runs runs, $fail failures"
[ $fail -eq 0 ]
