#!/usr/bin/env bash
# halox pingpong on the CPU backend, 2 ranks, transport mpi, 8 B to 64 KiB: one row per size with
# real latencies (> 0, p99 >= median >= min), bandwidth growing with size, the three formats agree
# on the fields, the device-initiated models are refused with a note (no GPU here), and bad input
# is exit 2. Usage: pingpong.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

c=$(MPIRUN 2 "$HALOX" pingpong --backend cpu --transport mpi --max-bytes 65536 --iters 200 --warmup 5 --format csv \
    2>/tmp/pingpong_err.$$) || bad "pingpong csv run failed: $(cat /tmp/pingpong_err.$$)"
# progress: one line per size on stderr
[ "$(grep -c '^pingpong: mpi 0-1 ' /tmp/pingpong_err.$$)" -eq 14 ] || bad "expected 14 progress lines on stderr"
rm -f /tmp/pingpong_err.$$
python3 - <<PY || bad "csv rows are wrong"
import csv, io
rows = list(csv.DictReader(io.StringIO('''$c''')))
want = ["bench", "halox_version", "backend", "transport", "rank_a", "rank_b", "bytes", "iters", "warmup", "compute_us",
        "median_us", "p99_us", "min_us", "mean_us", "bandwidth_gbs", "ll_bytes", "ll_threads"]
assert list(rows[0].keys()) == want, list(rows[0].keys())
sizes = [int(r["bytes"]) for r in rows]
assert sizes == [8 << i for i in range(14)], sizes
for r in rows:
    assert r["bench"] == "pingpong" and r["backend"] == "cpu" and r["transport"] == "mpi", r
    assert (r["rank_a"], r["rank_b"], r["iters"], r["warmup"]) == ("0", "1", "200", "5"), r
    assert (r["ll_bytes"], r["ll_threads"]) == ("-1", "0"), r  # the defaults: automatic
    lo, med, p99 = float(r["min_us"]), float(r["median_us"]), float(r["p99_us"])
    assert 0 < lo <= med <= p99, r
    bw = float(r["bandwidth_gbs"])
    assert abs(bw - int(r["bytes"]) / (med * 1e-6) / 1e9) <= 1e-3 * bw + 1e-4, r
bw = [float(r["bandwidth_gbs"]) for r in rows]
# overall growth, loose enough for a loaded machine (CI's two cores busy with other jobs: one
# 64 KiB message at 0.02 GB/s against 0.004 for 8 B): the largest message moves more
# bytes per second than the smallest, and most sizes move more than the size before
assert bw[-1] > 2 * bw[0], bw
assert sum(b2 > b1 for b1, b2 in zip(bw, bw[1:])) >= 5, bw
PY

j=$(MPIRUN 2 "$HALOX" pingpong --backend cpu --transport mpi --min-bytes 1024 --max-bytes 4096 --iters 50 --format json \
    --quiet --compute-us 20 --ll-bytes 0 --ll-threads 64)
python3 - <<PY || bad "json is wrong"
import json
d = json.loads('''$j''')
assert d["bench"] == "pingpong" and d["schema"] == 1
assert [r["bytes"] for r in d["rows"]] == [1024, 2048, 4096]
for r in d["rows"]:
    assert r["compute_us"] == 20 and r["median_us"] >= 20 and r["bandwidth_gbs"] > 0, r
    assert r["ll_bytes"] == 0 and r["ll_threads"] == 64, r
PY

t=$(MPIRUN 2 "$HALOX" pingpong --backend cpu --transport mpi --max-bytes 64 --iters 20 --quiet)
[ "$(grep -c '^ *mpi  *0  *1 ' <<<"$t")" -eq 4 ] || bad "table does not hold 4 rows: $t"
grep -q "median_us" <<<"$t" || bad "table has no header"

# every pair of 3 ranks on this node (the other rank idle), a transport that is not built is skipped
t=$(MPIRUN 3 "$HALOX" pingpong --backend cpu --transport mpi,nvshmem --pairs all --min-bytes 64 --max-bytes 64 \
    --iters 20 --format csv 2>/tmp/pingpong_err.$$)
