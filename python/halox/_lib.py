"""The ctypes layer: finding libhalox.so, the C structs and the functions' signatures.

ctypes rather than a compiled extension: nothing is compiled when the package is installed, one
pure-Python wheel serves every libhalox of the same ABI (CPU or CUDA build, any MPI the library
was linked with), and the C API is small, with its option structs versioned by struct_size, so a
newer library reads these (older, shorter) structs correctly.
"""
import ctypes
import ctypes.util
import os

from ._errors import Error

c_int, c_long, c_double, c_void_p, c_char_p, c_size_t = (ctypes.c_int, ctypes.c_long, ctypes.c_double,
                                                       ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t)
c_uint64 = ctypes.c_uint64
INT3 = c_int * 3

LOG_FN = ctypes.CFUNCTYPE(None, c_int, c_int, c_char_p, c_void_p)


class ContextOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("backend", c_int), ("devices", c_char_p), ("log_level", c_int),
                ("log", LOG_FN), ("log_user", c_void_p), ("threads", c_int)]


class LayoutDesc(ctypes.Structure):
    _fields_ = [("dim", c_int), ("global_", INT3), ("pgrid", INT3), ("halo", c_int), ("dtype", c_int),
                ("boundary", c_int), ("per_axis", c_int), ("halo_axis", INT3), ("boundary_axis", INT3)]


class Field(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("ghost", c_int), ("pitch", c_int * 2)]


class Decomp(ctypes.Structure):
    # the leading fields of hx_decomp (halox/decomp.h); the library owns the struct
    _fields_ = [("dim", c_int), ("global_", INT3), ("pgrid", INT3), ("coords", INT3), ("local", INT3),
                ("offset", INT3), ("ghost", INT3), ("alloc", INT3), ("boundary", c_int), ("rank", c_int),
                ("nranks", c_int), ("neighbour", c_int * 27)]


class ExchangeOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("transport", c_char_p), ("pattern", c_int), ("halo", c_int),
                ("ll_bytes", c_long), ("host_fallback", c_char_p), ("nfields", c_int),
                ("dtypes", ctypes.POINTER(c_int))]


class Tuning(ctypes.Structure):
    _fields_ = [(n, c_int) for n in ("block_rows", "march", "zsplit", "lanes", "inplace", "prefetch", "pdl", "tma")]


class SweepOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("stencil", c_int), ("schedule", c_int), ("depth", c_int),
                ("overlap", c_int), ("graph", c_int), ("fuse", c_int), ("norm_every", c_long),
                ("desync_barrier", c_int), ("kernel", c_int), ("tuning", Tuning), ("profile", c_int),
                ("op", c_void_p), ("coef", ctypes.POINTER(Field)), ("ncoef", c_int)]


NUM_SEGS = 9


class Times(ctypes.Structure):
    _fields_ = [("t", c_double * NUM_SEGS)]


class Problem(ctypes.Structure):
    _fields_ = [("dim", c_int), ("size", INT3), ("stencil", c_int), ("dtype", c_int), ("boundary", c_int),
                ("seed", c_uint64), ("iters", c_long), ("op", c_void_p), ("coef", ctypes.POINTER(c_void_p))]


class Term(ctypes.Structure):
    _fields_ = [("d", INT3), ("weight", c_double), ("coef", c_int), ("c", INT3)]


class OperatorDesc(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("dim", c_int), ("dtype", c_int), ("nterms", c_int),
                ("terms", ctypes.POINTER(Term)), ("ncoef", c_int)]


