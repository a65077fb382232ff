#!/usr/bin/env bash
# Bad operators on the command line: a non-zero exit and one line naming the fix, agreed by every
# rank (the dtype mismatch and a coefficient field of another layout are API errors: test_operator).
# Usage: operators_bad.sh HALOX MPIEXEC DATA_DIR
set -u
HALOX=$1 MPIEXEC=$2 DATA=$3
. "$(dirname "$0")/mpi_env.sh"
fail=0 n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_error 2 2 "bad_empty.op: no terms"                 -- run --backend cpu --size 32x32 --stencil "$DATA/bad_empty.op"
expect_error 3 2 "bad_radius.op:3: offset dx 5 is beyond radius 4" -- run --backend cpu --size 32x32 --stencil "$DATA/bad_radius.op"
expect_error 2 2 "add 'coef 2' before the terms"          -- run --backend cpu --size 32x32 --stencil "$DATA/bad_coef.op"
expect_error 1 2 "bad_junk.op:3: weight 'zero'"           -- run --backend cpu --size 32x32 --stencil "$DATA/bad_junk.op"
expect_error 2 2 "neither a stencil name"                 -- run --backend cpu --size 32x32 --stencil "$DATA/no_such.op"
expect_error 1 2 "neither a stencil name"                 -- run --backend cpu --size 32x32 --stencil box10
expect_error 2 2 "3D but --size is 2D"                    -- run --backend cpu --size 32x32 --stencil box27
expect_error 2 2 "2D but --size is 3D"                    -- run --backend cpu --size 16x16x16 --stencil "$DATA/heat2d.op"
# upwind2d reads 3 cells away: depth 4 needs a halo of 12 cells
expect_error 4 2 "smaller --depth"                        -- run --backend cpu --size 20x20 --stencil "$DATA/upwind2d.op" --depth 4
# a bad item in a sweep stops the job before the first run
expect_error 2 2 "bad_empty.op: no terms"                 -- run --backend cpu --size 32x32 --stencil "box9,$DATA/bad_empty.op"
expect_error 1 2 "neither a stencil name"                 -- reference --size 32x32 --stencil "$DATA/no_such.op"
expect_error 1 2 "bad_radius.op:3"                        -- reference --size 32x32 --stencil "$DATA/bad_radius.op"
expect_error 2 2 "neither a stencil name"                 -- tune --backend cpu --size 32x32 --stencil nothing.op
# binary content (a NUL, another control byte), named on its line even when the line is also too long
printf 'dim 2\n0 0 0.5\n1 0\000 0.25\n' >"$tmp/bin_nul.op"
printf 'dim 2\n0 0 1\n\033[0m1 0 0.5\n' >"$tmp/bin_esc.op"
{ printf 'dim 2\n%1100s' ''; printf '\000 0 0 1\n'; } >"$tmp/bin_long.op"
printf 'dim 2\n%1100s0 0 1\n' '' >"$tmp/too_long.op"
expect_error 2 2 "bin_nul.op:3: a NUL byte (0x00) in column 4: the file has binary content" -- run --backend cpu --size 32x32 --stencil "$tmp/bin_nul.op"
expect_error 1 2 "bin_esc.op:3: a control byte (0x1b) in column 1: the file has binary content" -- run --backend cpu --size 32x32 --stencil "$tmp/bin_esc.op"
expect_error 2 2 "bin_long.op:2: a NUL byte (0x00) in column 1101" -- run --backend cpu --size 32x32 --stencil "$tmp/bin_long.op"
expect_error 1 2 "too_long.op:2: line longer than 1022 characters" -- run --backend cpu --size 32x32 --stencil "$tmp/too_long.op"
echo "operators_bad: $n cases, $fail failed"
[ $fail -eq 0 ]
