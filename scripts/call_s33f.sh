#!/usr/bin/env bash
# Session 33, call 6 (one H200): a plain sweep that reads what the sweep before it wrote takes its
# layers last to first (HALOX_SWEEP_FLIP, default on), so it starts on planes still in L2: bit for
# bit, then the plain 3D rows at four sizes and 2D rows at 4096^2 and 8192^2, against the session's
# start (head), the PDL commit (pdl) and itself with HALOX_SWEEP_FLIP=0, 3 rounds; one-rank tests.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d end halox
timeout 100 $H run --backend cuda --stencil jacobi5,star9 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 \
    --verify --format csv --quiet --size 67x45,300x130 --depth 1,3 >"$OUT/verify2d.csv" 2>"$OUT/verify2d.err"
echo "2d rc=$? runs $(($(wc -l <"$OUT/verify2d.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2d.csv" | sort | uniq -c | xargs)"
t roofline
roof_env "head:halox-head:- pdl:halox-pdl:- flipoff:halox:HALOX_SWEEP_FLIP=0 end:halox:-" "128 256 256x256x512 512" 3 roof
for r in 1 2 3; do
    for e in head:halox-head:- flipoff:halox:HALOX_SWEEP_FLIP=0 end:halox:-; do
        IFS=: read -r label b envs <<<"$e"; [ "$envs" = - ] && envs=
        for n in 4096 8192; do
            env $envs timeout 60 "$(bin_of "x:$b")" roofline --backend cuda --size2d $n --size3d 8 --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b="$label" -v r="$r" '/^(jacobi5|star9)/ { print b, r, $0 }'
        done
    done
done >"$OUT/rows2d.txt"
python3 scripts/side_by_side_medians.py "$OUT/rows2d.txt" head flipoff end | tee "$OUT/rows2d_medians.txt"
t tests
gpu_tests 250 gpu_np1 gpu_graph_np1
t done
