#!/usr/bin/env bash
# Session 11: the fused 2D march with level-0 rows through a cp.async queue in shared memory
# (HX_FUSED2D_RING builds, carried gzip'd as halox-ringN.gz): bit for bit against the reference,
# then `halox roofline` beside the default build. Usage: RINGS="-ring6 -ring9" scripts/ring2d_checks.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=ring2d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t "bit for bit: jacobi5 fuse 2-8 and star9 fuse 2-4, both dtypes, periodic and fixed"
for v in ${RINGS:--ring9}; do
    common="--backend cuda --dtype float,double --boundary periodic,fixed --depth 8 --iters 16 --repeat 1 --verify --format csv --quiet"
    timeout 120 "$H$v" run $common --stencil jacobi5 --size 1000x700,333x1200 --fuse 2,3,4,5,6,7,8 >"$OUT/verify$v.csv" 2>"$OUT/verify$v.err"
    a=$?
    timeout 120 "$H$v" run $common --stencil star9 --size 1000x700 --fuse 2,3,4 >>"$OUT/verify$v.csv" 2>>"$OUT/verify$v.err"
    echo "halox$v rc=$a,$? verified: $(cut -d, -f50 "$OUT/verify$v.csv" | grep -v verified | sort | uniq -c | xargs)"
    grep -h "halox: error" "$OUT/verify$v.err" | head -2
done
t "roofline: default and ${RINGS:--ring9}, alternated twice (3D at 64^3 only)"
for rep in 1 2; do
    for v in "" ${RINGS:--ring9}; do
        timeout 120 "$H$v" roofline --backend cuda --small 0 --size3d 64 --repeat 7 >"$OUT/roofline${v:--base}.$rep.txt" 2>&1
        echo "== halox$v rep $rep: $(grep -E 'jacobi5  float   16384\^2 +[678] ' "$OUT/roofline${v:--base}.$rep.txt" | awk '{printf "N=%s %s %s; ", $4, $5, $NF}')"
    done
done
t "done"
