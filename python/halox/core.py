"""Context and Layout: halox's objects, owned by Python (Exchange: exchange.py).

Creation and destruction of every object are collective over the context's communicator, as in C:
every rank creates and closes the same objects in the same order. close() (or a `with` block)
releases one explicitly; a context closes the objects made from it first; the contexts still open
at interpreter exit are closed before MPI finalizes.
"""
import atexit
import ctypes
import sys
import weakref

import numpy as np

from . import _arrays as A
from ._errors import Error
from ._lib import LOG_FN, LayoutDesc, lib

_open_contexts = weakref.WeakSet()
_atexit_done = [False]


def _close_all():
    for c in list(_open_contexts):
        c.close()


def _check(ctx, status):
    if status != 0:
        raise Error(lib().hx_context_error(ctx._h).decode(errors="replace"), status)


class _Object:
    """A library object: a handle, its context, collective close()."""

    _h = None

    def _adopt(self, ctx):
        self.context = ctx
        ctx._children.append(weakref.ref(self))

    def _destroy(self):
        raise NotImplementedError

    def close(self):
        if self._h is not None and not _finalized():
            self._destroy()
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _finalized():
    m = sys.modules.get("mpi4py.MPI")
    return m is not None and m.Is_finalized()


def _log_to_stderr(level, rank, msg):
    sys.stderr.write("halox: %s: %s\n" % (level, msg))


class Context(_Object):
    """One per job and communicator (hx_context).

    comm: an mpi4py communicator (None: MPI.COMM_WORLD, importing mpi4py initialises MPI) or a
    Fortran handle (int). backend: "auto", "cpu" or "cuda". threads: the CPU backend's OpenMP
    threads (0 automatic). log_level: "off", "error", "warn", "info", "debug"; log: a callable
    (level, rank, message) receiving the library's messages (default: "halox: LEVEL: message" lines
    on sys.stderr). devices: comma list of GPU ordinals (None: node-local rank modulo the count)."""

    def __init__(self, comm=None, backend="auto", threads=0, log_level="warn", log=None, devices=None):
        self._children = []
        kind = A.choice(A.BACKENDS, backend, "backend")
        level = A.choice(A.LOG_LEVELS, log_level, "log_level")
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
            raise ValueError("threads: %r: give 0 (automatic) or a thread count" % (threads,))
        if log is not None and not callable(log):
            raise TypeError("log: %r is not callable" % (log,))
        if devices is not None and not isinstance(devices, str):
            raise TypeError("devices: %r: give a comma list of GPU ordinals, e.g. '0,1'" % (devices,))
        fcomm = _fortran_handle(comm)
        L = lib()
        self._log_py = log or _log_to_stderr
        names = {v: k for k, v in A.LOG_LEVELS.items()}

        def deliver(lv, rank, msg, user):
            try:
                self._log_py(names.get(lv, str(lv)), rank, msg.decode(errors="replace"))
            except Exception:
                pass
        self._log_c = LOG_FN(deliver)  # kept alive as long as the context
        o = L.hx_context_defaults()
        o.backend, o.threads, o.log_level, o.log = kind, threads, level, self._log_c
        self._devices = devices.encode() if devices else None
        o.devices = self._devices
        h = ctypes.c_void_p()
        st = L.hx_context_create_f(fcomm, ctypes.byref(o), ctypes.byref(h))
        self._h = h.value
        if st != 0:
            msg = L.hx_context_error(self._h).decode(errors="replace")
            L.hx_context_destroy(self._h)
            self._h = None
            raise Error(msg, st)
        if not _atexit_done[0]:
            atexit.register(_close_all)  # after mpi4py's own handler: runs before MPI_Finalize
            _atexit_done[0] = True
        _open_contexts.add(self)
        self.rank = L.hx_context_rank(self._h)
        self.size = L.hx_context_size(self._h)
        self.backend = {1: "cpu", 2: "cuda"}[L.hx_context_backend(self._h)]
        self.device = L.hx_context_device(self._h)
        self.threads = L.hx_context_threads(self._h)
        self.cuda = self.backend == "cuda"

    def error(self):
        """The last error message of the context or its objects ("" when none)."""
        return lib().hx_context_error(self._h).decode(errors="replace") if self._h else ""

    def sync(self):
        """Wait for all work halox issued on its own streams."""
        _check(self, lib().hx_context_sync(self._live()))

    def _live(self):
        if self._h is None:
            raise Error("the context is closed")
        return self._h

    def close(self):
        for r in reversed(self._children):
            o = r()
            if o is not None:
                o.close()
        self._children = []
        if self._h is not None and not _finalized():
            lib().hx_context_destroy(self._h)
        self._h = None
        _open_contexts.discard(self)


