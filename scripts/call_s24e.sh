#!/usr/bin/env bash
# Session 24 (2 GPUs): 4096^2 (issue 13's case, the resident kernel's 5.14 on four GPUs) against the
# cycle with fuse 8 now that the fused 2D march takes fast steps: one rank at the four-GPU block
# (2048^2) and two GPUs at 4096^2. Usage: scripts/call_s24e.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24e
. scripts/device_run.sh
bundle_on_exit
run1() { # np size depth fuse schedule transport
    local g=; [ "$5" = cycle ] && g=--graph
    $MPI -np "$1" "$H" run --backend cuda --size "$2" --depth "$3" --fuse "$4" --schedule "$5" --transport "$6" $g --overlap=off \
        --pattern direct --iters 4800 --repeat 5 --format csv --quiet 2>/dev/null |
        awk -F, -v np="$1" '$16 !~ /transport/ && NF > 50 {print "np" np, $2 "x" $3, "d" $11, "f" $55, $64, $16, $68, $48}'
}
t "4096^2 blocks"
for np in 1 "$NGPU"; do
    size=2048x2048; [ "$np" != 1 ] && size=4096x4096
    for cfg in "32 8 cycle ipc-put" "16 8 cycle ipc-put" "48 8 cycle ipc-put" "48 3 cycle ipc-put" "16 8 fused ipc" "8 1 persistent ipc" "32 8 persistent ipc"; do
        set -- $cfg
        run1 "$np" $size $1 $2 $3 $4
    done
done | tee "$OUT/x4096.txt"
t done
