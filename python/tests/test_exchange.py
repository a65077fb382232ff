"""Exchange: every ghost cell after halox.Exchange.run, cell by cell, against the global grid."""
import numpy as np
import pytest

import halox
from ghosts import expected, fill_owned, first_difference, global_values

CASES = [  # shape, halo, boundary, pattern, dtype
    ((13, 17), 1, "periodic", "staged", "float32"),
    ((13, 17), 2, "periodic", "direct", "float64"),
    ((12, 9), 1, "fixed", "direct", "float32"),
    ((12, 9), 2, "fixed", "staged", "float64"),
    ((7, 6, 9), 1, "periodic", "direct", "float32"),
    ((7, 6, 9), 2, "fixed", "staged", "float64"),
    ((8, 7, 6), 1, "fixed", "direct", "float64"),
]


@pytest.mark.parametrize("shape,halo,boundary,pattern,dtype", CASES)
def test_ghost_cells(ctx, shape, halo, boundary, pattern, dtype):
    with halox.Layout(ctx, shape, halo=halo, dtype=dtype, boundary=boundary) as lay, \
            halox.Exchange(lay, transport="mpi", pattern=pattern) as x:
        glob = global_values(shape, dtype)
        u = lay.alloc()
        assert u.shape == lay.field_shape and u.dtype == np.dtype(dtype)
        fill_owned(lay, u, glob)
        before = u.copy()
        x.run(u)
        want = expected(lay, glob, lay.ghost, (halo,) * len(shape), [boundary == "periodic"] * len(shape), before)
        assert first_difference(u, want) is None, first_difference(u, want)


def test_wider_ghost_than_halo(ctx):
    """A field with 2 ghost cells under an exchange of width 1: the inner ring filled, the outer kept."""
    shape = (10, 11)
    with halox.Layout(ctx, shape, halo=1) as lay, halox.Exchange(lay, transport="auto") as x:
        assert x.transport == "mpi"
        glob = global_values(shape, "float32")
        u = np.full(tuple(n + 4 for n in lay.local_shape), -5, dtype=np.float32)
        fill_owned(lay, u, glob)
        before = u.copy()
        x.run(u)
        want = expected(lay, glob, 2, (1, 1), [True, True], before)
        assert first_difference(u, want) is None, first_difference(u, want)


def test_user_array_views(ctx):
    """field() takes the user's own array (no copy); owned() is a view of the owned block."""
    with halox.Layout(ctx, (9, 8), halo=1, dtype="float64") as lay, halox.Exchange(lay) as x:
        u = np.zeros(lay.field_shape)
        lay.owned(u)[...] = 1.0 + lay.context.rank
        x.run(u)
        assert np.shares_memory(lay.owned(u), u)
        assert (lay.owned(u) == 1.0 + lay.context.rank).all()
        # every ghost of a periodic field is some rank's owned value
        assert set(np.unique(u)) <= {1.0 + r for r in range(lay.context.size)}


def test_neighbours_and_decomposition(ctx):
    with halox.Layout(ctx, (12, 16, 10), halo=1, boundary="fixed") as lay:
        assert int(np.prod(lay.pgrid)) == ctx.size
        assert lay.neighbour(0, 0, 0) == ctx.rank
        # fixed boundary: no neighbour beyond the first and last block of each axis
        for a in range(3):
            off = [0, 0, 0]
            off[a] = -1
            if lay.coords[a] == 0:
                assert lay.neighbour(*off) == -1
