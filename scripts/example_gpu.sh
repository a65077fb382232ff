#!/usr/bin/env bash
# On a GPU machine: examples/heat2d (built against the build tree as build/heat2d) with the cuda
# backend and each GPU transport of the build, at NP ranks, against `halox reference`.
# Usage: scripts/example_gpu.sh BUILD [NP]
set -u
B=$1 NP=${2:-2}
. "$(dirname "$0")/gpu-env.sh"
ref=$("$B/halox" reference --size 1000x700 --iters 50 --stencil jacobi5 --boundary periodic --dtype float --seed 42)
echo "reference: $ref"
fail=0
for tr in mpi ipc nccl nvshmem; do
    out=$(mpirun --oversubscribe -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -np "$NP" "$B/heat2d" \
        --backend cuda --transport $tr --size 1000x700 --iters 50 --seed 42 2>&1 | grep -E "checksum|error" | head -2)
    echo "heat2d cuda $tr np=$NP: $out"
    [ "$out" = "$ref" ] || fail=1
done
[ $fail -eq 0 ] && echo "example: all transports match the reference"
