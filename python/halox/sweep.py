"""Sweeper (halox runs the stencil loop), Operator (a user stencil as data) and reference()."""
import ctypes

import numpy as np

from . import _arrays as A
from ._errors import Error
from ._lib import Field, OperatorDesc, Problem, Term, Times, lib
from .core import Context, Layout, _check, _Object, _u64
from .exchange import Exchange

BUILTIN = ("jacobi5", "jacobi7", "star9", "star13")
STENCIL_DIM = {"jacobi5": 2, "jacobi7": 3, "star9": 2, "star13": 3}


def _stencil_id(name):
    sid = ctypes.c_int()
    if lib().hx_stencil_from_name(name.encode(), ctypes.byref(sid)) != 0:
        raise ValueError("stencil: unknown %r: use one of %s or an Operator" % (name, ", ".join(BUILTIN)))
    return sid.value


class Operator(_Object):
    """A user stencil as data (hx_operator): u'[x] = ((t0 + t1) + t2) + ..., in list order, with
    t = w*u[x+d] or, for a term naming coefficient field k, w*(a_k[x+c]*u[x+d]).

    terms: (dx, dy, dz, w) or (dx, dy, dz, w, k, cx, cy, cz) tuples (halox's x, y, z: dx moves
    along the last NumPy axis). Collective: every rank passes the same terms."""

    def __init__(self, ctx, dim, dtype="float32", terms=(), name=None, ncoef=0):
        if not isinstance(ctx, Context):
            raise TypeError("ctx: %r is not a halox.Context" % (ctx,))
        if dim not in (2, 3) or isinstance(dim, bool):
            raise ValueError("dim: %r: give 2 or 3" % (dim,))
        dt = A.choice(A.DTYPES, dtype, "dtype")
        if not isinstance(terms, (list, tuple)) or not terms:
            raise ValueError("terms: give a non-empty list of (dx, dy, dz, w) tuples")
        arr = (Term * len(terms))()
        for i, t in enumerate(terms):
            if not isinstance(t, (tuple, list)) or len(t) not in (4, 8):
                raise TypeError("terms[%d]: %r: give (dx, dy, dz, w) or (dx, dy, dz, w, k, cx, cy, cz)" % (i, t))
            d = A.ints(t[:3], 3, "terms[%d] offset" % i, -(1 << 20))
            try:
                w = float(t[3])
            except (TypeError, ValueError):
                raise TypeError("terms[%d]: weight %r is not a number" % (i, t[3])) from None
            k, c = (-1, (0, 0, 0)) if len(t) == 4 else (A.ints(t[4], 1, "terms[%d] coef" % i, 0)[0],
                                                        A.ints(t[5:], 3, "terms[%d] coef offset" % i, -(1 << 20)))
            arr[i] = Term(d, w, k, c)
        ncoef = A.ints(ncoef, 1, "ncoef", 0)[0]
        L = lib()
        create = L.need("hx_operator_create")
        self._name = (name or "custom").encode()
        desc = OperatorDesc(ctypes.sizeof(OperatorDesc), self._name, dim, dt, len(terms),
                            ctypes.cast(arr, ctypes.POINTER(Term)), ncoef)
        self._make(ctx, lambda h: create(ctx._live(), ctypes.byref(desc), h))

    def _make(self, ctx, call):
        self._adopt(ctx)
        h = ctypes.c_void_p()
        st = call(ctypes.byref(h))
        self._h = h.value
        if st != 0:
            msg = ctx.error()
            self.close()
            raise Error(msg, st)
        d = lib().hx_operator_describe(self._h).contents
        self.name = d.name.decode() if d.name else "custom"
        self.dim, self.dtype, self.ncoef = d.dim, d.dtype, d.ncoef
        self.terms = [tuple(t.d) + (t.weight,) + ((t.coef,) + tuple(t.c) if t.coef >= 0 else ())
                      for t in d.terms[:d.nterms]]
        self.radius = lib().hx_operator_radius(self._h)

    @classmethod
    def named(cls, ctx, name, dtype="float32"):
        """halox's named operators: "box9", "box27", and the built-ins written as terms."""
        if not isinstance(ctx, Context):
            raise TypeError("ctx: %r is not a halox.Context" % (ctx,))
        if not isinstance(name, str):
            raise TypeError("name: %r is not a name" % (name,))
        dt = A.choice(A.DTYPES, dtype, "dtype")
        f = lib().need("hx_operator_named")
        op = cls.__new__(cls)
        op._make(ctx, lambda h: f(ctx._live(), name.encode(), dt, h))
        return op

    @classmethod
    def load(cls, ctx, path, dtype="float32"):
        """An operator from a term file (docs/operators.md)."""
        import os
        if not isinstance(ctx, Context):
            raise TypeError("ctx: %r is not a halox.Context" % (ctx,))
        p = os.fspath(path).encode()
        dt = A.choice(A.DTYPES, dtype, "dtype")
        f = lib().need("hx_operator_load")
        op = cls.__new__(cls)
        op._make(ctx, lambda h: f(ctx._live(), p, dt, h))
        return op

    def _destroy(self):
        lib().hx_operator_destroy(self._h)


