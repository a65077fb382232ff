#!/usr/bin/env bash
# halox's benchmark suites: the commands behind docs/performance.md, each writing CSV (or, for
# halox roofline and halox tune, their text reports) under one folder, then halox report's plots,
# then a short summary. Run from anywhere; see usage below.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/run.sh SUITE [--out DIR] [--halox PATH] [--cpu] [--quick]

suites (GPU machine; --cpu runs table on 2 CPU ranks, pingpong needs no GPU):
  table     the README's results table on one GPU: halox run at each case's best setting,
            --repeat 5 --format csv, then halox tune --compare-grid at 512^2, 4096^2, 3D 256^3
  roofline  halox roofline: copy bandwidth against every sweep and fused pass (one GPU)
  pingpong  mpirun -np 2 halox pingpong --transport all
  mg        halox mg --problem helmholtz --nu 3 at 256^3 and 512^3 (one GPU): the defaults, --fuse-colours
            off, and --transport mpi --agglomerate 4096, alternated, 3 jobs each
  scaling   weak and strong scaling from 1 GPU to every GPU of the machine
  binding   CPU backend, 2 ranks: bound to a core each against unbound (automatic threads)
  operators user operators beside the built-ins (512^2 persistent, 8192^2 fuse 8, 256^3 fuse 4), and
            box9 / box27 plain and fused on large grids, with halox roofline's copy bandwidth (one GPU)
  exchange  halox exchange at 1024^2, 8 fp32 fields, ipc-put and nccl on every GPU: one many-field
            exchange call against one call per field (--cpu: 2 ranks, transport mpi)
  all       every suite above

options:
  --out DIR      where the results go (default bench-results)
  --halox PATH   the halox binary (default build/halox of this tree, else halox on PATH)
  --cpu          table and exchange on the CPU backend, 2 ranks, transport mpi, smaller grids: a smoke run
  --quick        fewer sweeps and smaller grids (for checking the suite, not for figures)
EOF
}

die() { echo "bench/run.sh: $*" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { usage >&2; exit 2; }
case $1 in -h | --help) usage; exit 0 ;; esac
suite=$1
shift
out=bench-results H='' cpu=0 quick=0
while [ $# -gt 0 ]; do
    case $1 in
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
    --halox) [ $# -ge 2 ] || die "--halox needs a path"; H=$2; shift 2 ;;
    --cpu) cpu=1; shift ;;
    --quick) quick=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option $1: see bench/run.sh --help" ;;
    esac
done
case $suite in table | roofline | pingpong | mg | scaling | binding | exchange | operators | all) ;; *) die "unknown suite '$suite': give table, roofline, pingpong, mg, scaling, binding, exchange, operators or all" ;; esac
[ $cpu = 0 ] || [ "$suite" = table ] || [ "$suite" = pingpong ] || [ "$suite" = exchange ] || die "--cpu applies to table, pingpong and exchange only"

if [ -z "$H" ]; then
    if [ -x "$ROOT/build/halox" ]; then H=$ROOT/build/halox
    elif command -v halox >/dev/null 2>&1; then H=$(command -v halox)
    else die "no halox found: build it (make build) or pass --halox PATH"; fi
fi
[ -x "$H" ] || die "$H is not an executable halox: build it (make build) or pass --halox PATH"
command -v mpirun >/dev/null 2>&1 || die "mpirun not found: install an MPI (make deps)"

# GPUs: visible to nvidia-smi and usable by this halox's cuda backend.
gpus=0
if [ $cpu = 0 ] && command -v nvidia-smi >/dev/null 2>&1; then gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi
if [ "${gpus:-0}" -gt 0 ] && ! "$H" info 2>/dev/null | grep -q '^backends .*cuda'; then gpus=0; fi
if [ "$gpus" -eq 0 ] && [ $cpu = 0 ] && [ "$suite" != pingpong ] && [ "$suite" != binding ]; then
    echo "bench/run.sh: suite $suite needs a GPU and this machine (or this halox) has none: run it on a GPU machine, or 'table --cpu' / 'pingpong' for a smoke run" >&2
    exit 2
