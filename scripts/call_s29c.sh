#!/usr/bin/env bash
# Session 29, call 3 (issue 9): the tail column (march_grid in sweep3d.cuh; halox-tail) beside the
# previous commit's build. Bit for bit first: the usual 32 runs, and rows that end one vector (and
# one pair) past whole block columns at one and two ranks; then `halox roofline` at 512^3, the
# 4-GPU ranks' blocks and 508x512x512 (no tail: should tie), 3 alternated rounds.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29c
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d tail halox-tail
verify3d tail16 halox-tail HALOX_SWEEP_PAIR=0
for np in 1 2; do
    timeout 120 $MPI -np $np $B/halox-tail run --backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed \
        --iters 6 --repeat 1 --verify --format csv --quiet --size 256x40x24,512x20x18,260x36x20 --depth 1,2 \
        >"$OUT/verify_tail_np$np.csv" 2>"$OUT/verify_tail_np$np.err"
    echo "tail np$np rc=$? runs $(($(wc -l <"$OUT/verify_tail_np$np.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify_tail_np$np.csv" | sort | uniq -c | xargs)"
    grep -h "error" "$OUT/verify_tail_np$np.err" | head -3
done
t roof
roof_env "def:halox:- tail:halox-tail:-" "512 256x256x512 256x140x140 256 128 508x512x512" 3 tail
t done
