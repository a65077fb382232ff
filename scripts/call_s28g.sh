#!/usr/bin/env bash
# Session 28, call 9: the final build, after the two-floats march became sweep3d_walk_body with a
# lanes type (the same PTX but for one compare's operand order) and cu_sweep3d_per_sm's cache a
# zero-initialised table of counts plus one (the count drives the 3D march length and the
# two-floats rule): bit for bit by the rule and forced either way, one roofline round beside call
# 6's figures, and the GPU tests that run plain 3D sweeps. Usage: scripts/call_s28g.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28g
. scripts/device_run.sh
bundle_on_exit
t verify
verify3d rule halox
verify3d pair1 halox HALOX_SWEEP_PAIR=1
verify3d pair0 halox HALOX_SWEEP_PAIR=0
t roofline
roof_env "final:halox:-" "512 256x256x512 256x140x140" 1 final
t "GPU tests"
gpu_tests 300 gpu_np1 gpu_sanitizer gpu_np2
t done
