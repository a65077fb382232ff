#!/usr/bin/env bash
# halox roofline on one rank: exit 0, the copy line, one row per stencil and dtype (8) with the grids
# as given (2D N^2; 3D N^3 or NXxNYxNZ) and positive figures in every column (time, cells/s, GB/s, of
# copy, own copy), the latency-bound rows from --small down to 128, and on the cpu backend the note
# that it has no fused passes. BACKEND cuda (the GPU suite) also checks the fused-pass table and runs
# everything again with --graph and with the tuning flags set. A tuning that does not hold for both
# the 2D and the 3D rows is refused in one line. What the figures are worth is for benchmarks, not tests.
# Usage: roofline.sh HALOX MPIEXEC [BACKEND]
set -u
HALOX=$1 MPIEXEC=$2 BACKEND=${3:-cpu}
N2=64
[ "$BACKEND" = cuda ] && N2=512 # room for the deepest fused 2D pass's ghost cells, apart from the --small rows
. "$(dirname "$0")/mpi_env.sh"
[ "$BACKEND" = cuda ] && . "$(dirname "$0")/gpu_common.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { # ARGS3D LABEL3D [EXTRA...]
    local a3=$1 l3=$2 out rc
    shift 2
    local what="--size3d $a3${*:+ $*}"
    out=$(MPIRUN 1 "$HALOX" roofline --backend "$BACKEND" --size2d "$N2" --size3d "$a3" --small 256 --repeat 3 --batch 4 "$@" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { bad "$what: exit $rc: $(echo "$out" | tail -2)"; return; }
    grep -Eq "^halox roofline on (the )?$BACKEND.*: copy of .* GB/s" <<<"$out" || bad "$what: no copy line"
    local rows
    rows=$(awk -v l2="$N2^2" -v l3="$l3" '
        function pos() { return $4 > 0 && $5 > 0 && $6 > 0 && $7 + 0 > 0 && $7 ~ /%$/ && $8 + 0 > 0 && $8 ~ /%$/ }
        $1 ~ /^(jacobi5|star9)$/ && $3 == l2 && pos() { n++ }
        $1 ~ /^(jacobi7|star13)$/ && $3 == l3 && pos() { n++ }
        $1 == "jacobi5" && $2 == "float" && ($3 == "256^2" || $3 == "128^2") && pos() { n++ }
        END { print n + 0 }' <<<"$out")
    [ "$rows" -eq 10 ] || bad "$what: $rows rows with the grids $N2^2 / $l3 and positive figures, want 10 (8 + 2 small)"
    if [ "$BACKEND" = cpu ]; then
        grep -q '^(fused passes: the cpu backend has none)' <<<"$out" || bad "$what: no fused-pass note"
    else
        # the fused passes (N = 1 and up) of the 2D float jacobi5 row: at least two, each a positive multiple of the copy
        local fused
        fused=$(awk -v l2="$N2^2" '$1 == "jacobi5" && $2 == "float" && $3 == l2 && NF >= 8 && $4 ~ /^[0-9]+$/ && $5 > 0 && $8 ~ /x$/ && $8 + 0 > 0 { n++ }
                     END { print n + 0 }' <<<"$out")
        [ "$fused" -ge 2 ] || bad "$what: $fused fused jacobi5 float rows, want 2 or more"
    fi
    [ $fail -eq 0 ] && echo "  $what: 10 rows, $l3"
}
check 24 "24^3"
check 16x24x32 "16x24x32"
[ "$BACKEND" = cuda ] && check 32 "32^3" --graph
[ "$BACKEND" = cuda ] && check 32 "32^3" --block-rows 4 --march 4 --zsplit 3 --lanes 16 --prefetch on --pdl off --tma on
out=$(MPIRUN 1 "$HALOX" roofline --backend "$BACKEND" --march 2 2>&1)
if [ $? -eq 0 ] || ! grep -q "^halox: error: tuning: march 2: give 4, 8, 16, 32 or 64 planes .*(for the 3D rows)" <<<"$out"; then
    bad "--march 2 was not refused for the 3D rows: $(echo "$out" | tail -2)"
fi
echo "roofline ($BACKEND): $fail failed"
[ $fail -eq 0 ]
