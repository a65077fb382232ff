#!/usr/bin/env bash
# The three report formats carry every segment, CSV rows match their header, JSON parses,
# repeats and norms show. Usage: report_formats.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
segs="pack message unpack inner outer compute desync norm total"

t=$(MPIRUN 2 "$HALOX" run --size 64x64 --iters 20 --repeat 3 --desync-barrier --norm-every 5)
for s in $segs; do grep -q "^$s " <<<"$t" || bad "table lacks $s"; done
grep -q "3 timed repeats" <<<"$t" || bad "table does not say 3 repeats"
[ "$(grep -c '^norm  sweep' <<<"$t")" -eq 4 ] || bad "expected 4 norm lines"
grep -q "time per sweep" <<<"$t" || bad "no time per sweep"

c=$(MPIRUN 2 "$HALOX" run --size 64x64 --iters 20 --format csv --desync-barrier)
[ "$(wc -l <<<"$c")" -eq 2 ] || bad "csv is not header + one row"
h=$(head -1 <<<"$c" | tr ',' '\n' | wc -l)
r=$(tail -1 <<<"$c" | tr ',' '\n' | wc -l)
[ "$h" -eq "$r" ] || bad "csv header has $h fields, row $r"
for s in $segs; do head -1 <<<"$c" | grep -q "${s}_mean_s" || bad "csv lacks $s"; done
# the desync barrier was timed: its column is present and a number
col=$(head -1 <<<"$c" | tr ',' '\n' | grep -n '^desync_max_s$' | cut -d: -f1)
v=$(tail -1 <<<"$c" | cut -d, -f"$col")
awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || bad "desync_max_s is $v, want > 0 with --desync-barrier"

j=$(MPIRUN 3 "$HALOX" run --size 30x30x30 --iters 4 --format json --verify --norm-every 2)
python3 - <<PY || bad "json does not parse or lacks keys"
import json
d = json.loads('''$j''')
for s in "$segs".split():
    assert s in d["segments"], s
    assert set(d["segments"][s]) == {"min", "mean", "max", "rep_min", "rep_max"}
assert d["verified"] is True and d["config"]["dim"] == 3 and d["last_norm"] > 0
PY
echo "report formats: $fail failed"
[ $fail -eq 0 ]
