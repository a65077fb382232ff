#!/usr/bin/env bash
# halox mg on the GPU: the CUDA kernels and every GPU transport give the CPU kernels' solution bit
# for bit at the same rank count, with and without --overlap (GSRB), the timed F-cycles too (replayed from CUDA graphs with ipc-put
# and nccl, which the report's graph field must say). The bottom solve is by smoothing (no global
# reduction), so the agglomeration that the CUDA backend picks by default changes no bit either.
# Skipped without a GPU. 128^3 reaches ipc-put's plain messages (a 128^2 face of doubles is over its 64 KiB of
# flagged words), 32^3 only flagged words. Usage: gpu_mg.sh HALOX MPIEXEC NP
set -u
HALOX=$1 MPIEXEC=$2 NP=$3
. "$(dirname "$0")/gpu_common.sh"
. "$(dirname "$0")/mpi_env.sh"
unset OMPI_MCA_mpi_yield_when_idle
fail=0 runs=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ "$NP" -le "$gpu_slots" ] || { echo "SKIPPED: $NP ranks need $NP GPU slots, $gpu_slots here"; exit 77; }
transports=mpi
# nccl and ipc-put take one GPU per rank (ipc-put also runs on shared GPUs under the tests' knob)
"$HALOX" info | grep -q '^  nccl ' && [ "$NP" -le "$gpu_count" ] && transports="$transports nccl"
"$HALOX" info | grep -q '^  ipc-put ' && transports="$transports ipc-put"
"$HALOX" info | grep -q '^  ipc ' && transports="$transports ipc"
# nvshmem: one GPU per rank too
"$HALOX" info | grep -q '^  nvshmem ' && [ "$NP" -le "$gpu_count" ] && transports="$transports nvshmem"
# checksums NAME: "shape checksum fmg_checksum" of every solve size: u after the V-cycles, and after
# the timed F-cycles (replayed from CUDA graphs where mg can: ipc-put and nccl)
checksums() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $24 == 0 { print $NF, $16, $c["fmg_checksum"] }' "$TMP/$1.csv"; }
# field NAME KEY: the first row's KEY field of the CSV
field() { awk -F, -v k="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c[k]; exit }' "$TMP/$1.csv"; }
# graphed NAME: the CSV's graph field (1: the timed F-cycles were replayed from graphs)
graphed() { field "$1" graph; }
# replays TR: 1 where transport TR's exchanges replay, so the timed F-cycles must come from graphs
replays() { case $1 in ipc-put|nccl) echo 1 ;; *) echo 0 ;; esac; }
# run NAME args...: one mg job at NP ranks, its CSV in $TMP/NAME.csv
run() {
    local name=$1
    shift
    runs=$((runs + 1))
    if ! MPIRUN "$NP" "$HALOX" mg "$@" --repeat 1 --bottom smooth --format csv >"$TMP/$name.csv" 2>"$TMP/$name.err"; then
        echo "FAIL (np=$NP): halox mg $*: exit non-zero"
        tail -3 "$TMP/$name.err"
        fail=$((fail + 1))
        return 1
    fi
}
# same_as_cpu NAME LABEL args...: a cuda run over $tr with these options gives $want, the CPU's checksums
same_as_cpu() {
    local name=$1 label=$2 got
    shift 2
    run $name "${opts[@]}" --backend cuda --transport $tr "$@" || return
    got=$(checksums $name)
    if [ -z "$got" ] || [ "$want" != "$got" ]; then
        echo "FAIL (np=$NP): mg $size^3 $label, cuda + $tr: checksums [$(echo $got)], the CPU's [$(echo $want)]"
        fail=$((fail + 1))
    else echo "  np=$NP mg $size^3 $label: cuda + $tr = cpu"; fi
}
for size in 32 128; do
    for sp in "gsrb poisson" "gsrb helmholtz" "cheby helmholtz"; do
        read -r sm pb <<<"$sp"
        opts=(--size $size --coarse 4 --smoother $sm --problem $pb)
        ref=cpu$size$sm
        run $ref "${opts[@]}" --backend cpu --transport mpi || continue
        for tr in $transports; do
            run $tr$size$sm "${opts[@]}" --backend cuda --transport $tr || continue
            want=$(checksums $ref) got=$(checksums $tr$size$sm)
            if [ -z "$want" ] || [ "$want" != "$got" ]; then
                echo "FAIL (np=$NP): mg $size^3 $sm $pb, cuda + $tr: checksums [$(echo $got)], the CPU's [$(echo $want)]"
                fail=$((fail + 1))
            else echo "  np=$NP mg $size^3 $sm $pb: cuda + $tr = cpu: $(echo $got)"; fi
            if [ "$sm" = gsrb ]; then
                # --overlap: GSRB colours split around their exchange (inner box, then the shell's
                # slabs in one k_gsrb_boxes launch) change no bit
                same_as_cpu ov$tr$size "gsrb $pb --overlap" --overlap
                # --fuse-colours on: both colours of each sweep in one k_gsrb2 pass on every level
                # (auto takes only large blocks), out of place; the timed F-cycles still replay from graphs
                same_as_cpu fu$tr$size$pb "gsrb $pb --fuse-colours on" --fuse-colours on
            fi
            # with a transport whose exchanges replay, the timed F-cycles must have come from graphs
            want_graph=$(replays $tr)
            for name in $tr$size$sm $([ "$sm" = gsrb ] && echo fu$tr$size$pb); do
                if [ -s "$TMP/$name.csv" ] && [ "$(graphed $name)" != "$want_graph" ]; then
                    echo "FAIL (np=$NP): mg $size^3 $sm ($name), cuda + $tr: graph $(graphed $name), want $want_graph"
                    fail=$((fail + 1))
                fi
            done
        done
    done
done
# The defaults: --transport auto resolves to the library's pick (the report names it; CUDA graphs
# where it replays), and at one rank no level moves to the CPU (agglomerate 0); the CPU's bits.
if run defcpu --size 32 --coarse 4 --backend cpu && run defaults --size 32 --coarse 4 --backend cuda; then
    got=$(checksums defaults) want=$(checksums defcpu) tr=$(field defaults transport)
    want_graph=$(replays $tr)
    want_agg=$([ "$NP" -eq 1 ] && echo 0 || field defcpu agglomerate)
    if [ -z "$want" ] || [ "$want" != "$got" ] || [ "$(graphed defaults)" != "$want_graph" ] ||
        [ "$(field defaults agglomerate)" != "$want_agg" ] || ! echo " $transports " | grep -q " $tr "; then
        echo "FAIL (np=$NP): mg defaults: transport $tr, graph $(graphed defaults) (want $want_graph), agglomerate" \
            "$(field defaults agglomerate) (want $want_agg), checksums [$(echo $got)], the CPU's [$(echo $want)]"
        fail=$((fail + 1))
    else echo "  np=$NP mg defaults: transport $tr, graph $want_graph, agglomerate $want_agg, = cpu"; fi
fi
echo "$((runs - fail)) of $runs mg runs as expected (np=$NP; transports: $transports)"
[ $fail -eq 0 ]
