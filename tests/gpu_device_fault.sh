#!/usr/bin/env bash
# Faults of the kernel-initiated path and of collective set-up; skipped without 2 GPUs or without
# fault injection in the build.
#  1. HALOX_FAULT_SKIP_PUTS=1: rank 1's persistent kernel stops putting halos; its neighbours'
#     device watchdog must give up within HALOX_TIMEOUT and the job exit 3 with one line naming
#     the waiting rank, rank 1 and the exchange, not hang; then the GPUs must still run a job.
#     The same for transport ipc-put's get kernel (the cycle schedule).
#  2. HALOX_FAULT_SETUP=1: rank 1 fails its transport set-up (before NCCL/NVSHMEM would be
#     initialised); every rank must return the error (exit 3, a message naming rank 1), no hang.
# Usage: gpu_device_fault.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
. "$(dirname "$0")/faults.sh"
need_faults
if [ "$gpu_slots" -lt 2 ]; then echo "SKIPPED: needs 2 GPUs (or HALOX_TEST_RANKS_PER_GPU=2)"; exit 77; fi
fail=0
export HALOX_TIMEOUT=3
start=$(date +%s)
# the pass kernel (staged pattern) and the resident kernel (direct: tiles kept in shared memory).
# Ranks sharing a GPU: the pass kernel only (see gpu_schedule.sh); there every wait's clock runs on
# while the other rank's context holds the GPU, so which waiter speaks first is a race: any rank
# may be named.
kernels="passes resident"
[ "$HALOX_SHARE_GPU" = 1 ] && kernels=passes
for kernel in $kernels; do
    pattern=staged
    [ $kernel = resident ] && pattern=direct
    start=$(date +%s)
    err=$(HALOX_FAULT_SKIP_PUTS=1 timeout 60 "$MPIEXEC" -x HALOX_TIMEOUT -x HALOX_FAULT_SKIP_PUTS -x HALOX_SHARE_GPU -np 2 "$HALOX" run \
        --backend cuda --transport ipc --schedule persistent --kernel $kernel --pattern $pattern --size 256x256 --iters 40 --warmup 0 \
        --quiet 2>&1 >/dev/null)
    rc=$?
    echo "skip-puts, $kernel kernel: exit $rc after $(($(date +%s) - start)) s"; echo "$err" | grep "halox: error" | head -2
    [ $rc -eq 3 ] || { echo "FAIL: want exit 3"; fail=1; }
    if [ "$HALOX_SHARE_GPU" = 1 ]; then grep -q "halo of rank" <<<"$err" || { echo "FAIL: no message naming a silent rank"; fail=1; }
    else grep -q "halo of rank 1" <<<"$err" || { echo "FAIL: no message naming the silent rank 1"; fail=1; }; fi
done
# transport ipc-put: rank 1's put kernels stop storing; rank 0's get kernel gives up on the
# device and the host reports it after the run (the cycle schedule, the exchange object's path)
if [ "$gpu_count" -ge 2 ] || [ "$HALOX_SHARE_GPU" = 1 ]; then
    start=$(date +%s)
    err=$(HALOX_FAULT_SKIP_PUTS=1 timeout 60 "$MPIEXEC" -x HALOX_TIMEOUT -x HALOX_FAULT_SKIP_PUTS -x HALOX_SHARE_GPU -np 2 "$HALOX" run \
        --backend cuda --transport ipc-put --pattern direct --size 256x256 --iters 40 --warmup 0 --quiet 2>&1 >/dev/null)
    rc=$?
    echo "skip-puts, ipc-put: exit $rc after $(($(date +%s) - start)) s"; echo "$err" | grep "halox: error" | head -2
    [ $rc -eq 3 ] || { echo "FAIL: want exit 3"; fail=1; }
    # ranks sharing a GPU: the host's deadline on the timed segment may speak before the device wait
    if [ "$HALOX_SHARE_GPU" = 1 ]; then grep -qE "for the halo of rank|exchange never arrived" <<<"$err" || { echo "FAIL: no message naming the wait"; fail=1; }
    else grep -q "rank 0 waited .* for the halo of rank 1" <<<"$err" || { echo "FAIL: no message naming rank 0 waiting for rank 1"; fail=1; }; fi
fi
out=$(timeout 60 "$MPIEXEC" -x HALOX_SHARE_GPU -np 2 "$HALOX" run --backend cuda --transport ipc --schedule persistent --pattern direct --size 64x64 --iters 4 --verify --quiet 2>&1)
grep -q "verify: bit-identical" <<<"$out" || { echo "FAIL: the GPUs did not run the next job"; fail=1; }
for tr in $("$HALOX" info | sed -n 's/^  \(mpi\|ipc\|ipc-put\|nccl\|nvshmem\) .*/\1/p'); do
    # NCCL and NVSHMEM refuse ranks that share a GPU before the injected fault: nothing to test there
    if [ "$gpu_count" -lt 2 ] && [ "$tr" = nccl -o "$tr" = nvshmem -o "$tr" = ipc-put ]; then echo "setup fault, $tr: skipped (ranks share a GPU)"; continue; fi
    err=$(HALOX_FAULT_SETUP=1 timeout 60 "$MPIEXEC" -x HALOX_FAULT_SETUP -np 2 "$HALOX" run --backend cuda --transport "$tr" \
        --size 64x64 --iters 4 --quiet 2>&1 >/dev/null)
    rc=$?
    echo "setup fault, $tr: exit $rc: $(echo "$err" | grep "halox: error" | head -1)"
    [ $rc -eq 3 ] && grep -q "rank 1.*HALOX_FAULT_SETUP" <<<"$err" || { echo "FAIL: $tr set-up fault"; fail=1; }
done
[ $fail -eq 0 ]
