#!/usr/bin/env bash
# Session 29, call 16: after the review mends (ef1709b: one predicate for the march and pair rules,
# march_in_tail): bit for bit at one and two ranks and the one-GPU tests, one H200.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29p
. scripts/device_run.sh
bundle_on_exit
t verify
verify3d rule halox
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
timeout 120 $MPI -np 2 $H run $common --size 256x40x24,512x20x18,130x70x64 --depth 1,2 >"$OUT/verify_np2.csv" 2>"$OUT/verify_np2.err"
echo "np2 rc=$? runs $(($(wc -l <"$OUT/verify_np2.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify_np2.csv" | sort | uniq -c | xargs)"
t "GPU tests"
gpu_tests 400 gpu_np1 gpu_np2 gpu_sanitizer
t done
