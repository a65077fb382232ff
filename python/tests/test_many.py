"""Many fields in one exchange (hx_exchange_run_many), mixed dtypes, cell by cell."""
import numpy as np
import pytest

import halox
from conftest import need
from ghosts import expected, fill_owned, first_difference, global_values


@pytest.mark.parametrize("shape,pattern,boundary", [((11, 13), "staged", "periodic"), ((6, 7, 8), "direct", "fixed")])
def test_three_fields(ctx, shape, pattern, boundary):
    need("hx_exchange_run_many")
    dtypes = ["float32", "float64", "float32"]
    with halox.Layout(ctx, shape, halo=2, boundary=boundary) as lay, \
            halox.Exchange(lay, pattern=pattern, nfields=3, dtypes=dtypes) as x:
        arrays, wants = [], []
        for i, dt in enumerate(dtypes):
            glob = global_values(shape, dt) * (i + 1)
            u = np.zeros(lay.field_shape, dt)
            fill_owned(lay, u, glob)
            arrays.append(u)
            wants.append(expected(lay, glob, 2, (2,) * len(shape), [boundary == "periodic"] * len(shape), u.copy()))
        x.run(*arrays)
        for u, w in zip(arrays, wants):
            assert first_difference(u, w) is None, first_difference(u, w)
        # fewer fields than nfields is allowed
        a, b = lay.alloc(), np.zeros(lay.field_shape, np.float64)
        x.run(a, b)
        with pytest.raises(TypeError):
            x.run(b, a)  # field 0 is float32


def test_many_needs_the_library(ctx):
    if halox.has("hx_exchange_run_many"):
        pytest.skip("libhalox has hx_exchange_run_many: test_three_fields covers it")
    with halox.Layout(ctx, (8, 8), halo=1) as lay:
        with pytest.raises(halox.Unsupported, match="hx_exchange_run_many"):
            halox.Exchange(lay, nfields=2)
