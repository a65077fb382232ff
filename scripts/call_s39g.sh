#!/usr/bin/env bash
# Session 39, call 7, one H200 (nvidia-h200): the plain 3D sweeps at 512x256x256, the block a rank
# holds in the 4-GPU 512^3 runs with the default grid (1x2x2; 256x256x512 needs --grid 2x2x1),
# beside 256x256x512 and 512^3, 3 rounds (issue 9).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roof
roof_env "rule:halox:-" "512x256x256 256x256x512 512" 3 roof
t done
