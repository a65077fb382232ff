"""User operators as data: named, from terms, from a file; sweeps bit for bit against the reference."""
import numpy as np
import pytest

import halox
from conftest import need


@pytest.fixture(autouse=True)
def _operators():
    need("hx_operator_create")


def test_named_box9(ctx):
    op = halox.Operator.named(ctx, "box9")
    assert op.dim == 2 and op.radius == 1 and len(op.terms) == 9
    assert all(abs(t[3] - 1 / 9) < 1e-12 for t in op.terms)
    with halox.Layout(ctx, (18, 23), halo=2) as lay, halox.Exchange(lay, pattern="direct") as x, \
            halox.Sweeper(lay, x, op, depth=2) as sw:
        sw.init(4)
        sw.iterate(6)
        ref = halox.reference((18, 23), op, 6, 4)
        assert sw.checksum() == halox.checksum(ref)
        got = sw.gather()
        if ctx.rank == 0:
            assert got.tobytes() == ref.tobytes()
    op.close()


def test_sweeper_takes_a_name(ctx):
    with halox.Layout(ctx, (7, 8, 9), halo=1, dtype="float64", boundary="fixed") as lay, halox.Exchange(lay) as x, \
            halox.Sweeper(lay, x, "box27") as sw:
        sw.init(2)
        sw.iterate(3)
        op = halox.Operator.named(ctx, "box27", "float64")
        assert sw.checksum() == halox.checksum(halox.reference((7, 8, 9), op, 3, 2, "float64", "fixed"))
        op.close()


def test_terms_one_sided_with_coefficient(ctx):
    # u' = 0.5 u + 0.25 a0[x] u[x-1] + 0.25 u[y+2]: one-sided, radius 2, one coefficient field
    terms = [(0, 0, 0, 0.5), (-1, 0, 0, 0.25, 0, 0, 0, 0), (0, 2, 0, 0.25)]
    op = halox.Operator(ctx, 2, "float32", terms, name="lopsided", ncoef=1)
    assert op.radius == 2 and op.name == "lopsided" and op.terms[1][4] == 0
    shape = (20, 17)
    a0 = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) % 7) / np.float32(8)
    with halox.Layout(ctx, shape, halo=2) as lay, halox.Exchange(lay) as x:
        c = lay.alloc()
        lay.owned(c)[...] = a0[tuple(slice(o, o + n) for o, n in zip(lay.offset, lay.local_shape))]
        with halox.Sweeper(lay, x, op, coef=[c]) as sw:
            sw.init(8)
            sw.iterate(5)
            ref = halox.reference(shape, op, 5, 8, coef=[a0])
            assert sw.checksum() == halox.checksum(ref)
    op.close()


def test_load_file(ctx, tmp_path):
    p = tmp_path / "smooth5.op"
    p.write_text("# u' = 0.5 u + 0.125 (W + E + S + N)\nname smooth5\ndim 2\n 0 0 0.5\n-1 0 1/8\n 1 0 1/8\n"
                 " 0 -1 1/8\n 0 1 1/8\n")
    op = halox.Operator.load(ctx, p, "float64")
    assert op.name == "smooth5" and op.radius == 1 and len(op.terms) == 5 and op.terms[1][3] == 0.125
    with halox.Layout(ctx, (12, 14), halo=1, dtype="float64") as lay, halox.Exchange(lay) as x, \
            halox.Sweeper(lay, x, op) as sw:
        sw.init(1)
        sw.iterate(4)
        assert sw.checksum() == halox.checksum(halox.reference((12, 14), op, 4, 1, "float64"))
    op.close()


def test_refusals(ctx, tmp_path):
    with pytest.raises(halox.Error) as e:
        halox.Operator(ctx, 2, "float32", [(9, 0, 0, 1.0)])      # beyond the 2D radius limit
    assert e.value.status == 2 and str(e.value)
    with pytest.raises(halox.Error):
        halox.Operator(ctx, 2, "float32", [(0, 0, 0, float("nan"))])
    with pytest.raises(halox.Error):
        halox.Operator.named(ctx, "box99")
    bad = tmp_path / "bad.op"
    bad.write_text("dim 2\n0 0 zero\n")
    with pytest.raises(halox.Error, match="bad.op"):
        halox.Operator.load(ctx, bad)
    with pytest.raises(ValueError):
        halox.Operator(ctx, 2, "float32", [])
    with pytest.raises(TypeError):
        halox.Operator(ctx, 2, "float32", [(0, 0, 1.0)])
