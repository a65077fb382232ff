#!/usr/bin/env bash
# Follow-ups to the first 2-GPU runs (session 8), in one device call on a machine with 2 GPUs or
# more: the bare flag ping-pong beside the steps towards halox's (bench/raw_flag_pingpong.cu,
# carried prebuilt as $B/raw_flag_pingpong), multigrid weak scaling with the coarse levels moved
# off the GPUs' exchange (--agglomerate, --agglomerate-ranks, --pattern direct), and the NVSHMEM
# device API build (carry build-dev-shmem too) timed against its nvshmem_ptr stores and ipc.
# Usage: STAGES="raw pp mg mg1 shmem march2d" scripts/x2_checks.sh build-dev   (logs and CSVs under $OUT, packed
# into $OUT/x2.tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=x2
. scripts/device_run.sh
bundle_on_exit
if want raw && [ -x "$B/raw_flag_pingpong" ]; then
    t "bare flag ping-pong and the steps towards halox's flagged words"
    timeout 60 "$B/raw_flag_pingpong" | tee "$OUT/raw.txt"
fi
if want pp; then
    t "halox pingpong's device model at small sizes: 1000 round trips (default) and 20000, beside variants built with"
    echo "    scripts/variant_build.sh (halox-b1: PPK_LL_BATCH=1, halox-w4k: PPK_WATCH_EVERY=4096) and an older halox-old, when carried"
    for v in "" -old -b1 -w4k; do
        [ -x "$H$v" ] || continue
        for it in "--iters 1000" "--iters 20000 --warmup 2000"; do
            timeout 60 $MPI -np 2 "$H$v" pingpong --backend cuda --transport ipc-kernel --max-bytes 64 $it --format csv \
                --quiet 2>"$OUT/pp$v.err" | awk -F, -v v="halox$v" -v it="$it" '$4 == "ipc-kernel" && ($7 == 8 || $7 == 64) {
                    printf "%-10s %-27s %3d B  median %.3f  p99 %.3f  min %.3f  mean %.3f us\n", v, it, $7, $11, $12, $13, $14 }'
        done
    done | tee "$OUT/pp.txt"
fi
if want mg1; then
    t "multigrid weak scaling with the coarse levels on the CPU at 1 rank too (--agglomerate), 256^3 per GPU"
    for np in 1 "$NGPU"; do
        for a in 65536 8192; do
            for pat in staged direct; do
                timeout 90 $MPI -np $np "$H" mg --backend cuda --size-per-rank 256 --repeat 10 --format csv --transport nccl \
                    --pattern $pat --agglomerate $a >"$OUT/mg1_np${np}_${pat}_$a.csv" 2>"$OUT/mg1_np${np}_${pat}_$a.err"
                awk -F, -v l="np$np $pat --agglomerate $a" 'NR == 2 { printf "%-34s %s DOF/s, F-cycle median %s s, checksum %s\n", l, $21, $17, $16 }' \
                    "$OUT/mg1_np${np}_${pat}_$a.csv"
            done
        done
    done
fi
if want march2d; then
    t "2D passes by marching register windows (pass2d_march.cuh) vs shared-memory tiles (HALOX_PASS2D=tiles), beside the cycle schedule"
    cols() { cut -d, -f2,3,11,16,48,50,55,64,68; } # nx ny depth transport us_per_sweep verified fuse schedule kernel
    for size in 4096x4096 8192x8192 16384x16384; do
        it=4000
        [ $size = 8192x8192 ] && it=960
        [ $size = 16384x16384 ] && it=400
        for v in ${MARCH2D_VARIANTS:-march tiles}; do
            HALOX_PASS2D=$v timeout 60 $MPI -x HALOX_PASS2D -np "$NGPU" "$H" run --backend cuda --transport ipc --size $size \
                --iters $it --repeat 5 --pattern direct --depth 8,16 --fuse 1,4,8 --schedule persistent --format csv --quiet \
                2>"$OUT/march2d_${v}_$size.err" | cols | grep -v '^nx' | sed "s/^/$v,/"
        done
        timeout 60 $MPI -np "$NGPU" "$H" run --backend cuda --transport nccl --size $size --iters $it --repeat 5 --pattern direct \
            --depth 16 --fuse 4,8 --graph --format csv --quiet 2>/dev/null | cols | grep -v '^nx' | sed 's/^/cycle,/'
    done | tee "$OUT/march2d.csv"
    HALOX_PROFILE=1 timeout 60 $MPI -x HALOX_PROFILE -np "$NGPU" "$H" run --backend cuda --transport ipc --size 4096x4096 \
        --iters 4000 --repeat 3 --pattern direct --depth 16 --fuse 8 --schedule persistent --quiet 2>&1 | grep profile |
        tee "$OUT/march2d_profile.txt"
fi
if want mg; then
    t "multigrid weak scaling, 256^3 per GPU (FMG, GSRB, nccl): coarse levels on the CPU or on fewer GPUs"
    mg_run np1_nccl 1 -- --transport nccl
    mg_run np1_nccl_direct 1 -- --transport nccl --pattern direct
    mg_run np1_ipc_direct 1 -- --transport ipc --pattern direct
    mg_run np${NGPU}_nccl "$NGPU" -- --transport nccl
    mg_run np${NGPU}_nccl_direct "$NGPU" -- --transport nccl --pattern direct
    mg_run np${NGPU}_ipc_direct "$NGPU" -- --transport ipc --pattern direct
    for a in 65536 8192; do
        mg_run np${NGPU}_nccl_agg$a "$NGPU" -- --transport nccl --agglomerate $a
        mg_run np${NGPU}_nccl_direct_agg$a "$NGPU" -- --transport nccl --pattern direct --agglomerate $a
    done
    mg_run np${NGPU}_nccl_direct_aggr262144_agg8192 "$NGPU" -- --transport nccl --pattern direct --agglomerate-ranks 262144 \
        --agglomerate 8192
    mg_run np${NGPU}_nccl_direct_bottomsmooth "$NGPU" -- --transport nccl --pattern direct --bottom smooth
fi
if want shmem && [ -x build-dev-shmem/halox ]; then
    t "NVSHMEM device API build: gpu_nvshmem_np1, then device API vs nvshmem_ptr stores (HALOX_NVSHMEM_API=0) vs ipc"
    (cd build-dev-shmem && timeout 150 ctest -R '^gpu_nvshmem_np1$' --output-on-failure) >"$OUT/shmem_np1.log" 2>&1
    grep -E "Passed|Failed|FAIL" "$OUT/shmem_np1.log" | head -5
    for size in 512x512 4096x4096 256x256x256; do
        it=4000
        [ $size = 256x256x256 ] && it=400
        for v in api ptr ipc; do
            tr=nvshmem api=1
            [ $v = ptr ] && api=0
            [ $v = ipc ] && tr=ipc
            HALOX_NVSHMEM_API=$api timeout 60 $MPI -x HALOX_NVSHMEM_API -x NVSHMEM_BOOTSTRAP_MPI_PLUGIN -np "$NGPU" \
                build-dev-shmem/halox run --backend cuda --transport $tr --size $size --iters $it --repeat 5 --pattern direct \
                --depth 8 --schedule persistent --format csv --quiet 2>"$OUT/shmem_${v}_$size.err" |
                cut -d, -f2,3,4,11,16,48,50,64,68 | sed "s/^/$v,/" | grep -v ',nx,'
        done
    done | tee "$OUT/shmem_vs.csv"
fi
t "done"
