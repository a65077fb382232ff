"""The heat loop driven from Python (halox.Sweeper) beside `halox run` on the same problem, in one job:
jacobi5 fp32, cycle schedule, depth 1, staged pattern, overlap off, so both run the same kernels and
the same exchanges; only the driver differs.

    python3 python/bench/sweeper_vs_cli.py [--size 4096] [--sweeps 2000] [--repeat 5]
                                                        [--transport ipc-put] [--backend cuda]
                                                        [--lib libhalox.so] [--halox path/to/halox]

Rank 0 prints the median µs per sweep of each side and their ratio. Not a test: figures for
docs/performance.md. One rank, started without mpirun: the CLI runs as its child.
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import time

# the environment as given, before MPI's start adds its own; a launcher's variables mean the job runs
# under mpirun, where a child MPI program cannot start alone
_ENV = dict(os.environ)
_LAUNCHED = any(k in _ENV for k in ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"))

from mpi4py import MPI  # noqa: E402

import halox


def python_side(a, comm):
    ctx = halox.Context(comm, backend=a.backend)
    ts = []
    with halox.Layout(ctx, (a.size, a.size), halo=1) as lay, \
            halox.Exchange(lay, transport=a.transport, pattern="staged") as x, \
            halox.Sweeper(lay, x, "jacobi5", depth=1, overlap=False) as sw:
        for _ in range(a.repeat):
            sw.init(42)
            sw.iterate(10)  # warm-up, as the CLI's --warmup 10
            comm.Barrier()
            t = time.perf_counter()
            sw.iterate(a.sweeps)
            ts.append(comm.allreduce((time.perf_counter() - t) / a.sweeps * 1e6, op=MPI.MAX))
    ctx.close()
    return sorted(ts)[len(ts) // 2]


def cli_side(a):
    exe = a.halox or shutil.which("halox")
    if not exe:
        return None, "no halox on PATH (--halox)"
    cmd = [exe, "run", "--backend", a.backend, "--size", "%dx%d" % (a.size, a.size), "--iters", str(a.sweeps),
           "--repeat", str(a.repeat), "--warmup", "10", "--stencil", "jacobi5", "--transport", a.transport,
           "--pattern", "staged", "--depth", "1", "--overlap=off", "--format", "csv", "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=_ENV)
    rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
    if not rows:
        return None, "halox run failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    return float(rows[0]["us_per_sweep"]), " ".join(cmd[1:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=4096, help="N: an NxN grid")
    ap.add_argument("--sweeps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--transport", default="ipc-put")
    ap.add_argument("--backend", default="cuda", choices=["cpu", "cuda"])
    ap.add_argument("--lib", default=None, help="libhalox.so (default: the installed one)")
    ap.add_argument("--halox", default=None, help="the halox CLI (default: halox on PATH)")
    a = ap.parse_args()
    if a.lib:
        halox.load(a.lib)
    comm = MPI.COMM_WORLD
    py = python_side(a, comm)
    if comm.rank != 0:
        return
    print("jacobi5 fp32 %dx%d, %d sweeps, cycle, depth 1, staged, overlap off, %s, %d rank(s), median of %d"
          % (a.size, a.size, a.sweeps, a.transport, comm.size, a.repeat))
    print("  %-28s %9.3f us/sweep" % ("halox.Sweeper.iterate", py))
    if comm.size != 1 or _LAUNCHED:
        print("  %-28s skipped (start this script without mpirun: one rank, the CLI then runs as its child)" % "halox run")
        return
    cli, how = cli_side(a)
    if cli is None:
        print("  %-28s skipped (%s)" % ("halox run", how))
        return
    print("  %-28s %9.3f us/sweep   (%s)" % ("halox run", cli, how))
    print("  Python / CLI: %.3f" % (py / cli))


if __name__ == "__main__":
    main()
