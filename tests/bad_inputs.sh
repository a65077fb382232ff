#!/usr/bin/env bash
# Every bad input ends with a non-zero exit and one line that names the fix, on every rank,
# well within the time limit (no hangs). Usage: bad_inputs.sh HALOX MPIEXEC
set -u
HALOX=$1 MPIEXEC=$2
. "$(dirname "$0")/mpi_env.sh"
fail=0 n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_error 1 2 "--depth"              -- run --depth 0
expect_error 2 2 "--depth"              -- run --depth -3
expect_error 1 2 "bad --size"           -- run --size 0x10
expect_error 1 2 "bad --size"           -- run --size -5x10
expect_error 1 2 "bad --size"           -- run --size 10x
expect_error 1 2 "bad --size"           -- run --size 10x10x10x10
expect_error 4 2 "smaller --depth"      -- run --size 8x8 --depth 5
expect_error 2 2 "smaller --depth"      -- run --size 64x64 --stencil star9 --depth 20 --grid 2x1
expect_error 4 2 "--grid"               -- run --size 64x64 --grid 3x1
expect_error 3 2 "--grid"               -- run --size 64x64x64 --grid 2x2x2
expect_error 1 2 "--grid has 3 numbers" -- run --size 64x64 --grid 1x1x1
expect_error 2 2 "unknown option"       -- run --bogus
expect_error 1 2 "unknown option"       -- run --size 64x64 --frobnicate 3
expect_error 1 2 "needs a value"        -- run --size
expect_error 1 2 "--pattern"            -- run --pattern diagonal
expect_error 1 2 "--dtype"              -- run --dtype half
expect_error 1 2 "--boundary"           -- run --boundary open
expect_error 1 2 "--stencil"            -- run --stencil jacobi9
expect_error 2 2 "3D but --size is 2D"  -- run --size 64x64 --stencil jacobi7
expect_error 1 2 "2D but --size is 3D"  -- run --size 16x16x16 --stencil star9
expect_error 1 2 "--iters"              -- run --iters 0
expect_error 1 2 "--repeat"             -- run --repeat 0
expect_error 1 2 "--norm-every"         -- run --norm-every x
expect_error 1 2 "--format"             -- run --format xml
expect_error 2 2 "--transport"          -- run --size 32x32 --transport carrier-pigeon
# without a GPU (CI) --backend cuda is refused; on a GPU machine it is valid input
if ! "$HALOX" info 2>/dev/null | grep -q "[1-9][0-9]* GPUs\{0,1\} visible"; then
    expect_error 2 2 "--backend cpu"    -- run --size 32x32 --backend cuda
