#!/usr/bin/env bash
# Session 29, call 8 (issue 9): marches of 4 planes (halox-xc: HX_XC sets the 3D march length after
# the rule; its table's 64-plane slot compiled as 4) beside 8 and the rule, 3 alternated rounds;
# bit for bit first.
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s29h
. scripts/device_run.sh
bundle_on_exit
unpack_variants
t verify
verify3d m4 halox-xc HX_XC=4
t roof
roof_env "def:halox-xc:- m8:halox-xc:HX_XC=8 m4:halox-xc:HX_XC=4" "512 512x512x256 256x256x512 256 256x140x140" 3 march4
t done
