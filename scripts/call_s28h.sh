#!/usr/bin/env bash
# Session 28, call 10: is star13 fp32 512^3 slower in the new build on its own, or only in
# `halox roofline` right after the faster jacobi7 sweeps? `halox run` of star13 fp32 512^3 alone
# (one rank, the same 16-byte kernel in both builds), head and new alternated over 5 rounds, then
# (Inconclusive as run: `halox run` at one rank times the periodic self-exchange too, about 1900 us
# a sweep against the kernel's 330, and the rounds spread 1857-2036 in both builds.)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s28h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
for r in 1 2 3 4 5; do
    for b in head new; do
        bin=$B/halox; [ $b = head ] && bin=$B/halox-head
        $bin run --backend cuda --stencil star13 --dtype float --size 512 --iters 400 --warmup 20 --repeat 5 --format csv --quiet 2>/dev/null |
            awk -F, -v b=$b -v r=$r 'NR == 2 {print b, r, "star13 fp32 512^3 us/sweep", $48}'
    done
done | tee "$OUT/run_star13.txt"
