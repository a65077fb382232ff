#!/usr/bin/env bash
# Session 29, call 10 (issues 9, 13; nvidia-h200-x4): the final build at four ranks. Bit for bit:
# `halox run --verify` of the plain 3D sweeps at 4 ranks (jacobi7, star13, both dtypes, periodic and
# fixed, depths 1 and 2, staged and direct, rows that end one lane past whole block columns); then
# issue 9's four-GPU targets (scripts/x4_targets.sh stages i9 i9weak).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29j
. scripts/device_run.sh
bundle_on_exit
t verify4
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
timeout 200 $MPI -np 4 $H run $common --size 512x40x48,256x256x64,130x70x64 --depth 1,2 --pattern staged,direct >"$OUT/verify_np4.csv" 2>"$OUT/verify_np4.err"
echo "np4 rc=$? runs $(($(wc -l <"$OUT/verify_np4.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify_np4.csv" | sort | uniq -c | xargs)"
grep -h "error" "$OUT/verify_np4.err" | head -3
t targets
OUT=$OUT/x4 STAGES="i9 i9weak" scripts/x4_targets.sh "$B" 2>&1 | tail -60
t done
