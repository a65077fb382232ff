#!/usr/bin/env bash
# Session 30, call 11 (issue 9): call 10 showed the pair march's DRAM reads (589 MB at 512^3) do not
# fall with longer marches or taller blocks: not chunk re-reads, not y halos. A 514-cell fp32 row
# ends 8 bytes into its 17th 128-byte line, and the last lane's L2 prefetch may fetch that whole
# line (120 bytes of padding): about 25 MB a sweep. halox-pfx: no L2 prefetch from a lane that ends
# past the box. Nsight Compute DRAM bytes, then 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30k
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d pfx halox-pfx
t ncu
for v in def pfx; do
    ncu_dram $v halox-$v 'sweep3d_pair<\(int\)1>'
    ncu_dram $v-d halox-$v 'sweep3d<double, \(int\)1'
    ncu_dram $v-s halox-$v 'sweep3d<float, \(int\)2'
done 2>&1 | grep -E "==|read|duration|throughput"
t roof
roof_env "def:halox-def:- pfx:halox-pfx:-" "512 256x256x512 256x140x140 508x512x512" 3 pfx
t done
