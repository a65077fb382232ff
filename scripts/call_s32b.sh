#!/usr/bin/env bash
# Session 32, call 2: the pair march with x neighbours by shuffle (halox-xsp: radius 1; -xsp12: both
# radii) against the tree's build (base, the shuffle off) and session 31's kernels (head, to check
# that base's pair march is the same); the pair sizes (256x256x512, 320^3, 384^3) and 128^3, 3
# rounds. Nsight Compute's stall and memory sections for star13 fp32 512^3 (the 16-byte march).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d xsp halox-xsp
verify3d xsp12 halox-xsp12
t roofline
roof_env "head:halox-head:- base:halox-base:- xsp:halox-xsp:- xsp12:halox-xsp12:-" "256x256x512 320 384 128" 3 roof
t ncu
timeout 120 ncu --kernel-name-base demangled -k regex:"sweep3d<float, \(int\)2" -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section LaunchStats \
    --section SchedulerStats --section InstructionStats "$B/halox-base" roofline --backend cuda \
    --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_full_base.txt" 2>&1
grep -E "Duration|Throughput|Registers|Achieved Occupancy|Warp Cycles Per Issued|Stall|Block Limit|Hit Rate|Mem Busy|Max Bandwidth|Issued|Eligible" "$OUT/ncu_full_base.txt" | head -50
t done
