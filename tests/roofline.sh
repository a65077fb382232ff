#!/usr/bin/env bash
# halox roofline on the CPU backend, one rank: exit 0, the copy line, one row per stencil and dtype
# (8) with the grids as given (2D N^2; 3D N^3 or NXxNYxNZ) and positive figures, the note that the
# cpu backend has no fused passes, and the latency-bound rows from --small down to 128. What the
# figures are worth is for benchmarks, not tests. Usage: roofline.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { # ARGS3D LABEL3D
    local out rc
    out=$(MPIRUN 1 "$HALOX" roofline --backend cpu --size2d 64 --size3d "$1" --small 256 --repeat 3 --batch 4 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { bad "--size3d $1: exit $rc: $(echo "$out" | tail -2)"; return; }
    grep -q '^halox roofline on the cpu: copy of .* GB/s' <<<"$out" || bad "--size3d $1: no copy line"
    local rows
    rows=$(awk -v l3="$2" '
        $1 ~ /^(jacobi5|star9)$/ && $3 == "64^2" && $4 > 0 && $5 > 0 { n++ }
        $1 ~ /^(jacobi7|star13)$/ && $3 == l3 && $4 > 0 && $5 > 0 { n++ }
        $1 == "jacobi5" && $2 == "float" && ($3 == "256^2" || $3 == "128^2") && $4 > 0 && $5 > 0 { n++ }
        END { print n + 0 }' <<<"$out")
    [ "$rows" -eq 10 ] || bad "--size3d $1: $rows rows with the grids 64^2 / $2 and positive figures, want 10 (8 + 2 small)"
    grep -q '^(fused passes: the cpu backend has none)' <<<"$out" || bad "--size3d $1: no fused-pass note"
    grep -q '^jacobi5  *float  *128^2 ' <<<"$out" || bad "--size3d $1: no 128^2 latency row"
    [ $fail -eq 0 ] && echo "  --size3d $1: 10 rows, $2"
}
check 24 "24^3"
check 16x24x32 "16x24x32"
echo "roofline: $fail failed"
[ $fail -eq 0 ]
