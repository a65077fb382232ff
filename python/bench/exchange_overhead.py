"""What Python adds to a halo exchange: microseconds per exchange of one NxN float32 field (halo 1,
cpu backend, mpi transport) through halox.Exchange.run, through the bare ctypes call, and through
a C loop (exchange_loop.c, compiled here with mpicc and called once through ctypes); the bare call
twice: with its argument types declared, and without, its arguments built once (as run() calls it).

    mpirun -np 2 python3 python/bench/exchange_overhead.py [--size 512] [--reps 2000] [--repeat 5] [--lib libhalox.so]

Each repeat times the ways in turn (so that a busy machine weighs on all of them alike), each the
slowest rank's mean over --reps exchanges. Rank 0 prints the median over the repeats of each way
and of each way minus the C loop. Not a test: figures for docs/performance.md.
"""
import argparse
import ctypes
import os
import statistics
import shutil
import subprocess
import tempfile

from mpi4py import MPI

import halox
from halox._lib import lib


def timed(comm, fn, reps):
    for _ in range(min(50, reps)):
        fn()
    comm.Barrier()
    t0 = MPI.Wtime()
    for _ in range(reps):
        fn()
    return comm.allreduce((MPI.Wtime() - t0) / reps, op=MPI.MAX)


def c_loop(comm, include, libpath):
    """The compiled loop, or (None, why)."""
    mpicc = shutil.which("mpicc")
    if not mpicc:
        return None, "no mpicc"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exchange_loop.c")
    so = os.path.join(tempfile.mkdtemp(prefix="hxbench"), "libexchange_loop.so")
    r = subprocess.run([mpicc, "-O2", "-shared", "-fPIC", "-I", include, src, "-o", so, os.path.realpath(libpath),
                        "-Wl,-rpath," + os.path.dirname(os.path.realpath(libpath))], capture_output=True, text=True)
    if r.returncode != 0:
        return None, "mpicc failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    f = ctypes.CDLL(so).hxb_exchange_loop
    f.restype = ctypes.c_double
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    return f, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5, help="timings of every way; medians are printed")
    ap.add_argument("--lib", default=None, help="libhalox.so (default: the installed one)")
    ap.add_argument("--include", default=None, help="halox's include folder (default: beside the library, or the source tree's)")
    a = ap.parse_args()
    L = halox.load(a.lib)
    comm = MPI.COMM_WORLD
    ctx = halox.Context(comm, backend="cpu")
    lay = halox.Layout(ctx, (a.size, a.size), halo=1)
    x = halox.Exchange(lay, transport="mpi")
    u = lay.alloc()
    f = lay.field(u)
    raw = lib().hx_exchange_run
    ways = [("halox.Exchange.run (Python API, checks included)", lambda: timed(comm, lambda: x.run(u), a.reps)),
            ("hx_exchange_run through ctypes", lambda: timed(comm, lambda: raw(x._h, ctypes.byref(f), None), a.reps))]
    # the least a ctypes call costs: no argtypes, every argument a ready ctypes object (as run() calls it)
    bare, hv, fp = L.bare("hx_exchange_run"), ctypes.c_void_p(x._h), ctypes.byref(f)
    ways.append(("hx_exchange_run through ctypes, ready arguments", lambda: timed(comm, lambda: bare(hv, fp, None), a.reps)))
    here = os.path.dirname(os.path.abspath(__file__))
    include = a.include or next((d for d in (os.path.join(os.path.dirname(os.path.dirname(L.path)), "include"),
                                             os.path.join(here, "..", "..", "include"))
                                 if os.path.exists(os.path.join(d, "halox", "halox.h"))), None)
    loop, why = (None, "no halox include folder (--include)") if include is None else c_loop(comm, include, L.path)
    if loop is not None:
        st = ctypes.c_int()

        def in_c():
            loop(x._h, ctypes.byref(f), 50, ctypes.byref(st))
            comm.Barrier()
            return comm.allreduce(loop(x._h, ctypes.byref(f), a.reps, ctypes.byref(st)) / a.reps, op=MPI.MAX)
        ways.append(("hx_exchange_run in a C loop", in_c))
    times = [[] for _ in ways]
    for _ in range(max(1, a.repeat)):
        for i, (_, run) in enumerate(ways):
            times[i].append(run())
    if ctx.rank == 0:
        print("exchange of %dx%d float32, halo 1, %d cpu ranks, transport %s, %d reps, median of %d repeats"
              % (a.size, a.size, ctx.size, x.transport, a.reps, len(times[0])))
        for (name, _), t in zip(ways, times):
            print("  %-50s %8.2f us" % (name, statistics.median(t) * 1e6))
        if loop is None:
            print("  %-50s skipped (%s)" % ("hx_exchange_run in a C loop", why))
        else:
            for (name, _), t in zip(ways[:-1], times):
                d = [(p - c) * 1e6 for p, c in zip(t, times[-1])]
                print("  %-50s %8.2f us (repeats %s)" % (name.split(" (")[0] + " minus the C loop", statistics.median(d),
                                                        " ".join("%.2f" % v for v in d)))
    ctx.close()


if __name__ == "__main__":
    main()
