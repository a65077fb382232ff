#!/usr/bin/env bash
# The last device checks of session 2: graphs + fused sweeps at 4 ranks, nvshmem at 3 ranks and
# its fault test, and the nccl message for ranks sharing a GPU. Usage: OUT=dir scripts/final_check.sh BUILD
set -u
B=$1
OUT=${OUT:-/tmp/halox-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
export OMPI_MCA_btl_vader_single_copy_mechanism=cma
M=/usr/bin/mpiexec
echo "== graph+fuse np4"; timeout 170 tests/gpu_graph.sh $B/halox $M 4 2>&1 | tee "$OUT/graph4.log" | grep -E "runs, |FAIL"
echo "== nvshmem np3"; timeout 80 tests/gpu_transports.sh $B/halox $M 3 nvshmem 2>&1 | tee "$OUT/nvshmem3.log" | grep -E "runs, |FAIL"
echo "== nvshmem fault"; timeout 40 tests/gpu_fault.sh $B/halox $M nvshmem 2>&1 | tee "$OUT/nvfault.log" | tail -3
echo "== nccl, 2 ranks on one GPU"; CUDA_VISIBLE_DEVICES=0 timeout 30 mpirun --allow-run-as-root -np 2 $B/halox run --backend cuda \
    --transport nccl --size 256x256 --iters 4 2>&1 | grep "halox: error" | head -2
