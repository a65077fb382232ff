"""User arrays as hx_field descriptors, without copies, and the names of halox's enums.

Axis order is NumPy's everywhere in the Python API: a 2D field has shape (NY, NX), a 3D one
(NZ, NY, NX), the last axis being halox's x (the fastest). A field array holds the rank's block
with its ghost cells: shape = local_shape + 2 * ghost on every axis, C-contiguous.
"""
import ctypes
import struct
import sys

import numpy as np

from ._lib import Field

DTYPES = {"float32": 0, "float": 0, "f4": 0, "float64": 1, "double": 1, "f8": 1}
NP_DTYPE = {0: np.dtype(np.float32), 1: np.dtype(np.float64)}
BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
BOUNDARIES = {"periodic": 0, "fixed": 1}
PATTERNS = {"staged": 0, "direct": 1}
SCHEDULES = {"cycle": 0, "fused": 1, "persistent": 2}
KERNELS = {"auto": 0, "resident": 1, "passes": 2, "roles": 3}
LOG_LEVELS = {"off": 0, "error": 1, "warn": 2, "info": 3, "debug": 4}


def choice(table, value, what):
    """The C enum of a name (or of a NumPy dtype for dtypes); ValueError/TypeError otherwise."""
    if table is DTYPES and not isinstance(value, str):
        try:
            value = np.dtype(value).name
        except TypeError:
            raise TypeError("%s: %r is not a dtype: use 'float32' or 'float64'" % (what, value)) from None
    if not isinstance(value, str):
        raise TypeError("%s: %r is not a name: use one of %s" % (what, value, ", ".join(table)))
    if value not in table:
        raise ValueError("%s: unknown %r: use one of %s" % (what, value, ", ".join(table)))
    return table[value]


