#!/usr/bin/env bash
# halox mg on a GPU machine (1 or 2 GPUs): builds halox, checks that the CUDA kernels give the
# same bits as the CPU kernels, then benchmarks FMG solves.
#
#   scripts/mg_gpu.sh              # build in build-mg-gpu, check, benchmark
#   BUILD=build scripts/mg_gpu.sh  # use an existing build (halox there must have the CUDA backend)
#   BENCH=0 ...                    # the checks only
#
# 1. Bit-identity: `halox mg --bottom smooth` (no global reduction inside the solve) at 32^3 and
#    64^3, on 1 and 2 ranks, for both smoothers and both problems, on --backend cuda and --backend
#    cpu: the checksums of the converged fine solutions (hx_field_checksum, every solve size), the
#    V-cycle counts and the error norms must be equal. The same with the CG bottom solver is
#    reported too (its dot products are reduced in a fixed order on both backends, so they are
#    expected to agree as well). With 2 GPUs, the device transports (ipc, nccl) must give the
#    same bits as mpi.
# 2. Benchmark: `halox mg --backend cuda --size 256 --repeat 10` on 1 GPU and on 2 GPUs (the same
#    256^3 grid split in two), GSRB and Chebyshev; DOF/s = 256^3 / median FMG time.
# Logs and CSVs go under $OUT (default /tmp/halox-mg-gpu). Exit 0 when every check passed.
set -u
OUT=${OUT:-/tmp/halox-mg-gpu}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-cma}
nvidia-smi -L || { echo "FAIL: nvidia-smi finds no GPU"; exit 1; }
NGPU=$(nvidia-smi -L | grep -c '^GPU')

BUILD=${BUILD:-build-mg-gpu}
if ! "$BUILD/halox" info >/dev/null 2>&1; then
    echo "building in $BUILD (log: $OUT/build.log)"
    if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
        cmake --build "$BUILD" -j "$(nproc)" >>"$OUT/build.log" 2>&1; }; then
        tail -30 "$OUT/build.log"
        echo "FAIL: build"
        exit 1
    fi
fi
H=$BUILD/halox
"$H" info | tee "$OUT/info.txt" | grep -E "^backends|GPU|transports" | head -8
if ! grep -q '^backends .*cuda' "$OUT/info.txt"; then
    echo "FAIL: $H has no CUDA backend (was nvcc found at configure time?)"
    exit 1
fi
MPI=(mpirun --oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x LD_LIBRARY_PATH
     -x OMPI_MCA_btl_vader_single_copy_mechanism)
fail=0 checks=0

# mg NP NAME args...: CSV into $OUT/NAME.csv; 1 on failure
mg() {
    local np=$1 name=$2
    shift 2
    timeout 600 "${MPI[@]}" -np "$np" "$H" mg "$@" --format csv >"$OUT/$name.csv" 2>"$OUT/$name.err"
    local rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: np=$np halox mg $* (exit $rc; $OUT/$name.err):"
        tail -5 "$OUT/$name.err" | sed 's/^/    /'
        fail=$((fail + 1))
        return 1
    fi
}
# size, cycles, error_l2, checksum of each solve (CSV columns 1, 8, 13, 16 on level-0 rows)
solves() { awk -F, 'NR > 1 && $24 == 0 { print $1 "^3 cycles " $8 " error " $13 " checksum " $16 }' "$OUT/$1.csv"; }

# same A B WHAT [warn]: the solves of A and B must be equal (warn: report only)
same() {
    checks=$((checks + 1))
    local a b
    a=$(solves "$1")
    b=$(solves "$2")
    if [ -n "$a" ] && [ "$a" = "$b" ]; then
        echo "  equal  $3: $(solves "$1" | awk '{ printf "%s %s  ", $1, $7 }')"
    elif [ "${4:-}" = warn ]; then
        echo "  differ $3 (not required):"
        diff <(echo "$a") <(echo "$b") | sed 's/^/    /'
    else
        echo "FAIL: $3: cuda and cpu differ:"
        diff <(echo "$a") <(echo "$b") | sed 's/^/    /'
        fail=$((fail + 1))
    fi
}

