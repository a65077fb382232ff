#!/usr/bin/env bash
# Session 40, call 7 (2 GPUs): call 6 saw nvshmem at 460 us a sweep (1024^2 d1; mpi 133) and one ipc run
# at 3945 us (d2) with Open MPI's default binding of 2 ranks (one core each). Does the binding cause
# it, as it does for nccl (session 39)? ipc, nvshmem and nccl, default binding against --bind-to none,
# alternated, 3 rounds, medians of 5 repeats.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s40g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for r in 1 2 3; do
    for bind in core none; do
        t "round $r, --bind-to $bind"
        timeout 100 $MPI --bind-to $bind -np 2 "$H" run --backend cuda --transport ipc,nvshmem,nccl,mpi --size 1024x1024 \
            --iters 200 --depth 1,2 --repeat 5 --format csv --quiet 2>"$OUT/bind_${bind}_$r.err" >"$OUT/bind_${bind}_$r.csv"
        echo "exit $?"
        awk -F, -v b=$bind 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "transport") tc = i; if ($i == "depth") dc = i; if ($i == "us_per_sweep") uc = i } next }
                            { printf "%s %s d%s %s\n", b, $tc, $dc, $uc }' "$OUT/bind_${bind}_$r.csv"
    done
done
t done