fi

# mpirun: root needs Open MPI's consent; GPU ranks stay unbound (a rank bound to one core shares it
# with the communication libraries' helper threads); NVLink multicast stays off.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
MPI=(mpirun)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
    MPI+=(--oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS)
    [ "$gpus" -gt 0 ] && MPI+=(--bind-to none)
fi
if [ "$gpus" -gt 0 ]; then BE=(--backend cuda); else BE=(--backend cpu); export OMP_NUM_THREADS=1; fi

mkdir -p "$out"
say() { echo "== $*" >&2; }

# run_csv FILE NP ARGS...: one halox run, its CSV appended to FILE (one header).
run_csv() {
    local file=$1 np=$2
    shift 2
    say "mpirun -np $np halox $*"
    local tmp
    tmp=$(mktemp)
    "${MPI[@]}" -np "$np" "$H" "$@" --format csv --quiet >"$tmp"
    if [ -s "$file" ]; then tail -n +2 "$tmp" >>"$file"; else cat "$tmp" >"$file"; fi
    rm -f "$tmp"
}

suite_table() {
    local f=$out/table.csv reps=5
    rm -f "$f"
    if [ "$gpus" -gt 0 ]; then
        # name size iters setting: the best setting of each case (docs/performance.md)
        local cases=(
            "512x512 4000 --schedule persistent --transport ipc --pattern direct --depth 16"
            "4096x4096 4800 --transport ipc-put --pattern direct --depth 32 --fuse 8 --graph --overlap=off"
            "16384x16384 384 --transport ipc-put --pattern direct --depth 32 --fuse 8 --graph --overlap=off"
            "256x256x256 400 --transport ipc-put --pattern direct --depth 12 --fuse 4 --graph --overlap=off"
            "512x512x512 200 --transport ipc-put --pattern direct --depth 8 --fuse 4 --graph --overlap=off"
        )
        local np=1 tune_sizes="512x512 4096x4096 256x256x256" budget=120 tr=()
        [ $quick = 0 ] || { cases=("${cases[@]:0:1}"); reps=2; budget=10; tune_sizes="256x256"; }
    else
        local cases=(
            "512x512 64 --transport mpi --pattern direct --depth 8"
            "2048x2048 64 --transport mpi --pattern direct --depth 8"
            "128x128x128 32 --transport mpi --pattern direct --depth 4"
        )
        local np=2 tune_sizes="512x512 128x128x128" budget=30 tr=(--transport mpi)
        if [ $quick = 1 ]; then
            cases=("128x128 32 --transport mpi --pattern direct --depth 4" "32x32x32 16 --transport mpi --pattern direct --depth 2")
            tune_sizes="64x64" budget=5 reps=2
        fi
    fi
    local c size iters
    for c in "${cases[@]}"; do
        read -r size iters setting <<<"$c"
        # shellcheck disable=SC2086
        run_csv "$f" $np run "${BE[@]}" --size "$size" --iters "$iters" --repeat $reps $setting
    done
    for size in $tune_sizes; do
        say "mpirun -np $np halox tune --size $size --budget $budget --compare-grid"
        "${MPI[@]}" -np $np "$H" tune "${BE[@]}" "${tr[@]}" --size "$size" --budget $budget --compare-grid --quiet \
            >"$out/tune_$size.txt"
    done
}

suite_roofline() {
    local extra=()
    [ $quick = 0 ] || extra=(--repeat 2 --small 0)
    say "halox roofline"
    "$H" roofline "${extra[@]}" --size3d 512 >"$out/roofline_512.txt"
    [ $quick = 1 ] && return
    "$H" roofline --size3d 256x256x512 --small 0 >"$out/roofline_256x256x512.txt"
    "$H" roofline --size2d 256 --size3d 128 --small 0 --no-fused --graph >"$out/roofline_128_graph.txt"
}

