#!/usr/bin/env bash
# The 2D pass kernel (persistent schedule with HALOX_RESIDENT=0, and the fused schedule) side by
# side for each halox binary in the build folder (tuning variants halox-NAME from
# scripts/variant_build.sh), with HALOX_PROFILE's split of a cycle; then the GPU schedule tests.
# Usage on the GPU machine: scripts/pass2d_tune.sh build-dev (carry build-dev); $OUT/pass2d.tgz.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=pass2d
. scripts/device_run.sh
bundle_on_exit
nvidia-smi -L
t "2D pass kernel: us per sweep, and where a cycle goes"
for bin in "$B"/halox "$B"/halox-*; do
    [ -x "$bin" ] || continue
    for c in "512x512 16 1 persistent" "1024x1024 16 1 persistent" "2048x2048 16 1 persistent" "2048x2048 16 4 persistent" \
             "4096x4096 16 1 persistent" "4096x4096 1 1 fused" "2048x2048 1 1 fused"; do
        set -- $c
        HALOX_RESIDENT=0 HALOX_PROFILE=1 HALOX_VERBOSE=1 timeout 60 "$bin" run --backend cuda --transport ipc --schedule $4 \
            --pattern direct --size $1 --depth $2 --fuse $3 --iters 1600 --repeat 5 --quiet 2>&1 |
            grep -E "pass kernel,|profile|time per sweep" | sed "s|^|$(basename "$bin") $1 d$2 fuse$3 $4: |"
    done
done | tee "$OUT/pass2d.txt"
t "GPU schedule tests"
[ "$NGPU" -ge 2 ] || export HALOX_TEST_RANKS_PER_GPU=2 # 2 ranks share the one GPU (pass kernel only)
(cd "$B" && timeout 240 ctest -R "gpu_schedule_np" --output-on-failure) >"$OUT/tests.log" 2>&1
grep -E "tests passed|Failed|runs, " "$OUT/tests.log"
t "done"
