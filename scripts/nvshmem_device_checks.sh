#!/usr/bin/env bash
# On the GPU machine: transport nvshmem's device-API puts (a build configured with
# -DHALOX_NVSHMEM_DEVICE=ON, carried as halox-shmemdev.gz in the build folder; design.md, "The NVSHMEM
# device API"). The pass kernel ("passes-shmem" in the CSV's kernel field; HALOX_RESIDENT=0 keeps the
# resident kernel out) against the single-domain reference with --verify at NPS ranks, both device
# schedules, 2D and 3D, both patterns and dtypes; then one timing beside its nvshmem_ptr stores
# (HALOX_NVSHMEM_API=0) and ipc. Build here:
#   NVSHMEM_HOME=.deps/nvshmem/nvidia/nvshmem cmake -S . -B build-shmem -DHALOX_NVSHMEM_DEVICE=ON &&
#   cmake --build build-shmem --target halox && gzip -9 -c build-shmem/halox > build-dev/halox-shmemdev.gz
# Usage: [NPS="4 2"] scripts/nvshmem_device_checks.sh build-dev   (logs under $OUT, packed into one tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=shmemdev
. scripts/device_run.sh
bundle_on_exit
[ -e "$B/halox-shmemdev.gz" ] || { echo "no $B/halox-shmemdev.gz: build it as the header says"; exit 2; }
gunzip -kf "$B/halox-shmemdev.gz" && chmod +x "$B/halox-shmemdev"
X=$B/halox-shmemdev
t "halox info (nvshmem lines)"
$X info 2>&1 | grep -A1 "^  nvshmem"
fail=0 runs=0
# case NP args...: one --verify run; prints the kernel, verified and us a sweep
case_run() {
    local np=$1
    shift
    runs=$((runs + 1))
    local row
    row=$(HALOX_RESIDENT=0 timeout 60 $MPI -x HALOX_RESIDENT -np "$np" "$X" run --backend cuda --transport nvshmem --verify \
        --format csv --quiet "$@" 2>"$OUT/err_$runs.txt" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { print $c["kernel"], $c["verified"], $c["us_per_sweep"] }')
    local rc=$?
    if [ -z "$row" ] || [[ "$row" != *" 1 "* ]]; then
        fail=$((fail + 1))
        echo "FAIL np=$np $*: [$row] $(tail -2 "$OUT/err_$runs.txt" | tr '\n' ' ')"
    else echo "  np=$np $*: $row"; fi
    return $rc
}
for np in ${NPS:-4 2}; do
    [ "$np" -le "$NGPU" ] || continue
    t "np=$np: nvshmem device-API puts, --verify"
    for sched in persistent fused; do
        case_run $np --schedule $sched --size 131x67 --depth 3 --iters 14 --pattern direct
        case_run $np --schedule $sched --size 256x256 --depth 8 --fuse 4 --iters 37 --pattern direct --boundary fixed
        case_run $np --schedule $sched --size 100x90 --stencil star9 --depth 3 --fuse 2 --iters 10 --pattern staged --dtype double
        case_run $np --schedule $sched --size 40x36x34 --depth 2 --iters 7 --pattern direct
        case_run $np --schedule $sched --size 33x30x28 --stencil star13 --depth 1 --iters 5 --pattern staged --dtype double
    done
done
echo "nvshmem device API: $runs runs, $fail failed"
t "timing, $NGPU ranks, 1024^2, persistent, d8, pass kernel: device-API puts, nvshmem_ptr stores, ipc (medians of 5)"
for v in "api nvshmem 1" "ptr nvshmem 0" "ipc ipc 1"; do
    read -r label tr api <<<"$v"
    HALOX_RESIDENT=0 HALOX_NVSHMEM_API=$api timeout 60 $MPI -x HALOX_RESIDENT -x HALOX_NVSHMEM_API -np "$NGPU" "$X" run \
        --backend cuda --transport $tr --schedule persistent --size 1024x1024 --depth 8 --iters 4000 --repeat 5 --pattern direct \
        --format csv --quiet 2>/dev/null | awk -F, -v l=$label 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { print l, $c["kernel"], $c["us_per_sweep"] }'
done
t done
[ $fail -eq 0 ]
