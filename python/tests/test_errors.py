"""Errors: the library's refusals raise halox.Error with its one line; wrong Python input raises
TypeError or ValueError before any C call."""
import numpy as np
import pytest

import halox


def test_library_error_carries_message(ctx):
    # more ranks than a 1x1 grid has blocks (at one rank: a halo wider than the block)
    with pytest.raises(halox.Error) as e:
        halox.Layout(ctx, (1, 1), halo=2, pgrid=(1, ctx.size))
    assert e.value.status == 2
    assert str(e.value) and str(e.value) == ctx.error()


def test_unknown_transport(ctx):
    with halox.Layout(ctx, (16, 16), halo=1) as lay:
        with pytest.raises(halox.Error) as e:
            halox.Exchange(lay, transport="carrier-pigeon")
        assert "carrier-pigeon" in str(e.value)


def test_sweeper_depth_beyond_halo(ctx):
    with halox.Layout(ctx, (16, 16), halo=1) as lay, halox.Exchange(lay) as x:
        with pytest.raises(halox.Error) as e:
            halox.Sweeper(lay, x, "jacobi5", depth=3)
        assert e.value.status == 2 and "halo" in str(e.value)


def test_stencil_of_the_wrong_dimension(ctx):
    with halox.Layout(ctx, (16, 16), halo=1) as lay, halox.Exchange(lay) as x:
        with pytest.raises(halox.Error):
            halox.Sweeper(lay, x, "jacobi7")


@pytest.mark.parametrize("bad", [[1.0, 2.0], None, 3.0, "u"])
def test_not_an_array(ctx, bad):
    with halox.Layout(ctx, (8, 8), halo=1) as lay, halox.Exchange(lay) as x:
        with pytest.raises(TypeError):
            x.run(bad)


def test_bad_arrays(ctx):
    with halox.Layout(ctx, (8, 8), halo=1) as lay, halox.Exchange(lay) as x:
        shape = lay.field_shape
        with pytest.raises(TypeError, match="dtype float64"):
            x.run(np.zeros(shape))                                  # float64 on a float32 layout
        with pytest.raises(ValueError, match="shape"):
            x.run(np.zeros((shape[0] + 1, shape[1]), np.float32))   # not local + 2*ghost
        with pytest.raises(ValueError, match="axes"):
            x.run(np.zeros(shape + (1,), np.float32))
        with pytest.raises(ValueError, match="contiguous"):
            x.run(np.zeros((shape[1], shape[0]), np.float32).T if shape[0] != shape[1]
                  else np.zeros((shape[0], 2 * shape[1]), np.float32)[:, ::2])
        ro = np.zeros(shape, np.float32)
        ro.flags.writeable = False
        with pytest.raises(ValueError, match="read-only"):
            x.run(ro)
        with pytest.raises(ValueError, match="ghost"):
            x.run(np.zeros(lay.local_shape, np.float32))             # no ghost cells
        with pytest.raises(ValueError, match="nfields"):
            x.run(lay.alloc(), lay.alloc())


def test_bad_arguments(ctx):
    with pytest.raises(ValueError):
        halox.Context(backend="gpu")
    with pytest.raises(ValueError):
        halox.Context(threads=-1)
    with pytest.raises(TypeError):
        halox.Context(comm="world")
    with pytest.raises(ValueError):
        halox.Layout(ctx, (8,), halo=1)
    with pytest.raises(ValueError):
        halox.Layout(ctx, (8, 0), halo=1)
    with pytest.raises(ValueError):
        halox.Layout(ctx, (8, 8), dtype="float16")
    with pytest.raises(ValueError):
        halox.Layout(ctx, (8, 8), boundary="reflecting")
    with pytest.raises(TypeError):
        halox.Layout("ctx", (8, 8))
    with halox.Layout(ctx, (8, 8), halo=1) as lay:
        with pytest.raises(ValueError):
            halox.Exchange(lay, pattern="diagonal")
        with pytest.raises(ValueError):
            halox.Exchange(lay, nfields=0)
        with halox.Exchange(lay) as x:
            with pytest.raises(ValueError):
                halox.Sweeper(lay, x, "jacobi5", schedule="sometimes")
            with pytest.raises(ValueError):
                halox.Sweeper(lay, x, "jacobi5", depth=0)
    with pytest.raises(ValueError):
        halox.reference((8, 8), "jacobi7")
    with pytest.raises(ValueError):
        halox.reference((8, 8), "jacobi5", seed=-1)


def test_closed_objects(ctx):
    lay = halox.Layout(ctx, (8, 8), halo=1)
    x = halox.Exchange(lay)
    u = lay.alloc()
    x.close()
    with pytest.raises(halox.Error, match="closed"):
        x.run(u)
    x.close()  # twice is fine
    lay.close()
    with pytest.raises(halox.Error, match="closed"):
        lay.init(u)


def test_load_twice_elsewhere():
    with pytest.raises(halox.Error, match="already loaded"):
        halox.load("/nonexistent/libhalox.so")
