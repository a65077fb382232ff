#!/usr/bin/env bash
# Session 31, call 3: fields whose first owned cell starts a 128-byte line (hx_field_lead) in the
# library. GPU tests touched by it (gpu_np1, gpu_graph_np1 with its new lead cases, gpu_sanitizer
# with its new memcheck cases); then `halox roofline` (--size2d 256, plain 3D rows) side by side:
# the rule (lead for radius 1), no lead (HALOX_FIELD_LEAD=0), lead for every stencil (=1); 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31c
. scripts/device_run.sh
bundle_on_exit
t tests
gpu_tests 420 gpu_np1 gpu_graph_np1 gpu_sanitizer
t roofline
roof_env "rule:halox:- nolead:halox:HALOX_FIELD_LEAD=0 lead:halox:HALOX_FIELD_LEAD=1" "512 256x256x512" 3 roof
t done