class Sweeper(_Object):
    """halox runs the stencil loop (hx_sweeper): exchanges every `depth` sweeps of `stencil` (a
    built-in name, a named operator such as "box9", or an Operator). coef: the operator's
    coefficient field arrays (read-only to halox, kept alive by the sweeper)."""

    def __init__(self, layout, exchange, stencil="jacobi5", depth=1, schedule="cycle", fuse=1, overlap=False,
                 graph=False, norm_every=0, kernel="auto", coef=()):
        if not isinstance(layout, Layout):
            raise TypeError("layout: %r is not a halox.Layout" % (layout,))
        if not isinstance(exchange, Exchange):
            raise TypeError("exchange: %r is not a halox.Exchange" % (exchange,))
        L = lib()
        self._own_op = None
        if isinstance(stencil, str) and stencil not in BUILTIN:
            if not L.has("hx_operator_named"):
                if stencil in ("box9", "box27"):
                    L.need("hx_operator_named")
                _stencil_id(stencil)  # a ValueError naming the built-ins
            self._own_op = stencil = Operator.named(layout.context, stencil, A.NP_DTYPE[layout.dtype].name)
        if isinstance(stencil, str):
            o = L.hx_sweep_defaults(_stencil_id(stencil))
        elif isinstance(stencil, Operator):
            o = L.hx_sweep_defaults(0)
            o.op = stencil._h
        else:
            raise TypeError("stencil: %r: give a name or a halox.Operator" % (stencil,))
        o.depth = A.ints(depth, 1, "depth", 1)[0]
        o.schedule = A.choice(A.SCHEDULES, schedule, "schedule")
        o.fuse = A.ints(fuse, 1, "fuse", 1)[0]
        o.overlap, o.graph = int(bool(overlap)), int(bool(graph))
        o.norm_every = A.ints(norm_every, 1, "norm_every", 0)[0]
        o.kernel = A.choice(A.KERNELS, kernel, "kernel")
        coef = list(coef)
        self._coef = (Field * max(1, len(coef)))()
        for i, a in enumerate(coef):
            self._coef[i] = layout.field(a, what="coef[%d]" % i)
        if coef:
            o.coef, o.ncoef = ctypes.cast(self._coef, ctypes.POINTER(Field)), len(coef)
        self._keep = (stencil, coef)
        self._iterate = L.hx_sweeper_iterate
        self.layout, self.exchange = layout, exchange
        self._adopt(layout.context)
        h = ctypes.c_void_p()
        st = L.hx_sweeper_create(layout._live(), exchange._h, ctypes.byref(o), ctypes.byref(h))
        self._h = h.value
        if st != 0:
            msg = layout.context.error()
            self.close()
            raise Error(msg, st)

    def _destroy(self):
        lib().hx_sweeper_destroy(self._h)

    def close(self):
        super().close()
        if self._own_op is not None:
            self._own_op.close()

    def _live(self):
        if self._h is None:
            raise Error("the sweeper is closed")
        return self._h

    def init(self, seed=42):
        """Both buffers from halox's seeded initial field; counts and timings restart."""
        _check(self.layout.context, lib().hx_sweeper_init(self._live(), _u64(seed)))

    def iterate(self, sweeps):
        """Collective: `sweeps` sweeps, as cycles of depth."""
        if type(sweeps) is not int or sweeps < 0:  # a plain count skips the general argument check
            sweeps = A.ints(sweeps, 1, "sweeps", 0)[0]
        st = self._iterate(self._live(), sweeps)
        if st:
            _check(self.layout.context, st)

    def _field(self):
        return lib().hx_sweeper_field(self._live())

    def field(self):
        """This rank's owned cells of the newest iterate: a NumPy copy of local_shape."""
        f = self._field()
        out = np.empty(self.layout.local_shape, dtype=A.NP_DTYPE[self.layout.dtype])
        _check(self.layout.context, lib().hx_field_get_owned(self.layout._live(), ctypes.byref(f), out.ctypes.data))
        return out

    def gather(self):
        """Collective: the global newest iterate on rank 0 (None on the others)."""
        f = self._field()
        lay = self.layout
        out = np.empty(lay.shape, dtype=A.NP_DTYPE[lay.dtype]) if lay.context.rank == 0 else None
        _check(lay.context, lib().hx_field_gather(lay._live(), ctypes.byref(f), out.ctypes.data if out is not None else None))
        return out

    def checksum(self):
        """Collective: the checksum of the newest iterate (as `halox reference` prints it)."""
        f = self._field()
        s = ctypes.c_uint64()
        _check(self.layout.context, lib().hx_field_checksum(self.layout._live(), ctypes.byref(f), ctypes.byref(s)))
        return s.value

    @property
    def sweeps(self):
        return lib().hx_sweeper_sweeps(self._live())

    @property
    def last_norm(self):
        """The last norm computed (norm_every > 0), else None."""
        n = lib().hx_sweeper_last_norm(self._live())
        return None if n < 0 else n

    def times(self):
        """Seconds per timed segment on this rank since init(): {"pack": ..., ..., "total": ...}."""
        t = Times()
        _check(self.layout.context, lib().hx_sweeper_times(self._live(), ctypes.byref(t)))
        return dict(zip(lib().segment_names, list(t.t)))

    def report(self):
        """What ran and how long: sweeps, transport, kernel, norm and the segment times."""
        L = lib()
        k = L.hx_sweeper_kernel(self._live())
        return {"sweeps": self.sweeps, "ranks": self.layout.context.size, "backend": self.layout.context.backend,
                "transport": self.exchange.transport, "kernel": k.decode() if k else None,
                "whole_graph": bool(L.hx_sweeper_whole_graph(self._h)), "last_norm": self.last_norm,
                "times": self.times()}