echo "=== 1. bit-identity, cuda vs cpu (--bottom smooth)"
for np in 1 2; do
    for n in 32 64; do
        for sm in gsrb cheby; do
            for pb in poisson helmholtz; do
                opts=(--size $n --coarse 4 --bottom smooth --smoother $sm --problem $pb --repeat 1)
                tag=np${np}_${n}_${sm}_${pb}
                mg $np cpu_$tag --backend cpu "${opts[@]}" && mg $np cuda_$tag --backend cuda "${opts[@]}" &&
                    same cpu_$tag cuda_$tag "np=$np ${n}^3 $sm $pb"
            done
        done
    done
    tag=np${np}_64_cg
    mg $np cpu_$tag --backend cpu --size 64 --coarse 4 --repeat 1 && mg $np cuda_$tag --backend cuda --size 64 --coarse 4 --repeat 1 &&
        same cpu_$tag cuda_$tag "np=$np 64^3 gsrb poisson, CG bottom" warn
done
if [ "$NGPU" -ge 2 ]; then
    for tr in ipc nccl ipc-put; do
        if grep -q "^  $tr " "$OUT/info.txt"; then
            mg 2 cuda_np2_32_$tr --backend cuda --transport $tr --size 32 --coarse 4 --bottom smooth --repeat 1 &&
                same cpu_np2_32_gsrb_poisson cuda_np2_32_$tr "np=2 32^3 transport $tr (cuda) vs mpi (cpu)"
        fi
    done
    # one ghost layer (an exchange a colour) against the default two (an exchange a GSRB sweep),
    # with graphs (the default) and CG, at a size whose coarse levels are agglomerated
    for gh in 1 2; do
        mg 2 cuda_np2_128_g$gh --backend cuda --transport ipc-put --pattern direct --ghosts $gh --size 128 --repeat 2
    done
    same cuda_np2_128_g1 cuda_np2_128_g2 "np=2 128^3 ipc-put graphs, --ghosts 1 vs 2 (cuda)"
fi

if [ "${BENCH:-1}" = 0 ]; then # BENCH=0: the checks only
    echo "mg_gpu: $checks comparisons, $fail failures (logs in $OUT)"
    [ $fail -eq 0 ]
    exit
fi
echo "=== 2. benchmark: halox mg --backend cuda --size 256 --repeat 10 (FMG solves; DOF/s = 256^3 / median)"
bench() {
    local np=$1 name=$2
    shift 2
    if timeout 600 "${MPI[@]}" -np "$np" "$H" mg --backend cuda --size 256 --repeat 10 "$@" >"$OUT/$name.txt" 2>&1; then
        printf "  %d GPU%s %-26s " "$np" "$([ "$np" -gt 1 ] && echo s || echo " ")" "$*"
        awk '$1 == "256^3" && NF == 9 { printf "FMG %.4f s median, %.4g DOF/s (order %s, %s V-cycles, max reduction %s)\n", $8, $9, $4, $6, $7 }' "$OUT/$name.txt"
        sed -n '/^solve 256/,/^  (summed/p' "$OUT/$name.txt" | grep -E "^  (level|[0-9]|total)" | sed 's/^/      /'
    else
        echo "FAIL: np=$np halox mg --backend cuda --size 256 $* ($OUT/$name.txt):"
        tail -5 "$OUT/$name.txt" | sed 's/^/    /'
        fail=$((fail + 1))
    fi
}
bench 1 bench_np1
bench 1 bench_np1_cheby --smoother cheby
if [ "$NGPU" -ge 2 ]; then
    bench 2 bench_np2
    bench 2 bench_np2_cheby --smoother cheby
else
    echo "  (one GPU: the 2-GPU benchmark is skipped)"
fi

echo "mg_gpu: $checks comparisons, $fail failures (logs in $OUT)"
[ $fail -eq 0 ]
