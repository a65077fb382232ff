#!/usr/bin/env bash
# This call's tuning hooks (-DHX_TUNE_*, HX_SWEEP3D_ZIGZAG in the index march) are not in the tree: `git apply
# docs/results/session36/tuning_hooks.patch`, then scripts/variant_build.sh as in the header.
# Session 36, call 7, one H200 (nvidia-h200). Call 6's probe: a radius-2 march's own data movement
# reaches 85% of memcpy with 16-plane marches of 8-row blocks, 91% with 8-plane marches and 94%
# with 8-plane marches of 16-row blocks. The real march with 16-row blocks (l16t: -DHX_TUNE_LANES=16,
# a warp two rows of 16 lanes; l16h: also -DHX_TUNE_HANDOFF=3) at the rule's march and at 8 planes
# (HALOX_TILE / HX_CHUNK3), beside the rule (halox-tune), 3 rounds, 512^3 and 256x256x512.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s36g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
C8=HALOX_TILE=4,8,8,8+HX_CHUNK3=8
E="base:halox-tune:- l16:halox-l16t:- l16c8:halox-l16t:$C8 l16hc8:halox-l16h:$C8"
t roof
roof_env "$E" "512 256x256x512" 3 roof
t done
