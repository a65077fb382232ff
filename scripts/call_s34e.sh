#!/usr/bin/env bash
# Session 34, call 5, two H200s (nvidia-h200-x2; timings on GPU 0). The final build (2D marches halve
# down to 2 rows): bit for bit, the one- and two-rank tests and the sanitizer on it; the 2D
# latency-bound rows against the old rule (c8: -DHX_MIN_CHUNK2D=8) with and without --graph, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s34e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify2d end halox
verify3d end halox
t roof2d
roof_args "c8:halox-c8 end:halox c8g:halox-c8:-:--graph endg:halox:-:--graph" \
    "--size2d 4096 --size3d 8 --small 1024 --no-fused --repeat 7" 3 roof2d
t tests
gpu_tests 480 gpu_roofline gpu_sanitizer gpu_np1 gpu_np2 gpu_graph_np2
t done
