#!/usr/bin/env bash
# Session 36, call 14, one H200 (nvidia-h200). The rule's build with radius 1 taking the pair march
# only where the 16-byte launch fills the places the multiprocessors hold once, not twice (cu_sweep):
# one rank's --verify of jacobi7 at 256^3 and 288^3 (where the rule changed: both dtypes, periodic and
# fixed, depths 1 and 3), its rows beside the previous rule's (halox-tune: that build with the
# HX_CHUNK3 hook, unset) at 192^3, 256^3, 384^3 (3 rounds), then gpu_np1.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36n
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify_plain verify_rule jacobi7 256x256x256,288x288x288 rule halox
t roof
roof_env "old:halox-tune:- new:halox:-" "192 256 384" 3 roof | grep "jacobi7 float"
t tests
gpu_tests 170 gpu_np1
t done