suite_pingpong() {
    local extra=(--iters 1000)
    [ $quick = 0 ] || extra=(--iters 50 --large-iters 5 --max-bytes 1048576)
    say "mpirun -np 2 halox pingpong --transport all"
    "${MPI[@]}" -np 2 "$H" pingpong "${BE[@]}" --transport all "${extra[@]}" --format csv --quiet >"$out/pingpong.csv"
}

suite_mg() {
    # the defaults beside --fuse-colours off and beside mpi with the coarse levels on the CPU (no CUDA
    # graphs, levels of 16^3 and less on the host), alternated in one job
    local f=$out/mg.csv n v r tmp sizes="256 512" reps=5 rounds=3
    local variants=("" "--fuse-colours off" "--transport mpi --agglomerate 4096")
    [ $quick = 0 ] || { sizes=64; reps=1; rounds=1; }
    rm -f "$f"
    for r in $(seq $rounds); do
        for n in $sizes; do
            for v in "${variants[@]}"; do
                say "halox mg --problem helmholtz --nu 3 --size $n $v (round $r of $rounds)"
                tmp=$(mktemp)
                # shellcheck disable=SC2086 # $v: the variant's options, split on purpose
                "${MPI[@]}" -np 1 "$H" mg "${BE[@]}" --problem helmholtz --nu 3 --size "$n" --repeat $reps $v \
                    --format csv >"$tmp"
                # one row a job: the finest level of the solve at --size (the job also solves n/2, n/4)
                awk -F, -v n="$n" -v head="$([ -s "$f" ] && echo 0 || echo 1)" '
                    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (head) print; next }
                    $c["size"] == n && $c["level"] == 0' "$tmp" >>"$f"
                rm -f "$tmp"
            done
        done
    done
}

suite_scaling() {
    local n=$gpus np s iters setting reps=5
    [ $quick = 0 ] || reps=2
    rm -f "$out/weak.csv" "$out/strong.csv"
    for np in 1 "$n"; do
        run_csv "$out/weak.csv" "$np" run "${BE[@]}" --transport nccl --size $((16384 * np))x16384 --iters 400 \
            --repeat $reps --pattern direct --depth 16 --fuse 8 --graph
        run_csv "$out/weak.csv" "$np" run "${BE[@]}" --transport ipc-put --size $((512 * np))x512x512 --iters 200 \
            --repeat $reps --pattern direct --depth 4 --fuse 4 --graph --overlap=off
        [ "$n" -gt 1 ] || break
    done
    local strong=(
        "512x512 4800 --schedule persistent --transport ipc --pattern direct --depth 16"
        "1024x1024 4800 --schedule persistent --transport ipc --pattern direct --depth 16"
        "4096x4096 4800 --schedule persistent --transport ipc --pattern direct --depth 32 --fuse 8"
        "8192x8192 960 --transport ipc-put --pattern direct --depth 32 --fuse 8 --graph"
        "16384x16384 384 --transport ipc-put --pattern direct --depth 32 --fuse 8 --graph"
        "256x256x256 400 --transport ipc-put --pattern direct --depth 12 --fuse 4 --graph --overlap=off"
        "512x512x512 200 --transport ipc-put --pattern direct --depth 8 --fuse 4 --graph --overlap=off"
    )
    [ $quick = 0 ] || strong=("${strong[@]:0:1}")
    for np in 1 "$n"; do
        for s in "${strong[@]}"; do
            read -r size iters setting <<<"$s"
            local grid=()
            [ "$size" = 256x256x256 ] && [ "$np" = 4 ] && grid=(--grid 1x2x2)
            # shellcheck disable=SC2086
            run_csv "$out/strong.csv" "$np" run "${BE[@]}" --size "$size" --iters "$iters" --repeat $reps $setting "${grid[@]}"
        done
        [ "$n" -gt 1 ] || break
    done
}

