#!/usr/bin/env bash
# On a machine with 2 GPUs or more (one node): halox pingpong with the device-initiated model
# (ipc-kernel) and the cudaMemcpyPeer reference beside host-staged MPI and NCCL, the issue-10
# targets checked, ipc-kernel's small sizes also with HALOX_PINGPONG_LL=0 (fence + flag instead of
# flagged words), and the model's failure paths (device watchdog with both small-message
# protocols, set-up agreement, shared GPU).
# Usage: scripts/pingpong_gpu.sh [BUILD]   (BUILD: a build folder, default build; built when it has
# no halox). CSVs and stderr go under $OUT (default /tmp/halox-out). Exit 0 when every run behaved;
# the performance targets are reported (met / MISSED) but do not change the exit code.
set -u
cd "$(dirname "$0")/.."
B=${1:-build}
OUT=${OUT:-/tmp/halox-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
if [ ! -x "$B/halox" ]; then
    { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release && cmake --build "$B" -j 16; } >"$OUT/pingpong_build.log" 2>&1 ||
        { tail -30 "$OUT/pingpong_build.log"; exit 1; }
fi
H=$B/halox
nvidia-smi -L
"$H" info | grep -E "^(backends|transports|cuda|gpu|  )" | head -20
MPI="mpirun --oversubscribe -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# bytes is field 7; print transport, bytes, iters, compute_us, median, p99, min, bandwidth
show() {
    if command -v column >/dev/null; then
        awk -F, 'NR == 1 || $7 == 8 || $7 == 67108864' "$1" | cut -d, -f4,7,8,10,11,12,13,15 | column -t -s,
    else
        awk -F, 'NR == 1 || $7 == 8 || $7 == 67108864' "$1" | cut -d, -f4,7,8,10,11,12,13,15
    fi
}

for T in 0 5; do
    csv=$OUT/pingpong_gpu_t$T.csv
    echo "=== pingpong --compute-us $T (mpi, nccl, ipc-kernel, memcpy-peer; 1000 round trips, 100 above 1 MiB)"
    timeout 900 $MPI "$H" pingpong --backend cuda --transport mpi,nccl,ipc-kernel,memcpy-peer --iters 1000 --compute-us $T \
        --format csv >"$csv" 2>"$OUT/pingpong_gpu_t$T.err"
    rc=$?
    grep -E "note|error" "$OUT/pingpong_gpu_t$T.err"
    [ $rc -eq 0 ] || bad "pingpong --compute-us $T: exit $rc (see $OUT/pingpong_gpu_t$T.err)"
    show "$csv"
    n=$(grep -c ',ipc-kernel,' "$csv")
    [ "$n" -eq 24 ] || bad "--compute-us $T: $n ipc-kernel rows, want 24 (8 B to 64 MiB)"
    [ "$T" = 0 ] || continue
    # the same job, small sizes with the fence + flag protocol instead of flagged words (a few s)
    csv0=$OUT/pingpong_gpu_t0_ll0.csv
    echo "=== ipc-kernel, HALOX_PINGPONG_LL=0 (fence + flag for every size), 8 B to 64 KiB, beside the default"
    HALOX_PINGPONG_LL=0 timeout 300 $MPI -x HALOX_PINGPONG_LL "$H" pingpong --backend cuda --transport ipc-kernel \
        --max-bytes 65536 --iters 1000 --format csv --quiet >"$csv0" 2>"$OUT/pingpong_gpu_t0_ll0.err"
    rc=$?
    grep -E "note|error" "$OUT/pingpong_gpu_t0_ll0.err"
    [ $rc -eq 0 ] && [ "$(grep -c ',ipc-kernel,' "$csv0")" -eq 14 ] || bad "HALOX_PINGPONG_LL=0 run: exit $rc, or not 14 rows"
    # and up to 256 B with a 256-thread block instead of one warp (HALOX_PINGPONG_LL_THREADS)
    csv1=$OUT/pingpong_gpu_t0_blk256.csv
    HALOX_PINGPONG_LL_THREADS=256 timeout 300 $MPI -x HALOX_PINGPONG_LL_THREADS "$H" pingpong --backend cuda \
        --transport ipc-kernel --max-bytes 256 --iters 1000 --format csv --quiet >"$csv1" 2>"$OUT/pingpong_gpu_t0_blk256.err"
    rc=$?
    [ $rc -eq 0 ] && [ "$(grep -c ',ipc-kernel,' "$csv1")" -eq 6 ] || bad "HALOX_PINGPONG_LL_THREADS=256 run: exit $rc, or not 6 rows"
    python3 - "$csv" "$csv0" "$csv1" <<'PY'
import csv, sys
def rows(f):
    try:
        return {int(r["bytes"]): r for r in csv.DictReader(open(f)) if r["transport"] == "ipc-kernel"}
    except OSError:
        return {}
ll, old, blk = rows(sys.argv[1]), rows(sys.argv[2]), rows(sys.argv[3])
def cell(t, b):
    return f"{float(t[b]['median_us']):>9.3f} {float(t[b]['p99_us']):>7.3f}" if b in t else f"{'-':>9} {'-':>7}"
print("half round trip, us (median p99): default (flagged words; 1 warp up to 256 B) | 256-thread block | LL=0 (fence + flag)")
for b in (8, 64, 256, 4096, 65536):
    print(f"{b:>6}  {cell(ll, b)}   {cell(blk, b)}   {cell(old, b)}")
PY
done

# the issue's targets, from the T = 0 run
python3 - "$OUT/pingpong_gpu_t0.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def get(tr, b):
    r = [x for x in rows if x["transport"] == tr and int(x["bytes"]) == b]
    return r[0] if r else None
k8, k64, mp = get("ipc-kernel", 8), get("ipc-kernel", 64 << 20), get("memcpy-peer", 64 << 20)
if not (k8 and k64 and mp):
    print("FAIL: rows missing (ipc-kernel 8 B / 64 MiB, memcpy-peer 64 MiB)")
    sys.exit(1)
lat = float(k8["median_us"])
print(f"target 8 B half round trip <= 1.0 us (ipc-kernel): {lat:.3f} us (p99 {float(k8['p99_us']):.3f}) "
      f"-> {'met' if lat <= 1.0 else 'MISSED'}")
bw, ref = float(k64["bandwidth_gbs"]), float(mp["bandwidth_gbs"])
print(f"target 64 MiB bandwidth >= 90% of cudaMemcpyPeer: {bw:.1f} GB/s vs {ref:.1f} GB/s = {100 * bw / ref:.1f}% "
      f"-> {'met' if bw >= 0.9 * ref else 'MISSED'}")
for tr in ("mpi", "nccl"):
    small, big = get(tr, 8), get(tr, 64 << 20)
    if small and big:
        print(f"beside it, {tr}: 8 B {float(small['median_us']):.3f} us, 64 MiB {float(big['bandwidth_gbs']):.1f} GB/s "
              "(symmetric exchanges through the API)")
# sanity: latencies ordered, bandwidth grows, T included
for r in rows:
    if r["transport"] == "ipc-kernel":
        assert 0 < float(r["min_us"]) <= float(r["median_us"]) <= float(r["p99_us"]), r
PY
python3 - "$OUT/pingpong_gpu_t5.csv" <<'PY' || bad "--compute-us 5: the ipc-kernel half round trips do not include T"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["transport"] == "ipc-kernel"]
assert rows and all(r["compute_us"] == "5" and float(r["median_us"]) >= 5.0 for r in rows), rows[:2]
PY

