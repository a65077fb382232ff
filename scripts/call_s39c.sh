#!/usr/bin/env bash
# Session 39, call 3 (nvidia-h200-x4): the new test gpu_netpath (np2, np4); NCCL's socket path
# again with the ranks unbound (--bind-to none: call 2's nccl-net ping-pongs at 2 ranks, bound to a
# core each, took 6-12 ms at every size): ping-pongs and the 4-rank timings.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s39c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t tests
gpu_tests 300 gpu_netpath_np2 gpu_netpath_np4
grep -h "network paths\|FAIL" "$OUT"/ctest_*.log | head
t netpath
OUT=$OUT/net DEVICE_NAME=net STAGES="time pingpong" TIME_PATHS="nccl-net" PP_PATHS="nccl-net nccl" MPI_EXTRA="--bind-to none" \
    PP_ITERS=200 PP_LARGE_ITERS=20 timeout 300 scripts/netpath.sh "$B"
t done