# The summary: one line per run (size, ranks, setting, us/sweep), tune's winners, ping-pong's ends.
summary() {
    local f
    echo
    echo "summary ($out)"
    for f in "$out"/table.csv "$out"/weak.csv "$out"/strong.csv "$out"/operators.csv; do
        [ -s "$f" ] || continue
        echo "$(basename "$f"):"
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { sz = $c["nx"] "x" $c["ny"]; if ($c["dim"] == 3) sz = sz "x" $c["nz"]
              set = $c["stencil"] " " $c["transport"] " " $c["schedule"] " d" $c["depth"] " f" $c["fuse"] ($c["graph"] == 1 ? " graph" : "")
              printf "  %-14s %2d ranks  %-50s %12s us/sweep\n", sz, $c["ranks"], set, $c["us_per_sweep"] }' "$f"
    done
    for f in "$out"/tune_*.txt; do
        [ -s "$f" ] || continue
        echo "$(basename "$f" .txt): $(grep -m1 '^winner' "$f" | tr -s ' ')"
    done
    if [ -s "$out/pingpong.csv" ]; then
        echo "pingpong.csv (half round trip, median):"
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { b = $c["bytes"]; if (b > max[$c["transport"]]) max[$c["transport"]] = b
              if (b == 8) lat[$c["transport"]] = $c["median_us"]; bw[$c["transport"] SUBSEP b] = $c["bandwidth_gbs"] }
            END { for (t in max) printf "  %-12s 8 B %10s us   %d B %10s GB/s\n", t, (t in lat ? lat[t] : "-"), max[t], bw[t, max[t]] }' \
            "$out/pingpong.csv"
    fi
    if [ -s "$out/mg.csv" ]; then
        echo "mg.csv (DOF/s: the median over the jobs, then each job's figure):"
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { k = sprintf("%5s^3  --fuse-colours %-4s --transport %-7s --agglomerate %-4s", $c["size"], $c["fuse_colours"],
                         $c["transport"], $c["agglomerate"]); v[k, ++m[k]] = $c["dof_per_s"] + 0 }
            END { for (k in m) {
                      for (i = 2; i <= m[k]; i++) for (j = i; j > 1 && v[k, j - 1] > v[k, j]; j--) {
                          t = v[k, j]; v[k, j] = v[k, j - 1]; v[k, j - 1] = t }
                      s = ""; for (i = 1; i <= m[k]; i++) s = s sprintf(" %.3g", v[k, i])
                      printf "  %s  %.3g  (%s )\n", k, v[k, int((m[k] + 1) / 2)], s } }' "$out/mg.csv" | sort
    fi
    if [ -s "$out/exchange.csv" ]; then
        echo "exchange.csv (us per call of all fields):"
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { printf "  %-10s %2d fields %2d ranks %-8s many %10s  single %10s  single/many %s\n", $c["size"], $c["fields"],
              $c["ranks"], $c["transport"], $c["many_us"], $c["single_us"], $c["ratio"] }' "$out/exchange.csv"
    fi
    for f in "$out"/roofline_*.txt; do [ -s "$f" ] && echo "$(basename "$f"): see the file"; done
    [ -s "$out/operators_roofline.txt" ] && grep -i "copy" "$out/operators_roofline.txt" | head -3
    return 0
}

# The CPU backend's threads with and without a binding: OMP_NUM_THREADS unset, so each rank takes its
# binding's cores, or unbound its share of the node's (the ratio is the figure).
suite_binding() {
    local f=$out/binding.csv b
    rm -f "$f"
    for b in core:overload-allowed none; do
        say "mpirun --bind-to $b -np 2 halox run --backend cpu --size 1024x1024"
        env -u OMP_NUM_THREADS "${MPI[@]}" --bind-to "$b" -np 2 "$H" run --backend cpu --size 1024x1024 --iters 50 \
            --repeat 5 --format csv --quiet >"$out/binding_$b.csv"
        if [ -s "$f" ]; then tail -n +2 "$out/binding_$b.csv" >>"$f"; else cat "$out/binding_$b.csv" >"$f"; fi
    done
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "us_per_sweep") c = i; next }
             { u[NR - 1] = $c } END { printf "binding: bound %.1f us/sweep, unbound %.1f, unbound/bound %.2f\n", u[1], u[2], u[2] / u[1] }' "$f"
}

