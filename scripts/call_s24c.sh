#!/usr/bin/env bash
# Session 24 (2 GPUs): 2D settings after the fused march's fast steps. 8192^2 and 16384^2 over depth
# and fuse (cycle: ipc-put and nccl, graphs; persistent: ipc), and one rank at the 4-GPU ranks'
# blocks (4096^2 and 8192^2 a GPU), medians of 5. Usage: H=binary scripts/call_s24c.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24c
. scripts/device_run.sh
bundle_on_exit
for f in "$B"/halox-*.gz; do [ -e "$f" ] && gunzip -kf "$f" && chmod +x "${f%.gz}"; done
BIN=${BIN:-$H}
run1() { # np size depth fuse schedule transport
    local g=; [ "$5" = cycle ] && g=--graph
    $MPI -np "$1" "$BIN" run --backend cuda --size "$2" --depth "$3" --fuse "$4" --schedule "$5" --transport "$6" $g --overlap=off \
        --pattern direct --iters 1920 --repeat 5 --format csv --quiet 2>/dev/null |
        awk -F, -v np="$1" '$16 !~ /transport/ && NF > 50 {print "np" np, $2 "x" $3, "d" $11, "f" $55, $64, $16, $48}'
}
t "2D grid"
for size in 8192x8192 16384x16384; do
    for d in 16 32 48; do
        for f in 4 6 8; do run1 "$NGPU" $size $d $f cycle ipc-put; done
    done
    run1 "$NGPU" $size 32 8 cycle nccl
    run1 "$NGPU" $size 16 8 persistent ipc
    run1 "$NGPU" $size 32 8 persistent ipc
done | tee "$OUT/grid2d.txt"
t "one rank at the 4-GPU blocks"
for size in 4096x4096 8192x8192; do
    for cfg in "32 8" "16 8" "32 4"; do set -- $cfg; run1 1 $size $1 $2 cycle ipc-put; done
done | tee "$OUT/one.txt"
t done
