#!/usr/bin/env bash
# Session 22, one 4-GPU call: the topology, mg weak scaling old/new (and two rank bindings), the
# stencil cycle at two issue-13 cases old/new, then gpu_schedule_np2 (the shared copy loops' new
# signature in the persistent and role kernels). Usage: scripts/call_s22b.sh build-dev
set -u
cd "$(dirname "$0")/.."
DEVICE_NAME=s22b
. scripts/device_run.sh
bundle_on_exit
unpack_variants
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1; head -8 "$OUT/topo.txt"
O="--transport ipc-put --pattern direct"
for rep in 1 2 3 4 5; do
    mg_run "one-np1-$rep" 1 -- $O
    H=$B/halox-old mg_run "old-np4-$rep" 4 -- $O
    mg_run "new-np4-$rep" 4 -- $O
    mg_run "core-np4-$rep" 4 --map-by core --bind-to core -- $O
    mg_run "numa-np4-$rep" 4 --map-by numa --bind-to numa -- $O
done 2>&1 | tee "$OUT/mg.txt"
for l in one old new core numa; do
    echo "$l: $(grep "^$l-np" "$OUT/mg.txt" | sed 's/.*median \([0-9.e+-]*\) s.*/\1/' | sort -g | tr '\n' ' ')"
done
t "stencil cycles old/new"
for rep in 1 2; do
    for b in old new; do
        bin=$B/halox; [ $b = old ] && bin=$B/halox-old
        $MPI -np 4 $bin run --backend cuda --repeat 5 --format csv --quiet --transport ipc-put --size 256x256x256 --iters 480 \
            --depth 12 --fuse 4 --graph --overlap=off --pattern direct 2>&1 | awk -F, -v b=$b '$16 == "ipc-put" {print b, "3d256", $48}'
        $MPI -np 4 $bin run --backend cuda --repeat 5 --format csv --quiet --transport ipc-put --size 4096x4096 --iters 4800 \
            --depth 48 --fuse 3 --graph --overlap=off --pattern direct 2>&1 | awk -F, -v b=$b '$16 == "ipc-put" {print b, "4096", $48}'
    done
done | tee "$OUT/stencil.txt"
t "gpu_schedule_np2"
gpu_tests 280 gpu_schedule_np2
t done