# Many fields in one exchange call against one call per field (halox exchange), one CSV row per
# transport.
# User operators beside the built-ins (the same setting, one after the other in this run), and box9 /
# box27 plain and fused against the copy bandwidth of halox roofline in the same run (one GPU).
suite_operators() {
    local f=$out/operators.csv reps=5 ops=$ROOT/bench/ops c size iters setting st
    [ $quick = 0 ] || reps=2
    rm -f "$f"
    local cases=(
        "512x512 4000 --schedule persistent --transport ipc --pattern direct --depth 16"
        "8192x8192 400 --transport ipc-put --pattern direct --depth 16 --fuse 8 --graph --overlap=off"
        "256x256x256 400 --transport ipc-put --pattern direct --depth 8 --fuse 4 --graph --overlap=off"
    )
    [ $quick = 0 ] || cases=("256x256 200 --transport ipc-put --pattern direct --depth 8 --fuse 4 --graph --overlap=off")
    for c in "${cases[@]}"; do
        read -r size iters setting <<<"$c"
        case $size in *x*x*) st=(jacobi7 "$ops/jacobi7.op") ;; *) st=(jacobi5 "$ops/jacobi5.op") ;; esac
        for s in "${st[@]}"; do
            # shellcheck disable=SC2086
            run_csv "$f" 1 run "${BE[@]}" --size "$size" --iters "$iters" --repeat $reps --stencil "$s" $setting
        done
    done
    local big2=8192x8192 big3=512x512x512 it2=400 it3=100
    [ $quick = 0 ] || { big2=512x512; big3=64x64x64; it2=20; it3=10; }
    for c in "box9 $big2 $it2 1" "box9 $big2 $it2 4" "box27 $big3 $it3 1" "box27 $big3 $it3 2"; do
        read -r s size iters fuse <<<"$c"
        run_csv "$f" 1 run "${BE[@]}" --size "$size" --iters "$iters" --repeat $reps --stencil "$s" --fuse "$fuse" \
            --depth "$fuse" --transport ipc-put --pattern direct --graph --overlap=off
    done
    say "halox roofline (copy bandwidth of the same GPU)"
    "$H" roofline "${BE[@]}" --fused=off --small 0 --repeat 3 >"$out/operators_roofline.txt" 2>&1 || true
}

suite_exchange() {
    local f=$out/exchange.csv t np=$gpus transports="ipc-put nccl" size=1024x1024 iters=200 reps=5
    [ $cpu = 0 ] || { np=2; transports=mpi; size=256x256; iters=50; }
    [ $quick = 0 ] || { iters=20; reps=2; }
    rm -f "$f"
    for t in $transports; do
        if ! "$H" info 2>/dev/null | grep -q "^  $t "; then
            echo "bench/run.sh: note: transport $t is not in this halox: skipped" >&2
            continue
        fi
        run_csv "$f" "$np" exchange "${BE[@]}" --size $size --fields 8 --transport "$t" --iters $iters --repeat $reps
    done
}

case $suite in
all) suite_table; suite_roofline; suite_pingpong; suite_mg; suite_scaling; suite_exchange; suite_operators ;;
*) "suite_$suite" ;;
esac

# Plots: halox report reads run and ping-pong CSV files (it needs Python with matplotlib).
csvs=()
for f in "$out"/table.csv "$out"/weak.csv "$out"/strong.csv "$out"/pingpong.csv; do [ -s "$f" ] && csvs+=("$f"); done
if [ ${#csvs[@]} -gt 0 ]; then
    say "halox report ${csvs[*]} --out $out/plots"
    "$H" report "${csvs[@]}" --out "$out/plots" >"$out/report.txt" 2>&1 ||
        echo "bench/run.sh: note: halox report failed, no plots (see $out/report.txt)" >&2
fi
summary
