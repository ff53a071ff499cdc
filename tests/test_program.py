"""Malformed vertex programs raise typed errors that say what is wrong (CPU only, fast)."""

from __future__ import annotations

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.exceptions import (IndexOutOfBound, InvalidProgram, InvalidValue, UdfTypeError,
                                UnsupportedSyntax)


@pytest.fixture
def G():
    return hp.Graph.from_edges([0, 1, 2], [1, 2, 0], np.float32([1, 2, 3]), num_vertices=4)


class Good(hp.VertexProgram):
    properties = {"dist": ("float32", np.inf)}
    reduce = "min"

    def gather(src, edge, dst):
        return src.dist + edge

    def update(v, y):
        return min(v.dist, y)


def test_good_program_runs(G):
    r = hp.run(Good, G, backend="cpu")
    assert r.converged and r.dist.dtype == np.float32
    assert Good.validate() is Good


def test_missing_reduce(G):
    class P(Good):
        reduce = None

    with pytest.raises(InvalidProgram, match="no reduce"):
        hp.run(P, G, backend="cpu")


def test_missing_update(G):
    class P(hp.VertexProgram):
        properties = {"x": "int32"}
        reduce = "min"

        def gather(src, edge, dst):
            return src.x

    with pytest.raises(InvalidProgram, match=r"update\(v, y\)"):
        hp.run(P, G, backend="cpu")


def test_bad_class_attributes_fail_at_definition():
    with pytest.raises(InvalidProgram, match="edges"):
        class P(hp.VertexProgram):
            edges = "sideways"
    with pytest.raises(InvalidProgram, match="complex128"):
        class Q(hp.VertexProgram):
            properties = {"z": "complex128"}
    with pytest.raises(InvalidProgram, match="identifier"):
        class R(hp.VertexProgram):
            properties = {"not ok": "int32"}
    with pytest.raises(InvalidProgram, match="apply_to"):
        class S(hp.VertexProgram):
            apply_to = "some"
    with pytest.raises(InvalidProgram, match="tolerance names unknown property"):
        class T(hp.VertexProgram):
            properties = {"x": "float32"}
            tolerance = {"y": 1e-3}
    with pytest.raises(InvalidProgram, match="gather must take"):
        class U(hp.VertexProgram):
            def gather(src, dst):
                return 1


def test_unknown_property_in_gather(G):
    class P(Good):
        def gather(src, edge, dst):
            return src.distance + edge

    with pytest.raises(UdfTypeError, match="no property 'distance'") as ei:
        hp.run(P, G, backend="cpu")
    assert "src.distance + edge" in str(ei.value)  # the user's line is quoted


def test_update_returns_unknown_property(G):
    class P(Good):
        def update(v, y):
            return {"dst": y}

    with pytest.raises(InvalidProgram, match="unknown property 'dst'"):
        hp.run(P, G, backend="cpu")


def test_bare_update_value_with_two_properties(G):
    class P(Good):
        properties = {"dist": "float32", "hops": "int32"}

    with pytest.raises(InvalidProgram, match="bare value"):
        hp.run(P, G, backend="cpu")


def test_unsupported_syntax(G):
    class P(Good):
        def gather(src, edge, dst):
            total = 0
            for k in range(3):
                total += k
            return total

    with pytest.raises(UnsupportedSyntax) as ei:
        P.validate()
    assert "for k in range(3)" in str(ei.value)
    with pytest.raises(UnsupportedSyntax):
        hp.run(P, G, backend="cpu")


def test_wrong_types(G):
    class P(Good):
        def gather(src, edge, dst):
            return src.dist & 1          # bitwise and on a float

    with pytest.raises(UdfTypeError):
        hp.run(P, G, backend="cpu")

    class Q(Good):
        reduce = ("not a function", 0)

    with pytest.raises(InvalidProgram, match=r"\(function, identity\)"):
        hp.run(Q, G, backend="cpu")

    class R(Good):
        reduce = "no_such_monoid"

    with pytest.raises(InvalidProgram, match="unknown monoid"):
        hp.run(R, G, backend="cpu")

    class S(Good):
        reduce = min                     # a bare function: the identity is missing

    with pytest.raises(InvalidProgram, match="identity"):
        hp.run(S, G, backend="cpu")

    with pytest.raises(InvalidProgram, match="VertexProgram"):
        hp.run(int, G, backend="cpu")


