#!/usr/bin/env bash
# Session 32, call 13: two small leads from calls 3 and 11, 5 rounds over 5 sizes: jacobi7 fp64
# with 2 planes ahead instead of 1 (halox-a2d: doubles of radius 1 only), and the pipelined star13
# fp64 march in 8-plane marches everywhere (HALOX_TILE=4,8,8,8: the rule gives 16 where under two
# layers are resident), against the tree's build (base).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32m
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d a2d halox-a2d
t roofline
roof_env "base:halox-base:- a2d:halox-a2d:- c8:halox-base:HALOX_TILE=4,8,8,8+HX_NONE=1" "512 448 384 320 256x256x512" 5 roof
t done
