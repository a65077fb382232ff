#!/usr/bin/env bash
# On the GPU machine: ipc-put's tuning variants (scripts/ik_variants_build.sh, gzipped in the build
# folder) checked and timed against this build in one call of 6-9 minutes: bit for bit
# (--verify) on every rank count up to the GPUs here (about 4 minutes on 2 GPUs), the cycle with graphs side by side at a
# 2-GPU rank's 3D block and a 4-GPU rank's block on one GPU (three alternated rounds), the trace
# build summed up, and ipc-put's GPU tests on the default build. Logs under $OUT.
# Usage: scripts/ik_variants_checks.sh build-dev   (carry build-dev; VARIANTS narrows the list)
set -u
cd "$(dirname "$0")/.."
B=${1:-build-dev}
OUT=${OUT:-/tmp/halox-ikvar}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for f in "$B"/halox-*.gz; do [ -e "$f" ] && gunzip -kf "$f" && chmod +x "${f%.gz}"; done
NGPU=$(nvidia-smi -L | grep -c '^GPU')
# a stage cut by its timeout can leave ranks running that would share the GPUs with the next one's
# timings (session 15: 2-rank graphs at 22-50 us a sweep after a cut verify stage, 21.7 alone);
# by process name, since a pattern over command lines matches this script's own shell
reap() { pkill -x 'halox(-[a-z0-9]+)?' 2>/dev/null; sleep 1; }
bins="new:halox"
for v in ${VARIANTS:-first direct both}; do [ -x "$B/halox-$v" ] && bins="$bins $v:halox-$v"; done
echo "--- binaries: $bins; $NGPU GPUs"
G="STAGES=graph FUSES=4 TRANSPORTS=ipc-put OVERLAPS=off REPS=3"
vb=${bins#new:halox }
OUT=$OUT/verify1 NP=1 STAGES=verify BINS="$vb" VERIFY_SIZES="256x128x128 200x150x90 301x257" timeout 240 scripts/cycle3d_checks.sh "$B"
reap
if [ "$NGPU" -ge 2 ]; then
    OUT=$OUT/verify2 NP=2 STAGES=verify BINS="$vb" VERIFY_SIZES="256x256x256 200x150x90 1024x1024" timeout 330 scripts/cycle3d_checks.sh "$B"
    reap
    env $G OUT=$OUT/graph2 NP=2 SIZES="256x256x256 1024x1024" BINS="$bins" timeout 150 scripts/cycle3d_checks.sh "$B" | grep -v halo
fi
env $G OUT=$OUT/graph1 NP=1 SIZES=256x128x128 BINS="$bins" timeout 100 scripts/cycle3d_checks.sh "$B" | grep -v halo
if [ -x "$B/halox-trace" ]; then
    np=$((NGPU >= 2 ? 2 : 1)) size=$([ "$NGPU" -ge 2 ] && echo 256x256x256 || echo 256x128x128)
    echo "--- trace build, $np rank(s), $size"
    env STAGES=graph FUSES=4 TRANSPORTS=ipc-put OVERLAPS=off REPS=1 OUT=$OUT/trace NP=$np SIZES=$size BINS=tr:halox-trace \
        timeout 60 scripts/cycle3d_checks.sh "$B" >/dev/null
    tar xzOf "$OUT/trace/cycle3d.tgz" ./graph.csv >"$OUT/trace_graph.csv"
    python3 scripts/ik_trace_summary.py "$OUT/trace_graph.csv" 2>&1 | head -20
fi
OUT=$OUT/tests STAGES=tests PENDING_TESTS="gpu_ipc-put_np2|gpu_ipc-put_fault" TESTS_TIMEOUT=120 scripts/pending_gpu.sh "$B"
