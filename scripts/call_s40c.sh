#!/usr/bin/env bash
# Session 40, call 3, one H200: issue 9's plain 3D sweeps on the final code, for the closing note
# (512^3, the 4-GPU ranks' blocks 512x256x256 and 256x256x512, 3 rounds; 128^3 graph-replayed, 2
# rounds), and the ceiling an SM-driven copy has against cudaMemcpyAsync (scripts/bench/fabric.cu,
# built here with nvcc and carried as $B/fabric) at the fields' sizes.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t fabric
for mib in 512 128 64 8; do timeout 60 "$B/fabric" $mib; done | tee "$OUT/fabric.txt"
t roof
roof_env "rule:halox:-" "512 512x256x256 256x256x512" 3 roof
t roof128
roof_args "rule:halox:-:-" "--size2d 256 --size3d 128 --small 0 --no-fused --repeat 7 --graph" 2 roof_128
t done
