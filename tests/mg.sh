#!/usr/bin/env bash
# halox mg (geometric multigrid, CPU backend): at 1, 2 and 8 ranks, every V-cycle reduces the
# residual at least 10x, the observed order log2(e_2h/e_h) is within 1.8-2.2, the error norms agree
# across rank counts to 1e-10 relative (CG's dot products are global sums, so bits may differ),
# and with the reduction-free bottom solver (--bottom smooth) the fields are bit-identical
# (equal checksums) at every rank count. The same for the Chebyshev smoother and the Helmholtz
# problem; with --agglomerate (coarse levels on rank 0) the same, and bit-identical with CG too;
# the default agglomeration (4096 cells) is on where the grid allows it, off elsewhere;
# the JSON report parses; with MG_EMU (the CUDA kernels compiled for the host,
# tests/mg_cuda_emu.cpp) the CUDA kernels' fields equal the CPU kernels' bit for bit. Non-cubic
# global grids (--size NXxNYxNZ, --size-per-rank) the same, on a box of cubic cells. Bad inputs
# stop with exit 2 and one line.
# Usage: mg.sh HALOX MPIEXEC [MG_EMU]
set -u
HALOX=$1 MPIEXEC=$2 MG_EMU=${3:-}
. "$(dirname "$0")/mpi_env.sh"
fail=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

bad() {
    echo "FAIL: $*"
    fail=$((fail + 1))
}

# run NP NAME args...: CSV of `halox mg args --format csv` into $TMP/NAME.csv (BIN: another program
# taking mg's options, e.g. the emulated CUDA kernels)
run() {
    local np=$1 name=$2
    shift 2
    local cmd=("$HALOX" mg)
    [ -n "${BIN:-}" ] && cmd=("$BIN")
    if ! MPIRUN "$np" "${cmd[@]}" "$@" --format csv >"$TMP/$name.csv" 2>"$TMP/$name.err"; then
        bad "np=$np: halox mg $* exited non-zero"
        cat "$TMP/$name.err" | tail -5
        return 1
    fi
    return 0
}

# CSV columns (see the header): 1 size, 8 cycles, 9 converged, 10 max_reduction, 11 reductions,
# 13 error_l2, 15 order_l2, 16 checksum, 24 level; the last (NF) shape, the solve's NXxNYxNZ
check_solve() {
    local name=$1
    awk -F, -v name="$name" '
        NR == 1 { next }
        $24 != 0 { next }
        {
            rows++
            if ($9 != 1) { printf "FAIL: %s: %s did not converge (%s cycles)\n", name, $NF, $8; bad++ }
            n = split($11, r, ";")
            for (i = 1; i <= n; i++)
                if (r[i] + 0 > 0.1) { printf "FAIL: %s: %s V-cycle %d reduced the residual by %s (> 0.1)\n", name, $NF, i, r[i]; bad++ }
            if ($10 + 0 > 0.1) { printf "FAIL: %s: %s max reduction %s\n", name, $NF, $10; bad++ }
            if (rows == 1 && ($15 + 0 < 1.8 || $15 + 0 > 2.2)) { printf "FAIL: %s: observed order %s at %s (want 1.8-2.2)\n", name, $15, $NF; bad++ }
            printf "  %s: %s cycles %s max reduction %s error %s order %s\n", name, $NF, $8, $10, $13, $15
        }
        END { if (rows != 3) { printf "FAIL: %s: %d solve sizes, want 3\n", name, rows; bad++ } exit bad > 0 }' \
        "$TMP/$name.csv" || fail=$((fail + 1))
}

# same_errors A B: error_l2 of every size agrees to 1e-10 relative
same_errors() {
    paste -d, <(awk -F, 'NR > 1 && $24 == 0 { print $NF "," $13 }' "$TMP/$1.csv") \
              <(awk -F, 'NR > 1 && $24 == 0 { print $NF "," $13 }' "$TMP/$2.csv") |
        awk -F, -v a="$1" -v b="$2" '
            { d = $2 - $4; if (d < 0) d = -d; rel = d / $2
              printf "  %s vs %s: %s error %s / %s (relative difference %.2e)\n", a, b, $1, $2, $4, rel
              if ($1 != $3 || rel > 1e-10) { printf "FAIL: %s vs %s: errors differ at %s\n", a, b, $1; bad++ } }
            END { exit bad > 0 }' || fail=$((fail + 1))
}

