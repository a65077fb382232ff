#!/usr/bin/env bash
# Session 39, call 1 (nvidia-h200-x4): the bulk-copy march's review (one row width, one map base)
# checked by one rank's --verify by the rule and forced, and at 4 ranks forced; gpu_np4 on the code
# of sessions 37-39 (never run at 4 ranks); then the network paths (scripts/netpath.sh, issue 12).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d_tma halox
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
HALOX_SWEEP_TMA=1 timeout 150 $MPI -x HALOX_SWEEP_TMA -np 4 $H run $common --size 130x70x64,512x40x48 --depth 1,2 \
    --pattern staged,direct >"$OUT/verify_tma_np4.csv" 2>"$OUT/verify_tma_np4.err"
echo "tma np4 rc=$? runs $(($(wc -l <"$OUT/verify_tma_np4.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify_tma_np4.csv" | sort | uniq -c | xargs)"
t tests
gpu_tests 150 gpu_np4
t netpath
OUT=$OUT/net DEVICE_NAME=net timeout 380 scripts/netpath.sh "$B"
t done
