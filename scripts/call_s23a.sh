#!/usr/bin/env bash
# Session 23, call 1 (4 GPUs): how the 2D resident kernel's sweep time grows with its tile (one and
# four ranks, depths 8 and 16, HALOX_PROFILE's publish/gather/sweep split), then the dedupe patch's
# checks (ll_poll_checks.sh's verify stage, gpu_schedule_np2). Usage: scripts/call_s23a.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s23a
. scripts/device_run.sh
bundle_on_exit
cols() { cut -d, -f2,3,4,11,16,48,50,51,55,64,68; }
t "resident scaling"
for np in 1 4; do
    for size in 512x512 1024x1024 1448x1448 2048x2048; do
        for d in 8 16; do
            echo "== np $np size $size depth $d"
            HALOX_PROFILE=1 HALOX_VERBOSE=1 timeout 60 $MPI -x HALOX_PROFILE -x HALOX_VERBOSE -np $np $H run --backend cuda --transport ipc \
                --size $size --iters 1600 --repeat 3 --pattern direct --depth $d --schedule persistent --format csv --quiet 2>&1 |
                grep -v "halo messages" | awk -F, '$16 == "ipc" {print "csv", $2, $3, $11, $48, $50; next} /resident|rank 0 / {print}' | head -12
        done
    done
done 2>&1 | tee "$OUT/resident_scaling.txt"
t "verify (ll_poll_checks stage)"
STAGES=verify OUT=$OUT/llpoll bash scripts/ll_poll_checks.sh "$B" > "$OUT/llpoll.txt" 2>&1; tail -15 "$OUT/llpoll.txt"
t "gpu_schedule_np2"
gpu_tests 280 gpu_schedule_np2
t done
