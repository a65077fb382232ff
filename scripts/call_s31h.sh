#!/usr/bin/env bash
# Session 31, call 8: the session's last kernel commit against the session's start (0ccb39a), one
# H200. GPU tests the change touches (gpu_np1, gpu_graph_np1 with its lead cases, gpu_sanitizer with
# its memcheck of fields with a lead); the new build's --verify runs; `halox roofline` plain 3D rows
# (--size2d 256) side by side, 5 rounds, medians.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t tests
gpu_tests 400 gpu_np1 gpu_graph_np1 gpu_sanitizer
t verify
verify3d new halox
t roof
roof_env "start:halox-start:- new:halox:-" "512 256x256x512 384 448 128" 5 roof
t done