def test_init_errors(G):
    class P(Good):
        def init(self, graph, source=0):
            return {"dist": np.zeros(graph.num_vertices)}, [source]

    with pytest.raises(InvalidValue, match="does not accept"):
        hp.run(P, G, backend="cpu", sauce=1)
    with pytest.raises(IndexOutOfBound, match="outside"):
        hp.run(P, G, backend="cpu", source=99)

    class Q(Good):
        def init(self, graph):
            return {"distance": 0}

    with pytest.raises(InvalidProgram, match="unknown property 'distance'"):
        hp.run(Q, G, backend="cpu")

    class R(Good):
        def init(self, graph):
            return {"dist": np.zeros(3)}

    with pytest.raises(InvalidProgram, match="shape"):
        hp.run(R, G, backend="cpu")
    with pytest.raises(InvalidValue, match="no run parameters"):
        hp.run(Good, G, backend="cpu", source=0)


def test_run_argument_errors(G):
    with pytest.raises(InvalidValue, match="direction"):
        hp.run(Good, G, backend="cpu", direction="sideways")
    with pytest.raises(InvalidValue, match="max_iterations"):
        hp.run(Good, G, backend="cpu", max_iterations=-1)
    for bad in ("fast", "", 1, True):
        with pytest.raises(InvalidValue, match="engine_loop"):
            hp.run(Good, G, backend="cpu", engine_loop=bad)
    want = hp.run(Good, G, backend="cpu").dist
    for loop in ("auto", "device", "host"):           # the CPU has one loop: accepted, ignored
        np.testing.assert_array_equal(hp.run(Good, G, backend="cpu", engine_loop=loop).dist, want)

    class Narrow(Good):                  # int8 has no atomic form: push is impossible
        properties = {"dist": ("int8", 100)}
        edge_dtype = "int8"

    with pytest.raises(InvalidValue, match="atomic"):
        hp.run(Narrow, G, backend="cpu", direction="push")
    r = hp.run(Narrow, G, backend="cpu")                 # auto falls back to pull
    assert set(r.directions) <= {"pull"}


def test_init_input_not_modified(G):
    dist0 = np.full(4, np.inf, np.float32)
    dist0[0] = 0

    class P(Good):
        def init(self, graph):
            return {"dist": dist0}, [0]

    r = hp.run(P, G, backend="cpu")
    assert np.isinf(dist0[1:]).all() and r.dist[1] == 1


# ---- what bind() may cache between calls, and what it must not -------------------------------

STEP = 1.0


class _UsesGlobal(hp.VertexProgram):
    properties = {"dist": ("float64", np.inf)}
    reduce = "min"
    apply_to = "received"

    def init(self, graph):
        d = np.full(graph.num_vertices, np.inf)
        d[0] = 0
        return {"dist": d}, [0]

    def gather(src, edge, dst):
        return src.dist + STEP

    def update(v, y):
        return min(v.dist, y)


def test_changed_global_recompiles(G):
    global STEP
    try:
        STEP = 1.0
        a = hp.run(_UsesGlobal, G, backend="cpu").dist
        STEP = 2.5
        b = hp.run(_UsesGlobal, G, backend="cpu").dist
    finally:
        STEP = 1.0
    np.testing.assert_array_equal(b[:3], 2.5 * a[:3])


def test_changed_class_attributes_are_rechecked(G):
    class P(Good):
        pass

    assert hp.run(P, G, backend="cpu").converged
    P.reduce = None                         # after a cached successful bind
    with pytest.raises(InvalidProgram, match="no reduce"):
        hp.run(P, G, backend="cpu")
    P.reduce = "max"
    P.properties = {"dist": ("float32", 0.0)}
    r = hp.run(P, G, backend="cpu")
    assert r.dist.dtype == np.float32


def test_changed_self_constant_recompiles(G):
    class Shift(Good):
        step = 1.0

        def gather(self, src, edge, dst):
            return src.dist + self.step

        def init(self, graph):
            d = np.full(graph.num_vertices, np.inf, np.float32)
            d[0] = 0
            return {"dist": d}, [0]

    a = hp.run(Shift(), G, backend="cpu").dist
    p = Shift()
    p.step = 3.0
    b = hp.run(p, G, backend="cpu").dist
    np.testing.assert_array_equal(b[:3], 3 * a[:3])


