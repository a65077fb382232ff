#!/usr/bin/env bash
# Session 23, call 7 (4 GPUs): issue 13's table (x4_targets.sh stage i13: the device schedules beside
# the best cycle settings, the one-buffer resident kernel at 4096^2 depth 8 among them), then
# gpu_schedule_np2 with its one-buffer cases. Usage: scripts/call_s23g.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s23g
. scripts/device_run.sh
bundle_on_exit
STAGES=i13 OUT=$OUT/x4 bash scripts/x4_targets.sh "$B" > "$OUT/x4.txt" 2>&1; grep -v "^nx" "$OUT/x4.txt" | tail -60
t "gpu_schedule_np2"
gpu_tests 330 gpu_schedule_np2
t done
