#!/usr/bin/env python3
"""Sum up the put-get trace of a diagnostic build (src/transport/ipc_put.cuh, HX_IK_TRACE=E): thread 0
of every put-get block prints the global timer at each step of exchanges E and E + 1, as lines
`iktrace rank R e E block B sm S last L t T0 .. T5` anywhere in the files given (a run's stdout, or
scripts/cycle3d_checks.sh's graph.csv). For each rank and exchange: the span of the kernel and, per
step, the minimum, median and maximum over the blocks in microseconds from the first block's start.
Usage: ik_trace_summary.py FILE...   (one halox job per file: two jobs' exchange E would mix)."""
import collections
import statistics
import sys

STEPS = ["start", "data stored", "ticket taken", "flags seen", "plain unpacked", "words unpacked"]


def main(paths):
    runs = collections.defaultdict(list)
    torn = 0
    for path in paths:
        for line in open(path, errors="replace"):
            if "iktrace " not in line:
                continue
            # two ranks' printf output can interleave mid-line: such a line is skipped and counted
            w = line.split("iktrace ", 1)[1].split()
            try:
                rank, e, block, last = int(w[1]), int(w[3]), int(w[5]), int(w[9])
                t = [int(x) for x in w[11:17]]
            except (IndexError, ValueError):
                torn += 1
                continue
            if len(t) != 6 or len(w) != 17 or any(b < a for a, b in zip(t, t[1:])):
                torn += 1
                continue
            runs[(path, rank, e)].append((block, last, t))
    if torn:
        print(f"({torn} torn lines skipped: ranks' output interleaved)")
    if not runs:
        sys.exit("ik_trace_summary.py: no iktrace lines: was halox built with -DHX_IK_TRACE=E, and ran it E exchanges?")
    groups = []
    for (path, rank, e), blocks in sorted(runs.items()):
        # several exchange objects (multigrid's levels) each have an exchange E: kernels whose
        # blocks start more than 1 ms apart are told apart
        blocks.sort(key=lambda b: b[2][0])
        cur = [blocks[0]]
        for b in blocks[1:]:
            if b[2][0] - cur[-1][2][0] > 1_000_000:
                groups.append((path, rank, e, cur))
                cur = []
            cur.append(b)
        groups.append((path, rank, e, cur))
    for path, rank, e, blocks in groups:
        t0 = min(b[2][0] for b in blocks)
        span = (max(b[2][5] for b in blocks) - t0) / 1e3
        print(f"{path}: rank {rank}, exchange {e}: {len(blocks)} blocks, kernel span {span:.1f} us")
        for i, name in enumerate(STEPS):
            v = [(b[2][i] - t0) / 1e3 for b in blocks]
            print(f"  {name:15s} min {min(v):6.1f}  med {statistics.median(v):6.1f}  max {max(v):6.1f}")
        for b in blocks:
            if b[1]:
                print(f"  the last block ({b[0]}) took its ticket and set the flags by {(b[2][2] - t0) / 1e3:.1f}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    main(sys.argv[1:])
