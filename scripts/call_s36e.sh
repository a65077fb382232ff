#!/usr/bin/env bash
# This call's tuning hooks (-DHX_TUNE_*, HX_SWEEP3D_ZIGZAG in the index march) are not in the tree: `git apply
# docs/results/session36/tuning_hooks.patch`, then scripts/variant_build.sh as in the header.
# Session 36, call 5, one H200 (nvidia-h200). Call 4's probe (scripts/bench/march.cu): a copy in the
# register march's order with a radius-2 stencil's halo reads runs at 91% of a copy with 16-plane
# marches and 97% with 8, where the real star13 march lost with 8 (session 29): its march starts
# load 2R + AHEAD planes that no prefetch covered. ho3 / ho6 (-DHX_TUNE_HANDOFF=3 / 6): a march's L2
# prefetches run on into the next layer's first 3 / 6 planes, so the next march's first loads hit
# L2. Each at the rule's march and at 8 planes (16-byte: HALOX_TILE; pair: HX_CHUNK3), beside the
# rule (halox-tune: the rule's build with the HX_CHUNK3 hook), 3 rounds, 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
E="base:halox-tune:- base8:halox-tune:HALOX_TILE=4,8,8,8+HX_CHUNK3=8 ho3:halox-ho3:- ho3c8:halox-ho3:HALOX_TILE=4,8,8,8+HX_CHUNK3=8"
E="$E ho6:halox-ho6:- ho6c8:halox-ho6:HALOX_TILE=4,8,8,8+HX_CHUNK3=8"
t roof
roof_env "$E" "512 256x256x512" 3 roof
t done
