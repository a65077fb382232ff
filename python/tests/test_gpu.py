"""The cuda backend with CuPy arrays: skipped, with the reason, without a GPU or CuPy."""
import pytest

import halox


def test_cupy_exchange_and_sweeper(comm):
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no GPU")
    except cp.cuda.runtime.CUDARuntimeError as e:
        pytest.skip("no GPU (%s)" % e)
    try:
        ctx = halox.Context(comm, backend="cuda")
    except halox.Error as e:
        pytest.skip("no cuda backend here: %s" % e)
    with ctx, halox.Layout(ctx, (40, 36), halo=1) as lay, halox.Exchange(lay) as x:
        u = lay.alloc()
        assert isinstance(u, cp.ndarray)
        lay.init(u, 6)
        q = cp.float32(0.25)
        v = lay.alloc()
        for _ in range(5):
            x.run(u)
            v[1:-1, 1:-1] = ((u[1:-1, :-2] + u[1:-1, 2:]) + (u[:-2, 1:-1] + u[2:, 1:-1])) * q
            u, v = v, u
        ref = halox.reference((40, 36), "jacobi5", 5, 6)
        assert lay.checksum(u) == halox.checksum(ref)
        with halox.Sweeper(lay, x, "jacobi5") as sw:
            sw.init(6)
            sw.iterate(5)
            assert sw.checksum() == halox.checksum(ref)
        with pytest.raises(TypeError):
            import numpy as np
            x.run(np.zeros(lay.field_shape, np.float32))
        # after u and v were checked and reused: another device array of the wrong dtype
        with pytest.raises(TypeError, match="dtype float64"):
            x.run(cp.zeros(lay.field_shape, cp.float64))
