#!/usr/bin/env bash
# test_exchange_many on the cuda backend: every transport of this build at 1 to 4 ranks (fields in
# device memory; many fields in one exchange, per-axis halos and boundaries, every cell checked);
# skipped without a GPU. HALOX_TEST_RANKS_PER_GPU lets ranks share a GPU (not for nccl, nvshmem,
# and ipc-put only in a build with fault injection).
# Usage: gpu_exchange_many.sh HALOX MPIEXEC TEST_BIN
set -u
HALOX=$1 MPIEXEC=$2 BIN=$3
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
. "$(dirname "$0")/faults.sh"
fail=0 runs=0
for tr in mpi mpi-cuda ipc ipc-put nccl nvshmem; do
    if ! "$HALOX" info 2>/dev/null | grep -q "^  $tr "; then echo "skip ($tr): not in this build"; continue; fi
    for np in 1 2 3 4; do
        [ "$np" -le "$gpu_slots" ] || continue
        if [ "$np" -gt "$gpu_count" ]; then
            case $tr in
            nccl | nvshmem) continue ;; # one GPU per rank
            ipc-put) { [ "$HALOX_SHARE_GPU" = 1 ] && has_faults; } || continue ;;
            esac
        fi
        runs=$((runs + 1))
        if ! out=$(timeout 600 "$MPIEXEC" -np "$np" -x HALOX_SHARE_GPU "$BIN" cuda "$tr" 2>&1); then
            echo "FAIL ($tr, np=$np):"
            tail -8 <<<"$out" | sed 's/^/    /'
            fail=$((fail + 1))
        else
            echo "ok   ($tr, np=$np)"
        fi
    done
done
echo "gpu exchange many: $runs runs, $fail failure(s)"
[ "$runs" -gt 0 ] || { echo "SKIPPED: no transport and rank count to run"; exit 77; }
[ $fail -eq 0 ]
