#!/usr/bin/env bash
# The flagged-word polls that issue a batch's loads before testing a tag (hx_ll_poll, session 21):
# the 2D resident kernel and transport ipc-put's get bit for bit at every rank count of the machine,
# then their speed: the resident kernel at 512^2 and 1024^2 (depth 16, persistent, medians of 5) and
# mg's weak scaling over ipc-put (256^3 a GPU, 2 alternated rounds). About 2 minutes on 4 H200s.
# Usage: scripts/ll_poll_checks.sh build-dev (logs under $OUT, packed into $OUT/llpoll.tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=llpoll
. scripts/device_run.sh
bundle_on_exit
cols() { cut -d, -f2,3,4,11,16,48,50,51,55,64,68; } # nx ny nz depth transport us verified graph fuse schedule kernel
t "verify"
for np in 2 "$NGPU"; do
    for args in "--transport ipc --schedule persistent --size 1000x700 --depth 5 --iters 23" \
                "--transport ipc --schedule persistent --size 512x512 --depth 16 --iters 50 --boundary fixed --norm-every 7" \
                "--transport ipc --schedule persistent --size 777x333 --stencil star9 --depth 6 --iters 20 --dtype double --boundary fixed" \
                "--transport ipc-put --size 301x257 --depth 4 --fuse 4 --iters 21 --graph" \
                "--transport ipc-put --size 70x41x39 --depth 3 --iters 8 --dtype double --boundary fixed --graph" \
                "--transport ipc-put --size 33x30x28 --stencil star13 --depth 1 --iters 5 --pattern staged"; do
        out=$($MPI -np $np $H run --backend cuda --pattern direct --warmup 0 --repeat 1 --verify $args 2>&1)
        echo "np $np $args: $(grep -c bit-identical <<<"$out") bit-identical$(grep -m1 -iE 'differ|error' <<<"$out" | sed 's/^/; /')"
    done
done | tee "$OUT/verify.txt"
t "resident kernel, 2D, persistent, depth 16, $NGPU GPUs"
for size in 512x512 1024x1024; do
    $MPI -np "$NGPU" $H run --backend cuda --transport ipc --size $size --iters 4800 --repeat 5 --pattern direct --depth 16 \
        --schedule persistent --format csv --quiet 2>&1 | cols | grep -v "halo messages"
done | tee "$OUT/resident2d.csv"
t "mg over ipc-put, 256^3 a GPU, 1 and $NGPU GPUs, 2 alternated rounds"
for rep in 1 2; do
    for np in 1 "$NGPU"; do mg_run "mg-np$np-$rep" "$np" -- --transport ipc-put --pattern direct; done
done | tee "$OUT/mg.txt"
t done
