#!/usr/bin/env bash
# The 3D resident kernel (src/exec/resident3d_kernel.cuh, session 21) on the GPU machine: bit for bit
# against the reference at 1, 2 and 4 ranks (both stencils and dtypes, fixed and periodic, depths 1-3,
# partial tiles), then issue 13's 3D 256^3 on every GPU: the persistent schedule with the resident
# kernel (opt-in: HALOX_RESIDENT3D=1) beside the pass kernel and the best cycle setting, in one job each,
# medians of 5; one profiled run (HALOX_PROFILE=1: publish, gather, sweeps per cycle).
# Usage: [STAGES="verify time"] scripts/resident3d_checks.sh build-dev (logs under $OUT, packed into $OUT/res3d.tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=res3d
. scripts/device_run.sh
bundle_on_exit
export HALOX_RESIDENT3D=1
MPI="$MPI -x HALOX_RESIDENT3D"
cols() { cut -d, -f2,3,4,6,7,8,11,12,16,48,50,55,64,68; } # nx ny nz px py pz depth pattern transport us verified fuse schedule kernel
if want verify; then
t "verify: --verify, persistent schedule, direct pattern"
fails=0
for np in 1 2 "$NGPU"; do
    for args in "--size 67x45x39 --stencil jacobi7 --dtype float --boundary periodic --depth 1,2,3" \
                "--size 67x45x39 --stencil jacobi7 --dtype double --boundary fixed --depth 1,2" \
                "--size 50x61x44 --stencil star13 --dtype float --boundary fixed --depth 1,2 --norm-every 3" \
                "--size 50x61x44 --stencil star13 --dtype double --boundary periodic --depth 1" \
                "--size 128x96x80 --stencil jacobi7 --dtype float --boundary fixed --depth 2 --norm-every 5"; do
        out=$(HALOX_VERBOSE=1 timeout 120 $MPI -x HALOX_VERBOSE -np $np $H run --backend cuda --transport ipc --pattern direct \
            --schedule persistent,fused --iters 23 --warmup 0 --repeat 1 --verify $args 2>&1)
        ok=$(grep -c "bit-identical" <<<"$out"); tiles=$(grep -m1 -o "resident tiles [^,]*" <<<"$out")
        bad=$(grep -ciE "differ|error|FAIL" <<<"$out")
        echo "np $np $args: $ok bit-identical, $bad bad; ${tiles:-no resident tiles}"
        [ "$bad" -eq 0 ] && [ "$ok" -gt 0 ] || { fails=$((fails + 1)); echo "$out" | tail -5; }
    done
done | tee "$OUT/verify.txt"
fi
if want time; then
t "time: 3D 256^3 on $NGPU GPUs, fp32 jacobi7, medians of 5"
{
    $MPI -np "$NGPU" $H run --backend cuda --transport ipc --size 256x256x256 --iters 480 --repeat 5 --pattern direct \
        --depth 1,2,3 --schedule persistent --format csv --quiet 2>&1 | cols
    # tuning builds beside it (scripts/variant_build.sh, e.g. r3p2: -DHX_RES3_PLANES=2), gzipped in the build folder
    for f in "$B"/halox-r3*.gz; do
        [ -e "$f" ] || continue
        gunzip -kf "$f" && chmod +x "${f%.gz}"
        $MPI -np "$NGPU" "${f%.gz}" run --backend cuda --transport ipc --size 256x256x256 --iters 480 --repeat 5 --pattern direct \
            --depth 2,3 --schedule persistent --format csv --quiet 2>&1 | cols | grep -v '^nx' | sed "s/\$/,$(basename "${f%.gz}")/"
    done
    HALOX_RESIDENT3D=0 $MPI -np "$NGPU" $H run --backend cuda --transport ipc --size 256x256x256 --iters 480 \
        --repeat 5 --pattern direct --depth 2,4 --fuse 1,4 --schedule persistent --format csv --quiet 2>&1 | cols | grep -v '^nx' | sed 's/$/,pass-kernel/'
    $MPI -np "$NGPU" $H run --backend cuda --transport ipc-put --size 256x256x256 --iters 480 --repeat 5 --pattern direct \
        --depth 12 --fuse 4 --graph --overlap=off --format csv --quiet 2>&1 | cols | grep -v '^nx'
    $MPI -np 1 $H run --backend cuda --transport ipc --size 256x128x128 --iters 480 --repeat 5 --pattern direct \
        --depth 1,2,3 --schedule persistent --format csv --quiet 2>&1 | cols | grep -v '^nx' | sed 's/$/,one-gpu/'
    $MPI -np "$NGPU" $H run --backend cuda --transport ipc --size 256x256x256 --stencil star13 --iters 480 --repeat 5 \
        --pattern direct --depth 1 --schedule persistent --format csv --quiet 2>&1 | cols | grep -v '^nx'
} | tee "$OUT/time.csv"
# where a cycle goes (rank 0), this build and the tuning builds, 4 GPUs and one
for bin in "$H" "$B"/halox-r3*[!z]; do
    [ -x "$bin" ] || continue
    for np in "$NGPU" 1; do
        size=256x256x256; [ "$np" = 1 ] && size=256x128x128
        for d in 1 2 3; do
            echo "$(basename "$bin") np $np depth $d: $(HALOX_PROFILE=1 $MPI -x HALOX_PROFILE -np "$np" "$bin" run --backend cuda \
                --transport ipc --size $size --iters 480 --repeat 1 --pattern direct --depth $d --schedule persistent --quiet 2>&1 |
                grep -E "rank 0 resident profile" | sed 's/.*cycles)://')"
        done
    done
done | tee "$OUT/profile.txt"
fi
t done
