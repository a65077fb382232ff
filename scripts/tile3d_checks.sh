#!/usr/bin/env bash
# Session 11's one-GPU device call (issue 9): the plain 3D sweep through the one-level march of
# fused3d.cuh (HALOX_TILE's PIPE 4, the "shared tile") checked bit for bit and timed beside the
# register kernel, the zigzag order of the register kernel's chunks, and the tuning variants carried
# gzip'd (halox-NAME.gz, scripts/variant_build.sh).
# Stages: verify (PIPE 4 against the reference, 1 and 2 ranks on one GPU), tests (ctest -R $TESTS),
# roofline ($ROOFS: builds and tile shapes, alternated twice), ncu (the plain sweep's DRAM bytes),
# sizes ($SIZES_RUNS at the multi-GPU per-rank sizes, or $SIZES3), sanitize (PIPE 4 under compute-sanitizer).
# Usage: STAGES="verify roofline" ROOFS="base:: zz32::4,8,8,32 nozz:-nozz:" scripts/tile3d_checks.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=tile3d
. scripts/device_run.sh
bundle_on_exit
unpack_variants # carried compressed
TILE=4,8,8,16,4 # the default shape with PIPE 4
if want verify; then
    t "plain 3D sweeps bit for bit (register kernel, zigzag by default; PIPE 4): stencils, dtypes, boundaries, depths, patterns, 1 and 2 ranks on one GPU"
    common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
    for tile in "" $TILE; do
        l=${tile:-default}
        env ${tile:+HALOX_TILE=$tile} timeout 200 "$H" run $common --size 67x45x38,130x70x64 --depth 1,3 >"$OUT/verify1_$l.csv" 2>"$OUT/verify1_$l.err"
        echo "$l np1 rc=$? runs $(($(wc -l <"$OUT/verify1_$l.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify1_$l.csv" | sort | uniq -c | xargs)"
        HALOX_TILE=${tile:-4,8,8,16} timeout 200 $MPI -x HALOX_TILE -np 2 "$H" run $common --size 67x45x38 --depth 1,2 --pattern staged,direct \
            --fuse 1,2 >"$OUT/verify2_$l.csv" 2>"$OUT/verify2_$l.err"
        echo "$l np2 rc=$? runs $(($(wc -l <"$OUT/verify2_$l.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify2_$l.csv" | sort | uniq -c | xargs)"
    done
    grep -h "halox: error" "$OUT"/verify*.err | head -3
fi
if want tests; then
    t "GPU tests: ${TESTS:-^gpu_fuse_np1$}"
    (cd "$B" && timeout ${TESTS_TIMEOUT:-300} ctest -j1 --timeout 290 -R "${TESTS:-^gpu_fuse_np1$}" --output-on-failure) >"$OUT/tests.log" 2>&1
    grep -E "tests passed|Passed|Failed|FAIL|\*\*\*|runs," "$OUT/tests.log" | head -20
fi
roof() { # label binary tile-env: one roofline, 3D rows only
    local label=$1 bin=$2 tile=$3 rep=$4
    [ -x "$bin" ] || return
    env ${tile:+HALOX_TILE=$tile} timeout 120 "$bin" roofline --backend cuda --small 0 --repeat 7 ${ROOF_ARGS:-} >"$OUT/roofline_$label.$rep.txt" 2>&1
    echo "== $label rep $rep"
    grep -E "copy of|\^3|x[0-9]+x" "$OUT/roofline_$label.$rep.txt"
}
if want roofline; then
    # ROOFS: label:binary suffix:HALOX_TILE entries, run in turn, twice
    ROOFS=${ROOFS:-"base:: tile::$TILE"}
    t "roofline: $ROOFS, alternated twice"
    for rep in 1 2; do
        for e in $ROOFS; do
            IFS=: read -r label suffix tile <<<"$e"
            roof "$label" "$H$suffix" "$tile" $rep
        done
    done
fi
if want ncu; then
    t "Nsight Compute: the plain 3D sweep, jacobi7 fp32 512^3, this build and ${NCU_OTHER:--nozz}: DRAM bytes, L2 hits"
    m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum
    for v in "" ${NCU_OTHER:--nozz}; do
        [ -x "$H$v" ] || continue
        timeout 150 ncu --kernel-name-base demangled -k regex:"sweep3d(_zigzag)?<float, \\(int\\)1, \\(int\\)16" -c 1 --metrics $m \
            "$H$v" roofline --backend cuda --size2d 512 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu$v.txt" 2>&1
        echo "== halox$v"
        grep -E "sweep3d|gpu__|dram__|lts__|sm__" "$OUT/ncu$v.txt" | awk '{$1=$1; print}' | head -10
    done
fi
if want sizes; then
    # SIZES_RUNS: label:binary suffix:HALOX_TILE entries
    SIZES_RUNS=${SIZES_RUNS:-"register:: tile::$TILE"}
    t "plain 3D sweeps at the per-rank sizes of the multi-GPU runs: $SIZES_RUNS"
    for s in ${SIZES3:-256x256x512 512x512x256 256 128}; do
        for e in $SIZES_RUNS; do
            IFS=: read -r label suffix tile <<<"$e"
            env ${tile:+HALOX_TILE=$tile} timeout 60 "$H$suffix" roofline --backend cuda --small 0 --size2d 1024 --size3d $s --fused=off \
                --repeat 7 >"$OUT/sizes_${s}_$label.txt" 2>&1
            echo "== $s $label"; grep -E "jacobi7|star13" "$OUT/sizes_${s}_$label.txt"
        done
    done
fi
if want sanitize; then
    t "compute-sanitizer on PIPE 4 (fixed and periodic, both radii)"
    for tool in memcheck racecheck synccheck; do
        for args in "--size 150x40x30 --boundary fixed --dtype float" "--size 70x66x20 --stencil star13 --dtype double --depth 2"; do
            HALOX_TILE=$TILE cs_run $tool $args
        done
    done
fi
t "done"
