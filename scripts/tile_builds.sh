#!/usr/bin/env bash
# Plain 3D sweeps of (build, HALOX_TILE) pairs side by side (`halox roofline --no-fused`, % of copy),
# alternated over ROUNDS rounds in one call. ENTRIES="label:binary:tile ..." where binary is halox or
# halox-NAME in the build folder (a halox-NAME.gz is unpacked first) and tile is HALOX_TILE's
# BY2,CHUNK2,BY3,CHUNK3 (commas; "-" for the defaults). One GPU.
# Usage: ENTRIES="base:halox:- bx128:halox-bx128:4,8,2,16" scripts/tile_builds.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=${DEVICE_NAME:-tile_builds}
. scripts/device_run.sh
bundle_on_exit
SIZES=${SIZES:-"512 256x256x512"}
for e in ${ENTRIES:?give ENTRIES}; do
    b=$(cut -d: -f2 <<<"$e")
    [ -x "$B/$b" ] || { gunzip -kf "$B/$b.gz" && chmod +x "$B/$b"; }
done
for r in $(seq "${ROUNDS:-3}"); do
    for e in $ENTRIES; do
        IFS=: read -r label b tile <<<"$e"
        for s in $SIZES; do
            if [ "$tile" = - ]; then unset HALOX_TILE; else export HALOX_TILE=$tile; fi
            timeout 120 "$B/$b" roofline --backend cuda --size2d 256 --size3d "$s" --small 0 --no-fused --repeat 7 2>&1 |
                awk -v b="$label" -v r="$r" '/^(jacobi7|star13)/ { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
        done
    done
done | tee "$OUT/tile_builds.txt" >/dev/null
unset HALOX_TILE
grep ERROR "$OUT/tile_builds.txt" | head -5
python3 scripts/side_by_side_medians.py "$OUT/tile_builds.txt" $(for e in $ENTRIES; do cut -d: -f1 <<<"$e"; done) |
    tee "$OUT/tile_medians.txt"
t done
