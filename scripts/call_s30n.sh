#!/usr/bin/env bash
# Session 30, call 14: the one-GPU machine's gpu_np1 and gpu_np2 with each test's own Open MPI
# session directory (tests/CMakeLists.txt, OMPI_MCA_orte_tmpdir_base). Run as the device command:
#   DEVICE_NAME=s30n; B=build-dev; . scripts/device_run.sh build-dev; bundle_on_exit; gpu_tests 500 gpu_np1 gpu_np2
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s30n
. scripts/device_run.sh build-dev
bundle_on_exit
gpu_tests 500 gpu_np1 gpu_np2
