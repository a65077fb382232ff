"""Per-axis halos and boundaries: periodic along x, fixed along y, a wider halo on one axis."""
import numpy as np
import pytest

import halox
from ghosts import expected, fill_owned, global_values


def layout(ctx, shape, **kw):
    try:
        return halox.Layout(ctx, shape, **kw)
    except halox.Unsupported as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("shape,halo_axis,boundary_axis", [
    ((12, 16), (1, 2), ("fixed", "periodic")),
    ((12, 16), (0, 1), ("periodic", "periodic")),
    ((6, 7, 8), (1, 0, 2), ("periodic", "fixed", "periodic")),
])
def test_faces(ctx, shape, halo_axis, boundary_axis):
    with layout(ctx, shape, halo_axis=halo_axis, boundary_axis=boundary_axis) as lay, halox.Exchange(lay) as x:
        assert lay.ghost == max(halo_axis)
        glob = global_values(shape, "float32")
        u = np.full(lay.field_shape, -1, np.float32)
        fill_owned(lay, u, glob)
        before = u.copy()
        x.run(u)
        want = expected(lay, glob, lay.ghost, halo_axis, [b == "periodic" for b in boundary_axis], before)
        # the face cells (outside the owned block along one axis only): the axis's own halo and boundary
        g, n = lay.ghost, lay.local_shape
        for idx in np.ndindex(*u.shape):
            out = [a for a, (i, m) in enumerate(zip(idx, n)) if i < g or i >= g + m]
            if len(out) == 1:
                assert u[idx] == want[idx], "cell %s: got %r, want %r" % (idx, u[idx], want[idx])
