"""halox for Python: halo exchange for distributed stencils, over the installed libhalox.

    from mpi4py import MPI
    import halox
    ctx = halox.Context(MPI.COMM_WORLD, backend="cpu")
    lay = halox.Layout(ctx, (384, 512), halo=1)
    u = lay.alloc()                       # NumPy (cpu) or CuPy (cuda) array with ghost cells
    halox.Exchange(lay).run(u)            # ghosts of u from the neighbours

Axis order is NumPy's throughout. docs/python.md is the guide.
"""
from ._errors import Error, Unsupported
from ._lib import load
from .core import Context, Layout, transports
from .exchange import Exchange
from .sweep import Operator, Sweeper, checksum, reference

__all__ = ["Error", "Unsupported", "load", "Context", "Layout", "Exchange", "Sweeper", "Operator",
           "reference", "checksum", "transports", "has", "library_version"]


def has(symbol):
    """Whether the loaded libhalox has a C function (e.g. "hx_operator_create")."""
    from ._lib import lib
    return lib().has(symbol)


def library_version():
    """The loaded libhalox's version, "MAJOR.MINOR.PATCH"."""
    from ._lib import lib
    return lib().version
