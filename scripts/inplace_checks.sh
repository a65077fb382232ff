#!/usr/bin/env bash
# The 2D resident kernel's one-buffer sweep (resident_sweep.cuh, session 23) on the GPU machine:
# stage verify: bit for bit at 1, 2 and all ranks (forced with HALOX_RESIDENT_INPLACE=1 where two
#   buffers would fit; 4096^2 at depth 8 takes it by itself), both stencils and dtypes, boundaries,
#   norms; stage sanitize: compute-sanitizer memcheck and racecheck on one rank;
# stage speed: 4096^2 and 2048^2 on all GPUs, one buffer beside two and beside the best cycle
#   (ipc-put, graphs, overlap off), medians of 5, three alternated rounds, HALOX_PROFILE's split of a
#   cycle; VARIANTS="label:binary ..." adds tuning builds at 4096^2 (gzipped ones are unpacked).
# Usage: [STAGES="verify sanitize speed"] [VARIANTS=...] scripts/inplace_checks.sh build-dev (logs: $OUT/inplace.tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=inplace
. scripts/device_run.sh
bundle_on_exit
if want verify; then
    t "verify"
    for np in 1 2 "$NGPU"; do
        for args in "--size 1000x700 --depth 5 --iters 23" \
                    "--size 512x512 --depth 16 --iters 50 --boundary fixed --norm-every 7" \
                    "--size 777x333 --stencil star9 --depth 6 --iters 20 --dtype double --boundary fixed" \
                    "--size 901x517 --stencil star9 --depth 3 --iters 19 --norm-every 5" \
                    "--size 640x480 --depth 7 --iters 30 --dtype double"; do
            out=$(HALOX_RESIDENT_INPLACE=1 HALOX_VERBOSE=1 $MPI -x HALOX_RESIDENT_INPLACE -x HALOX_VERBOSE -np $np $H run --backend cuda \
                --transport ipc --schedule persistent --pattern direct --warmup 0 --repeat 1 --verify $args 2>&1)
            echo "np $np $args: $(grep -c bit-identical <<<"$out") bit-identical, $(grep -c 'swept in bands' <<<"$out") in bands$(grep -m1 -iE 'differ|error' <<<"$out" | sed 's/^/; /')"
        done
        out=$($MPI -np $np $H run --backend cuda --transport ipc --schedule persistent --pattern direct --warmup 0 --repeat 1 --verify \
            --size 4096x4096 --depth 8 --iters 20 2>&1)
        echo "np $np 4096x4096 d8 (by itself): $(grep -c bit-identical <<<"$out") bit-identical$(grep -m1 -iE 'differ|error' <<<"$out" | sed 's/^/; /')"
    done | tee "$OUT/verify.txt"
fi
if want sanitize; then
    t "sanitize"
    for tool in memcheck racecheck; do
        HALOX_RESIDENT_INPLACE=1 cs_run $tool --transport ipc --schedule persistent --pattern direct --size 300x200 --depth 3
        HALOX_RESIDENT_INPLACE=1 cs_run $tool --transport ipc --schedule persistent --pattern direct --size 300x200 --depth 2 --stencil star9 --dtype double --boundary fixed
    done | tee "$OUT/sanitize.txt"
fi
if want speed; then
    t "speed"
    unpack_variants
    run1() { # label binary env size depth [extra...]
        local l=$1 bin=$2 e=$3 size=$4 d=$5; shift 5
        env $e $MPI -x HALOX_RESIDENT_INPLACE -x HALOX_PROFILE -np "$NGPU" $bin run --backend cuda --size $size --iters 4800 --repeat 5 \
            --pattern direct --depth $d --format csv --quiet "$@" 2>"$OUT/err_$l.txt" | awk -F, -v l="$l" '$16 ~ /ipc/ {print l, $2 "x" $3, "d" $11, $55, $64, $68, $48}'
        grep -m1 "rank 0 .*profile" "$OUT/err_$l.txt" | sed "s/^/  $l: /"
    }
    # VARIANTS: "label:binary ..." tuning builds (a bare name is in the build folder) beside this one
    for rep in 1 2 3; do
        run1 cycle-d32f3 $H "X=1" 4096x4096 32 --transport ipc-put --fuse 3 --graph --overlap=off
        run1 inplace-d8 $H "X=1" 4096x4096 8 --transport ipc --schedule persistent
        for v in ${VARIANTS:-}; do run1 "${v%%:*}-d8" "$(bin_of "$v")" "X=1" 4096x4096 8 --transport ipc --schedule persistent; done
        [ $rep = 1 ] && run1 prof-d8 $H "HALOX_PROFILE=1" 4096x4096 8 --transport ipc --schedule persistent
        [ $rep = 1 ] && run1 inplace-d6 $H "X=1" 4096x4096 6 --transport ipc --schedule persistent
        [ $rep = 1 ] && run1 two-2048-d8 $H "HALOX_RESIDENT_INPLACE=0" 2048x2048 8 --transport ipc --schedule persistent
        [ $rep = 1 ] && run1 one-2048-d8 $H "HALOX_RESIDENT_INPLACE=1" 2048x2048 8 --transport ipc --schedule persistent
    done | tee "$OUT/speed.txt"
fi
t done
