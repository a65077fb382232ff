#!/usr/bin/env bash
# Session 27, call 7 (issue 9): fewer resident marches (so fewer chunk layers at once: better DRAM
# locality and z-halo reuse in L2?), capped by unused shared memory (HALOX_SWEEP3D_SMEM bytes a block in
# halox-cap, the default 1 plane ahead; halox-cap3, 3 planes ahead), beside the default.
# The variants: docs/results/session27/experiments.patch. Usage: scripts/call_s27g.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s27g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
verify3d cap3 halox-cap3 HALOX_SWEEP3D_SMEM=72000
t "roofline side by side"
S=HALOX_SWEEP3D_SMEM
roof_env "base:halox:- c0:halox-cap:$S=0 c4:halox-cap:$S=50000 c3:halox-cap:$S=72000 c2:halox-cap:$S=110000 \
a0:halox-cap3:$S=0 a3:halox-cap3:$S=72000 a2:halox-cap3:$S=110000" "512 508x512x512 256x256x512 512x512x256" 2 cap
t "ncu: DRAM bytes, jacobi7 512^3 fp32"
ncu_dram c3 halox-cap 'sweep3d<float, \(int\)1, \(int\)16' $S=72000
ncu_dram a3 halox-cap3 'sweep3d<float, \(int\)1, \(int\)16' $S=72000
ncu_dram a2 halox-cap3 'sweep3d<float, \(int\)1, \(int\)16' $S=110000
t done
