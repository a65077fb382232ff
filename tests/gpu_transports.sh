#!/usr/bin/env bash
# The GPU transports at one rank count: bit-for-bit runs over both patterns, overlap on/off,
# deep halos, 2D and 3D, both dtypes and boundaries (ipc-put: its kernels put and get); for ipc
# at 2 and 4 ranks, also with links
# forced onto host-staged MPI (--host-fallback); ipc-put with each way of sending (--ll-bytes); for nvshmem, the fused and persistent
# schedules over its device path; skipped without a GPU.
# Usage: gpu_transports.sh HALOX MPIEXEC NP TRANSPORT
set -u
HALOX=$1 MPIEXEC=$2 NP=$3 TR=$4
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
. "$(dirname "$0")/faults.sh"
if ! "$HALOX" info 2>/dev/null | grep -q "^  $TR "; then echo "SKIPPED: this build has no transport $TR"; exit 77; fi
case $TR in nccl|nvshmem) [ "$NP" -le "$gpu_count" ] || { echo "SKIPPED: $TR needs one GPU per rank"; exit 77; } ;; esac
# ipc-put's kernels spin for each other: ranks share a GPU only where the tests allow it (a build
# with fault injection and HALOX_SHARE_GPU=1)
if [ "$TR" = ipc-put ] && [ "$NP" -gt "$gpu_count" ]; then
    { [ "$HALOX_SHARE_GPU" = 1 ] && has_faults; } || { echo "SKIPPED: $TR needs one GPU per rank"; exit 77; }
fi
fail=0 runs=0
run_case() { RUN_MPI="-x HALOX_SHARE_GPU" verify_case 2 --backend cuda --transport "$TR" "$@"; }
# --host-fallback X: the run logs (--verbose) that messages went over host-staged MPI
expect_mpi_routes() {
    local out
    runs=$((runs + 1))
    out=$(MPIRUN "$NP" "$HALOX" run --backend cuda --transport ipc --host-fallback "$1" --size 64x64 --iters 2 --verbose 2>&1)
    if ! grep -Eq " [1-9][0-9]* by host-staged MPI" <<<"$out"; then
        echo "FAIL (np=$NP): --host-fallback $1 sent no message over MPI: $(tail -3 <<<"$out")"; fail=$((fail + 1))
    fi
}
k=0
for pattern in staged direct; do
    for overlap in on off; do
        for depth in 1 3; do
            dtype=$([ $((k % 2)) -eq 0 ] && echo float || echo double)
            bnd=$([ $((k % 3)) -eq 0 ] && echo fixed || echo periodic)
            run_case --size 131x67 --depth $depth --iters 9 --pattern $pattern --overlap=$overlap --dtype $dtype --boundary $bnd
            [ $depth -eq 1 ] && run_case --size 40x36x34 --stencil star13 --depth 2 --iters 5 --pattern $pattern \
                --overlap=$overlap --dtype $dtype --boundary $bnd
            k=$((k + 1))
        done
    done
done
# ipc with links forced onto host-staged MPI, as between nodes: every link but a rank's own, or only
# rank 1's, so that one phase mixes peer copies and MPI (and self copies at 2 ranks)
if [ "$TR" = ipc ] && { [ "$NP" -eq 2 ] || [ "$NP" -eq 4 ]; }; then
    k=0
    for fb in all 1; do
        expect_mpi_routes $fb
        for pattern in staged direct; do
            for overlap in on off; do
                bnd=$([ $((k % 3)) -eq 0 ] && echo fixed || echo periodic)
                run_case --host-fallback $fb --size 131x67 --depth 2 --iters 9 --pattern $pattern --overlap=$overlap --boundary $bnd
                run_case --host-fallback $fb --size 40x36x34 --stencil star13 --depth 2 --iters 5 --pattern $pattern \
                    --overlap=$overlap --dtype double --boundary periodic
                k=$((k + 1))
            done
        done
    done
fi
# ipc-put's messages by way (--ll-bytes; the cases above ran its default, 64 KiB): every message
# with a flag; some messages of a phase as flagged words, the others with flags; every message as words
if [ "$TR" = ipc-put ]; then
    for ll in 0 2048 1000000000; do
        run_case --ll-bytes $ll --size 131x67 --depth 3 --iters 9 --pattern direct --overlap=on
        run_case --ll-bytes $ll --size 40x36x34 --stencil star13 --depth 2 --iters 5 --pattern staged --overlap=off --dtype double
    done
fi
# nvshmem's device path: the kernel-initiated schedules store into the neighbours' symmetric slots
# through nvshmem_ptr (the resident kernel where it applies, the pass kernel otherwise)
if [ "$TR" = nvshmem ]; then
    for sched in persistent fused; do
        run_case --schedule $sched --size 131x67 --depth 3 --iters 14 --pattern direct
        run_case --schedule $sched --size 256x256 --depth 8 --fuse 4 --iters 37 --pattern direct --boundary fixed
        run_case --schedule $sched --size 100x90 --stencil star9 --depth 3 --fuse 2 --iters 10 --pattern staged --dtype double
        run_case --schedule $sched --size 40x36x34 --depth 2 --iters 7 --pattern direct
        run_case --schedule $sched --size 33x30x28 --stencil star13 --depth 1 --iters 5 --pattern staged --dtype double
    done
fi
echo "np=$NP transport $TR: $runs runs, $fail failed"
[ $fail -eq 0 ]
