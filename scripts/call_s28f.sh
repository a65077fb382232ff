#!/usr/bin/env bash
# Session 28, call 6 (issue 9): the final build's 3D float march of two floats a thread
# (sweep3d_pair.cuh, chosen where four a thread would keep two or more chunk layers resident):
# bit for bit at one and two ranks (by the rule, forced on, forced off), a malformed
# HALOX_SWEEP_PAIR, the roofline beside the previous commit's build (halox-head) and beside
# HALOX_SWEEP_PAIR=0 (5 alternated rounds), then the GPU tests that run plain 3D sweeps.
# Usage: scripts/call_s28f.sh build-dev (halox-head.gz in it)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28f
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d rule halox
verify3d pair1 halox HALOX_SWEEP_PAIR=1
verify3d pair0 halox HALOX_SWEEP_PAIR=0
common="--backend cuda --stencil jacobi7,star13 --dtype float,double --boundary periodic,fixed --iters 6 --repeat 1 --verify --format csv --quiet"
timeout 120 $MPI -np 2 $H run $common --size 130x70x64,256x140x140 --depth 1,2 --pattern staged,direct >"$OUT/verify_np2.csv" 2>"$OUT/verify_np2.err"
echo "rule np2 rc=$? runs $(($(wc -l <"$OUT/verify_np2.csv") - 1)), verified: $(cut -d, -f50 "$OUT/verify_np2.csv" | sort | uniq -c | xargs)"
HALOX_SWEEP_PAIR=2 $H run --backend cuda --size 32x32x32 --iters 4 2>&1 | tail -1
t roofline
roof_env "head:halox-head:- new:halox:- new0:halox:HALOX_SWEEP_PAIR=0" "512 512x512x256 256x256x512 256 256x140x140 128" 5 final
t ncu
ncu_dram new-f halox 'sweep3d_pair<\(int\)1'
t "GPU tests"
gpu_tests 400 gpu_np1 gpu_np2 gpu_graph_np1 gpu_sanitizer gpu_schedule_np1
t done
