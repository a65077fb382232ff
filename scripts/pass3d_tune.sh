#!/usr/bin/env bash
# The 3D pass kernel (fused and persistent schedules) side by side on one GPU: each halox binary
# in the build folder (halox and tuning variants halox-NAME from scripts/variant_build.sh) and
# each HALOX_PASS3D mode, at the per-GPU sizes of the multi-GPU 3D targets, with HALOX_PROFILE's
# split of a cycle (exchange, sweeps); then Nsight Compute on one case, and the GPU schedule tests.
# Usage on the GPU machine: scripts/pass3d_tune.sh build-dev (carry build-dev); $OUT/pass3d.tgz.
# SIZES, DEPTHS, MODES narrow the first stage; ONLY_3D=1 skips the 2D, roofline and ncu stages.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=pass3d
. scripts/device_run.sh
bundle_on_exit
nvidia-smi -L
cols() { cut -d, -f2,3,4,11,16,48,64,68; }

t "3D pass kernel, us per sweep (binary, HALOX_PASS3D, size, depth)"
for bin in "$B"/halox "$B"/halox-*; do
    [ -x "$bin" ] || continue
    modes=${MODES:-march rows}
    [ "$bin" = "$B/halox" ] || modes=march # variants: the default 3D pass only
    for mode in $modes; do
        for size in ${SIZES:-256x128x128 128x128x128 256x256x256}; do
            for d in ${DEPTHS:-1 2 4}; do
                HALOX_PASS3D=$mode timeout 60 "$bin" run --backend cuda --transport ipc --schedule persistent --pattern direct \
                    --size $size --depth $d --iters 400 --repeat 5 --format csv --quiet 2>/dev/null | cols | tail -1 |
                    sed "s/^/$(basename "$bin"),$mode,/"
            done
        done
    done
done | tee "$OUT/pass3d.csv"

t "where a cycle goes (HALOX_PROFILE=1), depth 4"
for bin in "$B"/halox "$B"/halox-*; do
    [ -x "$bin" ] || continue
    for size in 256x128x128 128x128x128; do
        echo "$(basename "$bin") $size"
        HALOX_PROFILE=1 HALOX_VERBOSE=1 timeout 60 "$bin" run --backend cuda --transport ipc --schedule persistent --pattern direct \
            --size $size --depth 4 --iters 400 --repeat 3 --quiet 2>&1 | grep -E "pass kernel|profile|time per sweep"
    done
done | tee "$OUT/profile.txt"

if [ -z "${ONLY_3D:-}" ]; then # ONLY_3D=1: the 3D stages and the tests only
t "2D: the pass kernel (HALOX_RESIDENT=0) beside the resident one, 512^2 and 1024^2"
for size in 512x512 1024x1024; do
    for res in 0 auto; do
        HALOX_RESIDENT=$res HALOX_PROFILE=1 timeout 60 "$H" run --backend cuda --transport ipc --schedule persistent --pattern direct \
            --size $size --depth 16 --iters 4000 --repeat 5 --quiet 2>&1 | grep -E "profile|time per sweep" | sed "s/^/$size resident=$res: /"
    done
done | tee "$OUT/pass2d.txt"

t "the cycle schedule's sweep kernel alone at the same sizes (roofline)"
for size in 256x128x128 128x128x128 256x256x256; do
    timeout 60 "$H" roofline --backend cuda --size3d $size --small 0 --repeat 5 --no-fused 2>&1 | grep -E "^(jacobi7|star13)"
done | tee "$OUT/roofline3d.txt"

if command -v ncu >/dev/null; then
    t "Nsight Compute: the persistent kernel, 256x128x128 depth 4, jacobi7 fp32"
    timeout 150 ncu -k regex:hx_persistent_kernel -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
        --section WarpStateStats --section MemoryWorkloadAnalysis "$H" run --backend cuda --transport ipc --schedule persistent \
        --pattern direct --size 256x128x128 --depth 4 --iters 40 --repeat 1 --quiet >"$OUT/ncu.txt" 2>&1
    grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|L2 Hit|Memory Throughput|DRAM Through|Warp Cycles Per Issued|Stall|Issued Warp" "$OUT/ncu.txt" | head -40
fi

fi

t "GPU schedule tests (bit-identical to the reference, both 3D passes)"
[ "$NGPU" -ge 2 ] || export HALOX_TEST_RANKS_PER_GPU=2 # 2 ranks share the one GPU (pass kernel only)
(cd "$B" && timeout 240 ctest -R "gpu_schedule_np" --output-on-failure) >"$OUT/tests.log" 2>&1
grep -E "tests passed|Failed|runs, " "$OUT/tests.log"
t "done"
