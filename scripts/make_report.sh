#!/usr/bin/env bash
# `make report`'s steps, for a built halox: a small sweep (depth x overlap x pattern; every transport
# on 2+ GPUs, else mpi on 2 CPU ranks) and a ping-pong, as CSV under BUILD/report/, then
# `halox report` (plots and the overlap-coverage table) there.
# Usage: scripts/make_report.sh [BUILD]   (default build)
set -euo pipefail
B=${1:-build}
H=$B/halox
[ -x "$H" ] || { echo "make_report.sh: no $H: build first (make build)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_NUM_THREADS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$B/report"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -ge 2 ] && "$H" info 2>/dev/null | grep -q '^backends .*cuda'; then
    np=$gpus be=cuda size=4096x4096 tr=all
    # GPU ranks unbound: Open MPI binds each of 2 ranks to one core, which their helper threads would
    # share with the busy-waiting one
    unbind=$(mpirun --version 2>&1 | grep -q "Open MPI" && echo "--bind-to none" || true)
else
    np=2 be=cpu size=512x512 tr=mpi unbind=
fi
echo "== halox run sweep: $np ranks, backend $be, $size, transport $tr -> $B/report/run.csv"
mpirun $unbind -np "$np" "$H" run --backend $be --size $size --iters 40 --warmup 4 --repeat 3 --depth 1,2,4,8 \
    --overlap=on,off --pattern staged,direct --desync-barrier --transport $tr --format csv >"$B/report/run.csv"
echo "== halox pingpong: 2 ranks, backend $be, 8 B to 4 MiB -> $B/report/pingpong.csv"
mpirun $unbind -np 2 "$H" pingpong --backend $be --max-bytes 4194304 --iters 300 --large-iters 30 \
    --format csv --quiet >"$B/report/pingpong.csv"
"$H" report "$B/report/run.csv" "$B/report/pingpong.csv" --out "$B/report"