same_checksums() {
    local x y
    x=$(awk -F, 'NR > 1 && $24 == 0 { print $NF, $16 }' "$TMP/$1.csv")
    y=$(awk -F, 'NR > 1 && $24 == 0 { print $NF, $16 }' "$TMP/$2.csv")
    if [ -z "$x" ] || [ "$x" != "$y" ]; then bad "$1 vs $2: checksums differ: [$x] vs [$y]"; else echo "  $1 vs $2: checksums equal: $(echo $x)"; fi
}

# 32^3 with the coarsest level 4^3 at every rank count (the same hierarchy: 32, 16, 8, 4)
for np in 1 8; do
    run $np cg$np --size 32 --coarse 4 --repeat 1 && check_solve cg$np
done
[ -s "$TMP/cg1.csv" ] && [ -s "$TMP/cg8.csv" ] && same_errors cg1 cg8
for np in 1 2 8; do
    run $np sm$np --size 32 --coarse 4 --bottom smooth --repeat 1 && check_solve sm$np
done
[ -s "$TMP/sm1.csv" ] && [ -s "$TMP/sm2.csv" ] && same_checksums sm1 sm2
[ -s "$TMP/sm1.csv" ] && [ -s "$TMP/sm8.csv" ] && same_checksums sm1 sm8
# the direct pattern fills the same ghosts
run 8 direct8 --size 32 --coarse 4 --bottom smooth --repeat 1 --pattern direct && check_solve direct8 &&
    same_checksums sm8 direct8
# deep ghosts (gsrb's default 2 nu + 1 = 5 layers: an exchange serves up to 5 colours, each also
# updating the rings of ghosts facing other ranks that the next ones read) give the bits of one
# layer (an exchange before each colour), for Poisson and Helmholtz, with both patterns, at 2, 3
# and 5 layers
for np in 2 8; do
    run $np g1sm$np --size 32 --coarse 4 --bottom smooth --repeat 1 --ghosts 1 && same_checksums sm$np g1sm$np
done
for gh in 2 3; do
    run 8 g${gh}sm8 --size 32 --coarse 4 --bottom smooth --repeat 1 --ghosts $gh && same_checksums sm8 g${gh}sm8
done
run 8 g1direct8 --size 32 --coarse 4 --bottom smooth --repeat 1 --pattern direct --ghosts 1 && same_checksums direct8 g1direct8
for np in 1 4; do
    run $np hg$np --size 32 --coarse 4 --bottom smooth --problem helmholtz --repeat 1 && check_solve hg$np
done
run 4 hg1g4 --size 32 --coarse 4 --bottom smooth --problem helmholtz --repeat 1 --ghosts 1
[ -s "$TMP/hg1.csv" ] && [ -s "$TMP/hg4.csv" ] && same_checksums hg1 hg4
[ -s "$TMP/hg4.csv" ] && [ -s "$TMP/hg1g4.csv" ] && same_checksums hg4 hg1g4
# Chebyshev: the default (5 layers, one exchange an application of degree 4) and 3 (an exchange
# inside each application, where the direction's rings limit the next step's) against 1
for gh in 3 5; do
    run 2 chg$gh --size 32 --coarse 4 --bottom smooth --smoother cheby --repeat 1 --ghosts $gh
done
run 2 chg1 --size 32 --coarse 4 --bottom smooth --smoother cheby --repeat 1 --ghosts 1 && same_checksums chg1 chg3 &&
    same_checksums chg1 chg5
# --overlap: a colour that waits for an exchange smooths its inner cells while the halos travel and
# the rest after: the bits of one pass, staged and direct, Poisson and Helmholtz (32^3 on 2 ranks and
# 64^3 on 8 split their finest levels; smaller blocks run whole)
run 2 ov2 --size 32 --coarse 4 --bottom smooth --repeat 1 --overlap && same_checksums sm2 ov2
run 2 hov2 --size 32 --coarse 4 --bottom smooth --problem helmholtz --repeat 1 --overlap &&
    [ -s "$TMP/hg1.csv" ] && same_checksums hg1 hov2
