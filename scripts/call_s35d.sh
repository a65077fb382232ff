#!/usr/bin/env bash
# Session 35, call 4, one H200 (nvidia-h200). Call 3 found 6-plane pair marches 1-5% faster than
# the rule's at 128^3 to 256^3 (star13 fp32 every size, jacobi7 fp32 192^3 and 256^3) and the
# pipelined march (star13 fp64) slower at any shorter length. The same at the larger boxes, where
# the rule gives the pair march 8 or 16 planes: HX_CHUNK3 6, 8, 12 beside the rule, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox:- c6:halox-tune:HX_CHUNK3=6 c8:halox-tune:HX_CHUNK3=8 c12:halox-tune:HX_CHUNK3=12"
t roof
roof_env "$E" "320 384 256x256x512" 3 roof | grep -E "float"
t done