def ints(value, n, what, low=0):
    """A tuple of n ints from an int or a sequence of n ints (each >= low)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),) * n
    try:
        out = tuple(int(v) for v in value)
        ok = len(out) == n and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
    except TypeError:
        ok = False
    if not ok:
        raise TypeError("%s: %r is not an int or %d ints" % (what, value, n))
    if any(v < low for v in out):
        raise ValueError("%s: %r: each must be at least %d" % (what, out, low))
    return out


def _cupy():
    try:
        import cupy
        return cupy
    except ImportError:
        return None


def allocate(shape, dtype, cuda):
    """Zeroed memory of shape in host (NumPy) or device (CuPy) memory."""
    if not cuda:
        return np.zeros(shape, dtype=NP_DTYPE[dtype])
    cp = _cupy()
    if cp is None:
        raise TypeError("a cuda context's fields are device arrays: install CuPy for alloc(), or pass your own "
                        "array with __cuda_array_interface__ to field()")
    return cp.zeros(shape, dtype=NP_DTYPE[dtype])


def _host_array(obj, what):
    if isinstance(obj, np.ndarray):
        return obj
    if isinstance(obj, (list, tuple, int, float, str, bytes)) or obj is None:
        raise TypeError("%s: a %s is not an array: pass a NumPy array (or any buffer-protocol or DLPack array)"
                        % (what, type(obj).__name__))
    if hasattr(obj, "__cuda_array_interface__"):
        raise TypeError("%s: a device array on a cpu context: pass host memory (NumPy)" % what)
    try:
        return np.asarray(memoryview(obj))
    except TypeError:
        pass
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except Exception as e:
            raise TypeError("%s: a DLPack array NumPy cannot view without a copy (%s)" % (what, e)) from None
    raise TypeError("%s: a %s is not an array: pass a NumPy array (or any buffer-protocol or DLPack array)"
                    % (what, type(obj).__name__))


def _check_geometry(shape, local, got, contiguous, writable, min_ghost, want, what):
    """The ghost width of a field of this shape, after the checks every array passes."""
    if got != NP_DTYPE[want]:
        raise TypeError("%s: dtype %s, but the field is %s: convert with astype(%s)"
                        % (what, got.name, NP_DTYPE[want].name, NP_DTYPE[want].name))
    dim = len(local)
    if len(shape) != dim:
        raise ValueError("%s: %d axes, but the layout is %dD: give shape local_shape + 2*ghost" % (what, len(shape), dim))
    g2 = shape[-1] - local[-1]
    g = g2 // 2
    if g2 < 0 or g2 % 2 or any(s != n + 2 * g for s, n in zip(shape, local)):
        raise ValueError("%s: shape %s is not local_shape %s plus 2*ghost on every axis" % (what, tuple(shape), tuple(local)))
    if g < min_ghost:
        raise ValueError("%s: %d ghost cells per side, the layout needs %d: allocate local_shape + 2*%d"
                         % (what, g, min_ghost, min_ghost))
    if not contiguous:
        raise ValueError("%s: not C-contiguous: pass numpy.ascontiguousarray(a) and copy back, or allocate with layout.alloc()" % what)
    if not writable:
        raise ValueError("%s: read-only array: halox writes the ghost cells" % what)
    return g


def field_of(obj, local, min_ghost, dtype, cuda, what="field", writable=True):
    """(hx_field, the object that owns the memory) for a user array; TypeError/ValueError when it
    does not fit: memory kind, dtype, shape, contiguity, writability."""
    if cuda:
        cai = getattr(obj, "__cuda_array_interface__", None)
        if cai is None:
            raise TypeError("%s: a cuda context's fields are device arrays (CuPy, or anything with "
                            "__cuda_array_interface__): got %s" % (what, type(obj).__name__))
        shape = tuple(cai["shape"])
        dt = np.dtype(cai["typestr"])
        strides = cai.get("strides")
        contiguous = strides is None or tuple(strides) == tuple(
            int(np.prod(shape[i + 1:], dtype=np.int64)) * dt.itemsize for i in range(len(shape)))
        ptr, readonly = cai["data"]
        g = _check_geometry(shape, local, dt, contiguous, not (readonly and writable),
                            min_ghost, dtype, what)
        return Field(ptr, g, (shape[-1], shape[-2])), obj
    a = _host_array(obj, what)
    g = _check_geometry(a.shape, local, a.dtype, a.flags.c_contiguous,
                        a.flags.writeable or not writable, min_ghost, dtype, what)
    return Field(a.ctypes.data, g, (a.shape[-1], a.shape[-2])), a



# The leading fields of NumPy's array struct (PyArrayObject_fields, numpy/ndarraytypes.h), after
# the object header: data, nd, dimensions, strides, base, descr, flags. Reading them as bytes is one
# attribute access, where a.ctypes.data and __array_interface__ each build several objects. Every
# array's bytes are checked against NumPy's own attributes before use, so a NumPy or Python of
# another layout only loses the shortcut.
_NP_FIELDS = struct.Struct("@PiPPPPi")
_CPYTHON = sys.implementation.name == "cpython"  # elsewhere id() is no address
_NP_OFFSET = object.__basicsize__
_NP_WRITEABLE, _NP_C_CONTIGUOUS = 0x400, 0x1


def _np_header(a):
    """A live view of a's leading struct fields, or None when they are not where they should be."""
    hdr = (ctypes.c_char * _NP_FIELDS.size).from_address(id(a) + _NP_OFFSET)
    data, nd, dims, strides, base, descr, flags = _NP_FIELDS.unpack(hdr.raw)
    ok = (data == a.ctypes.data and nd == a.ndim and descr == id(a.dtype) and base == (0 if a.base is None else id(a.base))
          and bool(flags & _NP_WRITEABLE) == a.flags.writeable and bool(flags & _NP_C_CONTIGUOUS) == a.flags.c_contiguous)
    if ok and nd:
        shape = (ctypes.c_ssize_t * nd).from_address(dims)
        ok = tuple(shape) == a.shape
    return (hdr, dims) if ok else None


def np_state(a):
    """(header view, its bytes, shape view, its bytes) of a NumPy array, or None: the array is as
    it was while both views read the same bytes again (read the shape only once the header is
    found equal: the header holds the shape's address). The flags in the header follow any change of
    strides (contiguity) and writability; the dtype's address is there too."""
    if not _CPYTHON or type(a) is not np.ndarray or not a.ndim:
        return None
    h = _np_header(a)
    if h is None:
        return None
    hdr, dims = h
    shape = (ctypes.c_char * (ctypes.sizeof(ctypes.c_ssize_t) * a.ndim)).from_address(dims)
    return hdr, hdr.raw, shape, shape.raw


def unchanged(obj):
    """A predicate saying, for obj itself only (the caller checks identity first), whether it is as
    it is now in everything the checks of field_of read: data pointer, shape, dtype, contiguity,
    writability; for a NumPy array it carries np_state(obj) as .np_state. None for arrays without
    such cheap attributes (they are checked on every call)."""
    st = np_state(obj)
    if st is not None:
        hdr, raw, shape, raw_shape = st

        def same(a, _dtype=obj.dtype):  # _dtype: kept alive, so that no other dtype takes the header's address
            return hdr.raw == raw and shape.raw == raw_shape

        same.np_state = st  # for a cache that reads the views itself (Exchange.run)
        return same
    cp = sys.modules.get("cupy")
    if cp is not None and type(obj) is cp.ndarray:
        # CuPy arrays are always writable; .data.ptr is the array's first element
        ptr, shape, strides, dtype = obj.data.ptr, obj.shape, obj.strides, obj.dtype
        return lambda a: a.data.ptr == ptr and a.shape == shape and a.strides == strides and a.dtype is dtype
    return None
