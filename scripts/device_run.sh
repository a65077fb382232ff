# Sourced by the device-call scripts (pending_gpu.sh, one_gpu_checks.sh, x4_targets.sh) from the
# repository root, with DEVICE_NAME set and the build folder as $1 (default build-dev): sets H (its
# halox), OUT (made; default /tmp/halox-$DEVICE_NAME), the GPU environment, NGPU, MPI (the mpirun line
# with the environment every rank needs), t (a stage heading with the seconds so far) and want (true
# for a stage named in $STAGES, or for every stage when STAGES is empty).
# bundle_on_exit packs everything under $OUT into $OUT/$DEVICE_NAME.tgz when the script ends: the
# device tool brings back 8 files at most.
B=${1:-build-dev}
OUT=${OUT:-/tmp/halox-$DEVICE_NAME}
mkdir -p "$OUT"
. scripts/gpu-env.sh
export OMPI_MCA_btl_vader_single_copy_mechanism=cma
H=$B/halox
NGPU=$(nvidia-smi -L | grep -c '^GPU')
# one OpenMP thread a rank unless asked: mg's CPU levels under Open MPI's core binding crawl with
# one thread per core of the node (session 18: an F-cycle 73.6 ms instead of 3.4)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# --bind-to none: Open MPI binds each of 2 ranks to one core, where their helper threads made mpi, nccl
# and nvshmem sweeps 2-2.6x slower (session 40, call 7); calls before session 40 ran 2-rank jobs bound
MPI="mpirun --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH -x OMPI_MCA_btl_vader_single_copy_mechanism -x OMP_NUM_THREADS"
T0=$(date +%s)
t() { echo "--- $* ($(($(date +%s) - T0)) s)"; }
want() { [ -z "${STAGES:-}" ] || [[ " $STAGES " == *" $1 "* ]]; }
bundle_on_exit() {
    trap '(cd "$OUT" && tar czf "/tmp/$DEVICE_NAME.tgz" . && find . -mindepth 1 -delete && mv "/tmp/$DEVICE_NAME.tgz" .)' EXIT
}
# unpack_variants: the tuning builds carried compressed ($B/halox-NAME.gz, and halox.gz itself where the
# carry needs it: to fit the carry limit)
# unpacked beside them as runnable $B/halox-NAME
unpack_variants() {
    local f
    for f in "$B"/halox.gz "$B"/halox-*.gz; do
        [ -e "$f" ] || continue
        gunzip -kf "$f" && chmod +x "${f%.gz}"
    done
    return 0
}
# gpu_tests SECONDS NAME...: those GPU-suite tests (ctest in $B) under one timeout; prints each test's
# line and the summary, keeps the log as $OUT/ctest_NAME.log (the first name) and prints its FAIL or
# differ lines
gpu_tests() {
    local secs=$1 re
    shift
    re=$(IFS='|'; echo "$*")
    (cd "$B" && timeout "$secs" ctest -R "^($re)\$" 2>&1 | grep -E "Test +#|tests passed|tests failed"
        cp Testing/Temporary/LastTest.log "$OUT/ctest_$1.log")
    grep -E "FAIL|differ" "$OUT/ctest_$1.log" | head -5
}
# bin_of "label:binary[:extra]": the binary of a BINS entry (a bare name is in the build folder $B)
bin_of() { local b=${1#*:}; b=${b%%:*}; [[ $b == /* || $b == */* ]] && echo "$b" || echo "$B/$b"; }
# mg_run LABEL NP [mpirun options...] -- [halox mg options...]: one multigrid job at 256^3 per rank
# (10 timed solves; CSV and stderr under $OUT/mg_LABEL.*) summed up in one line. Environment for the
# ranks: set it on the call and name it in the mpirun options (VAR=1 mg_run l 2 -x VAR -- ...).
mg_run() {
    local label=$1 np=$2 mpiopts=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do mpiopts+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    timeout 90 $MPI ${mpiopts[@]+"${mpiopts[@]}"} -np "$np" "$H" mg --backend cuda --size-per-rank 256 --repeat 10 --format csv "$@" \
        >"$OUT/mg_$label.csv" 2>"$OUT/mg_$label.err"
    awk -F, -v l="$label" 'NR == 2 { printf "%-34s %s DOF/s, F-cycle median %s s, checksum %s\n", l, $21, $17, $16 }' "$OUT/mg_$label.csv"
    grep "halox: error" "$OUT/mg_$label.err" | head -2
}
# cs_run TOOL [halox run options...]: one rank's `halox run --verify` under compute-sanitizer's TOOL
# (4 sweeps, no warm-up), summed up in one line; environment for the run: set it on the call.
cs_run() {
    local tool=$1 cs
    shift
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    timeout 200 "$cs" --tool "$tool" --error-exitcode 9 "$H" run --backend cuda "$@" --iters 4 --warmup 0 --repeat 1 --verify \
        --quiet >"$OUT/cs_$tool.log" 2>&1
    echo "$tool rc=$? $(grep -c bit-identical "$OUT/cs_$tool.log") bit-identical; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cs_$tool.log" | head -1): $*"
}
# run1 NP SIZE DEPTH FUSE SCHEDULE TRANSPORT: one `halox run` (BIN, default $H; graphs for the cycle
# schedule, overlap off, direct, ITERS sweeps, default 1920, medians of 5) summed up in one line:
# ranks, size, depth, fuse, schedule, transport, kernel, us per sweep; RUN_EXTRA: more options (--grid 1x2x2)
run1() {
    local g=; [ "$5" = cycle ] && g=--graph
    $MPI -np "$1" "${BIN:-$H}" run --backend cuda --size "$2" --depth "$3" --fuse "$4" --schedule "$5" --transport "$6" $g \
        --overlap=off --pattern direct --iters "${ITERS:-1920}" --repeat 5 ${RUN_EXTRA:-} --format csv --quiet 2>/dev/null |
        awk -F, -v np="$1" '$16 !~ /transport/ && NF > 50 {print "np" np, $2 "x" $3, "d" $11, "f" $55, $64, $16, $68, $48}'
}
# verify_plain FILE STENCILS SIZES LABEL BINARY [VAR=value...]: one rank's `halox run --verify` of
# those plain sweeps (both dtypes, periodic and fixed, depths 1 and 3: 32 runs for two stencils and
# two sizes) under that environment, summed up in one line (CSV and stderr as $OUT/FILE.*)
verify_plain() {
    local file=$1 stencils=$2 sizes=$3 label=$4 bin
    bin=$(bin_of "x:$5")
    shift 5
    env "$@" timeout 100 "$bin" run --backend cuda --stencil "$stencils" --dtype float,double --boundary periodic,fixed \
        --iters 6 --repeat 1 --verify --format csv --quiet --size "$sizes" --depth 1,3 >"$OUT/$file.csv" 2>"$OUT/$file.err"
    echo "$label np1 rc=$? runs $(($(wc -l <"$OUT/$file.csv") - 1)), verified: $(cut -d, -f50 "$OUT/$file.csv" | sort | uniq -c | xargs)"
    grep -h "error" "$OUT/$file.err" | head -3
}
# verify3d LABEL BINARY [VAR=value...]: the plain 3D sweeps (jacobi7 and star13, 67x45x38 and
# 130x70x64) into $OUT/verify_LABEL.*; verify2d: the 2D ones (jacobi5 and star9, 67x45 and 300x130)
# into $OUT/verify2d_LABEL.*
verify3d() { verify_plain "verify_$1" jacobi7,star13 67x45x38,130x70x64 "$@"; }
verify2d() { verify_plain "verify2d_$1" jacobi5,star9 67x45,300x130 "$1 2d" "${@:2}"; }
# verify3d_tma BINARY: verify3d by the rule (label rule) and with the bulk-copy march forced (tma)
verify3d_tma() { verify3d rule "$1"; verify3d tma "$1" HALOX_SWEEP_TMA=1; }
# tma13_sizes: the tma13 probe (scripts/bench/tma13.cu, built into the build folder) at 512^3 and
# 256x256x512, into $OUT/tma13_*.txt
tma13_sizes() {
    t tma13
    timeout 150 "$B/tma13" 512 512 512 | tee "$OUT/tma13_512.txt"
    timeout 100 "$B/tma13" 256 256 512 | tee "$OUT/tma13_256x256x512.txt"
}
# roof_tagged LABEL ROUND BINARY ROWS_REGEX SECONDS "ENV" [ROOFLINE OPTIONS...]: one `halox roofline
# --backend cuda` run of that binary under ENV (VAR=v words), its rows matching ROWS_REGEX and its
# error lines each tagged "LABEL ROUND" (errors as "LABEL ROUND ERROR ...")
roof_tagged() {
    local label=$1 round=$2 bin=$3 rows=$4 secs=$5 envs=$6
    shift 6
    env $envs timeout "$secs" "$(bin_of "x:$bin")" roofline --backend cuda "$@" 2>&1 |
        awk -v b="$label" -v r="$round" -v re="$rows" '$0 ~ re { print b, r, $0 } /rror/ { print b, r, "ERROR", $0 }'
}
# roof_medians FILE ENTRIES: the first error lines of a roof_tagged FILE, then each case's medians
# side by side for the entries' labels (scripts/side_by_side_medians.py), kept as FILE's _medians.txt
roof_medians() {
    local file=$1 entries=$2 e
    grep ERROR "$file" | head -3
    python3 scripts/side_by_side_medians.py "$file" $(for e in $entries; do cut -d: -f1 <<<"$e"; done) | tee "${file%.txt}_medians.txt"
}
# roof_env ENTRIES SIZES ROUNDS NAME: `halox roofline`'s plain 3D rows for entries "label:binary:VAR=v[,VAR=v...]"
# (or VAR=v[+VAR=v...] where a value holds commas)
# (third field "-": no environment) at each 3D size, alternated over ROUNDS rounds, into $OUT/NAME.txt
# (label, round, row); prints each case's medians side by side (scripts/side_by_side_medians.py)
roof_env() {
    local entries=$1 sizes=$2 rounds=$3 file=$OUT/$4.txt r e label b envs s
    for r in $(seq "$rounds"); do
        for e in $entries; do
            IFS=: read -r label b envs <<<"$e"
            [ "$envs" = - ] && envs=
            # VAR=v,VAR2=v; or VAR=v+VAR2=v where a value holds commas (HALOX_TILE)
            if [[ $envs == *+* ]]; then envs=${envs//+/ }; else envs=${envs//,/ }; fi
            for s in $sizes; do
                roof_tagged "$label" "$r" "$b" '^(jacobi7|star13)' 60 "$envs" --size2d 256 --size3d "$s" --small 0 --no-fused --repeat 7
            done
        done
    done >"$file"
    roof_medians "$file" "$entries"
}
# roof_args ENTRIES "ROOFLINE OPTIONS" ROUNDS NAME: `halox roofline` for entries
# "label:binary:VAR=v[+VAR=v...]:OPTION[+OPTION...]" ("-": none), alternated over ROUNDS rounds, with
# those options and then each entry's own; every stencil row (plain, fused, latency-bound) into
# $OUT/NAME.txt (label, round, row); prints each case's medians side by side
roof_args() {
    local entries=$1 opts=$2 rounds=$3 file=$OUT/$4.txt r e label b envs args
    for r in $(seq "$rounds"); do
        for e in $entries; do
            IFS=: read -r label b envs args <<<"$e"
            [ "$envs" = - ] && envs=
            [ "${args:--}" = - ] && args=
            roof_tagged "$label" "$r" "$b" '^(jacobi5|jacobi7|star9|star13) ' 120 "${envs//+/ }" $opts ${args//+/ }
        done
    done >"$file"
    roof_medians "$file" "$entries"
}
# Nsight Compute's counters of the fabric between the L2 partitions (session 35): how busy, its cycles,
# the requests that cross it by operation, and the kernel's time; add more with a comma
FABRIC_METRICS="lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__ltcfabric2ltc_cycles_active.sum,gpu__time_duration.sum"
FABRIC_METRICS="$FABRIC_METRICS,lts__t_requests_srcunit_ltcfabric.sum,lts__t_requests_srcunit_ltcfabric_op_read.sum,lts__t_requests_srcunit_ltcfabric_op_write.sum"
# ncu_roof LABEL BINARY KERNEL_REGEX SIZE3D METRICS [VAR=value...]: those metrics for the 21st launch
# of that kernel in a `halox roofline` at that 3D size, clocks and caches as in a run, into
# $OUT/ncu_LABEL.txt; prints the rc and each metric's name and value
ncu_roof() {
    local label=$1 bin re=$3 size=$4 metrics=$5 ncu
    bin=$(bin_of "x:$2")
    shift 5
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    env "$@" timeout 150 "$ncu" --kernel-name-base demangled -k regex:"$re" -s 20 -c 1 --cache-control none --clock-control none \
        --metrics "$metrics" "$bin" roofline --backend cuda --size2d 256 --size3d "$size" --small 0 --no-fused --repeat 1 --batch 30 \
        >"$OUT/ncu_$label.txt" 2>&1
    echo "== $label rc=$?"
    grep -E "^ +(lts|l1tex|dram|gpu|sm|smsp|launch)__" "$OUT/ncu_$label.txt" | awk '{$1=$1; print $1, $(NF)}'
}
# ncu_dram LABEL BINARY KERNEL_REGEX [VAR=value...]: Nsight Compute's DRAM bytes, L2 hit rate, DRAM
# throughput and warps active for the first launch of that kernel in a 512^3 roofline, in one block
ncu_dram() {
    local label=$1 bin k=$3 m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
    bin=$(bin_of "x:$2")
    shift 3
    env "$@" timeout 100 ncu --kernel-name-base demangled -k regex:"$k" -c 1 --metrics $m "$bin" roofline --backend cuda \
        --size2d 256 --small 0 --repeat 1 --batch 1 --fused=off >"$OUT/ncu_$label.txt" 2>&1
    echo "== $label $k"
    grep -E "gpu__|dram__|lts__|sm__" "$OUT/ncu_$label.txt" | awk '{$1=$1; print}' | head -8
}
