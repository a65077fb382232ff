"""What the ghost cells of a field must hold after an exchange, from the global grid."""
import numpy as np


def global_values(shape, dtype):
    """A global field whose every cell is its linear index + 1 (exact in float32 for small grids)."""
    n = int(np.prod(shape))
    assert n < 2 ** 24
    return (np.arange(n, dtype=np.float64) + 1).reshape(shape).astype(dtype)


def fill_owned(lay, u, glob):
    g = (u.shape[-1] - lay.local_shape[-1]) // 2
    own = tuple(slice(g, g + n) for n in lay.local_shape)
    src = tuple(slice(o, o + n) for o, n in zip(lay.offset, lay.local_shape))
    u[own] = glob[src]


def expected(lay, glob, g, halo, periodic, before):
    """The field after the exchange: cells within `halo` of the owned block (every axis, corners
    included) from the global grid (wrapped when periodic, unchanged beyond a fixed boundary);
    cells farther out keep `before`. halo, periodic: one per axis (NumPy order)."""
    want = before.copy()
    for idx in np.ndindex(*want.shape):
        loc = [i - g for i in idx]
        if any(c < -h or c >= n + h for c, n, h in zip(loc, lay.local_shape, halo)):
            continue
        gi, inside = [], True
        for a, (c, o, N) in enumerate(zip(loc, lay.offset, lay.shape)):
            x = c + o
            if x < 0 or x >= N:
                if not periodic[a]:
                    inside = False
                    break
                x %= N
            gi.append(x)
        if inside:
            want[idx] = glob[tuple(gi)]
    return want


def first_difference(got, want):
    bad = np.argwhere(got != want)
    if len(bad) == 0:
        return None
    i = tuple(bad[0])
    return "%d cells differ; first at %s: got %r, want %r" % (len(bad), i, got[i], want[i])
