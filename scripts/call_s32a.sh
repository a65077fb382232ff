#!/usr/bin/env bash
# Session 32, call 1: x neighbours by warp shuffle in the one-row 3D marches (shfl_xrow; tuning
# builds halox-xs2: radius 2 only, halox-xs3: both radii). Bit for bit (verify3d), then `halox
# roofline` (--size2d 256, plain 3D rows) side by side with the build as it is, 3 rounds; star13
# with a lead forced (xs2lead); Nsight Compute's stall and memory sections for star13 fp32 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32a
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d base halox-base
verify3d xs2 halox-xs2
verify3d xs3 halox-xs3
verify3d xs2lead halox-xs2 HALOX_FIELD_LEAD=1
t roofline
roof_env "base:halox-base:- xs2:halox-xs2:- xs3:halox-xs3:- xs2lead:halox-xs2:HALOX_FIELD_LEAD=1" "512 256x256x512 128" 3 roof
t ncu
for v in base:halox-base xs2:halox-xs2; do
    l=${v%%:*} b=$B/${v#*:}
    timeout 120 ncu --kernel-name-base demangled -k regex:"sweep3d<float, 2" -c 1 --section SpeedOfLight --section Occupancy \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats "$b" roofline --backend cuda \
        --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_full_$l.txt" 2>&1
    grep -E "Duration|Throughput|Registers|Achieved Occupancy|Warp Cycles Per Issued|Stall|Block Limit|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth" "$OUT/ncu_full_$l.txt" | head -40
done
t done
