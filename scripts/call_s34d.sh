#!/usr/bin/env bash
# Session 34, call 4, two H200s (nvidia-h200-x2; timings on GPU 0). The build whose 2D marches halve
# down to 4 rows (chunk-2 kernels built for HALOX_TILE): bit for bit (the rule, 2-row marches by the
# rule (m2: -DHX_MIN_CHUNK2D=2) and forced, 3D 4-plane marches forced), the one- and two-rank tests,
# the sanitizer; the 2D latency-bound rows with and without --graph against the old rule (c8:
# -DHX_MIN_CHUNK2D=8) and m2, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s34d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify2d end halox
verify2d m2 halox-m2
verify2d tile2 halox HALOX_TILE=4,2,8,8
verify3d end halox
verify3d tile4 halox HALOX_TILE=4,8,8,4
t roof2d
roof_args "c8:halox-c8 end:halox m2:halox-m2 c8g:halox-c8:-:--graph endg:halox:-:--graph m2g:halox-m2:-:--graph" \
    "--size2d 2048 --size3d 8 --small 1024 --no-fused --repeat 7" 3 roof2d
t tests
gpu_tests 420 gpu_roofline gpu_np1 gpu_np2 gpu_graph_np1 gpu_sanitizer
t done
