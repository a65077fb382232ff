#!/usr/bin/env bash
# The device schedules' kernel and launch-shape flags of `halox run` (--kernel, --block-rows,
# --march, --zsplit, --lanes, --inplace, --prefetch, --pdl, --tma, --profile): a combination that
# cannot run is refused before any computation with exit 2 and one line naming the fix, on the CPU
# too; the CSV report carries the kernel asked for, the kernel that ran and one column per flag.
# Usage: kernel_options.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0 n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# refused NP MESSAGE_PART args...: halox run of a small grid exits 2 with one error line naming MESSAGE_PART
refused() {
    local np=$1 part=$2
    shift 2
    expect_error "$np" 2 "$part" -- run --size 64x64 --iters 2 "$@"
}

refused 1 "--schedule fused or persistent" --kernel resident --schedule cycle
refused 2 "--schedule fused or persistent" --kernel passes
refused 1 "--schedule fused" --kernel roles --schedule persistent --pattern direct --backend cpu
refused 1 "--depth 1" --kernel roles --schedule fused --depth 2 --pattern direct
refused 1 "--pattern direct" --kernel resident --schedule persistent
refused 1 "--pattern direct" --kernel roles --schedule fused
refused 1 "--kernel" --kernel fastest
refused 1 "--lanes" --lanes 7
refused 2 "--lanes" --lanes 16,7
refused 1 "--march 1" --march 1
refused 1 "--march" --march 65
refused 1 "--block-rows" --block-rows 9
refused 1 "--zsplit" --zsplit -1
refused 1 "--inplace" --inplace maybe
refused 1 "--pdl" --pdl yes
refused 1 "--backend cuda" --backend cpu --profile

# the report: kernel (asked), kernel_ran (what ran: - on the cycle schedule) and a column per flag,
# one row per item of a swept flag
n=$((n + 1))
out=$(MPIRUN 2 "$HALOX" run --backend cpu --size 64x64 --iters 2 --warmup 0 --block-rows 2,4 --march 8 --zsplit 3 --lanes 16 \
      --inplace on --prefetch off --pdl auto --tma off --format csv --quiet 2>&1)
if ! python3 - "$out" <<'PY'; then
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert len(rows) == 2, rows
want = {"kernel": "auto", "kernel_ran": "-", "march": "8", "zsplit": "3", "lanes": "16", "inplace": "on",
        "prefetch": "off", "pdl": "auto", "tma": "off", "profile": "0", "schema": "3"}
for r in rows:
    for k, v in want.items():
        assert r.get(k) == v, (k, r.get(k), v)
assert [r["block_rows"] for r in rows] == ["2", "4"], [r["block_rows"] for r in rows]
PY
    echo "FAIL: the CSV report lacks the kernel columns or their values"
    echo "$out" | head -3 | cut -c1-300
    fail=$((fail + 1))
fi
n=$((n + 1))
out=$(MPIRUN 1 "$HALOX" run --backend cpu --size 32x32 --iters 2 --warmup 0 --format json --quiet 2>&1)
if ! python3 -c 'import json, sys
d = json.loads(sys.argv[1])
c = d["config"]
assert c["kernel"] == "auto" and d["kernel_ran"] is None, (c.get("kernel"), d.get("kernel_ran"))
assert c["block_rows"] == 0 and c["lanes"] == 0 and c["inplace"] == "auto" and c["profile"] is False, c' "$out"; then
    echo "FAIL: the JSON report lacks the kernel fields or their values"
    echo "$out" | head -20
    fail=$((fail + 1))
fi
echo "kernel options: $n checks, $fail failed"
[ $fail -eq 0 ]
