#!/usr/bin/env bash
# Session 33, call 7, not run (device time spent): for the next session's first call, on two H200s
# (nvidia-h200-x2; timings on GPU 0). The final build, where only 2D sweeps and 3D floats of radius 1
# flip their layers: bit for bit (the flip forced for every stencil too), the plain 3D rows at four
# sizes and the 2D rows at 4096^2 against HALOX_SWEEP_FLIP=0 and the PDL commit (pdl: halox-pdl.gz,
# a build of 81416af), 3 rounds; the one- and two-rank tests.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s33g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d end halox
verify3d flipall halox HALOX_SWEEP_FLIP=1
t roofline
roof_env "pdl:halox-pdl:- flipoff:halox:HALOX_SWEEP_FLIP=0 end:halox:-" "128 256 256x256x512 512" 3 roof
for r in 1 2 3; do
    for e in pdl:halox-pdl:- end:halox:-; do
        IFS=: read -r label b envs <<<"$e"; [ "$envs" = - ] && envs=
        env $envs timeout 60 "$(bin_of "x:$b")" roofline --backend cuda --size2d 4096 --size3d 8 --small 0 --no-fused --repeat 7 2>&1 |
            awk -v b="$label" -v r="$r" '/^(jacobi5|star9)/ { print b, r, $0 }'
    done
done >"$OUT/rows2d.txt"
python3 scripts/side_by_side_medians.py "$OUT/rows2d.txt" pdl end | tee "$OUT/rows2d_medians.txt"
t tests
gpu_tests 450 gpu_np1 gpu_graph_np1 gpu_np2 gpu_graph_np2
t done
