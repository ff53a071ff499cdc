"""reduce / extract / assign / transpose / kronecker / diag against python-graphblas."""

from __future__ import annotations

import numpy as np
import pytest

from hpgraph import graphblas as hgb
from hpgraph.exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue
from tests.graphblas._helpers import (DTYPES, MASKS, SHAPES, bool_name, compare, dev, gb, gb_mask,
                                      gb_run, hp_mask, rand_matrix, rand_vector, _seed)

MONOIDS = ("plus", "times", "min", "max", "lor", "land", "any")
OUTS = ((False, None, False), (True, None, False), (True, None, True), (True, "plus", False))


def _gbmonoid(name, dtype):
    if dtype == "bool":
        name = bool_name(name)
    return getattr(gb.monoid, name)


def _gbacc(name, dtype):
    return getattr(gb.binary, bool_name(name) if dtype == "bool" else name) if name else None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("monoid", MONOIDS)
def test_reduce(monoid, dtype, backend_name):
    if monoid in ("lor", "land") and dtype != "bool":
        pytest.skip("python-graphblas has lor / land monoids on bool only")
    if dtype == "bool" and monoid == "plus":
        pytest.skip("python-graphblas sums bools as lor; hpgraph counts them (int64), see "
                    "test_reduce_bool_plus_counts")
    rng = np.random.default_rng(_seed((monoid, dtype)))
    gm = _gbmonoid(monoid, dtype)
    bad = []
    for shape in SHAPES:
        A = rand_matrix(rng, *shape, dtype)
        GA = A.to_graphblas()
        d = lambda x: dev(x, backend_name)  # noqa: E731
        for axis, n in (("rowwise", shape[0]), ("columnwise", shape[1])):
            M = rand_vector(rng, n, "int64", 0.6)
            w0 = rand_vector(rng, n, dtype, 0.5)
            for mspec in MASKS:
                for use_out, accum, replace in OUTS:
                    out = w0 if use_out else None
                    f = hgb.reduce_rowwise if axis == "rowwise" else hgb.reduce_columnwise
                    got = f(d(A), monoid, mask=hp_mask(mspec, d(M)), out=d(out), accum=accum,
                            replace=replace)
                    expr = GA.reduce_rowwise(gm) if axis == "rowwise" else GA.reduce_columnwise(gm)
                    ref = gb_run(expr, out=out, mask=gb_mask(mspec, M.to_graphblas()),
                                 accum=_gbacc(accum, dtype), replace=replace)
                    err = compare(got, ref, f"reduce_{axis} {monoid} {dtype} {shape} {mspec} "
                                  f"{use_out} {accum} {replace}", any_values=monoid == "any")
                    if err:
                        bad.append(err)
        for obj, gobj in ((A, GA), (rand_vector(rng, shape[0], dtype), None)):
            gobj = gobj if gobj is not None else obj.to_graphblas()
            for allow_empty in (True, False):
                got = hgb.reduce_scalar(d(obj), monoid, allow_empty=allow_empty)
                red = gobj.reduce_scalar if isinstance(gobj, gb.Matrix) else gobj.reduce
                ref = red(gm, allow_empty=allow_empty).new()
                from tests.graphblas._helpers import COUNT

                COUNT["combinations"] += 1
                if ref.is_empty:
                    ok = got is None
                elif monoid == "any":
                    ok = got is not None
                else:
                    ok = got is not None and got == ref.value and np.dtype(type(got)) == ref.dtype.np_type
                if not ok:
                    bad.append(f"reduce_scalar {monoid} {dtype} {shape} allow_empty={allow_empty}: "
                               f"{got!r} != {ref.value!r}")
    assert bad == []


def test_reduce_bool_plus_counts():
    A = hgb.Matrix.from_coo(np.array([0, 0, 2]), np.array([0, 1, 1]), np.array([True, True, False]),
                            nrows=3, ncols=2)
    w = hgb.reduce_rowwise(A, "plus")
    assert w.dtype == np.int64 and w.to_coo()[1].tolist() == [2, 0]
    assert hgb.reduce_scalar(A, "plus") == 2