P = ctypes.POINTER
_CTX, _LAY, _X, _SW, _OP = c_void_p, c_void_p, c_void_p, c_void_p, c_void_p
# name: (restype, argtypes); every library has these
_REQUIRED = {
    "hx_version": (c_char_p, []),
    "hx_context_defaults": (ContextOptions, []),
    "hx_context_create_f": (c_int, [c_int, P(ContextOptions), P(c_void_p)]),
    "hx_context_destroy": (None, [_CTX]),
    "hx_context_error": (c_char_p, [_CTX]),
    "hx_context_backend": (c_int, [_CTX]),
    "hx_context_device": (c_int, [_CTX]),
    "hx_context_rank": (c_int, [_CTX]),
    "hx_context_size": (c_int, [_CTX]),
    "hx_context_threads": (c_int, [_CTX]),
    "hx_context_sync": (c_int, [_CTX]),
    "hx_backend_built": (c_int, [c_int]),
    "hx_gpu_count": (c_int, []),
    "hx_layout_create": (c_int, [_CTX, P(LayoutDesc), P(c_void_p)]),
    "hx_layout_destroy": (None, [_LAY]),
    "hx_layout_decomp": (P(Decomp), [_LAY]),
    "hx_field_init": (c_int, [_LAY, P(Field), c_uint64]),
    "hx_field_gather": (c_int, [_LAY, P(Field), c_void_p]),
    "hx_field_checksum": (c_int, [_LAY, P(Field), P(c_uint64)]),
    "hx_field_get_owned": (c_int, [_LAY, P(Field), c_void_p]),
    "hx_exchange_defaults": (ExchangeOptions, []),
    "hx_exchange_create_opts": (c_int, [_LAY, P(ExchangeOptions), P(c_void_p)]),
    "hx_exchange_destroy": (None, [_X]),
    "hx_exchange_run": (c_int, [_X, P(Field), c_void_p]),
    "hx_exchange_transport": (c_char_p, [_X]),
    "hx_transport_names": (c_char_p, []),
    "hx_stencil_from_name": (c_int, [c_char_p, P(c_int)]),
    "hx_sweep_defaults": (SweepOptions, [c_int]),
    "hx_sweeper_create": (c_int, [_LAY, _X, P(SweepOptions), P(c_void_p)]),
    "hx_sweeper_destroy": (None, [_SW]),
    "hx_sweeper_init": (c_int, [_SW, c_uint64]),
    "hx_sweeper_iterate": (c_int, [_SW, c_long]),
    "hx_sweeper_field": (Field, [_SW]),
    "hx_sweeper_sweeps": (c_long, [_SW]),
    "hx_sweeper_last_norm": (c_double, [_SW]),
    "hx_sweeper_times": (c_int, [_SW, P(Times)]),
    "hx_sweeper_whole_graph": (c_int, [_SW]),
    "hx_sweeper_kernel": (c_char_p, [_SW]),
    "hx_reference_run": (c_int, [P(Problem), c_void_p]),
    "hx_checksum_cells": (c_uint64, [c_int, c_void_p, c_long]),
}
# Declared in the headers; a library built before them lacks them, and the calls that need one
# raise halox.Unsupported naming the symbol.
_OPTIONAL = {
    "hx_exchange_run_many": (c_int, [_X, c_int, P(Field), c_void_p]),
    "hx_operator_create": (c_int, [_CTX, P(OperatorDesc), P(c_void_p)]),
    "hx_operator_named": (c_int, [_CTX, c_char_p, c_int, P(c_void_p)]),
    "hx_operator_load": (c_int, [_CTX, c_char_p, c_int, P(c_void_p)]),
    "hx_operator_destroy": (None, [_OP]),
    "hx_operator_describe": (P(OperatorDesc), [_OP]),
    "hx_operator_radius": (c_int, [_OP]),
}


class _Lib:
    """The loaded library: its functions as attributes, `has(name)` for the optional ones."""

    def __init__(self, path):
        try:
            self.dll = ctypes.CDLL(path)
        except OSError as e:
            raise Error("cannot load libhalox from %s: %s" % (path, e)) from None
        self.path = path
        for name, (res, args) in _REQUIRED.items():
            try:
                f = getattr(self.dll, name)
            except AttributeError:
                raise Error("%s is not a usable libhalox: it lacks %s (too old a halox?)" % (path, name)) from None
            f.restype, f.argtypes = res, args
            setattr(self, name, f)
        self._optional = set()
        for name, (res, args) in _OPTIONAL.items():
            f = getattr(self.dll, name, None)
            if f is not None:
                f.restype, f.argtypes = res, args
                setattr(self, name, f)
                self._optional.add(name)
        names = (c_char_p * NUM_SEGS).in_dll(self.dll, "hx_segment_names")
        self.segment_names = [n.decode() for n in names]
        self.version = self.hx_version().decode()

    def has(self, name):
        return name in self._optional or name in _REQUIRED

    def bare(self, name):
        """name's function without argtypes (restype int): for hot paths that pass only ready ctypes
        objects (c_void_p, byref(), arrays, None) and small ints, so that no argument conversion runs
        per call. A second function object: the prototyped attribute stays as it is."""
        f = self.dll[name]
        f.restype = c_int
        return f

    def need(self, name):
        from ._errors import Unsupported
        if not self.has(name):
            raise Unsupported("libhalox lacks %s (%s, halox %s): build a newer halox" % (name, self.path, self.version))
        return getattr(self, name)


_lib = None


def _candidates():
    """Where libhalox.so may be: the library installed beside this package (the prefix recorded by
    CMake's install in _config.py), then the system's search (ldconfig's cache)."""
    out = []
    try:
        from . import _config
        for d in getattr(_config, "LIBDIRS", []):
            for name in ("libhalox.so", "libhalox.so.%s" % getattr(_config, "SOVERSION", "")):
                p = os.path.join(os.path.dirname(os.path.abspath(_config.__file__)), d, name)
                if os.path.exists(p):
                    out.append(p)
    except ImportError:
        pass
    found = ctypes.util.find_library("halox")
    if found:
        out.append(found)
    return out


def load(path=None):
    """Load libhalox from `path` (a file), or find it; returns the loaded library. Later calls without
    a path return the one already loaded; a different path once one is loaded is an Error."""
    global _lib
    if path is not None:
        path = os.fspath(path)
        if _lib is not None:
            if os.path.realpath(_lib.path) != os.path.realpath(path):
                raise Error("libhalox is already loaded from %s; load(%s) must come before any other halox call"
                            % (_lib.path, path))
            return _lib
        if not os.path.exists(path):
            raise Error("no libhalox at %s: give the path of libhalox.so" % path)
        _lib = _Lib(path)
        return _lib
    if _lib is None:
        c = _candidates()
        if not c:
            raise Error("libhalox.so not found: install halox (its prefix's lib folder in ld.so.conf, or the package "
                        "installed by halox's `cmake --install`), or call halox.load('/path/to/libhalox.so') first")
        _lib = _Lib(c[0])
    return _lib


def lib():
    return _lib if _lib is not None else load()