run 8 big8 --size 64 --coarse 4 --bottom smooth --repeat 1 --pattern direct
run 8 bigov8 --size 64 --coarse 4 --bottom smooth --repeat 1 --pattern direct --overlap && same_checksums big8 bigov8
# 64^3 at 8 ranks with the default hierarchy, table report
out=$(MPIRUN 8 "$HALOX" mg --size 64 --repeat 1 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! grep -q "DOF/s" <<<"$out" || grep -q "NOT converged" <<<"$out"; then
    bad "np=8: halox mg --size 64 (exit $rc)"
    echo "$out" | tail -8
else
    echo "$out" | tail -5 | sed 's/^/  /'
fi

# Agglomeration (--agglomerate CELLS): the levels of at most CELLS cells are solved on rank 0 alone
# (gather, serial coarse cycle, scatter) and the hierarchy is the one-rank one at every rank count,
# so the fine solutions are bit-identical at 1, 2 and 8 ranks (at 1 rank too the coarse levels move to
# the CPU, through a gather over one rank); with CG
# too, since the CG then runs on one rank (its error norms still sum over the ranks).
for np in 1 2 8; do
    run $np ag$np --size 32 --agglomerate 64 --bottom smooth --repeat 1 && check_solve ag$np
    run $np agcg$np --size 64 --agglomerate 512 --repeat 1 && check_solve agcg$np
done
# the direct bottom solver (the default where the coarsest level is on one rank, as here) against CG:
# the same errors; and without agglomeration on one rank (direct on the distributed solver's own level)
run 2 agdir2 --size 64 --agglomerate 512 --bottom direct --repeat 1 && check_solve agdir2
run 2 agcgb2 --size 64 --agglomerate 512 --bottom cg --repeat 1 && check_solve agcgb2
[ -s "$TMP/agdir2.csv" ] && [ -s "$TMP/agcgb2.csv" ] && same_errors agdir2 agcgb2 && same_checksums agcg2 agdir2
awk -F, 'NR > 1 && $24 == 0 && $48 != 0 { bad = 1 } END { exit bad }' "$TMP/agdir2.csv" 2>/dev/null ||
    bad "agdir2: the direct bottom solver reported CG iterations"
run 1 dir1 --size 32 --agglomerate 0 --bottom direct --repeat 1 && check_solve dir1
run 1 cgb1 --size 32 --agglomerate 0 --bottom cg --repeat 1 && [ -s "$TMP/dir1.csv" ] && same_errors dir1 cgb1
for np in 2 8; do
    [ -s "$TMP/ag1.csv" ] && [ -s "$TMP/ag$np.csv" ] && same_checksums ag1 ag$np
    [ -s "$TMP/agcg1.csv" ] && [ -s "$TMP/agcg$np.csv" ] && same_checksums agcg1 agcg$np
done
# --coarse-solve all (every rank solves the CPU's levels itself) against the default root (rank 0
# solves them alone and scatters the correction): the same bits, at 2 and 8 ranks, with the smoothing
# bottom and with CG; the report names the choice
for np in 2 8; do
    run $np agall$np --size 32 --agglomerate 64 --bottom smooth --repeat 1 --coarse-solve all && check_solve agall$np &&
        [ -s "$TMP/ag$np.csv" ] && same_checksums ag$np agall$np
    run $np agcgall$np --size 64 --agglomerate 512 --repeat 1 --coarse-solve all && check_solve agcgall$np &&
        [ -s "$TMP/agcg$np.csv" ] && same_checksums agcg$np agcgall$np
done
for pair in "ag8 root" "agall8 all"; do
    set -- $pair
    [ -s "$TMP/$1.csv" ] && awk -F, -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["coarse_solve"] != want { bad = 1 } END { exit bad || NR < 2 }' "$TMP/$1.csv" ||
        bad "$1: coarse_solve column is not $2"
done
# the report marks the levels on rank 0 (the 4^3 level and below at 32^3) and counts the gathers there
for name in ag1 ag8; do
    [ -s "$TMP/$name.csv" ] || continue
    awk -F, -v name="$name" -v want=1 '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $1 == 32 {
            on = $col["level_size"] <= 4 ? want : 0
            if ($col["rank0"] != on) { printf "FAIL: %s: level %s^3 rank0 %s, want %d\n", name, $col["level_size"], $col["rank0"], on; bad++ }
            if ($col["level_size"] == 4 && want && $col["agglomerate_calls"] + 0 < 1) { printf "FAIL: %s: no gather counted at 4^3\n", name; bad++ }
            if ($col["level_size"] != 4 && $col["agglomerate_calls"] != 0) { printf "FAIL: %s: gathers counted at %s^3\n", name, $col["level_size"]; bad++ }
        }
        END { if (!bad) printf "  %s: levels on rank 0 reported\n", name; exit bad > 0 }' "$TMP/$name.csv" || fail=$((fail + 1))
done

