#!/usr/bin/env bash
# Session 33, call 4 (two H200s; timings on GPU 0): the final build (plain sweeps and pack/unpack as
# programmatic dependents, fused passes plain) against the session's start (halox-head): bit for
# bit, the plain 3D rows at four sizes, the full roofline at 8192^2 / 512^3 (fused rows too) and the
# latency-bound 2D rows, 3 rounds; then the one-rank GPU tests.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d end halox
timeout 100 $H run --backend cuda --stencil jacobi5,star9 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 \
    --verify --format csv --quiet --size 67x45,300x130 --depth 1,3 >"$OUT/verify2d.csv" 2>"$OUT/verify2d.err"
echo "2d rc=$? runs $(($(wc -l <"$OUT/verify2d.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2d.csv" | sort | uniq -c | xargs)"
t roofline
roof_env "head:halox-head:- end:halox:-" "128 256 256x256x512" 3 roof
for r in 1 2 3; do
    for b in head:halox-head end:halox; do
        timeout 120 "$(bin_of "x:$b")" roofline --backend cuda --size2d 8192 --size3d 512 --small 1024 --repeat 7 2>&1 |
            awk -v b="${b%%:*}" -v r="$r" '/^(jacobi|star)/ { print b, r, $0 }'
    done
done >"$OUT/full.txt"
python3 scripts/side_by_side_medians.py "$OUT/full.txt" head end | tee "$OUT/full_medians.txt"
t tests
gpu_tests 280 gpu_np1 gpu_graph_np1 gpu_sanitizer gpu_fuse_np1
t done
