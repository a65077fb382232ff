#!/usr/bin/env bash
# Session 36, call 3, one H200 (nvidia-h200). star13 fp64 takes the pipelined march (cp.async ring,
# no L2 prefetch) because the register march measured slower before the L2 prefetches existed
# (session 6); the register march of doubles of radius 2 was never timed with them. Builds:
# pf2 / pf4 (-DHX_SWEEP3D_PF=2 / 4: every register march prefetches that many planes beyond the
# entering one), pf2a2 (also -DHX_SWEEP3D_AHEAD=2), each with HALOX_TILE's PIPE 0 (the register
# march) at 16 and 8 planes, beside the rule (halox) and the register march without prefetch.
# Only the star13 double rows are the question (the macros change other rows too). 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox:- reg16:halox:HALOX_TILE=4,8,8,16,0+ pf2c16:halox-pf2:HALOX_TILE=4,8,8,16,0+ pf2c8:halox-pf2:HALOX_TILE=4,8,8,8,0+"
E="$E pf2a2c16:halox-pf2a2:HALOX_TILE=4,8,8,16,0+ pf2a2c8:halox-pf2a2:HALOX_TILE=4,8,8,8,0+ pf4c16:halox-pf4:HALOX_TILE=4,8,8,16,0+"
t roof
roof_env "$E" "512 256x256x512 384" 3 roof | grep "star13 double"
t done
