#!/usr/bin/env bash
# Plain 3D sweeps whose blocks march whole z columns (or halves, quarters), against the default
# 16-plane marches (issue 9: jacobi7 and star13 at 90% of copy). One GPU, `halox roofline`, 3D only.
# BINS: "label:binary ..." (a bare name is in the build folder; a halox-NAME.gz is unpacked first),
# built with scripts/variant_build.sh and -DHX_SWEEP3D_CHUNK_MUL=8 (HALOX_TILE's CHUNK3 x 8 planes;
# that macro of src/compute/cuda/sweep3d.cu was removed after session 24 measured it: commit 8877f74);
# TILES: HALOX_TILE values ("BY2,CHUNK2,BY3,CHUNK3[,PIPE[,ROWS3]]") tried with each of them; the
# default binary runs at its default tile. SIZE3D (default 512), ROUNDS (default 1) alternated.
# Usage: BINS="col1:halox-col1" TILES="4,8,2,64 4,8,4,32" scripts/col3d_checks.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=col3d
. scripts/device_run.sh
bundle_on_exit
unpack_variants
rl() { # label binary tile
    local tile=$3
    env ${tile:+HALOX_TILE=$tile} timeout 60 "$2" roofline --backend cuda --size3d "${SIZE3D:-512}" --size2d 256 --small 0 \
        --no-fused --repeat "${REPEAT:-7}" 2>&1 |
        awk -v l="$1" -v t="${tile:-default}" '/: copy/ { print l, t, "copy", $0 } /^(jacobi7|star13)/ { print l, t, $0 }'
}
t "col3d"
for r in $(seq "${ROUNDS:-1}"); do
    rl default "$H" ""
    for b in ${BINS:-}; do
        for tile in ${TILES:-}; do rl "${b%%:*}" "$(bin_of "$b")" "$tile"; done
    done
done | tee "$OUT/col3d.txt"
t done
