#!/usr/bin/env bash
# Session 24, last check (2 GPUs): the fused 2D knobs chosen in call 11 (opaque fix-up addresses for
# fp32 N = 8, 2 blocks for fp32 N = 6 and 7) in the committed build beside the build before them
# (OLD, a halox-NAME in the build folder): roofline passes, the persistent march (which shares the
# body) on one rank, the cycle on two GPUs, and --verify of the instances that changed.
# Usage: OLD=halox-f2d scripts/call_s24g.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s24g
. scripts/device_run.sh
bundle_on_exit
unpack_variants
OLD=$B/${OLD:-halox-f2d}
t "roofline"
for b in "$OLD" "$H"; do
    for n in 16384 8192; do
        timeout 120 "$b" roofline --backend cuda --size2d $n --size3d 8 --small 0 --repeat 7 2>&1 |
            awk -v l="$(basename "$b")" '/^jacobi5 +float/ && $NF ~ /x$/ && $4 >= 4 {print l, $0}'
    done
done | tee "$OUT/roofline.txt"
t "runs"
for b in "$OLD" "$H"; do
    BIN=$b run1 1 2048x2048 32 8 persistent ipc
    BIN=$b run1 1 8192x8192 32 8 persistent ipc
    BIN=$b run1 "$NGPU" 8192x8192 32 8 cycle ipc-put
    BIN=$b run1 "$NGPU" 16384x16384 32 8 cycle ipc-put
    BIN=$b run1 "$NGPU" 16384x16384 42 7 cycle ipc-put
done | sed "s#$B/##" | tee "$OUT/runs.txt"
t "verify"
for args in "--fuse 6 --depth 12 --size 3000x2000 --transport ipc-put" "--fuse 7 --depth 14 --size 3001x1999 --boundary fixed --transport mpi" \
            "--fuse 8 --depth 16 --size 2048x2048 --transport ipc --schedule persistent"; do
    out=$($MPI -np "$NGPU" $H run --backend cuda --pattern direct --warmup 0 --repeat 1 --iters 48 --verify $args 2>&1)
    echo "np $NGPU $args: $(grep -c bit-identical <<<"$out") bit-identical$(grep -m1 -iE 'differ|error' <<<"$out" | sed 's/^/; /')"
done | tee "$OUT/verify.txt"
t done
