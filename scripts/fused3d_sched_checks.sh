#!/usr/bin/env bash
# The 3D pass kernel whose passes fuse sweeps (--fuse in 3D under --schedule persistent and fused,
# persistent_fused3d.cu; session 16) on the GPU machine: its GPU tests, bit-for-bit runs at benchmark
# sizes, timings beside the cycle schedule's best setting and the unfused persistent kernel, and
# compute-sanitizer on its kernels. Stages (STAGES, default all): tests verify time sanitize cs.
# Usage: scripts/fused3d_sched_checks.sh build-dev (REPS rounds of the timings, default 3; NPS rank
# counts, default 1 and 2 where there are 2 GPUs; BINS "label:binary[:lanes] ..." timed side by
# side, default the build's halox, lanes setting HALOX_FUSED3D_LANES for that entry; FULL=1 times depth 8, the fused schedule and the unfused kernel too;
# stage cs: memcheck, racecheck and synccheck on the cycle schedule's fused 3D kernel).
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=fused3d
. scripts/device_run.sh
bundle_on_exit
. tests/mpi_env.sh
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_mpi_yield_when_idle=0
NPS=${NPS:-1 2}
[ "$NGPU" -lt 2 ] && NPS=1
fail=0
job() { # job NP halox-args...
    local np=$1
    shift
    if [ "$np" -gt 1 ]; then timeout 240 $MPI -np "$np" "$H" "$@"; else timeout 240 "$H" "$@"; fi
}
if want tests; then
    t "GPU tests: gpu_schedule (np 1, 2), gpu_fuse_np1 (the cycle's fused 3D kernel, whose body the pass kernel now shares)"
    tests="gpu_schedule_np1|gpu_fuse_np1"
    [ "$NGPU" -ge 2 ] && tests="$tests|gpu_schedule_np2|gpu_fuse_np2"
    (cd "$B" && timeout 500 ctest -R "^($tests)\$" -j 1 --output-on-failure) >"$OUT/tests.log" 2>&1 || fail=1
    grep -E "runs, |FAIL|tests passed|tests failed" "$OUT/tests.log" | head -20
fi
if want verify; then
    for np in $NPS; do
        t "bit for bit at benchmark sizes, $np rank(s)"
        for args in "--size 256x256x256 --depth 4 --fuse 4 --schedule persistent --pattern direct" \
                    "--size 256x256x256 --depth 8 --fuse 4 --schedule fused --pattern staged --boundary fixed" \
                    "--size 256x128x128 --depth 6 --fuse 3 --schedule persistent --dtype double --pattern direct" \
                    "--size 200x150x90 --stencil star13 --depth 4 --fuse 2 --schedule persistent --pattern direct --norm-every 8" \
                    "--size 256x128x128 --depth 4 --fuse 4 --pattern direct" \
                    "--size 300x200x100 --depth 3 --fuse 3 --pattern staged --boundary fixed" \
                    "--size 256x256x128 --stencil star13 --depth 2 --fuse 2 --pattern direct"; do
            # shellcheck disable=SC2086
            out=$(job $np run --backend cuda --transport ipc $args --iters 24 --verify --quiet 2>&1)
            if grep -q "verify: bit-identical" <<<"$out"; then echo "PASS np=$np $args"; else echo "FAIL np=$np $args"; tail -3 <<<"$out"; fail=1; fi
        done
    done
