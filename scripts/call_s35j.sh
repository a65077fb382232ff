#!/usr/bin/env bash
# Session 35, call 10, one H200 (nvidia-h200). Call 8: star13 fp32's L2 prefetches make a line of
# the far L2 partition cross the fabric twice (the prefetch, then the load). Prefetches into L1
# instead (prefetch.global.L1: the line comes to the SM, and the load finds it there), sweep3d.cu
# built with -DHX_PREFETCH_L1 (pl1: 2 planes beyond the entering one, as the rule; pl1d1: 1;
# pl1d4: 4), beside the rule, 512^3 and 384^3, 3 rounds; the fabric's counters for pl1.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35j
. scripts/device_run.sh
bundle_on_exit
unpack_variants
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M="lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__ltcfabric2ltc_cycles_active.sum,gpu__time_duration.sum"
M="$M,lts__t_requests_srcunit_ltcfabric.sum,lts__t_requests_srcunit_ltcfabric_op_read.sum,lts__t_requests_srcunit_ltcfabric_op_write.sum"
M="$M,lts__t_requests_srcunit_ltcfabric_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex.sum"
M="$M,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum"
t "ncu star13f pl1"
timeout 150 "$NCU" --kernel-name-base demangled -k regex:"sweep3d<float, .int.2" -s 20 -c 1 --cache-control none \
    --clock-control none --metrics "$M" $B/halox-pl1 roofline --backend cuda --size2d 256 --size3d 512 --small 0 --no-fused --repeat 1 --batch 30 \
    >"$OUT/ncu_star13f_pl1.txt" 2>&1
echo "rc=$?"
grep -E "^ +(lts|dram|gpu|l1tex)__" "$OUT/ncu_star13f_pl1.txt" | awk '{$1=$1; print $1, $(NF)}'
E="base:halox:- pl1:halox-pl1:- pl1d1:halox-pl1d1:- pl1d4:halox-pl1d4:-"
t roof
roof_env "$E" "512 384" 3 roof
t done
