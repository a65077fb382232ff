#!/usr/bin/env bash
# Session 30, call 12 (issue 9): call 10 showed the pair march's DRAM reads (589 MB at 512^3) do not
# fall with longer marches or taller blocks: not chunk re-reads, not y halos. A 514-cell fp32 row
# ends 8 bytes into its 17th 128-byte line, and the last lane's L2 prefetch may fetch that whole
# line. Call 11: halox-pfx (no L2 prefetch from a lane that ends past the box) read 15 MB less but
# ran no faster, and star13 fp32's 16-byte march lost 13%. halox-pfb: that lane prefetches its 16
# bytes only (cp.async.bulk.prefetch.L2). Nsight Compute DRAM bytes, then 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30l
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d pfb halox-pfb
t ncu
for v in def pfb; do
    ncu_dram $v halox-$v 'sweep3d_pair<\(int\)1>'
    ncu_dram $v-d halox-$v 'sweep3d<double, \(int\)1'
    ncu_dram $v-s halox-$v 'sweep3d<float, \(int\)2'
done 2>&1 | grep -E "==|read|duration|throughput"
t roof
roof_env "def:halox-def:- pfx:halox-pfx:- pfb:halox-pfb:-" "512 256x256x512 256x140x140 508x512x512" 3 pfb
t done