# The default agglomeration: 4096 cells with several ranks where the grid allows it. At 128^3 (4h
# grid 32^3) on 2 ranks it is on: the report says 4096, and the same bits as 1 rank, where the
# default is off (the same hierarchy); at 64^3 (4h grid 16^3 = 4096) it is off (0), as is an
# explicit --agglomerate 0 at 128^3. The default transport on the CPU resolves to mpi.
run 1 auto1 --size 128 --repeat 1 && check_solve auto1
run 2 auto2 --size 128 --repeat 1 && check_solve auto2
run 2 auto64 --size 64 --repeat 1
run 2 off128 --size 128 --agglomerate 0 --repeat 1
[ -s "$TMP/auto1.csv" ] && [ -s "$TMP/auto2.csv" ] && same_checksums auto1 auto2
for want in auto1:0 auto2:4096 auto64:0 off128:0; do
    name=${want%%:*} cells=${want#*:}
    [ -s "$TMP/$name.csv" ] || continue
    awk -F, -v name="$name" -v cells="$cells" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["agglomerate"] != cells { printf "FAIL: %s: agglomerate %s, want %s\n", name, $col["agglomerate"], cells; bad++; exit }
        $col["transport"] != "mpi" { printf "FAIL: %s: transport %s, want mpi (auto on the CPU)\n", name, $col["transport"]; bad++; exit }
        END { if (!bad) printf "  %s: agglomerate %s, transport mpi\n", name, cells; exit bad > 0 }' "$TMP/$name.csv" || fail=$((fail + 1))
done

# Two-step agglomeration (--agglomerate-ranks CELLS, then --agglomerate): 8 ranks (grid 4x2x1) keep
# 64^3 .. 8^3, 2 ranks (4x2x1 halved along its even axes) take 8^3 and 4^3, rank 0's CPU 4^3 and
# 2^3: still the one-rank hierarchy, so bit-identical to 1 rank, with the smoothing bottom and CG;
# the report gives each level's ranks (2x2x2 halves to one rank: the first step onto rank 0 alone).
run 1 two1 --size 64 --agglomerate-ranks 512 --agglomerate 64 --bottom smooth --repeat 1 && check_solve two1
run 8 two8 --size 64 --grid 4x2x1 --agglomerate-ranks 512 --agglomerate 64 --bottom smooth --repeat 1 && check_solve two8
run 8 twocg8 --size 64 --agglomerate-ranks 512 --agglomerate 64 --repeat 1 && check_solve twocg8
run 1 twocg1 --size 64 --agglomerate-ranks 512 --agglomerate 64 --repeat 1
[ -s "$TMP/two1.csv" ] && [ -s "$TMP/two8.csv" ] && same_checksums two1 two8
# the eighth's own CPU step on their rank 0 (--coarse-solve root, the default) or shared among them: the same bits
run 8 twoall8 --size 64 --grid 4x2x1 --agglomerate-ranks 512 --agglomerate 64 --bottom smooth --repeat 1 --coarse-solve all &&
    [ -s "$TMP/two8.csv" ] && same_checksums two8 twoall8
[ -s "$TMP/twocg1.csv" ] && [ -s "$TMP/twocg8.csv" ] && same_checksums twocg1 twocg8
if [ -s "$TMP/two8.csv" ]; then
    awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $1 == 64 {
            n = $col["level_size"]
            want = n >= 16 ? 8 : n == 8 ? 2 : 1
            if ($col["level_ranks"] != want) { printf "FAIL: two8: level %s^3 on %s ranks, want %d\n", n, $col["level_ranks"], want; bad++ }
            if ($col["rank0"] != (n <= 4)) { printf "FAIL: two8: level %s^3 rank0 %s\n", n, $col["rank0"]; bad++ }
            if ((n == 8 || n == 4) && $col["agglomerate_calls"] + 0 < 1) { printf "FAIL: two8: no hand-over counted at %s^3\n", n; bad++ }
            seen++
        }
        END { if (seen != 6) { printf "FAIL: two8: %d levels of the 64^3 solve, want 6\n", seen; bad++ }
              if (!bad) printf "  two8: 8, 2 and 1 ranks per level reported\n"; exit bad > 0 }' "$TMP/two8.csv" || fail=$((fail + 1))
fi

# Chebyshev smoother (degree 4, one application before and after): reduction and order at 64^3
for np in 1 2; do
    run $np cheby$np --size 64 --coarse 4 --smoother cheby --repeat 1 && check_solve cheby$np
done
[ -s "$TMP/cheby1.csv" ] && [ -s "$TMP/cheby2.csv" ] && same_errors cheby1 cheby2
# Helmholtz (variable alpha and beta): reduction and order at 64^3, GSRB and Chebyshev
run 1 helm1 --size 64 --problem helmholtz --repeat 1 && check_solve helm1
run 2 helmcheby2 --size 64 --problem helmholtz --smoother cheby --repeat 1 && check_solve helmcheby2
# reduction-free solves are bit-identical across rank counts for both smoothers and problems
for np in 1 2; do
    run $np chsm$np --size 32 --coarse 4 --bottom smooth --smoother cheby --repeat 1 && check_solve chsm$np
    run $np hesm$np --size 32 --coarse 4 --bottom smooth --smoother cheby --problem helmholtz --repeat 1 &&
        check_solve hesm$np
done
[ -s "$TMP/chsm1.csv" ] && [ -s "$TMP/chsm2.csv" ] && same_checksums chsm1 chsm2
[ -s "$TMP/hesm1.csv" ] && [ -s "$TMP/hesm2.csv" ] && same_checksums hesm1 hesm2

# Non-cubic global grids (--size NXxNYxNZ: cubic cells of width 1/min N on [0, NX h] x [0, NY h] x
# [0, NZ h]): x or y the long axis, reduction and order at 1, 2 and 8 ranks, bit-identical with
# --bottom smooth (--coarse 4: the same levels 64x32x32 .. 8x4x4 at every rank count), the error
# norms of CG at 1 and 2 ranks to 1e-10, Helmholtz (the chain rule's 1/L factors) with both
# smoothers; --size 32 and --size 32x32x32 are the same run; --size-per-rank N is N^3 per rank.
for shape in 64x32x32 32x64x32; do
    for np in 1 2 8; do
        run $np box$shape$np --size $shape --coarse 4 --bottom smooth --repeat 1 && check_solve box$shape$np
    done
    for np in 2 8; do
        [ -s "$TMP/box${shape}1.csv" ] && [ -s "$TMP/box$shape$np.csv" ] && same_checksums box${shape}1 box$shape$np
    done
done
for np in 1 2; do
    run $np boxcg$np --size 64x32x32 --repeat 1 && check_solve boxcg$np
done
[ -s "$TMP/boxcg1.csv" ] && [ -s "$TMP/boxcg2.csv" ] && same_errors boxcg1 boxcg2
run 1 boxhelm1 --size 64x32x32 --problem helmholtz --repeat 1 && check_solve boxhelm1
run 2 boxhelmcheby2 --size 32x64x32 --problem helmholtz --smoother cheby --repeat 1 && check_solve boxhelmcheby2
# the x and y long boxes are mirror images (u, alpha and beta are symmetric in the normalised axes):
# the same errors
[ -s "$TMP/box64x32x321.csv" ] && [ -s "$TMP/box32x64x321.csv" ] &&
    paste -d, <(awk -F, 'NR > 1 && $24 == 0 { print $13 }' "$TMP/box64x32x321.csv") \
              <(awk -F, 'NR > 1 && $24 == 0 { print $13 }' "$TMP/box32x64x321.csv") |
    awk -F, '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-10 * $1) { printf "FAIL: 64x32x32 and 32x64x32: errors %s and %s\n", $1, $2; bad++ } }
             END { if (!bad) print "  64x32x32 and 32x64x32: the same errors"; exit bad > 0 }' || fail=$((fail + 1))
# the report: size = the x extent, shape = the solve's grid (halved per solve), levels 64x32x32 .. 8x4x4,
# DOF/s = NX NY NZ / the median F-cycle
[ -s "$TMP/box64x32x322.csv" ] &&
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; if ($NF != "shape") { print "FAIL: shape is not the last column"; bad++ } next }
        $col["level"] == 0 {
            k++; want = sprintf("%dx%dx%d", 64 / 2^(k-1), 32 / 2^(k-1), 32 / 2^(k-1))
            if ($col["shape"] != want || $col["size"] != 64 / 2^(k-1)) { printf "FAIL: solve %d: size %s shape %s, want %s\n", k, $col["size"], $col["shape"], want; bad++ }
            # dof_per_s * fmg_median_s = the cells, to the CSV precision (the median has 6 decimals)
            t = $col["fmg_median_s"]; cells = 64 * 32 * 32 / 8^(k-1); d = $col["dof_per_s"] * t / cells - 1
            if (t >= 1e-5 && (d < 0 ? -d : d) > 0.6e-6 / t + 1e-5) { printf "FAIL: solve %d: dof_per_s %s, want %d cells / %s s\n", k, $col["dof_per_s"], cells, t; bad++ }
            if (k == 1 && ($col["levels"] != 4 || $col["coarsest"] != 8)) { printf "FAIL: levels %s coarsest %s, want 4 and 8\n", $col["levels"], $col["coarsest"]; bad++ }
        }
        END { if (k != 3) { print "FAIL: want 3 solves"; bad++ } if (!bad) print "  64x32x32: size, shape, levels and DOF/s reported"; exit bad > 0 }' \
        "$TMP/box64x32x322.csv" || fail=$((fail + 1))
