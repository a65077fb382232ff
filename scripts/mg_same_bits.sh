#!/usr/bin/env bash
# halox mg's fields, bit for bit, between two builds on the CPU (no GPU needed): the checksums of
# every solve size over a matrix of rank counts (1, 2, 4, 8; oversubscribed), problems, bottom
# solvers, patterns, smoothers, agglomeration (one and two steps), box grids, odd rank counts and
# nu 3. For a change that must not move a bit (session 18's deep ghosts were checked this way).
#   scripts/mg_same_bits.sh OLD_HALOX [NEW_HALOX]     # NEW defaults to build/halox
# Prints SAME or DIFF per configuration; exit 1 when any differs or fails to run.
set -u
OLD=${1:?usage: mg_same_bits.sh OLD_HALOX [NEW_HALOX]}
NEW=${2:-$(dirname "$0")/../build/halox}
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
bad=0
sums() { # BINARY NP options...: the sorted checksums of every solve
    local bin=$1 np=$2
    shift 2
    timeout 300 mpirun --oversubscribe -np "$np" "$bin" mg "$@" --repeat 1 --format csv 2>/dev/null |
        awk -F, 'NR > 1 { print $16 }' | sort -u | tr '\n' ' '
}
same() { # NAME NP options...
    local name=$1 np=$2
    shift 2
    local a b
    a=$(sums "$OLD" "$np" "$@")
    b=$(sums "$NEW" "$np" "$@")
    if [ -n "$a" ] && [ "$a" = "$b" ]; then
        echo "SAME $name np$np"
    else
        echo "DIFF $name np$np: [$a] vs [$b]"
        bad=1
    fi
}
for np in 1 2 4 8; do
    same poisson $np --size 32 --coarse 4 --agglomerate 0
    same poisson-direct $np --size 32 --coarse 4 --pattern direct --agglomerate 0
    same helmholtz $np --size 32 --coarse 4 --problem helmholtz --agglomerate 0
    same helmholtz-smooth $np --size 32 --coarse 4 --problem helmholtz --bottom smooth --agglomerate 0
    same cheby $np --size 32 --coarse 4 --smoother cheby --agglomerate 0
done
same agglomerate 8 --size 64 --agglomerate 512
same agglomerate-two-step 8 --size 64 --grid 4x2x1 --agglomerate-ranks 512 --agglomerate 64
same box 4 --size 64x32x32 --coarse 4
same helmholtz-box 2 --size 32x16x16 --coarse 4 --problem helmholtz
same nu3 2 --size 32 --coarse 4 --nu 3
same three-ranks 3 --size 48x16x16 --coarse 4 --bottom smooth
same thin-blocks 4 --size 32 --grid 1x1x4 --coarse 4 --bottom smooth
same six-ranks 6 --size 48x32x16 --coarse 4 --bottom smooth
exit $bad
