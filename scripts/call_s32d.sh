#!/usr/bin/env bash
# Session 32, call 4: each side's two x neighbours of radius 2 as one vector load (load_xrow_sides,
# halox-xsides: star13 fp32's march 193 -> 168 instructions a step) against the tree's build
# (base, the same PTX as session 31's end); with the pipelined fp64 star13 replaced by the register
# march (HALOX_TILE=4,8,8,16,0) in both; 4 sizes, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d xsides halox-xsides
verify3d xsides_reg halox-xsides HALOX_TILE=4,8,8,16,0
t roofline
roof_env "base:halox-base:- xsides:halox-xsides:- basereg:halox-base:HALOX_TILE=4,8,8,16,0 xsidesreg:halox-xsides:HALOX_TILE=4,8,8,16,0" "512 256x256x512 384 128" 3 roof
t done
