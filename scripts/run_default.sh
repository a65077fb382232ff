#!/usr/bin/env bash
# The main job of `make run`: on every GPU when there are any, else on the CPU cores.
set -eu
HALOX=${1:-build/halox}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi
if [ "$gpus" -gt 0 ] && "$HALOX" info 2>/dev/null | grep -q '^backends .*cuda'; then
    "$HALOX" info
    echo
    echo "== $gpus GPU(s): 2D jacobi5 float, 16384x16384 per GPU, host-staged MPI with overlap =="
    side=16384
    [ "$gpus" -ge 4 ] && side=32768
    exec mpirun --oversubscribe -np "$gpus" "$HALOX" run --backend cuda --size ${side}x${side} --iters 200 --repeat 3 --verify
fi
cores=$(nproc 2>/dev/null || echo 2)
ranks=$([ "$cores" -ge 4 ] && echo 4 || echo "$cores")
echo "== no GPU: CPU backend on $ranks MPI ranks (1 OpenMP thread each), 2D jacobi5 float 2048x2048 =="
export OMP_NUM_THREADS=1
exec mpirun --oversubscribe -np "$ranks" "$HALOX" run --backend cpu --size 2048x2048 --iters 100 --repeat 3 --verify
