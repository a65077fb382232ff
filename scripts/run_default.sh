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
    echo "== $gpus GPU(s): 2D jacobi5 float 4096x4096, depth 8, every transport of this build, verified =="
    # Open MPI binds each of 1-2 ranks to one core, which the ranks' helper threads (NCCL's, NVSHMEM's,
    # the CUDA driver's) would share with the busy-waiting one: GPU ranks stay unbound
    unbind=$(mpirun --version 2>&1 | grep -q "Open MPI" && echo "--bind-to none" || true)
    mpirun --oversubscribe $unbind -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -np "$gpus" "$HALOX" run --backend cuda \
        --size 4096x4096 --iters 400 --depth 8 --pattern direct --repeat 3 --transport all --verify || exit
    # halox's best known setting of the same problem (docs/performance.md): one GPU replays cycles of
    # fused passes from CUDA graphs; several run the persistent passes kernel
    if [ "$gpus" -eq 1 ]; then
        best="--transport ipc-put --pattern direct --depth 32 --fuse 8 --graph --overlap=off"
    else
        best="--transport ipc --pattern direct --depth 32 --fuse 8 --schedule persistent"
    fi
    args="--backend cuda --size 4096x4096 --iters 960 --repeat 5 $best --verify"
    echo
    echo "== best known setting on $gpus GPU(s), verified =="
    # shellcheck disable=SC2086
    csv=$(mpirun --oversubscribe $unbind -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -np "$gpus" "$HALOX" run $args \
        --format csv --quiet) || exit
    us=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "us_per_sweep") c = i; next } { print $c }' <<<"$csv")
    ok=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verified") c = i; next } { print $c }' <<<"$csv")
    [ "$ok" = 1 ] && ok="bit-identical to the reference" || ok="NOT verified ($ok)"
    echo "halox best: $us us a sweep, 2D jacobi5 float 4096x4096 on $gpus GPU(s), $ok:"
    echo "    mpirun -np $gpus $unbind halox run $args"
    exit 0
fi
cores=$(nproc 2>/dev/null || echo 2)
ranks=$([ "$cores" -ge 4 ] && echo 4 || echo "$cores")
echo "== no GPU: CPU backend on $ranks MPI ranks (1 OpenMP thread each), 2D jacobi5 float 2048x2048 =="
export OMP_NUM_THREADS=1
exec mpirun --oversubscribe -np "$ranks" "$HALOX" run --backend cpu --size 2048x2048 --iters 100 --repeat 3 --verify
