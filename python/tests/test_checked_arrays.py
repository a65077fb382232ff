"""Arrays checked once: a later call with another array, or the same array changed in place, is
checked again and refused when it does not fit, with halox's message."""
import gc
import warnings

import numpy as np
import pytest

import halox
from conftest import need
from ghosts import expected, fill_owned, first_difference, global_values


@pytest.fixture
def lx(ctx):
    with halox.Layout(ctx, (10, 12), halo=1) as lay, halox.Exchange(lay, transport="mpi") as x:
        yield lay, x


def exchanged_correctly(lay, x, u):
    glob = global_values(lay.shape, "float32")
    fill_owned(lay, u, glob)
    want = expected(lay, glob, lay.ghost, (1, 1), [True, True], u.copy())
    x.run(u)
    return first_difference(u, want) is None


def test_cached_then_bad(lx):
    lay, x = lx
    u = lay.alloc()
    x.run(u)
    x.run(u)
    with pytest.raises(TypeError, match="dtype float64"):
        x.run(np.zeros(lay.field_shape))
    with pytest.raises(ValueError, match="shape"):
        x.run(np.zeros((lay.field_shape[0] + 2, lay.field_shape[1]), np.float32))
    with pytest.raises(ValueError, match="contiguous"):
        x.run(np.zeros((lay.field_shape[0], 2 * lay.field_shape[1]), np.float32)[:, ::2])
    assert exchanged_correctly(lay, x, u)


def test_view_with_other_strides(lx):
    """A view with other strides of the memory of a checked array is another object, checked afresh;
    strides changed in place are seen too."""
    lay, x = lx
    fs = lay.field_shape
    big = np.zeros((fs[0], 2 * fs[1]), np.float32)
    dense = big.reshape(-1)[:fs[0] * fs[1]].reshape(fs)
    x.run(dense)
    with pytest.raises(ValueError, match="contiguous"):
        x.run(big[:, ::2])
    u = lay.alloc()
    x.run(u)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            u.strides = (u.strides[0], 0)
        except AttributeError:
            pytest.skip("this NumPy cannot set strides")
    with pytest.raises(ValueError, match="contiguous"):
        x.run(u)


def test_same_id_new_array(lx):
    """An array freed after its check and a new one at the same address (the same id()) of the wrong
    dtype: refused."""
    lay, x = lx
    for _ in range(50):
        u = lay.alloc()
        x.run(u)
        old = id(u)
        del u
        gc.collect()
        v = np.zeros(lay.field_shape, np.float64)
        if id(v) == old:
            with pytest.raises(TypeError, match="dtype float64"):
                x.run(v)
            return
        del v
    pytest.skip("no new array took a freed array's id() in 50 tries")


def test_changed_in_place(lx):
    lay, x = lx
    u = lay.alloc()
    x.run(u)
    u.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        x.run(u)
    u.flags.writeable = True
    x.run(u)
    u.shape = (u.shape[1], u.shape[0])  # the same memory seen with the axes' lengths swapped
    with pytest.raises(ValueError, match="shape"):
        x.run(u)
    u.shape = lay.field_shape
    assert exchanged_correctly(lay, x, u)
    u.dtype = np.int32  # the same bytes as another dtype
    with pytest.raises(TypeError, match="dtype int32"):
        x.run(u)
    u.dtype = np.float32
    assert exchanged_correctly(lay, x, u)


def test_resized_in_place(lx):
    """resize() to another size and back moves the memory of the same object: never the old address.
    (NumPy refuses resize() in place of an array with weak references, as checked arrays have.)"""
    lay, x = lx
    u = lay.alloc()
    x.run(u)
    try:
        u.resize(10 * u.size, refcheck=False)
        u.resize(lay.field_shape, refcheck=False)
    except ValueError:
        pass
    assert exchanged_correctly(lay, x, u)


def test_alternating_arrays(lx):
    """Two checked arrays used in turn, as a two-buffer stencil loop does, both exchanged right."""
    lay, x = lx
    u, v = lay.alloc(), lay.alloc()
    for _ in range(3):
        assert exchanged_correctly(lay, x, u)
        assert exchanged_correctly(lay, x, v)


def test_layout_field_rechecks(lx):
    lay, _ = lx
    u = lay.alloc()
    f = lay.field(u)
    assert lay.field(u) is f
    u.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        lay.field(u)


def test_many_cached_then_bad(ctx):
    need("hx_exchange_run_many")
    with halox.Layout(ctx, (9, 11), halo=1) as lay, \
            halox.Exchange(lay, nfields=2, dtypes=["float32", "float64"]) as x:
        a, b = lay.alloc(), np.zeros(lay.field_shape, np.float64)
        x.run(a, b)
        x.run(a, b)
        with pytest.raises(TypeError, match="field 1"):
            x.run(a, a)
        b.flags.writeable = False
        with pytest.raises(ValueError, match="read-only"):
            x.run(a, b)
        b.flags.writeable = True
        glob = global_values(lay.shape, "float64")
        fill_owned(lay, b, glob)
        want = expected(lay, glob, lay.ghost, (1, 1), [True, True], b.copy())
        x.run(a, b)
        assert first_difference(b, want) is None


def test_closed_after_cached(lx):
    lay, x = lx
    u = lay.alloc()
    x.run(u)
    x.close()
    with pytest.raises(halox.Error, match="closed"):
        x.run(u)
