#!/usr/bin/env bash
# Session 35, call 7, one H200 (nvidia-h200). Call 6 found the L2 partitions' fabric
# (lts__ltcfabric2ltc_cycles_active) at 95% in the 512^3 jacobi7 fp32, star13 fp32 and star13 fp64
# sweeps. The same counters for a plain copy kernel of 512 MiB (scripts/bench/fabric.cu, built as
# $B/fabric), its bandwidth beside cudaMemcpyAsync's, and the fabric's counters in sectors for each.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s35g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
"$NCU" --query-metrics --chip gh100 >"$OUT/query.txt" 2>&1 || "$NCU" --query-metrics >"$OUT/query.txt" 2>&1
grep -i fabric "$OUT/query.txt" | cut -c1-150
F=$(awk 'tolower($1) ~ /fabric/ {printf "%s%s.sum", (n++ ? "," : ""), $1}' "$OUT/query.txt")
M="$FABRIC_METRICS,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed"
M="$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex_op_read.sum"
[ -n "$F" ] && M="$M,$F"
t copy
$B/fabric 512
$B/fabric 512
timeout 100 "$NCU" -k regex:copy4 -s 1 -c 1 --cache-control none --clock-control none --metrics "$M" $B/fabric 512 --once >"$OUT/ncu_copy.txt" 2>&1
echo "rc=$?"
grep -E "^ +(lts|dram|gpu)__" "$OUT/ncu_copy.txt" | awk '{$1=$1; print $1, $(NF)}' | head -40
for k in "star13f:sweep3d<float, .int.2" "jacobi7f:sweep3d<float, .int.1" "star13d:sweep3d_pipe<double"; do
    t "ncu ${k%%:*}"
    ncu_roof "${k%%:*}_fabric" halox "${k#*:}" 512 "$M" | head -41
done
t done
