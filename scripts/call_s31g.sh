#!/usr/bin/env bash
# Session 31, call 7: zigzag marches (HX_SWEEP3D_ZIGZAG=1 in sweep3d.cuh: odd layers of the launch
# march down, so that layers resident side by side read the planes they share at the same time).
# The previous commit's build (prev), the new walk body as built by default (def, marches up) and
# the zigzag build, `halox roofline` plain 3D rows side by side, 3 rounds; the zigzag build's
# --verify runs; Nsight Compute's DRAM bytes of jacobi7 fp32 at 512^3 (16-byte march) and of the
# pair march (forced), default against zigzag.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d zig halox-zig
t roof
roof_env "prev:halox-prev:- def:halox-def:- zig:halox-zig:-" "512 256x256x512 384 448 128" 3 roof
t ncu
ncu_dram def16 halox-def 'sweep3d<float, \(int\)1'
ncu_dram zig16 halox-zig 'sweep3d<float, \(int\)1'
ncu_dram defpair halox-def 'sweep3d_pair<\(int\)1>' HALOX_SWEEP_PAIR=1
ncu_dram zigpair halox-zig 'sweep3d_pair<\(int\)1>' HALOX_SWEEP_PAIR=1
t done
