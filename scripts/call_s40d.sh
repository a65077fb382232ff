#!/usr/bin/env bash
# Session 40, call 4 (nvidia-h200-x4): issue 10's targets on the issue's machine kind (4 x H200; they
# were met on 2 x H200 in session 8): halox pingpong, ranks 0-1, every model in one job (mpi, nccl,
# ipc, ipc-kernel, memcpy-peer; --compute-us 0 and 5), then the device-initiated model and the copy
# engines between every pair of the node (4 ranks, --pairs all). Ranks unbound (--bind-to none):
# NCCL's proxy thread must not share a core with its rank (session 39).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
nvidia-smi topo -m | head -8 > "$OUT/topo.txt"
for T in 0 5; do
    t "pingpong ranks 0-1, compute-us $T"
    timeout 200 $MPI --bind-to none -np 2 "$H" pingpong --backend cuda --transport mpi,nccl,ipc,ipc-kernel,memcpy-peer \
        --iters 1000 --compute-us $T --format csv >"$OUT/pp_t$T.csv" 2>"$OUT/pp_t$T.err"
    echo "exit $?"; grep -E "note|error" "$OUT/pp_t$T.err" | head -3
    awk -F, 'NR == 1 || $7 == 8 || $7 == 67108864' "$OUT/pp_t$T.csv" | cut -d, -f4,5,6,7,8,10,11,12,13,15
done
t "pingpong every pair, 4 ranks"
timeout 200 $MPI --bind-to none -np 4 "$H" pingpong --backend cuda --transport ipc-kernel,memcpy-peer --pairs all \
    --iters 1000 --format csv >"$OUT/pp_pairs.csv" 2>"$OUT/pp_pairs.err"
echo "exit $?"; grep -E "note|error" "$OUT/pp_pairs.err" | head -3
awk -F, 'NR == 1 || $7 == 8 || $7 == 67108864' "$OUT/pp_pairs.csv" | cut -d, -f4,5,6,7,8,10,11,12,13,15
t done
