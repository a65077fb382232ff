#!/usr/bin/env bash
# Session 24 (2 GPUs): the fused 2D march's fast steps (no fix-up tests where none can matter).
# STAGES: check (gpu_fuse_np1, gpu_fuse_np2, gpu_schedule_np1; --verify at benchmark sizes; memcheck
# and racecheck on the cycle's and the persistent schedule's 2D passes), speed (`halox roofline`
# fused 2D passes, BINS side by side, ROUNDS alternated, at 16384^2, 8192^2, 4096^2; two GPUs:
# 8192^2 and 16384^2, ipc-put, graphs, the best settings of session 17-19).
# speed3d: the same for fused 3D passes (512^3, 256x128x128, 256x152x152; two GPUs 256^3 and 512^3).
# Usage: BINS="old:halox-old new:halox" STAGES="check speed" scripts/call_s24b.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
BINS=${BINS:-"old:halox-old new:halox"}
if want check; then
    t "gpu_fuse_np1 gpu_fuse_np2 gpu_schedule_np1"
    gpu_tests 420 gpu_fuse_np1 gpu_fuse_np2 gpu_schedule_np1
    t "verify at benchmark sizes"
    for np in 1 2; do
        for args in "--size 8192x8192 --depth 16 --fuse 4 --transport ipc-put --graph" \
                    "--size 8192x8192 --depth 32 --fuse 8 --transport ipc-put --graph --boundary fixed" \
                    "--size 4100x3000 --depth 14 --fuse 7 --transport ipc-put --dtype double --boundary fixed" \
                    "--size 3000x2000 --depth 6 --fuse 3 --transport mpi --stencil star9" \
                    "--size 2048x2048 --depth 16 --fuse 8 --transport ipc --schedule persistent" \
                    "--size 1000x999 --depth 12 --fuse 6 --transport ipc --schedule persistent --boundary fixed --dtype double"; do
            out=$($MPI -np $np $H run --backend cuda --pattern direct --warmup 0 --repeat 1 --iters 48 --verify $args 2>&1)
            echo "np $np $args: $(grep -c bit-identical <<<"$out") bit-identical$(grep -m1 -iE 'differ|error' <<<"$out" | sed 's/^/; /')"
        done
    done | tee "$OUT/verify.txt"
    t "sanitize"
    for tool in memcheck racecheck; do
        cs_run $tool --size 700x500 --depth 8 --fuse 4 --transport mpi --boundary fixed
        cs_run $tool --size 700x500 --depth 8 --fuse 4 --transport ipc --schedule persistent --boundary fixed --dtype double
    done | tee "$OUT/sanitize.txt"
fi
if want speed; then
    t "roofline fused 2D"
    for r in $(seq "${ROUNDS:-2}"); do
        for b in $BINS; do
            for n in 16384 8192 4096; do
                timeout 120 "$(bin_of "$b")" roofline --backend cuda --size2d $n --size3d 8 --small 0 --repeat 7 2>&1 |
                    awk -v l="${b%%:*}" -v r=$r '/^(jacobi5|star9) / && $NF ~ /x$/ {print l, r, $0}'
            done
        done
    done | tee "$OUT/roofline.txt"
    t "two GPUs"
    for r in $(seq "${ROUNDS:-2}"); do
        for b in $BINS; do
            for cfg in "8192x8192 16 4" "8192x8192 32 8" "16384x16384 16 8" "16384x16384 32 4"; do
                set -- $cfg
                $MPI -np "$NGPU" "$(bin_of "$b")" run --backend cuda --size $1 --depth $2 --fuse $3 --transport ipc-put --graph \
                    --overlap=off --pattern direct --iters 960 --repeat 5 --format csv --quiet 2>/dev/null |
                    awk -F, -v l="${b%%:*}" -v r=$r '$16 ~ /ipc/ {print l, r, $2 "x" $3, "d" $11, "f" $55, $48}'
            done
        done
    done | tee "$OUT/x2.txt"
fi
if want speed3d; then
    t "roofline fused 3D"
    for r in $(seq "${ROUNDS:-2}"); do
        for b in $BINS; do
            for n in 512 256x128x128 256x152x152; do
                timeout 120 "$(bin_of "$b")" roofline --backend cuda --size2d 256 --size3d $n --small 0 --repeat 7 2>&1 |
                    awk -v l="${b%%:*}" -v r=$r '/^(jacobi7|star13) / && $NF ~ /x$/ {print l, r, $0}'
            done
        done
    done | tee "$OUT/roofline3d.txt"
    t "two GPUs 3D"
    for r in $(seq "${ROUNDS:-2}"); do
        for b in $BINS; do
            for cfg in "256x256x256 12 4 cycle ipc-put" "256x256x256 4 4 persistent ipc" "512x512x512 4 4 cycle ipc-put" "512x512x512 8 4 cycle ipc-put"; do
                set -- $cfg
                g=; [ "$4" = cycle ] && g=--graph
                $MPI -np "$NGPU" "$(bin_of "$b")" run --backend cuda --size $1 --depth $2 --fuse $3 --schedule $4 --transport $5 $g \
                    --overlap=off --pattern direct --iters 480 --repeat 5 --format csv --quiet 2>/dev/null |
                    awk -F, -v l="${b%%:*}" -v r=$r '$16 ~ /ipc/ {print l, r, $2 "x" $3 "x" $4, "d" $11, "f" $55, $64, $48}'
            done
        done
    done | tee "$OUT/x2_3d.txt"
fi
t done
