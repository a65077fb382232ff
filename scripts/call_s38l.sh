#!/usr/bin/env bash
# Session 38, call 12, one H200 (nvidia-h200). The rule's lanes threshold at 85% (was 90%): star13
# fp32 448^3 (4 tiles of 28 lanes) now takes the bulk-copy march. One rank's --verify by the rule
# at 448^3 and 320^3 (star13) and of the plain 3D sweeps; gpu_np1; roofline rows of the 90% build
# (rule90), this one (new) and the register marches (reg) at 448^3, 416^3 and 320^3, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s38l
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify_plain verify_big star13 448x448x448,320x320x320 big halox
t tests
gpu_tests 200 gpu_np1
t roof
roof_env "rule90:halox-rule90:- new:halox:- reg:halox:HALOX_SWEEP_TMA=0" "448 416 320" 3 roof
t done
