#!/usr/bin/env bash
# halox report: plots (PNG and SVG) and the overlap-coverage table, (1) from a live tiny halox run and
# pingpong, (2) from the measured CSVs kept in tests/data/ (see tests/data/README.md): every expected PNG
# exists, is at least MINW x MINH pixels and is not blank, and the coverage table is printed with numbers.
# Exit 77 (skipped) when matplotlib is missing. Usage: report.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
DATA=$(cd "$(dirname "$0")/data" && pwd)
MINW=400 MINH=250
. "$(dirname "$0")/mpi_env.sh"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

MPIRUN 2 "$HALOX" run --backend cpu --size 64x64 --iters 8 --warmup 1 --depth 1,2 --overlap=on,off --desync-barrier \
    --format csv --quiet >"$dir/run.csv" || bad "halox run failed"
MPIRUN 2 "$HALOX" pingpong --backend cpu --transport mpi --max-bytes 1024 --iters 20 --format csv --quiet \
    >"$dir/pp.csv" || bad "halox pingpong failed"

out=$("$HALOX" report "$dir/run.csv" "$dir/pp.csv" --out "$dir/fig" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "matplotlib is missing" <<<"$out"; then
    echo "SKIP: matplotlib is missing (install python3-matplotlib)"
    exit 77
fi
[ $rc -eq 0 ] || bad "halox report: exit $rc: $out"
for f in run_time_per_sweep run_segments pingpong_latency pingpong_bandwidth; do
    for ext in png svg; do
        [ -s "$dir/fig/$f.$ext" ] || bad "no $f.$ext"
    done
    head -c 8 "$dir/fig/$f.png" 2>/dev/null | grep -q PNG || bad "$f.png is not a PNG"
done
grep -q "^overlap coverage per depth" <<<"$out" || bad "no coverage table: $out"
# one coverage line per depth of the (one) configuration, with a number in every column
[ "$(grep -cE '^run +[12] +-?[0-9.]+ +-?[0-9.]+ +-?[0-9.]+ +[0-9.]+ +-?[0-9.]+$' <<<"$out")" -eq 2 ] || bad "coverage rows: $out"
[ -s "$dir/fig/overlap_coverage.csv" ] || bad "no overlap_coverage.csv"

# --- from the CSVs in tests/data/ ---
# a python3 with matplotlib (halox report itself falls back to /usr/bin/python3 the same way)
PY=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import matplotlib' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || bad "no python3 with matplotlib, though halox report ran"
# check_pngs DIR NAME...: exists, PNG signature, IHDR width/height >= MINW x MINH, pixels not all one value
# and more than 1% of them differ from the background (the top-left pixel)
check_pngs() {
    local d=$1
    shift
    local n
    for n in "$@"; do
        [ -s "$d/$n.png" ] || { bad "$d: no $n.png"; continue; }
        [ -s "$d/$n.svg" ] || bad "$d: no $n.svg"
        [ -n "$PY" ] || continue
        local msg
        msg=$("$PY" - "$d/$n.png" "$MINW" "$MINH" <<'PYEOF' 2>&1
import struct, sys
path, minw, minh = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "rb") as f:
    head = f.read(24)
if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
    sys.exit("not a PNG")
w, h = struct.unpack(">II", head[16:24])
if w < minw or h < minh:
    sys.exit(f"{w}x{h} pixels, want at least {minw}x{minh}")
import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mpimg
img = mpimg.imread(path)
if img.shape[0] != h or img.shape[1] != w:
    sys.exit(f"IHDR says {w}x{h}, pixels are {img.shape}")
px = img.reshape(-1, img.shape[2]) if img.ndim == 3 else img.reshape(-1, 1)
if (px == px[0]).all():
    sys.exit("blank: every pixel is the same")
drawn = (abs(px - px[0]).max(axis=1) > 0.02).mean()
if drawn < 0.01:
    sys.exit(f"nearly blank: {100 * drawn:.2f}% of the pixels differ from the background")
print(f"{w}x{h}, {100 * drawn:.1f}% drawn")
PYEOF
        ) || { bad "$d/$n.png: $msg"; continue; }
        echo "ok: $(basename "$d")/$n.png $msg"
    done
}
# coverage_rows OUT LABELS DEPTHS: number of table rows with a number in every column
coverage_rows() {
    grep -cE "^($2) +($3) +-?[0-9]+\.[0-9]+ +-?[0-9]+\.[0-9]+ +-?[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +-?[0-9]+\.[0-9]+$" <<<"$1"
}
check_pngs "$dir/fig" run_time_per_sweep run_segments pingpong_latency pingpong_bandwidth

# CPU sweep (schema 2, 2 ranks: depths 1,2,4, staged/direct, overlap on/off) with a two-GPU ping-pong
out=$("$HALOX" report "$DATA/run_sweep.csv" "$DATA/pingpong.csv" --out "$dir/data1" 2>&1) || bad "halox report (data 1): $out"
check_pngs "$dir/data1" run_time_per_sweep run_segments pingpong_latency pingpong_bandwidth
grep -q "^overlap coverage per depth" <<<"$out" || bad "data 1: no coverage table: $out"
[ "$(coverage_rows "$out" 'staged|direct' '1|2|4')" -eq 6 ] || bad "data 1: want 6 coverage rows: $out"
[ "$(wc -l <"$dir/data1/overlap_coverage.csv")" -eq 7 ] || bad "data 1: overlap_coverage.csv is not 6 rows"
grep -q "12 run rows, 88 pingpong rows" <<<"$out" || bad "data 1: row counts: $out"

# four GPUs' transports (schema 1: mpi, ipc, nccl; depths 1,4,16; overlap on/off): the speed-up plot too
out=$("$HALOX" report "$DATA/run_transports.csv" --out "$dir/data2" 2>&1) || bad "halox report (data 2): $out"
check_pngs "$dir/data2" run_time_per_sweep run_segments run_speedup
[ "$(coverage_rows "$out" 'mpi|ipc|nccl' '1|4|16')" -eq 9 ] || bad "data 2: want 9 coverage rows: $out"
grep -q "18 run rows, 0 pingpong rows" <<<"$out" || bad "data 2: row counts: $out"

# bad input: a file that is not there is exit 2
"$HALOX" report "$dir/none.csv" --out "$dir/fig" >/dev/null 2>&1
[ $? -eq 2 ] || bad "a missing file should be exit 2"

[ $fail -eq 0 ] && echo "report: all checks passed"
exit $((fail > 0))
