#!/usr/bin/env bash
# Session 40, call 6 (2 GPUs): `halox run --transport all` on the cuda backend after the change that
# skips a transport refusing at set-up with one note a job (mpi-cuda without a CUDA-aware MPI): the
# table with --verify over a sweep of two depths, and the CSV.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t table
timeout 120 $MPI -np 2 "$H" run --backend cuda --transport all --size 1024x1024 --iters 40 --depth 1,2 --verify \
    >"$OUT/all_table.txt" 2>"$OUT/all_table.err"
echo "exit $?"; cat "$OUT/all_table.err"; grep -A8 "^transport  " "$OUT/all_table.txt"
t csv
timeout 120 $MPI -np 2 "$H" run --backend cuda --transport all --size 64x64x64 --iters 8 --depth 1 --format csv --quiet \
    >"$OUT/all.csv" 2>"$OUT/all_csv.err"
echo "exit $?, $(grep -c '^3,' "$OUT/all.csv") rows"; cat "$OUT/all_csv.err"
t done