def _index_sets(rng, n):
    return [None, slice(None), slice(1, None, 2), slice(None, None, -1),
            rng.permutation(n)[: max(n // 2, 0)], rng.integers(0, n, 3) if n else np.zeros(0, int)]


def _gbix(ix, n):
    if ix is None:
        return slice(None)
    return ix


@pytest.mark.parametrize("dtype", DTYPES)
def test_extract(dtype, backend_name):
    rng = np.random.default_rng(_seed(("extract", dtype)))
    bad = []
    from tests.graphblas._helpers import COUNT

    for shape in SHAPES:
        A = rand_matrix(rng, *shape, dtype)
        GA = A.to_graphblas()
        d = lambda x: dev(x, backend_name)  # noqa: E731
        for I in _index_sets(rng, shape[0]):
            for J in _index_sets(rng, shape[1]):
                got = hgb.extract(d(A), I, J)
                ref = GA[_gbix(I, shape[0]), _gbix(J, shape[1])].new()
                err = compare(got, ref, f"extract {dtype} {shape} {I} {J}")
                if err:
                    bad.append(err)
                if got.nrows and got.ncols:  # with a mask / accum on the extracted shape
                    M = rand_matrix(rng, got.nrows, got.ncols, "int64", 0.5)
                    C0 = rand_matrix(rng, got.nrows, got.ncols, dtype, 0.4)
                    got2 = hgb.extract(d(A), I, J, mask=d(M).S, out=d(C0), accum="min")
                    ref2 = gb_run(GA[_gbix(I, shape[0]), _gbix(J, shape[1])], out=C0,
                                  mask=M.to_graphblas().S, accum=_gbacc("min", dtype))
                    err = compare(got2, ref2, f"extract masked {dtype} {shape} {I} {J}")
                    if err:
                        bad.append(err)
            if shape[0] and shape[1]:
                i = int(rng.integers(0, shape[0]))
                got = hgb.extract(d(A), i, None)
                err = compare(got, GA[i, :].new(), f"extract row {i}")
                if err:
                    bad.append(err)
                got = hgb.extract(d(A), None, 0)
                err = compare(got, GA[:, 0].new(), "extract col 0")
                if err:
                    bad.append(err)
        v = rand_vector(rng, shape[0], dtype)
        for I in _index_sets(rng, shape[0]):
            got = hgb.extract(d(v), I)
            err = compare(got, v.to_graphblas()[_gbix(I, shape[0])].new(), f"extract vector {I}")
            if err:
                bad.append(err)
    assert COUNT["combinations"] > 0
    assert bad == []


@pytest.mark.parametrize("dtype", DTYPES)
def test_assign(dtype, backend_name):
    rng = np.random.default_rng(_seed(("assign", dtype)))
    bad = []
    d = lambda x: dev(x, backend_name)  # noqa: E731
    for shape in SHAPES:
        C = rand_matrix(rng, *shape, dtype, density=0.4)
        GC = C.to_graphblas()
        M = rand_matrix(rng, *shape, "int64", 0.5)
        GM = M.to_graphblas()
        for I in (None, rng.permutation(shape[0])[: (shape[0] + 1) // 2]):
            for J in (slice(None), rng.permutation(shape[1])[: (shape[1] + 2) // 2]):
                nI = shape[0] if I is None else len(I)
                nJ = shape[1] if isinstance(J, slice) else len(J)
                B = rand_matrix(rng, nI, nJ, dtype, 0.5)
                for value, gvalue in ((B, B.to_graphblas()), (1, 1)):
                    for mspec in MASKS:
                        for accum, replace in ((None, False), (None, True), ("plus", False)):
                            got = hgb.assign(d(C), d(value) if value is B else value, I, J,
                                             mask=hp_mask(mspec, d(M)), accum=accum, replace=replace)
                            R = GC.dup()
                            R(mask=gb_mask(mspec, GM), accum=_gbacc(accum, dtype),
                              replace=replace and mspec != "none")[_gbix(I, 0), J] << gvalue
                            err = compare(got, R, f"assign {dtype} {shape} {I} {J} "
                                          f"{'matrix' if value is B else 'scalar'} {mspec} {accum} {replace}")
                            if err:
                                bad.append(err)
        v = rand_vector(rng, shape[0], dtype)
        I = rng.permutation(shape[0])[: shape[0] // 2]
        u = rand_vector(rng, len(I), dtype)
        got = hgb.assign(d(v), d(u), I, accum="max")
        R = v.to_graphblas().dup()
        R(accum=_gbacc("max", dtype))[I] << u.to_graphblas()
        err = compare(got, R, f"assign vector {shape}")
        if err:
            bad.append(err)
        if shape[0] and shape[1]:
            i = int(rng.integers(0, shape[0]))
            u = rand_vector(rng, shape[1], dtype)
            got = hgb.assign(d(C), d(u), i, None)
            R = GC.dup()
            R[i, :] << u.to_graphblas()
            err = compare(got, R, f"assign row {i}")
            if err:
                bad.append(err)
    assert bad == []


@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose_kronecker_diag(dtype, backend_name):
    rng = np.random.default_rng(_seed(("tkd", dtype)))
    bad = []
    d = lambda x: dev(x, backend_name)  # noqa: E731
    for shape in SHAPES:
        A = rand_matrix(rng, *shape, dtype)
        GA = A.to_graphblas()
        M = rand_matrix(rng, shape[1], shape[0], "int64", 0.5)
        C0 = rand_matrix(rng, shape[1], shape[0], dtype, 0.3)
        for mspec in MASKS:
            for use_out, accum, replace in OUTS:
                out = C0 if use_out else None
                got = hgb.transpose(d(A), mask=hp_mask(mspec, d(M)), out=d(out), accum=accum,
                                    replace=replace)
                ref = gb_run(GA.T, out=out, mask=gb_mask(mspec, M.to_graphblas()),
                             accum=_gbacc(accum, dtype), replace=replace)
                err = compare(got, ref, f"transpose {dtype} {shape} {mspec} {use_out} {accum}")
                if err:
                    bad.append(err)
        B = rand_matrix(rng, 3, 2, dtype, 0.5)
        for op in ("times", "plus", "first", "second"):
            got = hgb.kronecker(d(A), d(B), op)
            gop = getattr(gb.binary, bool_name(op) if dtype == "bool" else op)
            err = compare(got, GA.kronecker(B.to_graphblas(), gop).new(), f"kronecker {op} {shape}")
            if err:
                bad.append(err)
        for k in (-2, 0, 1):
            got = hgb.diag(d(A), k)
            err = compare(got, GA.diag(k), f"diag(A, {k}) {shape}")
            if err:
                bad.append(err)
            v = rand_vector(rng, shape[0], dtype)
            err = compare(hgb.diag(d(v), k), v.to_graphblas().diag(k), f"diag(v, {k})")
            if err:
                bad.append(err)
    assert bad == []


def test_ops2_errors_leave_inputs_unchanged():
    A = hgb.Matrix.from_coo(np.array([0, 1]), np.array([1, 2]), np.array([1, 2]), nrows=2, ncols=3)
    before = [a.copy() for a in A.to_coo()]
    with pytest.raises(IndexOutOfBound, match="rows holds 5"):
        hgb.extract(A, np.array([0, 5]), None)
    with pytest.raises(IndexOutOfBound, match="cols holds -1"):
        hgb.assign(A, 1, None, np.array([-1]))
    with pytest.raises(InvalidValue, match="repeated"):
        hgb.assign(A, 1, np.array([0, 0]), None)
    with pytest.raises(DimensionMismatch, match="region"):
        hgb.assign(A, A, np.array([0]), None)
    with pytest.raises(InvalidValue, match="not a monoid"):
        hgb.reduce_rowwise(A, "minus")
    with pytest.raises(InvalidValue, match="not a monoid"):
        hgb.reduce_scalar(A, "first")
    assert all(np.array_equal(x, y) for x, y in zip(before, A.to_coo()))


@pytest.mark.gpu
def test_gpu_long_segments_and_duplicates():
    """The device's block-per-segment reduction and its duplicate combining (``dup_op``)."""
    import cupy as cp

    rng = np.random.default_rng(21)
    vals = (rng.integers(-8, 16, 200_000) / 4.0)
    v = hgb.Vector.from_coo(cp.arange(200_000), cp.asarray(vals), size=200_000)
    gv = gb.Vector.from_coo(np.arange(200_000), vals, size=200_000)
    for m in ("plus", "min", "max"):  # exact in any order (times could overflow then meet 0)
        assert hgb.reduce_scalar(v, m) == gv.reduce(getattr(gb.monoid, m)).new().value
    # reduce_scalar's two passes (a block per 65,536 values, then the partial results): int64
    # and bool over a length that is not a multiple of the chunk
    n = 1_000_003
    ints = rng.integers(-1000, 1000, n)
    signs = np.where(rng.random(n) < 0.5, -1, 1)
    flags = rng.random(n) < 0.001
    iv = hgb.Vector.from_coo(cp.arange(n), cp.asarray(ints), size=n)
    sv = hgb.Vector.from_coo(cp.arange(n), cp.asarray(signs), size=n)
    bv = hgb.Vector.from_coo(cp.arange(n), cp.asarray(flags), size=n)
    assert (hgb.reduce_scalar(iv, "plus"), hgb.reduce_scalar(iv, "min"),
            hgb.reduce_scalar(iv, "max")) == (ints.sum(), ints.min(), ints.max())
    assert hgb.reduce_scalar(sv, "times") == np.prod(signs)
    assert (hgb.reduce_scalar(bv, "lor"), hgb.reduce_scalar(bv, "land")) == (True, False)
    assert hgb.reduce_scalar(iv, "any") in set(ints.tolist())
    # NaNs among the values: min / max skip them (fmin / fmax), as python-graphblas does
    fl = np.where(rng.random(n) < 0.01, np.nan, ints / 4.0)
    fv = hgb.Vector.from_coo(cp.arange(n), cp.asarray(fl), size=n)
    gf = gb.Vector.from_coo(np.arange(n), fl, size=n)
    for m in ("min", "max"):
        assert hgb.reduce_scalar(fv, m) == gf.reduce(getattr(gb.monoid, m)).new().value
    rows = np.r_[np.zeros(50_000, np.int64), rng.integers(1, 100, 5_000)]
    cols = np.r_[np.arange(50_000), rng.integers(0, 50_000, 5_000)]
    w = rng.integers(1, 9, rows.size).astype(np.float64)
    A = hgb.Matrix.from_coo(cp.asarray(rows), cp.asarray(cols), cp.asarray(w), nrows=100,
                            ncols=50_000, dup_op="plus")
    GA = gb.Matrix.from_coo(rows, cols, w, nrows=100, ncols=50_000, dup_op=gb.binary.plus)
    assert A.on_device and A.to_host().isequal(hgb.Matrix.from_graphblas(GA))
    for m in ("plus", "min", "max"):
        assert compare(hgb.reduce_rowwise(A, m), GA.reduce_rowwise(getattr(gb.monoid, m)).new(),
                       f"long rows {m}") is None