fi
# GPU transports on the CPU backend: refused before set-up, or unknown to a build without them (exit 2 either way)
expect_error 2 2 "cuda backend\|without CUDA"   -- run --size 32x32 --backend cpu --transport ipc
expect_error 1 2 "cuda backend\|without CUDA"   -- run --size 32x32 --backend cpu --transport mpi-cuda
expect_error 2 2 "cuda backend\|without NCCL\|without CUDA" -- run --size 32x32 --backend cpu --transport nccl
expect_error 1 2 "cuda backend\|without NVSHMEM\|without CUDA" -- run --size 32x32 --backend cpu --transport nvshmem
expect_error 1 2 "unknown command"      -- frobnicate
# mg's global grid: N or NXxNYxNZ, or --size-per-rank instead
expect_error 1 2 "bad --size '64x32'"   -- mg --size 64x32
expect_error 2 2 "bad --size '64x32x32x32'" -- mg --size 64x32x32x32
expect_error 1 2 "bad --size '64x2x32'" -- mg --size 64x2x32
expect_error 1 2 "bad --size '64xx32'"  -- mg --size 64xx32
expect_error 2 2 "--size and --size-per-rank both given" -- mg --size 64x32x32 --size-per-rank 32
expect_error 1 2 "bad --size-per-rank"  -- mg --size-per-rank 0
expect_error 2 2 "backend cuda"         -- run --size 32x32 --backend cpu --graph
expect_error 1 2 "multiple of --depth"  -- run --size 32x32 --depth 4 --norm-every 6 --graph
expect_error 1 2 "takes no value\|--graph" -- run --size 32x32 --graph=maybe
expect_error 2 2 "cuda backend"         -- run --size 32x32 --backend cpu --fuse 2
expect_error 1 2 "cuda backend"         -- run --size 16x16x16 --backend cpu --fuse 2
expect_error 1 2 "at most 4 sweeps per pass in 3D" -- run --size 16x16x16 --fuse 5 --schedule persistent
# over-limit --fuse: fuse x radius <= 8 in 2D and <= 4 in 3D, refused before any set-up
expect_error 1 2 "at most 4 sweeps per pass in 2D" -- run --size 64x64 --stencil star9 --fuse 5
expect_error 2 2 "at most 4 sweeps per pass in 2D" -- run --size 64x64 --stencil star9 --fuse 8
expect_error 1 2 "at most 4 sweeps per pass in 3D" -- run --size 16x16x16 --fuse 5
expect_error 2 2 "at most 2 sweeps per pass in 3D" -- run --size 16x16x16 --stencil star13 --fuse 3
expect_error 1 2 "bad --fuse '9'"       -- run --size 64x64 --fuse 9
expect_error 1 2 "bad --fuse"           -- run --size 64x64 --fuse 0
expect_error 2 2 "schedule persistent"  -- run --size 32x32 --backend cpu --schedule persistent
# in a sweep, refused before the first combination runs (nothing on stdout)
expect_error 2 2 "schedule persistent"  -- run --size 32x32 --backend cpu --schedule cycle,persistent
[ -s "$tmp/out" ] && { echo "FAIL: --schedule cycle,persistent on the CPU ran a combination before refusing"; fail=$((fail + 1)); }
expect_error 1 2 "--graph replays"      -- run --size 32x32 --backend cpu --graph=off,on
expect_error 1 2 "leave --graph out"    -- run --size 32x32 --schedule fused --graph
expect_error 1 2 "unknown --schedule"   -- run --size 32x32 --schedule sometimes
expect_error 2 2 "cannot open --output" -- run --size 32x32 --iters 2 --output "$tmp/no/such/dir/f.npy"
# option table: near misses, lists where one value is wanted, empty list items
expect_error 1 2 "did you mean --devices" -- run --size 32x32 --device 0
expect_error 1 2 "--format takes one value" -- run --size 32x32 --format csv,json
expect_error 1 2 "empty value in the --depth list" -- run --size 32x32 --depth 1,,2
expect_error 1 2 "bad --devices"        -- run --size 32x32 --devices 0,x
expect_error 1 2 "bad --overlap=maybe"  -- run --size 32x32 --overlap=maybe
expect_error 1 2 "--output needs a value" -- run --size 32x32 --output --depth 2
# roofline: --device is one GPU number, checked before anything is measured
expect_error 1 2 "bad --device 'x'"     -- roofline --device x
expect_error 1 2 "--device takes one value" -- roofline --device 0,1
expect_error 1 2 "did you mean --device?" -- roofline --devices 0
expect_error 1 2 "bad --size2d"         -- roofline --size2d 4
expect_error 1 2 "bad --size3d .16x16.: give N (N^3 cells) or NXxNYxNZ" -- roofline --size3d 16x16
expect_error 1 2 "bad --size3d"         -- roofline --size3d 16x4x16
expect_error 1 2 "the cpu backend has no graphs" -- roofline --backend cpu --graph
# --verbose and --quiet, taken for every subcommand before or after its name
expect_error 1 2 "--verbose=0|1|2"      -- run --size 32x32 --verbose=loud
expect_error 2 2 "--verbose=0|1|2"      -- --quiet=maybe mg --size 16
expect_error 1 2 "unknown option '--bogus'" -- --verbose mg --bogus
# a bad value anywhere in a sweep stops the job before its first run: nothing on stdout
n=$((n + 1))
MPIRUN 2 "$HALOX" run --size 32x32 --iters 2 --depth 1,0 --format csv >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || [ "$(grep -c "^halox: error: bad --depth '0'" "$tmp/err")" -ne 1 ]; then
    echo "FAIL: --depth 1,0 -> exit $rc (want 2), stdout $(wc -l <"$tmp/out") lines (want 0)"; cat "$tmp/err"
    fail=$((fail + 1))
fi

# Not errors: values with commas that are one value, not a sweep.
# --output a,b.npy is one file name: one run, one file of that name
n=$((n + 1))
MPIRUN 2 "$HALOX" run --size 32x32 --iters 2 --format csv --output "$tmp/a,b.npy" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] || [ "$(wc -l <"$tmp/out")" -ne 2 ] || [ ! -s "$tmp/a,b.npy" ] || [ -e "$tmp/a" ] || [ -e "$tmp/b.npy" ]; then
    echo "FAIL: --output a,b.npy -> exit $rc, $(wc -l <"$tmp/out") csv lines (want 2), files: $(ls "$tmp" | tr '\n' ' ')"
    cat "$tmp/err"; fail=$((fail + 1))
fi
# --devices 0,1 is one list of GPUs (unused on the cpu backend), reported as given: one run
n=$((n + 1))
MPIRUN 2 "$HALOX" run --size 32x32 --iters 2 --backend cpu --devices 0,1 --format csv >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] || [ "$(wc -l <"$tmp/out")" -ne 2 ] || ! tail -1 "$tmp/out" | grep -q ',"0,1",'; then
    echo "FAIL: --devices 0,1 -> exit $rc, want one csv row with the list \"0,1\""; cat "$tmp/out" "$tmp/err"
    fail=$((fail + 1))
fi
# ranks started with different options
n=$((n + 1))
timeout 120 "$MPIEXEC" -np 1 "$HALOX" run --size 32x32 --depth 1 : -np 1 "$HALOX" run --size 32x32 --depth 2 \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "different options" "$tmp/err"; then
    echo "FAIL: mismatched options across ranks -> exit $rc"; cat "$tmp/err"; fail=$((fail + 1))
fi

echo "$n bad inputs, $fail failed"
[ $fail -eq 0 ]
