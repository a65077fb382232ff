#!/usr/bin/env bash
# The three report formats carry every segment and every field of the report's field table (schema
# 3: version, GPU, every option that changes a run, the kernel asked and run), CSV rows match their header, JSON parses,
# repeats and norms show, and the rows of a sweep can be told apart. Usage: report_formats.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
segs="pack message unpack inner outer compute desync norm total"

t=$(MPIRUN 2 "$HALOX" run --size 64x64 --iters 20 --repeat 3 --desync-barrier --norm-every 5)
for s in $segs; do grep -q "^$s " <<<"$t" || bad "table lacks $s"; done
grep -q "repeats 3," <<<"$t" || bad "table does not say repeats 3"
for kv in "schema 3" "fuse 1" "warmup 10" "seed 42" "desync_barrier on" "norm_every 5" "message_kind host" \
          "halox_version $("$HALOX" info | sed -n 's/^halox //p')"; do
    grep -q "$kv" <<<"$t" || bad "table lacks '$kv'"
done
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

version=$("$HALOX" info | sed -n 's/^halox //p')
j=$(MPIRUN 3 "$HALOX" run --size 30x30x30 --iters 4 --format json --verify --norm-every 2 --warmup 3 --seed 9)
python3 - <<PY || bad "json does not parse or lacks keys"
import json
d = json.loads('''$j''')
for s in "$segs".split():
    assert s in d["segments"], s
    assert set(d["segments"][s]) == {"min", "mean", "max", "rep_min", "rep_max"}
assert d["verified"] is True and d["config"]["dim"] == 3 and d["last_norm"] > 0
assert d["schema"] == 3 and d["halox_version"] == "$version", (d["schema"], d["halox_version"])
c = d["config"]
want = {"size": [30, 30, 30], "ranks": 3, "stencil": "jacobi7", "dtype": "float", "depth": 1, "pattern": "staged",
        "overlap": True, "fuse": 1, "graph": False, "boundary": "periodic", "transport": "mpi", "iters": 4,
        "repeats": 1, "warmup": 3, "seed": 9, "devices": None, "desync_barrier": False, "norm_every": 2, "halo": 1,
        "exchanges": 4}
for k, v in want.items():
    assert c[k] == v, (k, c[k], v)
assert c["backend"] in ("cpu", "cuda")
# the GPU's name on the cuda backend, null on the cpu
assert (d["gpu"] is None) == (c["backend"] == "cpu"), (d["gpu"], c["backend"])
assert d["message_kind"] == "host" and d["bad_cells"] == 0 and d["max_diff"] == 0
PY

# CSV: the new fields, and the rows of a sweep differ in the swept columns (here warmup and seed:
# fuse > 1 needs the cuda backend, so fuse is checked as a column that holds the value run)
c=$(MPIRUN 2 "$HALOX" run --size 32x32 --iters 4 --format csv --warmup 0,3 --seed 1,2)
python3 - <<PY || bad "csv of a sweep lacks the schema 3 fields or its rows are not told apart"
import csv, io
rows = list(csv.DictReader(io.StringIO('''$c''')))
assert len(rows) == 4, len(rows)
for col in ("schema", "halox_version", "gpu", "fuse", "warmup", "seed", "devices", "desync_barrier", "norm_every",
            "halo", "exchanges", "message_kind", "graph", "overlap", "depth", "pattern", "transport", "backend"):
    assert col in rows[0], col
assert {(r["warmup"], r["seed"]) for r in rows} == {("0", "1"), ("0", "2"), ("3", "1"), ("3", "2")}
for r in rows:
    assert r["schema"] == "3" and r["halox_version"] == "$version" and r["fuse"] == "1" and r["message_kind"] == "host"
    assert r["devices"] == "-" and (r["gpu"] == "-") == (r["backend"] == "cpu")
    assert r["last_norm"] == "" and r["verified"] == "0" and float(r["us_per_sweep"]) > 0
PY
# --transport all on the CPU: mpi runs (every combination of a sweep, one CSV row each, one header);
# the transports that need GPUs are skipped with one note each for the whole job, not an error per
# combination, and the closing table says "skipped"; --quiet leaves the notes out
quiet=$(MPIRUN 2 "$HALOX" run --backend cpu --transport all --size 48x48 --iters 4 --depth 1,2 --format csv --quiet 2>&1)
grep -q "^halox: note" <<<"$quiet" && bad "--transport all --quiet printed notes: $quiet"
[ "$(grep -c ',mpi,' <<<"$quiet")" -eq 2 ] || bad "--transport all --quiet: want 2 mpi rows (depths 1, 2): $quiet"
out=$(MPIRUN 2 "$HALOX" run --backend cpu --transport all --size 48x48 --iters 4 --depth 1,2 --format csv 2>&1)
rc=$?
[ $rc -eq 0 ] || bad "--transport all on the CPU: exit $rc: $(tail -2 <<<"$out")"
[ "$(grep -c '^dim,' <<<"$out")" -eq 1 ] || bad "--transport all: want one CSV header: $out"
[ "$(grep -c ',mpi,' <<<"$out")" -eq 2 ] || bad "--transport all: want 2 mpi rows (depths 1, 2): $out"
grep -q "halox: error" <<<"$out" && bad "--transport all printed an error for a transport that is only absent here: $out"
for tr in $("$HALOX" info | sed -n 's/^transports.*//; s/^  \([a-z-]*\) .*/\1/p' | grep -vx mpi); do
    [ "$(grep -c "^halox: note: transport $tr skipped: " <<<"$out")" -eq 1 ] || bad "--transport all: want one note for $tr: $out"
    [ "$(grep -c "^$tr  *skipped " <<<"$out")" -eq 2 ] || bad "--transport all: want $tr skipped in both tables: $out"
done

echo "report formats: $fail failed"
[ $fail -eq 0 ]