fi
# nx ny nz depth transport us_per_sweep graph fuse schedule kernel
cols() { cut -d, -f2,3,4,11,16,48,51,55,64,68; }
R="--backend cuda --pattern direct --format csv --quiet --repeat 5"
export HALOX_FUSED3D_LANES=${HALOX_FUSED3D_LANES:-}
MPI="$MPI -x HALOX_FUSED3D_LANES"
lanes_of() { HALOX_FUSED3D_LANES=; [[ $1 == *:*:* ]] && HALOX_FUSED3D_LANES=${1##*:}; }
if want time; then
    BINS=${BINS:-default:halox}
    H0=$H
    for np in $NPS; do
        sizes="256x128x128 512x256x256"
        [ "$np" = 2 ] && sizes="256x256x256 512x512x256 512x512x512"
        for size in $sizes; do
            t "time at $size, $np rank(s), jacobi7 fp32, µs a sweep (medians of 5; REPS alternated rounds): bin,nx,ny,nz,depth,transport,us,graph,fuse,schedule,kernel"
            for rep in $(seq "${REPS:-3}"); do
                for b in $BINS; do
                    H=$(bin_of "$b") l=${b%%:*}
                    lanes_of "$b"
                    {
                        job $np run $R --size $size --iters 400 --depth 4 --fuse 4 --transport ipc-put --graph --overlap=off 2>&1
                        if [ "${FULL:-0}" = 1 ]; then
                            job $np run $R --size $size --iters 400 --depth 4,8 --fuse 4 --transport ipc --schedule persistent 2>&1
                            job $np run $R --size $size --iters 400 --depth 4 --fuse 4 --transport ipc --schedule fused 2>&1
                            job $np run $R --size $size --iters 400 --depth 4 --fuse 1 --transport ipc --schedule persistent 2>&1
                        else
                            job $np run $R --size $size --iters 400 --depth 4 --fuse 4 --transport ipc --schedule persistent 2>&1
                        fi
                    } | cols | grep -v '^nx' | grep '^[0-9]' | sed "s/^/$l,/" | tee -a "$OUT/time.csv"
                done
            done
        done
    done
    t "the cycle schedule's fused passes alone at the 1-rank sizes (roofline, jacobi7 fp32 and fp64)"
    for b in $BINS; do
        H=$(bin_of "$b") l=${b%%:*}
        lanes_of "$b"
        for size in 256x128x128 512x256x256 512x512x512; do
            timeout 120 "$H" roofline --backend cuda --small 0 --size2d 512 --size3d $size >"$OUT/roof_${l}_$size.txt" 2>&1
            grep -E "copy|jacobi7" "$OUT/roof_${l}_$size.txt" | sed "s/^/$l $size: /" | head -12
        done
    done
    H=$H0 HALOX_FUSED3D_LANES=
    t "profile of the persistent fused kernel (HALOX_PROFILE=1: exchange and passes per cycle)"
    for np in $NPS; do
        size=256x128x128; [ "$np" = 2 ] && size=256x256x256
        HALOX_PROFILE=1 MPI="$MPI -x HALOX_PROFILE" job $np run $R --size $size --iters 400 --depth 4 --fuse 4 --transport ipc --schedule persistent 2>&1 | grep -i profile | tee -a "$OUT/profile.txt"
    done
fi
if want sanitize; then
    t "compute-sanitizer on the fused 3D pass kernel"
    (cd "$B" && SANITIZE_ONLY=fused3d timeout 500 ctest -R "^gpu_sanitizer_sched\$" --output-on-failure) >"$OUT/sanitize.log" 2>&1 || fail=1
    grep -E "clean|FAIL|tests passed|tests failed" "$OUT/sanitize.log" | head -20
fi
if want cs; then
    t "compute-sanitizer on the cycle schedule's fused 3D kernel (one rank)"
    for tool in memcheck racecheck synccheck; do
        for args in "--size 131x67x45 --fuse 4 --depth 4 --pattern direct --dtype float --boundary fixed" \
                    "--size 70x130x20 --fuse 3 --depth 3 --dtype float" \
                    "--size 48x44x42 --stencil star13 --fuse 2 --depth 2 --dtype float --boundary fixed"; do
            # shellcheck disable=SC2086
            line=$(cs_run $tool $args)
            echo "$line"
            [[ $line == *"rc=0 "* && $line != *" 0 bit-identical"* ]] || fail=1
        done
    done
fi
t done
exit $fail