[ "$(tail -n +2 <<<"$t" | cut -d, -f5,6 | tr '\n' ' ')" = "0,1 0,2 1,2 " ] || bad "--pairs all rows: $t"
grep -q "note: transport nvshmem skipped" /tmp/pingpong_err.$$ || bad "no note for the skipped transport"
rm -f /tmp/pingpong_err.$$

# the device-initiated models (ipc-kernel, memcpy-peer) need the cuda backend: refused with one note
# each (not built, or the cpu backend), exit 2 when nothing else ran, 0 beside a transport that ran
MPIRUN 2 "$HALOX" pingpong --backend cpu --transport ipc-kernel --max-bytes 64 --iters 10 >/dev/null 2>/tmp/pingpong_err.$$
rc=$?
[ $rc -eq 2 ] || bad "ipc-kernel on the cpu backend alone: exit $rc, want 2"
[ "$(grep -c '^halox: note: transport ipc-kernel skipped: \(not built\|needs the cuda backend\)' /tmp/pingpong_err.$$)" -eq 1 ] ||
    bad "ipc-kernel on the cpu backend: want one note with the reason: $(cat /tmp/pingpong_err.$$)"
j=$(MPIRUN 2 "$HALOX" pingpong --backend cpu --transport mpi,ipc-kernel,memcpy-peer --max-bytes 16 --iters 10 --format json \
    --quiet 2>/tmp/pingpong_err.$$) || bad "mpi beside ipc-kernel on the cpu backend failed: $(cat /tmp/pingpong_err.$$)"
python3 - <<PY || bad "json of mpi,ipc-kernel,memcpy-peer is wrong"
import json
d = json.loads('''$j''')
assert [r["transport"] for r in d["rows"]] == ["mpi", "mpi"], d["rows"]
sk = {s["transport"]: s["reason"] for s in d["skipped"]}
assert set(sk) == {"ipc-kernel", "memcpy-peer"}, sk
assert all(("not built" in r or "cuda backend" in r) and "\n" not in r for r in sk.values()), sk
PY
# --transport all holds them exactly when the build has CUDA
j=$(MPIRUN 2 "$HALOX" pingpong --backend cpu --transport all --max-bytes 8 --iters 5 --format json --quiet 2>/dev/null)
cuda=$("$HALOX" info 2>/dev/null | grep -c '^backends .*cuda')
python3 - <<PY || bad "--transport all: ipc-kernel/memcpy-peer should be listed (skipped) exactly in a CUDA build"
import json
d = json.loads('''$j''')
sk = [s["transport"] for s in d["skipped"]]
assert ("ipc-kernel" in sk and "memcpy-peer" in sk) == ($cuda > 0), sk
assert "mpi" in [r["transport"] for r in d["rows"]]
PY
rm -f /tmp/pingpong_err.$$
"$HALOX" pingpong --help | grep -q "ipc-kernel" || bad "--help lacks ipc-kernel"

for args in "--min-bytes 12" "--min-bytes 1024 --max-bytes 512" "--iters 0" "--pairs some" "--ll-threads 33" \
    "--ll-threads 512" "--ll-bytes -2"; do
    MPIRUN 2 "$HALOX" pingpong $args >/dev/null 2>&1
    rc=$?
    [ $rc -eq 2 ] || bad "pingpong $args: exit $rc, want 2"
done
MPIRUN 1 "$HALOX" pingpong --max-bytes 64 >/dev/null 2>&1
[ $? -eq 2 ] || bad "pingpong on one rank should be exit 2"
"$HALOX" pingpong --help | grep -q -- "--compute-us" || bad "--help lacks --compute-us"
for flag in --ll-bytes --ll-threads; do "$HALOX" pingpong --help | grep -q -- "$flag" || bad "--help lacks $flag"; done

[ $fail -eq 0 ] && echo "pingpong: all checks passed"
exit $((fail > 0))
