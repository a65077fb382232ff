#!/usr/bin/env bash
# Session 37, call 12, one H200 (nvidia-h200). The final build: one rank's --verify of the plain 3D
# sweeps by the rule and forced (HALOX_SWEEP_TMA=1), gpu_np1; then Nsight Compute's fabric and DRAM
# counters for the bulk-copy march (star13 fp32 forced, fp64 by the rule) and for the register
# march (star13 fp32, HALOX_SWEEP_TMA=0) at 512^3, the 21st launch, clocks and caches as in a run.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s37l
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify3d tma halox HALOX_SWEEP_TMA=1
t tests
gpu_tests 200 gpu_np1
t ncu
M="$FABRIC_METRICS,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed"
ncu_roof tma_f32 halox "sweep3d_tma<float, .int.2" 512 "$M" HALOX_SWEEP_TMA=1
ncu_roof tma_f64 halox "sweep3d_tma<double, .int.2" 512 "$M"
ncu_roof reg_f32 halox "sweep3d<float, .int.2" 512 "$M" HALOX_SWEEP_TMA=0
t done
