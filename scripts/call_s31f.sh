#!/usr/bin/env bash
# Session 31, call 6: where the pair march stops paying for jacobi7 fp32 on fields with a lead.
# The rule takes it where the 16-byte march's resident blocks (6 a multiprocessor) hold two or more
# chunk layers of the launch; at 512^3 (3.1 layers) the 16-byte march is now faster. Pair against
# 16-byte (HALOX_SWEEP_PAIR=0) at sizes holding 3.1 to 12 layers, 3 rounds; then Nsight Compute's
# DRAM bytes of the 16-byte march at 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s31f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t pair
roof_env "pair:halox-def:HALOX_SWEEP_PAIR=1 p16:halox-def:HALOX_SWEEP_PAIR=0" \
    "512 512x512x256 512x448x512 448 512x384x512 384 320 256 256x256x512 128" 3 roof_pair
t ncu
ncu_dram p16 halox-def 'sweep3d<float, \(int\)1' HALOX_SWEEP_PAIR=0
ncu_dram pair halox-def 'sweep3d_pair<\(int\)1>' HALOX_SWEEP_PAIR=1
t done
