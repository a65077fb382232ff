#!/usr/bin/env bash
# Session 34, call 2, one H200 (nvidia-h200). The build with the flip kept to fields that overflow L2
# and `halox roofline`'s own-copy column and --graph: gpu_roofline and gpu_np1; plain rows with and
# without --graph at 128^3 (and the 2D latency-bound rows), 256x256x512 and 512^3; the pair march
# halved below 8 planes (minc4, minc2: -DHX_PAIR_MIN_CHUNK; pair4: the pair march forced), bit for bit
# and timed; 3 rounds (512^3: 2).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s34b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d minc4 halox-minc4 HALOX_SWEEP_PAIR=1
verify3d minc2 halox-minc2 HALOX_SWEEP_PAIR=1
t tests
gpu_tests 240 gpu_roofline gpu_np1
t roof128
roof_args "end:halox graph:halox:-:--graph minc4:halox-minc4 minc2:halox-minc2 pair4:halox-minc4:HALOX_SWEEP_PAIR=1 pair4g:halox-minc4:HALOX_SWEEP_PAIR=1:--graph" \
    "--size2d 2048 --size3d 128 --small 1024 --no-fused --repeat 7" 3 roof128
t roof256x512
roof_args "end:halox graph:halox:-:--graph minc4:halox-minc4" "--size2d 256 --size3d 256x256x512 --small 0 --no-fused --repeat 7" 3 roof256x512
t roof512
roof_args "end:halox graph:halox:-:--graph" "--size2d 256 --size3d 512 --small 0 --no-fused --repeat 7" 2 roof512
t done