run 1 cubeshape1 --size 32x32x32 --coarse 4 --bottom smooth --repeat 1 && same_checksums sm1 cubeshape1
run 2 perrank2 --size-per-rank 16 --bottom smooth --repeat 1 && run 1 perrank1 --size 16x16x32 --bottom smooth --repeat 1 &&
    same_checksums perrank1 perrank2
# weak scaling's grid: 4 ranks take 4x1x1 (2 neighbours a rank, not 3), the same bits as one rank's 64x16x16
run 4 perrank4 --size-per-rank 16 --bottom smooth --repeat 1 && run 1 perrank4one --size 64x16x16 --bottom smooth --repeat 1 &&
    same_checksums perrank4one perrank4 &&
    { g=$(awk -F, 'NR == 2 { print $3 }' "$TMP/perrank4.csv"); [ "$g" = 4x1x1 ] && echo "  --size-per-rank at 4 ranks: grid $g" ||
        bad "--size-per-rank 16 at 4 ranks: grid '$g', want 4x1x1"; }
# agglomeration of a box: the one-rank hierarchy's 8x4x4 and 4x2x2 on rank 0, CG there; bit-identical
for np in 1 8; do
    run $np boxag$np --size 64x32x32 --agglomerate 512 --repeat 1 && check_solve boxag$np
