#!/usr/bin/env bash
# Session 40, call 5 (nvidia-h200-x4): `make report`'s steps (scripts/make_report.sh, the recipe the
# Makefile runs) on 4 GPUs, timed: issue 10 asks for under 5 minutes. The CSVs and plots come back.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40e
. scripts/device_run.sh
bundle_on_exit
unpack_variants
python3 -c 'import matplotlib; print("matplotlib", matplotlib.__version__)' || echo "no matplotlib on this machine"
t report
s=$(date +%s.%N)
timeout 420 scripts/make_report.sh "$B" >"$OUT/make_report.log" 2>&1
echo "make_report.sh exit $? after $(echo "$(date +%s.%N) - $s" | bc) s"
tail -25 "$OUT/make_report.log"
cp -r "$B/report" "$OUT/"
t done
