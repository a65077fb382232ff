"""A 2D heat equation (Jacobi iteration) on halox from Python.

    mpirun -np 4 python3 heat2d.py [--size 512x384] [--iters 20] [--seed 42] [--backend auto|cpu|cuda]
                                   [--lib path/to/libhalox.so]

On the CPU the loop is the user's own NumPy update, with halox filling the ghost cells; on a GPU
(with CuPy) halox's sweeper runs the same loop on the device. Rank 0 prints the field's checksum
(the same number `halox reference --stencil jacobi5 --dtype float` prints) and checks the field
against halox.reference bit for bit.
"""
import argparse
import sys

import numpy as np
from mpi4py import MPI

import halox


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="512x384", help="NXxNY cells")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--lib", default=None, help="libhalox.so to use (default: the installed one)")
    a = ap.parse_args()
    nx, ny = (int(v) for v in a.size.split("x"))
    if a.lib:
        halox.load(a.lib)
    comm = MPI.COMM_WORLD
    ctx = halox.Context(comm, backend=a.backend)
    lay = halox.Layout(ctx, (ny, nx), halo=1)  # NumPy order: rows (y), then columns (x)
    x = halox.Exchange(lay)
    if ctx.backend == "cpu":
        u, v = lay.alloc(), lay.alloc()  # this rank's block with one ghost cell per side
        lay.init(u, a.seed)              # halox's seeded initial field (the reference's)
        quarter = np.float32(0.25)
        for _ in range(a.iters):
            x.run(u)                     # ghosts from the neighbours (periodic boundary)
            # halox's jacobi5 expression, ((W + E) + (S + N)) * 0.25 in float32: the reference's bits
            v[1:-1, 1:-1] = ((u[1:-1, :-2] + u[1:-1, 2:]) + (u[:-2, 1:-1] + u[2:, 1:-1])) * quarter
            u, v = v, u
        total = lay.checksum(u)
        field = lay.gather(u)
    else:
        sw = halox.Sweeper(lay, x, "jacobi5")
        sw.init(a.seed)
        sw.iterate(a.iters)
        total = sw.checksum()
        field = sw.gather()
    ok = True
    if ctx.rank == 0:
        print("checksum %d" % total)
        ref = halox.reference((ny, nx), "jacobi5", a.iters, a.seed)
        ok = field.tobytes() == ref.tobytes()
        print("reference: %s" % ("bit-identical" if ok else "DIFFERS in %d cells" % np.count_nonzero(field != ref)))
    ok = comm.bcast(ok, root=0)
    ctx.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
