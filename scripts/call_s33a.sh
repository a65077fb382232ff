#!/usr/bin/env bash
# Session 33, call 1: plain sweeps launched as programmatic dependents (HALOX_SWEEP_PDL, default on
# for sm_90): bit for bit (3D and 2D), the GPU suite's one-rank tests (graphs capture the launches),
# and the 3D rows with it off and on against the session's start (halox-head), 3 rounds; then the
# 2D latency-bound rows, off and on, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d pdl halox
verify3d nopdl halox HALOX_SWEEP_PDL=0
timeout 100 $H run --backend cuda --stencil jacobi5,star9 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 \
    --verify --format csv --quiet --size 67x45,300x130 --depth 1,3 >"$OUT/verify2d.csv" 2>"$OUT/verify2d.err"
echo "2d rc=$? runs $(($(wc -l <"$OUT/verify2d.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2d.csv" | sort | uniq -c | xargs)"
t roofline
roof_env "head:halox-head:- off:halox:HALOX_SWEEP_PDL=0 on:halox:-" "128 256 256x256x512 512" 3 roof
t small2d
for r in 1 2 3; do
    for e in head:halox-head:- off:halox:HALOX_SWEEP_PDL=0 on:halox:-; do
        IFS=: read -r label b envs <<<"$e"; [ "$envs" = - ] && envs=
        env $envs timeout 60 "$(bin_of "x:$b")" roofline --backend cuda --size2d 4096 --size3d 64 --small 1024 --no-fused --repeat 7 2>&1 |
            awk -v b="$label" -v r="$r" '/^(jacobi5|star9)/ { print b, r, $0 }'
    done
done >"$OUT/small.txt"
python3 scripts/side_by_side_medians.py "$OUT/small.txt" head off on | tee "$OUT/small_medians.txt"
t tests
gpu_tests 300 gpu_np1 gpu_graph_np1
t done