done
[ -s "$TMP/boxag1.csv" ] && [ -s "$TMP/boxag8.csv" ] && same_checksums boxag1 boxag8

# JSON: the same fields, and it parses
if command -v python3 >/dev/null; then
    if MPIRUN 2 "$HALOX" mg --size 32 --coarse 4 --bottom smooth --repeat 1 --format json >"$TMP/mg.json" 2>"$TMP/json.err" &&
        python3 -c 'import json,sys; d=json.load(sys.stdin)
assert d["bench"] == "mg" and len(d["solves"]) == 3, "want 3 solves"
s = d["solves"][0]
assert s["size"] == 32 and s["shape"] == "32x32x32" and s["converged"] == 1 and max(s["reductions"]) <= 0.1, s
assert [x["shape"] for x in d["solves"]] == ["32x32x32", "16x16x16", "8x8x8"], d["solves"]
assert len(s["levels"]) == 4 and "smooth_s" in s["levels"][0], s["levels"]
assert d["config"]["ranks"] == 2 and d["config"]["smoother"] == "gsrb", d["config"]' <"$TMP/mg.json"; then
        echo "  json: parses, 3 solves"
        awk -F, 'NR > 1 && $24 == 0 { print $16 }' "$TMP/sm2.csv" | head -1 | grep -qi "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["solves"][0]["checksum"])' <"$TMP/mg.json")" ||
            bad "json checksum differs from the CSV's at 2 ranks"
    else
        bad "halox mg --format json does not parse or lacks fields"
        head -c 600 "$TMP/mg.json"; cat "$TMP/json.err" | tail -3
    fi
else
    echo "  (no python3: JSON not parsed)"
fi

# several transports in one job (--transport A,B: on the CPU only mpi sets up, so mpi twice): each
# one's report, one CSV header, a JSON array, the side-by-side table and bit-identical solutions
if MPIRUN 2 "$HALOX" mg --size 32 --repeat 2 --transport mpi,mpi >"$TMP/two.txt" 2>"$TMP/two.err"; then
    grep -q "^transports side by side: the 32^3 solve" "$TMP/two.txt" || bad "--transport mpi,mpi: no side-by-side table"
    [ "$(grep -c "^0      32^3 " "$TMP/two.txt")" -eq 1 ] || bad "--transport mpi,mpi: level 0 not in the table once"
    grep -q "^solutions .*reference .*bit-identical" "$TMP/two.txt" || bad "--transport mpi,mpi: solutions not reported bit-identical"
    [ "$(grep -c "^size  " "$TMP/two.txt")" -eq 2 ] || bad "--transport mpi,mpi: want two reports"
else
    bad "halox mg --transport mpi,mpi exited non-zero: $(tail -2 "$TMP/two.err")"
