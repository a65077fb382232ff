#!/usr/bin/env bash
# Session 32, call 8: the register marches with the largest L1 (cudaFuncAttributePreferredShared-
# MemoryCarveout 0: halox-co0) and, as a check of how much L1 matters, the smallest (100: co100),
# against the driver's choice (base: 32 KiB of shared memory, 224 KiB of L1). 4 sizes, 3 rounds;
# Nsight Compute's L1 and L2 figures and the shared-memory configuration for star13 fp32 512^3.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t roofline
roof_env "base:halox-base:- co0:halox-co0:- co100:halox-co100:-" "512 256x256x512 384 128" 3 roof
t ncu
M=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,launch__shared_mem_config_size,dram__bytes_read.sum
for v in base co0 co100; do
    timeout 120 ncu --kernel-name-base demangled -k regex:"sweep3d<float, \(int\)2" -c 1 --metrics "$M" "$B/halox-$v" roofline --backend cuda \
        --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$v.txt" 2>&1
    echo "== $v"; grep -E "^ +[a-z]" "$OUT/ncu_$v.txt" | awk '{print "  " $1, $NF}'
done
t done
