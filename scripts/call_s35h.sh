#!/usr/bin/env bash
# Session 35, call 8, one H200 (nvidia-h200). Call 7: the fabric between the L2 partitions runs at
# 88% in a plain copy kernel and 95% in the 512^3 sweeps, whose time follows its requests (copy
# 8.3 M, jacobi7 fp32 10.5 M, star13 fp32 13.2 M). star13 fp32's excess is mostly requests that
# are neither reads nor writes: are they its L2 prefetches? The fabric counters with
# HALOX_SWEEP_PREFETCH=0, and the rows with and without, 512^3 and 256x256x512, 3 rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M="lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__ltcfabric2ltc_cycles_active.sum,gpu__time_duration.sum"
M="$M,lts__t_requests_srcunit_ltcfabric.sum,lts__t_requests_srcunit_ltcfabric_op_read.sum,lts__t_requests_srcunit_ltcfabric_op_write.sum"
M="$M,lts__t_requests_srcunit_ltcfabric_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex.sum"
for pf in 1 0; do
    t "ncu star13f prefetch $pf"
    HALOX_SWEEP_PREFETCH=$pf timeout 150 "$NCU" --kernel-name-base demangled -k regex:"sweep3d<float, .int.2" -s 20 -c 1 --cache-control none \
        --clock-control none --metrics "$M" "$H" roofline --backend cuda --size2d 256 --size3d 512 --small 0 --no-fused --repeat 1 --batch 30 \
        >"$OUT/ncu_star13f_pf$pf.txt" 2>&1
    echo "rc=$?"
    grep -E "^ +(lts|dram|gpu)__" "$OUT/ncu_star13f_pf$pf.txt" | awk '{$1=$1; print $1, $(NF)}'
done
E="base:halox:- pf0:halox:HALOX_SWEEP_PREFETCH=0"
t roof
roof_env "$E" "512 256x256x512" 3 roof
t done
