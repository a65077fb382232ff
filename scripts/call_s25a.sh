#!/usr/bin/env bash
# Session 25, call 1 (2 GPUs): the fused 2D knobs of session 24 (docs/results/session24/knobs.patch,
# now applied) in the committed build beside the build before them (call_s24g.sh, OLD=halox-old),
# then the GPU suite's fused and schedule tests at two ranks. Usage: scripts/call_s25a.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s25a
. scripts/device_run.sh
bundle_on_exit
OLD=halox-old OUT=$OUT/s24g bash scripts/call_s24g.sh "$B" > "$OUT/s24g.txt" 2>&1; cat "$OUT/s24g.txt" | tail -40
for t in gpu_fuse_np2 gpu_schedule_np2; do
    t "$t"
    gpu_tests 150 "$t"
done
t done