fi
run 2 twocsv --size 32 --repeat 1 --transport mpi,mpi && run 2 onecsv --size 32 --repeat 1 &&
    { [ "$(grep -c '^size,' "$TMP/twocsv.csv")" -eq 1 ] &&
        [ "$(($(wc -l <"$TMP/twocsv.csv") - 1))" -eq "$((2 * ($(wc -l <"$TMP/onecsv.csv") - 1)))" ] ||
        bad "--transport mpi,mpi --format csv: want one header and twice the rows of one transport"; }
if command -v python3 >/dev/null; then
    MPIRUN 2 "$HALOX" mg --size 32 --repeat 1 --transport mpi,mpi --format json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin)
assert isinstance(d, list) and len(d) == 2 and all(x["config"]["transport"] == "mpi" for x in d), d
assert d[0]["solves"][0]["checksum"] == d[1]["solves"][0]["checksum"]' ||
        bad "--transport mpi,mpi --format json: want an array of two reports with equal checksums"
fi
# all: the transports that cannot set up here (GPU ones on the CPU backend) skipped with a note
if out=$(MPIRUN 2 "$HALOX" mg --size 16 --repeat 1 --transport all --backend cpu 2>&1); then
    grep -q "^size  " <<<"$out" || bad "--transport all: no report"
    if "$HALOX" info | grep -q "^  nccl "; then
        grep -q "note: mg: --transport all: nccl skipped" <<<"$out" || bad "--transport all on the CPU: nccl not skipped with a note"
    fi
else
    bad "halox mg --transport all --backend cpu exited non-zero: $(tail -2 <<<"$out")"
fi

# the CUDA kernels compiled for the host (no GPU needed): the same bits as the CPU kernels
if [ -n "$MG_EMU" ] && [ -x "$MG_EMU" ]; then
    for sm in gsrb cheby; do
        for pb in poisson helmholtz; do
            for np in 1 2; do
                [ $np = 2 ] && [ $sm$pb != chebyhelmholtz ] && continue
                opts=(--size 16 --coarse 4 --smoother $sm --problem $pb --repeat 1 --fuse-colours on)
                run $np cpu$sm$pb$np "${opts[@]}" --bottom smooth &&
                    BIN=$MG_EMU run $np emu$sm$pb$np "${opts[@]}" --bottom smooth &&
                    same_checksums cpu$sm$pb$np emu$sm$pb$np
            done
        done
    done
    BIN=$MG_EMU run 2 emuov2 --size 32 --coarse 4 --bottom smooth --repeat 1 --overlap && same_checksums sm2 emuov2
    # both GSRB colours of a sweep in one pass (k_gsrb2; auto takes larger blocks, so: on): several
    # tiles along x and y, even and odd ghost counts, one and two ranks; and one launch a colour
    for np in 1 2; do
        for gh in 2 3; do
            opts=(--size 80x40x24 --coarse 4 --problem helmholtz --nu 3 --ghosts $gh --bottom smooth --repeat 1 --fuse-colours on)
            run $np cpuf$gh$np "${opts[@]}" && BIN=$MG_EMU run $np emuf$gh$np "${opts[@]}" &&
                same_checksums cpuf$gh$np emuf$gh$np
        done
    done
    BIN=$MG_EMU run 2 emunof2 --size 80x40x24 --coarse 4 --problem helmholtz --nu 3 --ghosts 3 --bottom smooth \
        --repeat 1 --fuse-colours off && same_checksums cpuf32 emunof2
    run 1 cpucg --size 16 --coarse 4 --repeat 1 && BIN=$MG_EMU run 1 emucg --size 16 --coarse 4 --repeat 1 &&
        same_checksums cpucg emucg
    # non-cubic: x, then y the long axis (launch geometry and the 1/L factors of the right-hand side)
    for pb in poisson helmholtz; do
        for np in 1 2; do
            shape=$([ $np = 1 ] && echo 32x16x16 || echo 16x32x16)
            opts=(--size $shape --coarse 4 --smoother cheby --problem $pb --repeat 1)
            run $np cpubox$pb$np "${opts[@]}" --bottom smooth &&
                BIN=$MG_EMU run $np emubox$pb$np "${opts[@]}" --bottom smooth &&
                same_checksums cpubox$pb$np emubox$pb$np
        done
    done
    run 1 cpuboxcg --size 16x16x32 --coarse 4 --problem helmholtz --repeat 1 &&
        BIN=$MG_EMU run 1 emuboxcg --size 16x16x32 --coarse 4 --problem helmholtz --repeat 1 && same_checksums cpuboxcg emuboxcg