def test_defaults_and_scalar_properties_are_not_host_arrays(G):
    from hpgraph import program

    class P(Good):
        properties = {"dist": ("float32", np.inf), "k": ("int32", 7)}

        def init(self, graph):
            return {"dist": 0.5}, [1, 1, 0]

        def update(v, y):
            return {"dist": min(v.dist, y)}

    bp = program.bind(P, G, {})
    assert np.ndim(bp.init_props["dist"]) == 0 and bp.init_props["dist"].dtype == np.float32
    assert bp.init_props["k"] == 7 and bp.init_props["k"].dtype == np.int32
    assert bp.init_active.tolist() == [0, 1]          # distinct, sorted ids
    r = hp.run(P, G, backend="cpu")
    assert r.k.tolist() == [7] * 4 and r.dist.dtype == np.float32


def test_seeded_and_outputs_on_cpu(G):
    from hpgraph.program import Seeded

    class P(Good):
        properties = {"dist": ("float32", np.inf), "who": ("int64", -1)}

        def init(self, graph, dist=None, who=None, active=None):
            return {"dist": dist, "who": who}, active

        def update(v, y):
            return {"dist": min(v.dist, y)}

    r = hp.run(P, G, backend="cpu", dist=Seeded(np.inf, 0), who=Seeded(-1, "id"),
               active=[1, 1])
    np.testing.assert_array_equal(r.dist, [5, 0, 2, np.inf])
    assert r.who.tolist() == [-1, 1, -1, -1] and r.who.dtype == np.int64
    r = hp.run(P, G, backend="cpu", who=Seeded(-1, "id"), dist=Seeded(5, 0))   # all active
    assert r.who.tolist() == [0, 1, 2, 3] and r.dist.tolist() == [0, 0, 0, 0]
    r = hp.run(P, G, backend="cpu", dist=Seeded(np.inf, 0), active=[0], outputs=["dist"])
    assert list(r.properties) == ["dist"]
    with pytest.raises(InvalidValue, match="unknown property 'x'"):
        hp.run(P, G, backend="cpu", active=[0], outputs=("x",))
    with pytest.raises(InvalidProgram, match="integer dtype"):
        hp.run(P, G, backend="cpu", dist=Seeded(np.inf, "id"), active=[0])


# --- found by the mutation run (mutmut on hpgraph/engine/program.py): checks nothing else made


@pytest.mark.parametrize("tol", [0, 0.0, 1e-6, {"x": 0.0}])
def test_tolerance_zero_and_positive_are_accepted(tol):
    class T(hp.VertexProgram):
        properties = {"x": "float64"}
        reduce = "min"
        tolerance = tol

        def gather(src, edge, dst):
            return src.x + edge

        def update(v, y):
            return min(v.x, y)

    assert T.tolerance == tol


@pytest.mark.parametrize("tol", [-1e-9, -1, float("inf"), float("nan"), {"x": -0.5}, {"x": float("inf")}])
def test_negative_or_infinite_tolerance_is_refused(tol):
    with pytest.raises(InvalidProgram, match="tolerance must be a finite number >= 0"):
        class T(hp.VertexProgram):
            properties = {"x": "float64"}
            reduce = "min"
            tolerance = tol

            def gather(src, edge, dst):
                return src.x + edge

            def update(v, y):
                return min(v.x, y)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.uint8])
@pytest.mark.parametrize("active", [None, [3, 0]])
@pytest.mark.parametrize("at_active", [5, "id"])
def test_seeded_materialize_gives_the_requested_dtype_and_values(dtype, active, at_active):
    s = hp.Seeded(7, at_active)
    a = s.materialize(np, 6, np.dtype(dtype), None if active is None else np.array(active))
    assert a.dtype == np.dtype(dtype) and a.shape == (6,)
    expected = np.full(6, 7, dtype=dtype)
    ids = np.arange(6) if active is None else np.array(active)
    expected[ids] = ids if at_active == "id" else at_active
    np.testing.assert_array_equal(a, expected)
