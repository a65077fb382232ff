#!/usr/bin/env bash
# The single-GPU figures of the open issues, in one device call of about 5 minutes on any lent kind
# (run it on nvidia-h200: the issues' one-GPU targets name an H200). Build here, then
# `scripts/slim_build.sh` and on the GPU machine `scripts/one_gpu_checks.sh build-dev` (carry
# build-dev). Everything under $OUT ends in $OUT/one_gpu.tgz.
#   issue 9:  3D sweep tiles (HALOX_TILE=BY2,CHUNK2,BY3,CHUNK3,PIPE,ROWS3) at 512^3 and 256^3, % of
#             copy; then the default roofline with every fused pass (effective multiple of copy)
#   issue 13: the resident kernel at 512^2 (d8, d16, d32) with HALOX_PROFILE; the role kernel beside
#             the pass kernel (fused schedule, depth 1); the 3D pass kernel, rows vs march (HALOX_PASS3D)
#   issue 11: mg at 256^3 (FMG DOF/s), Chebyshev and GSRB smoothers
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=one_gpu
. scripts/device_run.sh
bundle_on_exit
nvidia-smi -L

t "issue 9: 3D sweep tiles, % of copy (BY2,CHUNK2,BY3,CHUNK3,PIPE,ROWS3)"
for n in 512 256 256x256x512 128; do
    for tile in ${TILES:-4,8,8,16,-1,1 4,8,8,32,-1,1 4,8,8,64,-1,1 4,8,4,32,-1,1 4,8,4,64,-1,1 4,8,4,32,-1,2 4,8,2,64,-1,4 4,8,8,32,1,1 4,8,8,64,2,1}; do
        HALOX_TILE=$tile timeout 60 "$H" roofline --backend cuda --size3d $n --small 0 --repeat 5 --no-fused 2>&1 |
            awk -v t="$tile" '/^(jacobi7|star13)/ { printf "%-16s %s\n", t, $0 }'
    done
done | tee "$OUT/tiles3d.txt"

t "issue 9: roofline at the defaults, fused passes included"
timeout 200 "$H" roofline --backend cuda --repeat 5 2>&1 | tee "$OUT/roofline.txt"

t "issue 13: resident kernel, 512^2, one GPU (us per sweep), and where a cycle's time goes (HALOX_PROFILE=1)"
for d in 8 16 32; do
    timeout 60 "$H" run --backend cuda --transport ipc --schedule persistent --pattern direct --size 512x512 --depth $d \
        --iters 4000 --repeat 5 --format csv --quiet 2>/dev/null | cut -d, -f2,3,11,16,48,64,68 | tail -1
done | tee "$OUT/resident.csv"
HALOX_PROFILE=1 HALOX_VERBOSE=1 timeout 60 "$H" run --backend cuda --transport ipc --schedule persistent --pattern direct \
    --size 512x512 --depth 16 --iters 4000 --repeat 3 --quiet 2>&1 | grep -v "^$" | tail -12 | tee "$OUT/resident_profile.txt"
timeout 60 "$H" run --backend cuda --transport nccl --graph --fuse 4 --pattern direct --size 512x512 --depth 16 \
    --iters 4000 --repeat 5 --format csv --quiet 2>/dev/null | cut -d, -f2,3,11,16,48,55,64,68 | tail -1

t "issue 13: role kernel vs pass kernel, fused schedule, depth 1"
for size in 512x512 1024x1024 4096x4096 256x256x256; do
    for roles in 0 1; do
        HALOX_ROLES=$roles timeout 60 "$H" run --backend cuda --transport ipc --schedule fused --depth 1 --pattern direct \
            --size $size --iters 1000 --repeat 5 --format csv --quiet 2>/dev/null | cut -d, -f2,3,4,11,16,48,64,68 | tail -1
    done
done | tee "$OUT/roles.csv"

t "issue 13: the 3D pass kernel, rows from L2 (HALOX_PASS3D=rows) vs marching register windows (the default), beside the cycle schedule"
for size in 256x256x256 256x128x128 128x128x128; do
    for d in 1 2 4; do
        for mode in rows march; do
            HALOX_PASS3D=$mode timeout 60 "$H" run --backend cuda --transport ipc --schedule persistent --pattern direct \
                --size $size --depth $d --iters 400 --repeat 5 --format csv --quiet 2>/dev/null |
                cut -d, -f2,3,4,11,48,64,68 | tail -1 | sed "s/^/$mode,/"
        done
    done
    timeout 60 "$H" run --backend cuda --transport nccl --graph --pattern direct --size $size --depth 2 --iters 400 \
        --repeat 5 --format csv --quiet 2>/dev/null | cut -d, -f2,3,4,11,48,64,68 | tail -1 | sed "s/^/cycle-nccl-graph,/"
done | tee "$OUT/pass3d.csv"

t "issue 11: mg 256^3 on one GPU, FMG DOF/s (10 timed solves)"
for sm in cheby gsrb; do
    timeout 120 "$H" mg --backend cuda --transport nccl --size 256 --smoother $sm --repeat 10 --format csv \
        2>"$OUT/mg_$sm.err" >"$OUT/mg_$sm.csv"
    awk -F, -v s=$sm 'NR == 2 { print s ": " $NF ": " $21 " DOF/s, F-cycle median " $17 " s" }' "$OUT/mg_$sm.csv"
done
t "done"
