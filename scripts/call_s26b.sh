#!/usr/bin/env bash
# Session 26, call 2 (4 GPUs): 3D 256^3 d12 f4's exchange (about 40 us a cycle in call 1): put-get's
# steps (trace build, exchange 20), the tuning builds sdirect / sfirst beside the default, the CE
# transport ipc, and fixed boundaries for reference. Usage: scripts/call_s26b.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s26b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
common="run --backend cuda --size 256x256x256 --grid 1x2x2 --pattern direct --depth 12 --fuse 4 --overlap=off"
t trace
timeout 120 $MPI -np 4 $B/halox-trace $common --transport ipc-put --graph --iters 384 --repeat 1 --quiet >"$OUT/trace.txt" 2>&1
python3 scripts/ik_trace_summary.py "$OUT/trace.txt" | tee "$OUT/trace_summary.txt" | head -60
t side by side
for round in 1 2; do
    for v in halox halox-sdirect; do
        echo "$v round $round: $(timeout 100 $MPI -np 4 $B/$v $common --transport ipc-put --graph --iters 384 --repeat 5 --quiet 2>&1 | grep 'time per sweep')"
    done
done | tee "$OUT/side.txt"
t others
for tr in ipc nccl; do
    echo "$tr: $(timeout 100 $MPI -np 4 $H $common --transport $tr --graph --iters 384 --repeat 5 --quiet 2>&1 | grep 'time per sweep')"
done | tee -a "$OUT/side.txt"
echo "fixed boundary ipc-put: $(timeout 100 $MPI -np 4 $H $common --boundary fixed --transport ipc-put --graph --iters 384 --repeat 5 --quiet 2>&1 | grep 'time per sweep')" | tee -a "$OUT/side.txt"
t done