def reference(shape, stencil="jacobi5", iters=1, seed=42, dtype="float32", boundary="periodic", coef=None):
    """halox's single-domain reference field after `iters` sweeps (hx_reference_run), as a NumPy array
    of `shape` (NumPy order). stencil: a built-in name or an Operator; coef: the operator's
    coefficient fields as global arrays (None: halox's seeded ones, as the sweeper's tests use)."""
    dim = len(shape) if isinstance(shape, (tuple, list)) else 0
    if dim not in (2, 3):
        raise ValueError("shape: %r: give 2 or 3 cell counts, e.g. (NY, NX)" % (shape,))
    shape = A.ints(shape, dim, "shape", 1)
    p = Problem()
    p.dim, p.dtype = dim, A.choice(A.DTYPES, dtype, "dtype")
    p.size[:] = list(shape[::-1]) + [1] * (3 - dim)
    p.boundary = A.choice(A.BOUNDARIES, boundary, "boundary")
    p.seed, p.iters = _u64(seed), A.ints(iters, 1, "iters", 0)[0]
    keep = []
    if isinstance(stencil, Operator):
        if stencil._h is None:
            raise Error("the operator is closed")
        p.op = stencil._h
        if coef is not None:
            ptrs = (ctypes.c_void_p * max(1, len(coef)))()
            for i, a in enumerate(coef):
                a = np.ascontiguousarray(a, dtype=A.NP_DTYPE[p.dtype])
                if a.shape != shape:
                    raise ValueError("coef[%d]: shape %s, the problem's is %s" % (i, a.shape, shape))
                keep.append(a)
                ptrs[i] = a.ctypes.data
            p.coef = ctypes.cast(ptrs, ctypes.POINTER(ctypes.c_void_p))
        if stencil.dim != dim:
            raise ValueError("stencil: the operator is %dD, the shape %dD" % (stencil.dim, dim))
    elif isinstance(stencil, str):
        p.stencil = _stencil_id(stencil)
        if STENCIL_DIM[stencil] != dim:
            raise ValueError("stencil: %s is %dD, the shape %dD" % (stencil, STENCIL_DIM[stencil], dim))
    else:
        raise TypeError("stencil: %r: give a name or a halox.Operator" % (stencil,))
    out = np.empty(shape, dtype=A.NP_DTYPE[p.dtype])
    if lib().hx_reference_run(ctypes.byref(p), out.ctypes.data) != 0:
        raise MemoryError("halox reference: out of memory for %s cells" % (shape,))
    return out


def checksum(array):
    """halox's order-independent checksum of a whole array (float32 or float64), as the CLI prints it."""
    a = np.ascontiguousarray(array)
    t = A.choice(A.DTYPES, a.dtype, "checksum")
    return lib().hx_checksum_cells(t, a.ctypes.data, a.size)