# both small-message protocols: flagged words (default), fence + flag (HALOX_PINGPONG_LL=0)
for LL in 1 0; do
    echo "=== watchdog: rank 1 stops answering from round trip 3 (HALOX_FAULT_SKIP_PUTS=1, HALOX_TIMEOUT=3," \
        "HALOX_PINGPONG_LL=$LL)"
    start=$(date +%s)
    err=$(HALOX_PINGPONG_LL=$LL HALOX_TIMEOUT=3 HALOX_FAULT_SKIP_PUTS=1 timeout 120 $MPI -x HALOX_PINGPONG_LL -x HALOX_TIMEOUT \
        -x HALOX_FAULT_SKIP_PUTS "$H" pingpong --backend cuda --transport ipc-kernel --max-bytes 8 --iters 100 --quiet \
        2>&1 >/dev/null)
    rc=$?
    echo "exit $rc after $(($(date +%s) - start)) s"
    grep "halox: error" <<<"$err" | head -2
    [ $rc -eq 3 ] || bad "watchdog (LL=$LL): exit $rc, want 3"
    # rank 0 waits for rank 1's answer 3, rank 1 for message 4: either may speak first
    grep -Eq "rank [01] waited .* on the device for the (answer|message) of rank [01] \(ipc-kernel, 8 B, round trip [34] of " \
        <<<"$err" || bad "watchdog (LL=$LL): no line naming the rank, its peer, 8 B and the round trip"
done
out=$(timeout 120 $MPI "$H" pingpong --backend cuda --transport ipc-kernel --max-bytes 64 --iters 100 --quiet --format csv 2>&1)
[ "$(grep -c ',ipc-kernel,' <<<"$out")" -eq 4 ] || bad "the GPUs did not run the next job: $out"

echo "=== set-up agreement: rank 1 fails its set-up (HALOX_FAULT_SETUP=1)"
err=$(HALOX_FAULT_SETUP=1 timeout 120 $MPI -x HALOX_FAULT_SETUP "$H" pingpong --backend cuda --transport ipc-kernel \
    --max-bytes 64 --iters 10 2>&1 >/dev/null)
rc=$?
echo "exit $rc: $(grep -m1 "note" <<<"$err")"
[ $rc -eq 2 ] && grep -q "ipc-kernel skipped: pair 0-1: rank 1 (GPU [0-9]*): set-up failure injected" <<<"$err" ||
    bad "set-up fault: want exit 2 (nothing ran) and the note naming rank 1"

echo "=== two ranks on one GPU (CUDA_VISIBLE_DEVICES=0): ipc-kernel is skipped, mpi runs"
err=$(CUDA_VISIBLE_DEVICES=0 timeout 120 $MPI -x CUDA_VISIBLE_DEVICES "$H" pingpong --backend cuda --transport ipc-kernel,mpi \
    --max-bytes 64 --iters 10 --quiet 2>&1 >/dev/null)
rc=$?
echo "exit $rc: $(grep -m1 "note" <<<"$err")"
[ $rc -eq 0 ] && grep -q "ipc-kernel skipped: pair 0-1: .*share one GPU" <<<"$err" || bad "shared GPU: want a note and exit 0"

[ $fail -eq 0 ] && echo "pingpong_gpu: all runs behaved (targets above)"
exit $fail
