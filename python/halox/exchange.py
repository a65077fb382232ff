"""Exchange: fills the ghost cells of user arrays. run() is the call a stencil loop makes every
step, so an array checked once is only recognised afterwards (core.Layout.field's checks, and
_arrays.np_state for what may change in place)."""
import ctypes

from . import _arrays as A
from ._errors import Error
from ._lib import Field, lib
from .core import Layout, _check, _Object, _remember


class Exchange(_Object):
    """Fills the ghost cells of fields of a layout (hx_exchange). transport: a name of
    halox.transports() or "auto"; pattern "staged" or "direct"; halo: cells to fill (0: the
    layout's); nfields: the most fields one run() moves; dtypes: their dtypes (None: the layout's)."""

    _hits = _fast = _last = None  # until __init__ has made the exchange

    def __init__(self, layout, transport="auto", pattern="staged", halo=0, nfields=1, dtypes=None,
                 ll_bytes=-1, host_fallback=None):
        if not isinstance(layout, Layout):
            raise TypeError("layout: %r is not a halox.Layout" % (layout,))
        if not isinstance(transport, str):
            raise TypeError("transport: %r is not a name" % (transport,))
        pat = A.choice(A.PATTERNS, pattern, "pattern")
        halo = A.ints(halo, 1, "halo", 0)[0]
        nfields = A.ints(nfields, 1, "nfields", 1)[0]
        if nfields > 32:
            raise ValueError("nfields: %d: at most 32 (HX_MAX_FIELDS)" % nfields)
        if dtypes is not None:
            if not isinstance(dtypes, (tuple, list)) or len(dtypes) != nfields:
                raise TypeError("dtypes: give %d dtypes, one per field" % nfields)
            dts = [A.choice(A.DTYPES, t, "dtypes") for t in dtypes]
        else:
            dts = [layout.dtype] * nfields
        L = lib()
        if nfields > 1:
            L.need("hx_exchange_run_many")
        if host_fallback is not None and not isinstance(host_fallback, str):
            raise TypeError("host_fallback: %r: give None, 'all' or a comma list of ranks" % (host_fallback,))
        self.layout, self.nfields, self.dtypes = layout, nfields, dts
        self._adopt(layout.context)
        o = L.hx_exchange_defaults()
        self._strings = (transport.encode(), host_fallback.encode() if host_fallback else None)
        o.transport, o.host_fallback = self._strings
        o.pattern, o.halo, o.ll_bytes = pat, halo, int(ll_bytes)
        o.nfields = nfields
        self._dt = (ctypes.c_int * nfields)(*dts)
        o.dtypes = ctypes.cast(self._dt, ctypes.POINTER(ctypes.c_int)) if dtypes is not None else None
        h = ctypes.c_void_p()
        st = L.hx_exchange_create_opts(layout._live(), ctypes.byref(o), ctypes.byref(h))
        self._h = h.value
        if st != 0:
            msg = layout.context.error()
            self.close()
            raise Error(msg, st)
        self.transport = L.hx_exchange_transport(self._h).decode()
        self._cuda = layout.context.cuda
        self._hv = ctypes.c_void_p(self._h)
        self._run1 = L.bare("hx_exchange_run")
        self._run_many = L.bare("hx_exchange_run_many") if L.has("hx_exchange_run_many") else None
        # id(array) (a tuple of ids for several) -> ((weakref, predicate "unchanged") per array,
        # the prepared argument of the C call): arrays checked before skip the checks
        self._hits = {}
        # id(array) -> (weakref, A.np_state, argument, dtype kept alive): one host NumPy array
        self._fast = {}

    def _destroy(self):
        lib().hx_exchange_destroy(self._h)

    def run(self, *arrays, stream=None):
        """Fill the ghosts of the arrays (one: hx_exchange_run; several: hx_exchange_run_many).
        stream: a cudaStream_t as an int (cuda; None: CuPy's current stream, the call then waits
        for it and halox's own stream around the exchange when that is the legacy default)."""
        if len(arrays) == 1 and self._fast:
            # the hot path: a host array this exchange checked before, the same object unchanged;
            # the last one first, the others (two buffers used in turn) through their id
            a = arrays[0]
            c = self._last
            if c[0]() is not a:
                c = self._fast.get(id(a))
                if c is not None and c[0]() is not a:
                    c = None
            if c is not None and c[1].raw == c[2] and c[3].raw == c[4]:
                self._last = c
                st = self._run1(self._hv, c[5], None)
                if st:
                    _check(self.layout.context, st)
                return
        self._run(arrays, stream)

    def _run(self, arrays, stream):
        n = len(arrays)
        if not n:
            raise TypeError("run: give at least one field array")
        if n > self.nfields:
            raise ValueError("run: %d fields, but the exchange was made for nfields=%d" % (n, self.nfields))
        if self._h is None:
            raise Error("the exchange is closed")
        key = id(arrays[0]) if n == 1 else tuple(map(id, arrays))
        hit = self._hits.get(key)
        if hit is None or len(hit[0]) != n or any(e[0]() is not a or not e[1](a) for a, e in zip(arrays, hit[0])):
            arg = self._prepare(arrays)
            hit = (tuple(_remember(a) for a in arrays), arg)
            if all(e is not None for e in hit[0]):
                if len(self._hits) > 64:
                    self._hits.clear()
                    self._fast.clear()
                self._hits[key] = hit
                np_st = getattr(hit[0][0][1], "np_state", None) if n == 1 and not self._cuda else None
                if np_st is not None:
                    # the data of its predicate, flat: run() reads it without a call
                    self._fast[key] = self._last = (hit[0][0][0],) + np_st + (arg, arrays[0].dtype)
        ctx = self.layout.context
        s, wait = _stream(ctx, stream) if self._cuda else (None, False)
        s = ctypes.c_void_p(s) if s else None  # the bare functions would pass a plain int as a C int
        if n == 1:
            st = self._run1(self._hv, hit[1], s)
        else:
            st = self._run_many(self._hv, n, hit[1], s)
        _check(ctx, st)
        if wait:
            ctx.sync()

    def _prepare(self, arrays):
        """The checked fields as the C call's argument; raises for an array that does not fit."""
        lay = self.layout
        if len(arrays) == 1:
            return ctypes.byref(lay.field(arrays[0], self.dtypes[0], "run: field 0"))
        fields = (Field * len(arrays))()
        for i, a in enumerate(arrays):
            fields[i] = lay.field(a, self.dtypes[i], "run: field %d" % i)
        return fields

    def close(self):
        self._hits = self._fast = self._last = None
        super().close()


def _stream(ctx, stream):
    """(the stream to pass, whether to wait for halox's streams afterwards)."""
    if not ctx.cuda:
        return None, False
    if stream is not None:
        return int(stream) or None, False
    cp = A._cupy()
    if cp is None:
        return None, True
    cur = cp.cuda.get_current_stream()
    if cur.ptr:
        return cur.ptr, False
    cur.synchronize()  # the legacy default stream does not order halox's non-blocking streams
    return None, True
