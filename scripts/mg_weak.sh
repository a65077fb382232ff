#!/usr/bin/env bash
# halox mg weak scaling on a GPU machine: FMG solves at SIZE^3 cells per GPU on 1 GPU and on
# every count in NPS, for each variant "TRANSPORT:GHOSTS[:GRAPH[:BINARY]]" in VARIANTS (GHOSTS -:
# no --ghosts option, for a binary from before it; BINARY: another halox), alternated over
# ROUNDS rounds (one run's F-cycle time varies by up to 30% on these machines, so runs of the
# variants are interleaved, never batched). Prints each run, then per variant and rank count the
# median over rounds of the runs' median F-cycle, and the weak-scaling efficiency T(1) / T(np).
#
#   scripts/mg_weak.sh build-dev                     # 1 and all GPUs, ghosts 1 and 2, ipc-put
#   NPS="1 2" VARIANTS="ipc-put:2 nccl:2" ROUNDS=5 scripts/mg_weak.sh build-dev
#
# CSVs under $OUT (default /tmp/halox-mg-weak). Exit 1 when a run fails.
set -u
BUILD=${1:-build}
OUT=${OUT:-/tmp/halox-mg-weak}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
H=$BUILD/halox
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$NGPU" -ge 1 ] || { echo "FAIL: no GPU"; exit 1; }
NPS=${NPS:-$( [ "$NGPU" -gt 1 ] && echo "1 $NGPU" || echo 1 )}
VARIANTS=${VARIANTS:-ipc-put:1 ipc-put:2}
ROUNDS=${ROUNDS:-3}
SIZE=${SIZE:-256}
MPI=(mpirun --oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH)
fail=0
for rep in $(seq 1 "$ROUNDS"); do
    for v in $VARIANTS; do
        IFS=: read -r tr gh gr bin <<<"$v"
        gr=${gr:-on} bin=${bin:-$H}
        gopt=(--ghosts "$gh")
        [ "$gh" = - ] && gopt=()
        for np in $NPS; do
            f="$OUT/${tr}_g${gh}_graph${gr}_$(basename "$bin")_np${np}_$rep"
            if ! timeout 900 "${MPI[@]}" -np "$np" "$bin" mg --backend cuda --transport "$tr" "${gopt[@]}" --graph="$gr" \
                --pattern direct --size-per-rank "$SIZE" --repeat 10 --format csv 2>"$f.err" >"$f.csv"; then
                echo "FAIL: $v np $np round $rep ($f.err)"; tail -3 "$f.err"; fail=1; continue
            fi
            awk -F, -v l="$v np $np round $rep" 'NR == 2 { print l ": F-cycle median " $17 " s, " $21 " DOF/s, checksum " $16 }' "$f.csv"
        done
    done
done
echo "median over rounds of each run's median F-cycle (s); efficiency T(1 GPU) / T(np)"
for v in $VARIANTS; do
    IFS=: read -r tr gh gr bin <<<"$v"
    gr=${gr:-on} bin=${bin:-$H}
    t1=""
    for np in $NPS; do
        t=$(for f in "$OUT/${tr}_g${gh}_graph${gr}_$(basename "$bin")_np${np}_"*.csv; do awk -F, 'NR == 2 { print $17 }' "$f"; done | sort -g |
            awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')
        [ -z "$t" ] && continue
        [ "$np" = 1 ] && t1=$t
        eff=$([ -n "$t1" ] && awk -v a="$t1" -v b="$t" 'BEGIN { printf "%.1f%%", 100 * a / b }')
        echo "  $v np $np: $t s $eff"
    done
done
exit $fail