else
    echo "  (no mg_cuda_emu: the CUDA kernels are not checked on the host)"
fi

# bad inputs: exit 2, one line, before any computation
expect_input_error() {
    local np=$1 want=$2
    shift 2
    local out rc
    out=$(MPIRUN "$np" "$HALOX" mg "$@" 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q "$want" <<<"$out" || [ "$(grep -c "^halox: error" <<<"$out")" -ne 1 ]; then
        bad "np=$np halox mg $*: want exit 2 and one line with '$want', got exit $rc: $(echo "$out" | head -3)"
    fi
}
# --backend cuda: refused without a CUDA build or without a GPU (on a GPU machine it runs)
gpus=$("$HALOX" info 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) GPUs\{0,1\} visible.*/\1/p')
if [ -z "$gpus" ] || [ "$gpus" -eq 0 ]; then
    expect_input_error 1 "built without CUDA\|no CUDA GPU is visible" --backend cuda
fi
expect_input_error 8 "does not split evenly" --size 33
expect_input_error 8 "needs 3" --size 8
expect_input_error 2 "needs the coarsest level" --size 32 --agglomerate 0 --bottom direct
expect_input_error 1 "needs 3" --size 32 --coarse 16
expect_input_error 1 "relative residual norm between 0 and 1" --tol 2
expect_input_error 2 "has 4 ranks but the job has 2" --grid 2x2x1
expect_input_error 2 "smoother" --smoother jacobi
expect_input_error 1 "problem" --problem stokes
expect_input_error 1 "ghosts" --ghosts 10
expect_input_error 1 "ghosts" --ghosts 0
expect_input_error 1 "cheby-degree" --cheby-degree 0
expect_input_error 1 "cheby-degree" --cheby-degree 33
expect_input_error 1 "cheby-degree" --cheby-degree four
expect_input_error 1 "format" --format xml
expect_input_error 2 "unknown --coarse-solve .rank0.: use all or root" --coarse-solve rank0
expect_input_error 2 "bad --agglomerate" --agglomerate -1
expect_input_error 2 "bad --agglomerate" --agglomerate many
expect_input_error 1 "give --agglomerate below 512" --size 32 --agglomerate 4096
expect_input_error 8 "give --agglomerate at least 64" --size 64 --agglomerate 8
expect_input_error 8 "halve down to the 2^3 grid" --size 16 --agglomerate 8
expect_input_error 2 "give --agglomerate too" --size 32 --agglomerate-ranks 512
expect_input_error 2 "must exceed --agglomerate 64" --size 64 --agglomerate-ranks 64 --agglomerate 64
expect_input_error 3 "halves the process grid along its even axes, and this one has none" --size 48 --agglomerate-ranks 512 --agglomerate 64
expect_input_error 2 "reach the same level (4^3): give --agglomerate-ranks at least 512" --size 64 --agglomerate-ranks 100 --agglomerate 64
expect_input_error 8 "cannot halve their blocks of the 8^3 grid down to --agglomerate 8: give --agglomerate at least 64" --size 64 --grid 4x2x1 --agglomerate-ranks 512 --agglomerate 8
# transports and schedules
expect_input_error 1 "unknown --transport 'bogus'" --transport mpi,bogus
expect_input_error 1 "all stands alone" --transport mpi,all
expect_input_error 1 "the cycle schedule: use --schedule cycle" --schedule persistent
expect_input_error 1 "schedule" --schedule sometimes
# non-cubic grids: the axis and the fix named
expect_input_error 2 "along y (grid 1x2x1).*use a y extent that is a multiple of 16" --size 32x33x32 --grid 1x2x1
expect_input_error 1 "needs 3 levels.*use a z extent that is a multiple of 8" --size 64x64x6
expect_input_error 2 "needs 3 levels.*use an x extent that is a multiple of 16" --size 12x32x32 --grid 2x1x1
expect_input_error 1 "use --coarse at most 8 (the smallest extent / 4)" --size 64x32x32 --coarse 16
expect_input_error 2 "use a --size-per-rank that is a multiple of 8" --size-per-rank 6
expect_input_error 1 "the 32x16x16 grid (8192 cells).*below 1024" --size 64x32x32 --agglomerate 16384
expect_input_error 8 "give --agglomerate at least 128 (the 8x4x4 grid)" --size 64x32x32 --agglomerate 16

echo "mg: $fail failed"
[ $fail -eq 0 ]
