#!/usr/bin/env bash
# Session 24 (2 GPUs), by STAGES: col3d (col3d_checks.sh: plain 3D sweeps marching whole columns,
# BINS and TILES as there); inplace, sched2 (session 23's last commit, the resident kernels'
# occupancy query, on GPUs: inplace_checks.sh's verify and sanitize stages, gpu_schedule_np2); mg
# (mg's coarse levels solved on every rank against rank 0 alone, --coarse-solve all|root, 256^3 a
# GPU, alternated rounds, checksums). Usage: STAGES="..." scripts/call_s24a.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24a
. scripts/device_run.sh
bundle_on_exit
if want col3d; then
    t "col3d"
    OUT=$OUT/col3d bash scripts/col3d_checks.sh "$B" > "$OUT/col3d.txt" 2>&1; grep -v "^---" "$OUT/col3d.txt" | grep -v " copy " | head -200
fi
if want inplace; then
    t "inplace verify, sanitize"
    STAGES="verify sanitize" OUT=$OUT/inplace bash scripts/inplace_checks.sh "$B" > "$OUT/inplace.txt" 2>&1; tail -20 "$OUT/inplace.txt"
fi
if want sched2; then
    t "gpu_schedule_np2"
    gpu_tests 300 gpu_schedule_np2
fi
if want mg; then
    t "mg coarse-solve all vs root"
    OUT=$OUT/mgab BINS="all:halox:--coarse-solve,all root:halox:--coarse-solve,root" REPS=${REPS:-3} \
        bash scripts/mg_ab.sh "$B" > "$OUT/mgab.txt" 2>&1; tail -14 "$OUT/mgab.txt"
    (cd "$OUT" && tar czf mgab.tgz mgab && rm -rf mgab)
fi
t done
