#!/usr/bin/env bash
# A user's functor kernels on the GPU: the gray_scott example (examples/gray_scott, built with
# this tree) at 1 and 2 ranks. Each run's custom sweeper (plain sweeps, fused passes, cycles cut
# short; the cycle schedule, and the fused and persistent ones whose kernel exchanges on the device)
# and the baseline plain kernel (--compare) must print the same checksums, and every run the
# checksums of the 1-rank run. Then test_custom_gpu (functors of one and several fields, 2D and 3D,
# every schedule, against a host loop) at 1 and 2 ranks. Skipped without a GPU.
# Usage: gpu_custom.sh HALOX MPIEXEC GRAY_SCOTT TEST_CUSTOM_GPU
set -u
HALOX=$1 MPIEXEC=$2 GS=$3 TCG=${4:-}
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
fail=0 runs=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$GS" ]; then
    echo "FAIL: $GS not built (target gray_scott)"
    exit 1
fi
want=""
for np in 1 2; do
    if [ "$np" -gt "$gpu_slots" ]; then
        echo "SKIPPED at $np ranks: $np ranks need $np GPUs (or HALOX_TEST_RANKS_PER_GPU); $gpu_count visible"
        continue
    fi
    for dfs in "4 4 cycle" "4 1 cycle" "3 2 cycle" "2 2 cycle" "4 4 persistent" "3 2 persistent" "5 1 persistent" "4 2 fused"; do
        read -r depth fuse sched <<<"$dfs"
        runs=$((runs + 1))
        if ! MPIRUN "$np" "$GS" --size 301x257 --sweeps 103 --depth "$depth" --fuse "$fuse" --schedule "$sched" --compare --out "$tmp" \
            >"$tmp/out" 2>&1; then
            echo "FAIL: np=$np depth $depth fuse $fuse $sched: exit $?"
            sed 's/^/    /' "$tmp/out" | tail -5
            fail=$((fail + 1))
            continue
        fi
        got=$(sed -n 's/^custom .*checksum \(.*\)$/\1/p' "$tmp/out")
        [ -z "$want" ] && want=$got
        if [ -z "$got" ] || [ "$got" != "$want" ] || ! grep -q "compare: bit-identical" "$tmp/out"; then
            echo "FAIL: np=$np depth $depth fuse $fuse $sched: checksum '$got', want '$want' (1 rank, depth 4 fuse 4 cycle)"
            sed 's/^/    /' "$tmp/out"
            fail=$((fail + 1))
        fi
    done
done
# the persistent kernel's watchdog: rank 1 stops putting halos (HALOX_FAULT_SKIP_PUTS, a fault-
# injection build); a wait gives up within HALOX_TIMEOUT and the run fails with one line naming it
if [ "$gpu_slots" -ge 2 ]; then
    runs=$((runs + 1))
    err=$(HALOX_TIMEOUT=3 HALOX_FAULT_SKIP_PUTS=1 timeout 90 "$MPIEXEC" -x HALOX_TIMEOUT -x HALOX_FAULT_SKIP_PUTS -x HALOX_SHARE_GPU \
        -np 2 "$GS" --size 128x128 --sweeps 400 --depth 2 --fuse 2 --schedule persistent 2>&1 >/dev/null)
    rc=$?
    echo "skip-puts, persistent: exit $rc: $(grep "gray_scott:" <<<"$err" | head -1)"
    if [ $rc -ne 1 ] || ! grep -q "waited .* for the halo of rank" <<<"$err"; then
        echo "FAIL: want exit 1 and a line naming the rank waited for"
        fail=$((fail + 1))
    fi
fi
# a user's functors of one and several fields, 2D and 3D, every schedule, bit for bit against the host loop
for np in 1 2; do
    [ "$np" -gt "$gpu_slots" ] && continue
    for size in small wave; do
        runs=$((runs + 1))
        if [ ! -x "$TCG" ] || ! MPIRUN "$np" -x HALOX_SHARE_GPU "$TCG" $size >"$tmp/out" 2>&1; then
            echo "FAIL: test_custom_gpu $size at $np rank(s)"
            sed 's/^/    /' "$tmp/out" | tail -8
            fail=$((fail + 1))
        fi
    done
done
# snapshots: every 50 sweeps, v as .npy of the global grid
runs=$((runs + 1))
MPIRUN 1 "$GS" --size 64x48 --sweeps 100 --every 50 --out "$tmp" >"$tmp/out" 2>&1
for s in 000000 000050 000100; do
    if [ ! -s "$tmp/v_$s.npy" ]; then
        echo "FAIL: no snapshot v_$s.npy"
        fail=$((fail + 1))
    fi
done
echo "gpu_custom: $runs runs, $fail failures"
[ $fail -eq 0 ]
