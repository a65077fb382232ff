#!/usr/bin/env bash
# Build ipc-put's tuning variants (src/transport/ipc_put.cuh: HX_IK_SELF_FIRST, HX_IK_LL_FIRST,
# HX_IK_SELF_DIRECT, and the HX_IK_TRACE diagnostic) beside this build, gzipped into the slim tree
# that a device call carries. Run here after `cmake --build build` and `scripts/slim_build.sh build
# build-dev`; then on the GPU machine, e.g. (2 GPUs):
#   for f in build-dev/halox-*.gz; do gunzip -kf $f; chmod +x ${f%.gz}; done
#   NP=2 STAGES="graph verify" SIZES=256x256x256 REPS=3 FUSES=4 TRANSPORTS=ipc-put OVERLAPS=off \
#     BINS="new:halox first:halox-first direct:halox-direct both:halox-both" scripts/cycle3d_checks.sh build-dev
#   scripts/ik_trace_summary.py on the graph.csv of BINS=tr:halox-trace
# Usage: ik_variants_build.sh [DEST] (default build-dev).
set -eu
cd "$(dirname "$0")/.."
DEST=${1:-build-dev}
build_one() {
    local name=$1
    shift
    scripts/variant_build.sh "$name" src/transport/ipc_put.cu "$@" >/dev/null
    gzip -9 -c "build/halox-$name" >"$DEST/halox-$name.gz"
    echo "built $DEST/halox-$name.gz ($*)"
}
build_one first -DHX_IK_SELF_FIRST=1 -DHX_IK_LL_FIRST=1
build_one direct -DHX_IK_SELF_DIRECT=1
build_one both -DHX_IK_SELF_DIRECT=1 -DHX_IK_SELF_FIRST=1 -DHX_IK_LL_FIRST=1
build_one trace -DHX_IK_TRACE=60
du -sh "$DEST"
