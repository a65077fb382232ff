#!/usr/bin/env bash
# Session 34, call 3, one H200 (nvidia-h200). Shorter marches where a launch has few blocks: small
# grids' sweeps are bound by the march's steps, one L2 round trip each (call 2: under --graph, 2D
# sweeps from 128^2 to 1024^2 all took 3.3-3.7 us). Builds: end (march halving stops at 8, as
# before; chunk 4 kernels now built), c4 (halving down to 4: -DHX_MIN_CHUNK=4), c4p2 (and the pair
# and pipelined marches down to 2), p4 (only those two down to 4). Bit for bit (3D, 3D with the pair
# march forced, 2D), gpu_np1 and gpu_roofline on end; roofline with and without --graph at 128^3 and
# the 2D latency-bound rows, 256x128x128 (a 4-GPU rank's block of 256^3), 256^3; 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s34c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
for v in c4 c4p2 p4; do
    verify3d "$v" "halox-$v"
    verify3d "${v}pair" "halox-$v" HALOX_SWEEP_PAIR=1
done
verify2d c4 halox-c4
verify3d end halox
verify2d end halox
t tests
gpu_tests 300 gpu_roofline gpu_np1
t roof128
E="end:halox c4:halox-c4 c4p2:halox-c4p2 p4:halox-p4"
EG="endg:halox:-:--graph c4g:halox-c4:-:--graph c4p2g:halox-c4p2:-:--graph p4g:halox-p4:-:--graph"
roof_args "$E $EG" "--size2d 2048 --size3d 128 --small 1024 --no-fused --repeat 7" 3 roof128
t roof256x128
roof_args "$E $EG" "--size2d 256 --size3d 256x128x128 --small 0 --no-fused --repeat 7" 3 roof256x128
t roof256
roof_args "$E endg:halox:-:--graph c4g:halox-c4:-:--graph" "--size2d 256 --size3d 256 --small 0 --no-fused --repeat 7" 3 roof256
t done
