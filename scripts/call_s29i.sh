#!/usr/bin/env bash
# Session 29, call 9 (issue 9): the final build's 3D march length rule (8 planes for radius 1 and
# for the pipelined march where two or more layers are resident; sweep.cu): bit for bit at one and
# two ranks, the roofline beside the previous commit's build (halox-prev: the tail column, call 5),
# 5 alternated rounds, then the GPU tests that run plain 3D sweeps.
# Usage: scripts/call_s29i.sh build-dev (halox-prev.gz in it)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29i
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify3d pair1 halox HALOX_SWEEP_PAIR=1
verify3d pair0 halox HALOX_SWEEP_PAIR=0
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
for np in 1 2; do
    timeout 120 $MPI -np $np $H run $common --size 256x40x24,512x20x18,260x36x20 --depth 1,2 >"$OUT/verify_tail_np$np.csv" 2>"$OUT/verify_tail_np$np.err"
    echo "tail np$np rc=$? runs $(($(wc -l <"$OUT/verify_tail_np$np.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify_tail_np$np.csv" | sort | uniq -c | xargs)"
done
timeout 120 $MPI -np 2 $H run $common --size 130x70x64,256x140x140 --depth 1,2 --pattern staged,direct >"$OUT/verify_np2.csv" 2>"$OUT/verify_np2.err"
echo "rule np2 rc=$? runs $(($(wc -l <"$OUT/verify_np2.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify_np2.csv" | sort | uniq -c | xargs)"
t roofline
roof_env "prev:halox-prev:- new:halox:-" "512 512x512x256 256x256x512 256 256x140x140 128" 5 final
t "GPU tests"
gpu_tests 450 gpu_np1 gpu_np2 gpu_sanitizer gpu_graph_np1 gpu_schedule_np1
t done
