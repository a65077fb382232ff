#!/usr/bin/env bash
# Session 12's one-GPU device call (issue 13's 512² target, ≤ 1.0 µs a sweep on one GPU): the
# resident kernel's load-first sweeps checked bit for bit and timed beside the previous build and
# the tuning variants carried gzip'd (halox-NAME.gz, scripts/variant_build.sh).
# Stages: tests (ctest -R $TESTS), verify (the persistent schedule against the reference: stencils,
# dtypes, boundaries, depths, norms), time ($BINS alternated $REPS times: 512² and 1024², every
# dtype and stencil at 512²; $SIZES, default 512x512 1024x1024), depth (depths at 512², the default build), profile (HALOX_PROFILE's
# per-cycle split), sanitize (the resident kernel and the 2D fused pass under compute-sanitizer).
# Usage: STAGES="verify time" BINS="base:halox-base new:halox" scripts/resident_checks.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=resident
. scripts/device_run.sh
bundle_on_exit
unpack_variants # carried compressed
cols() { cut -d, -f2,3,4,11,48,50,64,68; } # nx ny nz depth us_per_sweep verified schedule kernel
P="--backend cuda --transport ipc --pattern direct --schedule persistent --format csv --quiet"
if want tests; then
    t "GPU tests: ${TESTS:-^(gpu_schedule_np1|gpu_device_fault|gpu_fuse_np1)$}"
    (cd "$B" && timeout ${TESTS_TIMEOUT:-400} ctest -j1 --timeout 390 -R "${TESTS:-^(gpu_schedule_np1|gpu_device_fault|gpu_fuse_np1)$}" \
        --output-on-failure) >"$OUT/tests.log" 2>&1
    grep -E "tests passed|Passed|Failed|FAIL|\*\*\*" "$OUT/tests.log" | head -20
fi
if want verify; then
    t "persistent 2D bit for bit: jacobi5/star9, float/double, periodic/fixed, depths 1-16, norms"
    timeout 300 "$H" run $P --size 512x512,333x257,1024x1024 --stencil jacobi5,star9 --dtype float,double --boundary periodic,fixed \
        --depth 1,3,16 --iters 37 --repeat 1 --norm-every 5 --verify >"$OUT/verify.csv" 2>"$OUT/verify.err"
    echo "rc=$? runs $(($(wc -l <"$OUT/verify.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify.csv" | sort | uniq -c | xargs); kernels: $(cut -d, -f68 "$OUT/verify.csv" | sort | uniq -c | xargs)"
    grep -h "halox: error" "$OUT/verify.err" | head -3
fi
one() { # label binary size depth [more run options]: median us per sweep of 5 repeats, 4000 sweeps
    local label=$1 bin=$2 size=$3 depth=$4
    shift 4
    [ -x "$bin" ] || return
    timeout 60 "$bin" run $P --size "$size" --depth "$depth" --iters 4000 --repeat 5 "$@" 2>&1 | cols | grep -v '^nx' | sed "s/^/$label,/"
}
if want time; then
    t "side by side (${BINS:=base:$B/halox-base new:$H}), ${REPS:=3} rounds: label,nx,ny,nz,depth,us,verified,schedule,kernel"
    for rep in $(seq "$REPS"); do
        for b in $BINS; do
            l=${b%%:*} bin=${b#*:}
            [[ $bin == /* || $bin == */* ]] || bin=$B/$bin
            for size in ${SIZES:-512x512 1024x1024}; do one "$l" "$bin" $size 16; done
        done
    done | tee "$OUT/time.csv"
    for b in $BINS; do
        l=${b%%:*} bin=${b#*:}
        [[ $bin == /* || $bin == */* ]] || bin=$B/$bin
        one "$l" "$bin" 512x512 16 --dtype float,double --stencil jacobi5,star9
    done | tee "$OUT/time_types.csv"
fi
if want depth; then
    t "depths at 512^2 and 1024^2 (default build)"
    one new "$H" 512x512 8,12,16,20,24 | tee "$OUT/depth.csv"
    one new "$H" 1024x1024 12,16,20 | tee -a "$OUT/depth.csv"
fi
if want profile; then
    t "HALOX_PROFILE at 512^2 d16 (us per 16-sweep cycle)"
    for b in ${BINS:-base:$B/halox-base new:$H}; do
        l=${b%%:*} bin=${b#*:}
        [[ $bin == /* || $bin == */* ]] || bin=$B/$bin
        [ -x "$bin" ] || continue
        HALOX_PROFILE=1 timeout 60 "$bin" run $P --size 512x512 --depth 16 --iters 4000 --repeat 1 2>&1 | grep -i "profile" | sed "s/^/$l: /"
    done | tee "$OUT/profile.txt"
fi
if want sanitize; then
    t "compute-sanitizer: the resident kernel (fixed, norms; star9 fp64), the 2D fused pass with the level-0 queue (fuse 7)"
    for tool in memcheck racecheck synccheck; do
        cs_run $tool --schedule persistent --transport ipc --pattern direct --size 200x136 --depth 8 --boundary fixed --norm-every 2
        cs_run $tool --schedule persistent --transport ipc --pattern direct --size 150x96 --depth 4 --stencil star9 --dtype double
        cs_run $tool --size 700x300 --depth 8 --fuse 7 --boundary fixed
        cs_run $tool --size 700x300 --depth 8 --fuse 3 --dtype double --stencil star9
    done
fi
t done
