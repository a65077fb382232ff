#!/usr/bin/env bash
# The plain sweeps' L2 prefetches (sweep2d_prefetch, sweep3d_prefetch) on one GPU, bit for bit:
# `halox run --verify` over stencils, dtypes, boundaries, depths and overlap, with the prefetching
# kernels forced at small, odd sizes (HALOX_SWEEP_PREFETCH=1) and chosen by the L2 rule at sizes
# whose fields L2 does not hold; then the sweep GPU tests. About 3 minutes.
# Usage: scripts/prefetch_checks.sh [build-dev]
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=prefetch
. scripts/device_run.sh
bundle_on_exit
nvidia-smi -L
verify() { # label, env, halox run options...: one job over the lists, one line
    local label=$1 env=$2
    shift 2
    env $env timeout 300 "$H" run --backend cuda "$@" --warmup 0 --verify --format csv --quiet >"$OUT/$label.csv" 2>"$OUT/$label.err"
    echo "$label rc=$? runs=$(($(wc -l <"$OUT/$label.csv") - 1)) bit-identical=$(awk -F, 'NR > 1 && $50 == 1' "$OUT/$label.csv" | wc -l)"
    grep -m2 "halox: error" "$OUT/$label.err"
}
t "forced, small odd sizes"
verify f3d HALOX_SWEEP_PREFETCH=1 --size 130x67x41 --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed \
    --depth 1,3 --overlap=on,off --iters 7
verify f2d HALOX_SWEEP_PREFETCH=1 --size 1030x301 --stencil jacobi5,star9 --dtype float,double --boundary periodic,fixed \
    --depth 1,3 --overlap=on,off --iters 7
t "by the L2 rule, fields beyond L2"
verify l3d HALOX_SWEEP_PREFETCH= --size 300x260x250 --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed \
    --depth 1,2 --iters 4
verify l2d HALOX_SWEEP_PREFETCH= --size 4100x4000 --stencil jacobi5,star9 --dtype float,double --boundary periodic,fixed \
    --depth 1,2 --iters 4
t "GPU tests"
(cd "$B" && timeout 400 ctest -R "^(gpu_np1|gpu_fuse_np1|gpu_graph_np1)$" --output-on-failure) >"$OUT/ctest.txt" 2>&1
tail -4 "$OUT/ctest.txt"
t done