def _fortran_handle(comm):
    if isinstance(comm, int) and not isinstance(comm, bool):
        return comm
    if comm is None:
        try:
            from mpi4py import MPI
        except ImportError:
            raise Error("halox needs MPI initialised: install mpi4py (python3-mpi4py), or pass a Fortran "
                        "communicator handle from your own MPI binding") from None
        comm = MPI.COMM_WORLD
    if not hasattr(comm, "py2f"):
        raise TypeError("comm: %r is not an mpi4py communicator or a Fortran handle" % (comm,))
    return comm.py2f()


class Layout(_Object):
    """A global grid split over the context's ranks (hx_layout). Every axis argument is in NumPy
    order: shape (NY, NX) or (NZ, NY, NX), pgrid, halo_axis and boundary_axis likewise.

    halo: ghost cells per side on every axis; halo_axis/boundary_axis (per axis) make the halos
    and boundaries per-axis: halo_axis[a] cells exchanged on axis a (0: never), boundary_axis[a]
    "periodic" or "fixed" there; fields then keep max(halo_axis) ghost cells on every axis."""

    def __init__(self, ctx, shape, halo=1, pgrid=None, dtype="float32", boundary="periodic",
                 halo_axis=None, boundary_axis=None):
        if not isinstance(ctx, Context):
            raise TypeError("ctx: %r is not a halox.Context" % (ctx,))
        dim = len(shape) if isinstance(shape, (tuple, list)) else 0
        if dim not in (2, 3):
            raise ValueError("shape: %r: give 2 or 3 cell counts, e.g. (NY, NX)" % (shape,))
        shape = A.ints(shape, dim, "shape", 1)
        halo = A.ints(halo, 1, "halo", 0)[0] if not isinstance(halo, (tuple, list)) else None
        if halo is None:
            raise TypeError("halo: one int for every axis; per-axis widths go in halo_axis")
        pg = (0,) * dim if pgrid is None else A.ints(pgrid, dim, "pgrid", 1)
        self.dtype = A.choice(A.DTYPES, dtype, "dtype")
        bnd = A.choice(A.BOUNDARIES, boundary, "boundary")
        per_axis = halo_axis is not None or boundary_axis is not None
        ha = A.ints(halo if halo_axis is None else halo_axis, dim, "halo_axis", 0)
        if boundary_axis is None:
            ba = (bnd,) * dim
        elif isinstance(boundary_axis, (tuple, list)) and len(boundary_axis) == dim:
            ba = tuple(A.choice(A.BOUNDARIES, b, "boundary_axis") for b in boundary_axis)
        else:
            raise TypeError("boundary_axis: %r: give %d names ('periodic' or 'fixed')" % (boundary_axis, dim))
        self._adopt(ctx)
        d = LayoutDesc()
        d.dim, d.dtype, d.boundary = dim, self.dtype, bnd
        # halox's axis order is x first: the reverse of NumPy's
        d.global_[:dim], d.pgrid[:dim] = shape[::-1], pg[::-1]
        # per-axis: `halo` is ignored by the library, so 0 there makes a library without per-axis
        # halos show itself (its fields get no ghost cells) instead of exchanging every axis
        d.halo = 0 if per_axis else halo
        if per_axis:
            d.per_axis = 1
            d.halo_axis[:dim], d.boundary_axis[:dim] = ha[::-1], ba[::-1]
        L = lib()
        h = ctypes.c_void_p()
        st = L.hx_layout_create(ctx._live(), ctypes.byref(d), ctypes.byref(h))
        self._h = h.value
        if st != 0:
            msg = ctx.error()
            self.close()
            raise Error(msg, st)
        self._desc = d
        dc = L.hx_layout_decomp(self._h).contents
        r = lambda v: tuple(v[:dim][::-1])  # noqa: E731
        self.shape, self.dim = shape, dim
        self.local_shape, self.offset = r(dc.local), r(dc.offset)
        self.pgrid, self.coords = r(dc.pgrid), r(dc.coords)
        self.ghost = max(dc.ghost[:dim])
        self.halo_axis, self.per_axis = ha, per_axis
        if per_axis and max(ha) > 0 and self.ghost == 0:
            from ._errors import Unsupported
            self.close()
            raise Unsupported("libhalox lacks per-axis halos (hx_layout_desc.per_axis): build a newer halox")
        self._neighbour = tuple(dc.neighbour)
        self._checked = {}

    def _destroy(self):
        lib().hx_layout_destroy(self._h)

    @property
    def field_shape(self):
        """The shape of this rank's field array: local_shape + 2*ghost on every axis."""
        return tuple(n + 2 * self.ghost for n in self.local_shape)

    def neighbour(self, *offset):
        """The rank at a NumPy-order offset ((oy, ox) or (oz, oy, ox), each -1, 0 or 1); -1 beyond a
        fixed boundary."""
        o = A.ints(offset, self.dim, "offset", -1)
        xyz = list(o[::-1]) + [0] * (3 - self.dim)
        return self._neighbour[(xyz[0] + 1) + 3 * (xyz[1] + 1) + 9 * (xyz[2] + 1)]

    def alloc(self, ghost=None):
        """A zeroed field of this rank: a NumPy array (cpu) or CuPy array (cuda) of field_shape."""
        g = self.ghost if ghost is None else A.ints(ghost, 1, "ghost", self.ghost)[0]
        return A.allocate(tuple(n + 2 * g for n in self.local_shape), self.dtype, self.context.cuda)

    def field(self, array, dtype=None, what="field"):
        """The hx_field of a user array (checked: memory kind, dtype, shape, contiguity); no copy."""
        dt = self.dtype if dtype is None else dtype
        # an array checked before (the same live object, unchanged in place) is not checked again:
        # exchanging the same arrays every step then costs little more than the C call
        key = (id(array), dt)
        hit = self._checked.get(key)
        if hit is not None and hit[0]() is array and hit[1](array):
            return hit[2]
        f, owner = A.field_of(array, self.local_shape, self.ghost, dt, self.context.cuda, what)
        entry = _remember(array)
        if entry is not None:
            if len(self._checked) > 64:
                self._checked.clear()
            self._checked[key] = entry + (f,)
        return f

    def owned(self, array):
        """The owned cells of a field array (a view, without the ghosts)."""
        self.field(array)
        g = (array.shape[-1] - self.local_shape[-1]) // 2
        return array[tuple(slice(g, g + n) for n in self.local_shape)]

    def init(self, array, seed=42):
        """Fill the owned cells with halox's seeded initial field, the ghosts with 0."""
        f = self.field(array)
        _user_done(self.context)
        _check(self.context, lib().hx_field_init(self._live(), ctypes.byref(f), _u64(seed)))
        if self.context.cuda:
            self.context.sync()  # hx_field_init is ordered on halox's stream, not the caller's

    def gather(self, array):
        """Collective: the global field (NumPy, shape `shape`) on rank 0; None on the others."""
        f = self.field(array, what="gather")
        out = np.empty(self.shape, dtype=A.NP_DTYPE[self.dtype]) if self.context.rank == 0 else None
        ptr = out.ctypes.data if out is not None else None
        _user_done(self.context)
        _check(self.context, lib().hx_field_gather(self._live(), ctypes.byref(f), ptr))
        return out

    def checksum(self, array):
        """Collective: the order-independent checksum of the global field (as `halox reference` prints)."""
        f = self.field(array, what="checksum")
        s = ctypes.c_uint64()
        _user_done(self.context)
        _check(self.context, lib().hx_field_checksum(self._live(), ctypes.byref(f), ctypes.byref(s)))
        return s.value

    def _live(self):
        if self._h is None:
            raise Error("the layout is closed")
        return self._h


def _remember(array):
    """(weak reference, predicate "unchanged") of an array that passed the checks, for the caches
    of checked arrays; None when it cannot be cached. The weak reference, not id(), identifies the
    array: a freed array's id may be reused; it does not keep the user's memory alive."""
    same = A.unchanged(array)
    if same is None:
        return None
    try:
        ref = weakref.ref(array)
    except TypeError:
        return None
    return ref, same


def _u64(seed):
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= int(seed) < 2 ** 64:
        raise ValueError("seed: %r: give an integer in [0, 2**64)" % (seed,))
    return int(seed)


def _user_done(ctx):
    """Let the caller's queued GPU work (CuPy's current stream) finish before halox reads or writes
    the same arrays on its own streams, which are not ordered with the caller's."""
    if ctx.cuda:
        cp = A._cupy()
        if cp is not None:
            cp.cuda.get_current_stream().synchronize()


def transports():
    """The transports of the loaded libhalox."""
    return lib().hx_transport_names().decode().split(",")
