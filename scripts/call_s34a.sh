#!/usr/bin/env bash
# Session 34, call 1 (session 33's unrun call 7, whose script it replaces), on two H200s (nvidia-h200-x2; timings on GPU 0).
# The build of 70f0f1b, where only 2D sweeps and 3D floats of radius 1 flip their layers: bit for bit
# (the flip forced for every stencil too), the plain 3D rows at four sizes and the 2D rows at 4096^2
# against HALOX_SWEEP_FLIP=0 and HALOX_PDL=0 (the PDL commit's binary was not kept), 3 rounds; the
# one- and two-rank tests.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s34a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d end halox
verify3d flipall halox HALOX_SWEEP_FLIP=1
t tests
gpu_tests 450 gpu_np1 gpu_graph_np1 gpu_np2 gpu_graph_np2
t roofline
roof_env "nopdl:halox:HALOX_PDL=0 flipoff:halox:HALOX_SWEEP_FLIP=0 end:halox:-" "128 256 256x256x512 512" 3 roof
for r in 1 2 3; do
    for e in nopdl:halox:HALOX_PDL=0 end:halox:-; do
        IFS=: read -r label b envs <<<"$e"; [ "$envs" = - ] && envs=
        env $envs timeout 60 "$(bin_of "x:$b")" roofline --backend cuda --size2d 4096 --size3d 8 --small 0 --no-fused --repeat 7 2>&1 |
            awk -v b="$label" -v r="$r" '/^(jacobi5|star9)/ { print b, r, $0 }'
    done
done >"$OUT/rows2d.txt"
python3 scripts/side_by_side_medians.py "$OUT/rows2d.txt" nopdl end | tee "$OUT/rows2d_medians.txt"
t done
