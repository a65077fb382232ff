#!/usr/bin/env bash
# Session 40, call 8 (2 GPUs): make run's GPU job (scripts/run_default.sh, now with the ranks unbound),
# and the one-core note now given for every transport but ipc: mpi with --bind-to core notes it, ipc
# with --bind-to core and mpi with --bind-to none do not.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t run_default
timeout 200 scripts/run_default.sh "$H" >"$OUT/run_default.txt" 2>"$OUT/run_default.err"
echo "exit $?"; grep "note\|error" "$OUT/run_default.err" | head -5; grep -A8 "^transport  " "$OUT/run_default.txt"
t note
for c in "core mpi" "core ipc" "none mpi"; do
    set -- $c
    out=$(timeout 60 $MPI --bind-to $1 -np 2 "$H" run --backend cuda --transport $2 --size 512x512 --iters 20 --quiet 2>&1)
    echo "--bind-to $1 --transport $2: exit $?, note: $(grep -c 'on one core only' <<<"$out")"
done
t done
