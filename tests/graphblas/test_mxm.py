"""mxm / mxv / vxm against python-graphblas: semirings x dtypes x masks x accum x shapes."""

from __future__ import annotations

import numpy as np
import pytest

from hpgraph import graphblas as hgb
from hpgraph.exceptions import DimensionMismatch, InvalidValue
from tests.graphblas._helpers import (DTYPES, MASKS, SEMIRINGS, compare, dev, gb, gb_mask, gb_run,
                                      hp_mask, rand_matrix, rand_vector, _seed, semirings)

MXM_SHAPES = ((0, 0, 0), (0, 3, 4), (3, 0, 4), (3, 4, 0), (1, 5, 7), (6, 6, 6), (13, 9, 11))


def _skip(sr, dtype):
    # lor_land / plus_pair on bool are fine; the user op (x * 2 + y) is meaningless on bool
    return sr == "user" and dtype == "bool"


@pytest.mark.parametrize("sr_name", SEMIRINGS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_mxm_matches_graphblas(sr_name, dtype, backend_name):
    if _skip(sr_name, dtype):
        pytest.skip("user op on bool")
    rng = np.random.default_rng(_seed((sr_name, dtype)))
    hsr, gsr = semirings(sr_name, dtype)
    bad = []
    for m, k, n in MXM_SHAPES:
        A = rand_matrix(rng, m, k, dtype)
        B = rand_matrix(rng, k, n, dtype)
        M = rand_matrix(rng, m, n, "int64", density=0.4)
        C0 = rand_matrix(rng, m, n, dtype, density=0.3)
        GA, GB, GM = A.to_graphblas(), B.to_graphblas(), M.to_graphblas()
        for mspec in MASKS:
            for out, accum, replace in ((None, None, False), (C0, None, False), (C0, None, True),
                                        (C0, "plus", False), (C0, "min", True)):
                ref = gb_run(GA.mxm(GB, gsr), out=out, mask=gb_mask(mspec, GM), accum=accum,
                             replace=replace)
                # masked: both methods; unmasked on the device: cuSPARSE (auto) and the expansion
                methods = ("expand", "dot") if mspec in ("V", "S") else \
                    ("auto", "expand") if backend_name == "gpu" and mspec == "none" else ("auto",)
                for method in methods:
                    got = hgb.mxm(dev(A, backend_name), dev(B, backend_name), hsr,
                                  mask=hp_mask(mspec, dev(M, backend_name)), out=dev(out, backend_name),
                                  accum=accum, replace=replace, max_products=7, method=method)
                    err = compare(got, ref, f"{sr_name} {dtype} {(m, k, n)} mask={mspec} out="
                                  f"{out is not None} accum={accum} replace={replace} {method}",
                                  any_values=sr_name.startswith("any") and sr_name != "any_pair",
                                  cast_ref=sr_name.endswith("_pair"))
                    if err:
                        bad.append(err)
    assert bad == []


@pytest.mark.parametrize("sr_name", SEMIRINGS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_mxv_vxm_match_graphblas(sr_name, dtype, backend_name):
    if _skip(sr_name, dtype):
        pytest.skip("user op on bool")
    rng = np.random.default_rng(_seed((sr_name, dtype, "mv")))
    hsr, gsr = semirings(sr_name, dtype)
    bad = []
    for m, n in ((0, 0), (0, 4), (4, 0), (1, 7), (6, 6), (17, 11)):
        A = rand_matrix(rng, m, n, dtype)
        GA = A.to_graphblas()
        for op in ("mxv", "vxm"):
            nin, nout = (n, m) if op == "mxv" else (m, n)
            v = rand_vector(rng, nin, dtype)
            M = rand_vector(rng, nout, "int64", density=0.6)
            w0 = rand_vector(rng, nout, dtype, density=0.5)
            Gv, GM = v.to_graphblas(), M.to_graphblas()
            for mspec in MASKS:
                for out, accum, replace in ((None, None, False), (w0, None, False),
                                            (w0, None, True), (w0, "plus", False)):
                    d = lambda x: dev(x, backend_name)  # noqa: E731
                    kw = dict(mask=hp_mask(mspec, d(M)), out=d(out), accum=accum, replace=replace)
                    if op == "mxv":
                        got = hgb.mxv(d(A), d(v), hsr, **kw)
                        expr = GA.mxv(Gv, gsr)
                    else:
                        got = hgb.vxm(d(v), d(A), hsr, **kw)
                        expr = Gv.vxm(GA, gsr)
                    ref = gb_run(expr, out=out, mask=gb_mask(mspec, GM), accum=accum,
                                 replace=replace)
                    err = compare(got, ref, f"{op} {sr_name} {dtype} {(m, n)} mask={mspec} "
                                  f"out={out is not None} accum={accum} replace={replace}",
                                  cast_ref=sr_name.endswith("_pair"))
                    if err:
                        bad.append(err)
    assert bad == []


def test_mxm_mixed_dtypes_and_index_semirings():
    rng = np.random.default_rng(5)
    bad = []
    for da, db in (("int32", "float32"), ("bool", "int64"), ("int64", "float64")):
        A, B = rand_matrix(rng, 9, 7, da), rand_matrix(rng, 7, 8, db)
        for sr in ("plus_times", "min_plus", "max_first", "min_secondi", "max_firsti"):
            got = hgb.mxm(A, B, sr)
            ns = gb.semiring.ss if sr[-1] == "i" else gb.semiring
            ref = A.to_graphblas().mxm(B.to_graphblas(), getattr(ns, sr)).new()
            err = compare(got, ref, f"{sr} {da} x {db}")
            if err:
                bad.append(err)
    assert bad == []


def test_masked_triangle_count():
    rng = np.random.default_rng(9)
    n = 60
    r, c = rng.integers(0, n, 400), rng.integers(0, n, 400)
    keep = r != c
    A = hgb.Matrix.from_coo(np.r_[r[keep], c[keep]], np.r_[c[keep], r[keep]], True, nrows=n, ncols=n,
                            dup_op="any")
    L = hgb.select(A, "tril", -1)
    tri = hgb.reduce_scalar(hgb.mxm(L, L, "plus_pair[int64]", mask=L.S, max_products=50))
    import networkx as nx

    G = nx.Graph()
    G.add_edges_from(zip(*A.to_coo()[:2]))
    assert int(tri) == sum(nx.triangles(G).values()) // 3


def test_mxm_errors_leave_inputs_unchanged():
    A = hgb.Matrix.from_coo(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 2.0]), nrows=2, ncols=3)
    before = [a.copy() for a in A.to_coo()]
    with pytest.raises(DimensionMismatch, match="A has 3 columns but B has 2 rows"):
        hgb.mxm(A, A, "plus_times")
    with pytest.raises(DimensionMismatch, match="mask"):
        hgb.mxm(A, A.T, "plus_times", mask=A.S)
    with pytest.raises(InvalidValue, match="semiring"):
        hgb.mxm(A, A.T, "plus_nosuchop")
    with pytest.raises(InvalidValue, match="B must be an hpgraph.Matrix"):
        hgb.mxm(A, object())
    with pytest.raises(DimensionMismatch, match="out has shape"):
        hgb.mxm(A, A.T, out=A)
    with pytest.raises(DimensionMismatch, match="v has size"):
        hgb.mxv(A, hgb.Vector.from_coo(np.array([0]), np.array([1.0]), size=2))
    assert all(np.array_equal(x, y) for x, y in zip(before, A.to_coo()))
