#!/usr/bin/env bash
# Session 32, call 16 (two H200s): the two-rank GPU tests on the end build (jacobi7 fp64's
# prefetching march two planes ahead, star13 fp64's pipelined march in 8-plane marches).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s32p
. scripts/device_run.sh
bundle_on_exit
t tests
gpu_tests 500 gpu_np2 gpu_graph_np2 gpu_ipc_np2
t done
