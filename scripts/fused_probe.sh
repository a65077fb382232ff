#!/usr/bin/env bash
# Session 24 (one GPU): why fused 2D passes run at 2.3x copy on 8192^2 blocks (the 16384^2-on-four-
# GPUs rank) but 2.7-3.6x at 16384^2 (issue 9), and the fused 3D pass at 512^3 against issue 9's 2x.
# stage rl: `halox roofline --fused` at 2D 16384, 8192, 4096 (3D 512 with the first); stage ncu:
# Nsight Compute on the fp32 jacobi5 pass of N = 4 and 7 at 8192^2 and 16384^2 (grid, waves, DRAM,
# L2, occupancy, stalls); stage z3: the 3D pass at 512^3 over HALOX_FUSED3D_ZSPLIT and _LANES.
# Usage: STAGES="rl ncu z3" scripts/fused_probe.sh build-dev (logs: $OUT/fprobe.tgz)
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=fprobe
. scripts/device_run.sh
bundle_on_exit
if want rl; then
    t "roofline fused"
    for s in "--size2d 16384 --size3d 512" "--size2d 8192 --size3d 8" "--size2d 4096 --size3d 8"; do
        timeout 200 $H roofline --backend cuda $s --small 0 --repeat 7 2>&1 | grep -vE "^(jacobi|star)[0-9]+ +(float|double) +8\^3"
    done | tee "$OUT/rl.txt"
fi
if want ncu; then
    t "ncu fused2d"
    stalls=barrier,long_scoreboard,short_scoreboard,wait,mio_throttle,lg_throttle,not_selected,selected,no_instruction
    m=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,launch__waves_per_multiprocessor,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
    for r in ${stalls//,/ }; do m=$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
    for n in 8192 16384; do
        for k in 4 7; do
            timeout 120 ncu --kernel-name-base demangled -k regex:"sweep2d_fused<float, \(int\)1, \(int\)$k," -c 1 --metrics $m \
                $H roofline --backend cuda --size2d $n --size3d 8 --small 0 --repeat 1 --batch 1 > "$OUT/ncu_${n}_N$k.txt" 2>&1
            echo "== $n N=$k"
            grep -E "sweep2d_fused<|duration|grid_size|registers|waves|occupancy|warps_active|issue_active|dram__|hit_rate|sm__throughput|shared|stalled" "$OUT/ncu_${n}_N$k.txt" |
                sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | awk '{$1=$1; print}' | cut -c1-150
        done
    done | tee "$OUT/ncu.txt"
fi
if want z3; then
    t "fused3d zsplit x lanes at 512^3"
    for lanes in 16 32; do
        for z in 0 2 4 6 8 12 16; do
            zz=; [ $z != 0 ] && zz="HALOX_FUSED3D_ZSPLIT=$z"
            env HALOX_FUSED3D_LANES=$lanes $zz timeout 100 $H roofline --backend cuda --size2d 256 --size3d 512 --small 0 --repeat 7 2>&1 |
                awk -v l="lanes$lanes zsplit$z" '/^(jacobi7|star13) +float/ && $NF ~ /x$/ {print l, $0}'
        done
    done | tee "$OUT/z3.txt"
fi
t done
