"""Fuzz the public API (CPU backend) with awkward and malformed arguments.

Edge arrays of every dtype (object, strings, bytes, datetimes, big-endian, bool, complex,
float16, NaN / inf), negative and huge ids, 2-D and ragged inputs, lists and scalars,
mismatched lengths, absurd ``num_vertices``; scipy matrices with broken arrays and hpgraph
formats built with ``check=False``; every algorithm with drawn parameters; the iterative
algorithms with an enormous ``max_iter`` and unreachable tolerances (no hang); ``mxv`` with
drawn semirings, vectors, masks and accumulators; writers with drawn paths and formats;
generators with drawn sizes.  Properties (see ``_harness``): typed errors only, caller
arrays unchanged, no call past the time bound.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import hpgraph as hp
from hpgraph.exceptions import HpgraphError

from tests.fuzz._harness import checked, fuzz_settings

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
          np.float32, np.float64, np.bool_, np.complex64, object, "U3", "S2", "datetime64[s]", ">i4", ">f8",
          "<u2"]
HUGE = [2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**62, 2**63 - 1, -2**63, 10**12, -1, -2**31]
SPECIAL_F = [np.nan, np.inf, -np.inf, -0.0, 1e308, 5e-324]


def _cast(vals, dtype):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.array(vals, dtype=np.float64 if any(isinstance(v, float) for v in vals) else np.int64
                            ).astype(dtype)
        except (ValueError, TypeError, OverflowError):
            return np.array(vals, dtype=object).astype(dtype) if dtype is object else np.array(
                [str(v) for v in vals]).astype("U8")


@st.composite
def arrays(draw, length, ids=True):
    """An argument standing for an array of ``length`` values (ids or weights), often awkward."""
    kind = draw(st.sampled_from(["np"] * 6 + ["list", "scalar", "none", "ragged", "2d", "wronglen",
                                               "strlist", "empty"]))
    elem = st.one_of(st.integers(-2, 9), st.integers(-2, 9), st.sampled_from(HUGE),
                     st.sampled_from(SPECIAL_F), st.floats(-5, 12, allow_nan=False))
    if not ids:
        elem = st.one_of(st.floats(-3, 10, allow_nan=False, width=32), st.integers(-3, 10),
                         st.sampled_from(SPECIAL_F))
    n = length if kind != "wronglen" else draw(st.integers(0, length + 3))
    vals = draw(st.lists(elem, min_size=n, max_size=n))
    if kind in ("np", "wronglen"):
        if ids and draw(st.integers(0, 3)):  # mostly plain small ints
            vals = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
        return _cast(vals, draw(st.sampled_from(DTYPES)))
    if kind == "list":
        return vals
    if kind == "scalar":
        return draw(st.sampled_from([0, 3, 1.5, "a", None, True, np.int64(2)]))
    if kind == "none":
        return None
    if kind == "ragged":
        return [[1, 2], [3]] + vals
    if kind == "2d":
        return np.zeros((max(length, 1), 2), dtype=draw(st.sampled_from([np.int64, np.float64])))
    if kind == "strlist":
        return [str(v) for v in vals]
    return np.array([], dtype=draw(st.sampled_from([np.float64, np.int32, object, "U1"])))


NUM_VERTICES = st.one_of(st.none(), st.integers(0, 12), st.sampled_from([10**12, 10**15, 2**62, 2**63, -1,
                                                                         3.0, "5", True, np.int32(9)]))


@st.composite
def edge_case(draw):
    m = draw(st.integers(0, 12))
    src = draw(arrays(m))
    dst = draw(arrays(m))
    w = draw(st.one_of(st.none(), arrays(m, ids=False)))
    kw = dict(num_vertices=draw(NUM_VERTICES),
              directed=draw(st.sampled_from([True, False, True, None, "yes", 1])),
              duplicates=draw(st.sampled_from(["min", "max", "sum", "first", "last", "keep", "mean", None])),
              backend=draw(st.sampled_from(["cpu", "cpu", None, "bogus"])))
    if draw(st.booleans()):
        kw["index_dtype"] = draw(st.sampled_from([None, "int32", "int64", "int8", np.float64, 5]))
    return src, dst, w, kw


def small_graph(draw):
    n = draw(st.integers(0, 9))
    m = draw(st.integers(0, 20)) if n else 0
    src = np.array(draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m)), dtype=np.int64)
    dst = np.array(draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m)), dtype=np.int64)
    wkind = draw(st.sampled_from(["none", "int", "float", "neg", "zero"]))
    if wkind == "none":
        w = None
    elif wkind == "int":
        w = np.array(draw(st.lists(st.integers(0, 9), min_size=m, max_size=m)), dtype=np.int32)
    elif wkind == "neg":
        w = np.array(draw(st.lists(st.integers(-4, 9), min_size=m, max_size=m)), dtype=np.float64)
    elif wkind == "zero":
        w = np.zeros(m, dtype=np.float32)
    else:
        w = np.array(draw(st.lists(st.floats(0, 10), min_size=m, max_size=m)), dtype=np.float64)
    return hp.Graph.from_edges(src, dst, w, num_vertices=n, directed=draw(st.booleans()), backend="cpu")


SCALARS = st.one_of(st.integers(-3, 12), st.sampled_from([0, 1, 2, -1, 10**12, 1.5, np.nan, np.inf, "0", None,
                                                          True, np.int64(1), 2**63]),
                    st.floats(-2, 2, allow_nan=False))
VERTEX = st.one_of(st.integers(-2, 10), st.sampled_from([np.int64(0), 0.0, "0", None, 10**12, [0, 1],
                                                         np.array([0]), np.array([1, 0]), True]))


@st.composite
def algorithm_case(draw):
    G = small_graph(draw)
    name = draw(st.sampled_from(["bfs", "sssp", "widest_path", "pagerank", "hits", "triangle_count",
                                 "triangles", "connected_components", "k_core", "label_propagation",
                                 "betweenness_centrality"]))
    args, kw = [], {"backend": draw(st.sampled_from(["cpu", "cpu", "cpu", "bogus"]))}
    n = G.num_vertices
    if name in ("bfs", "sssp", "widest_path"):
        args.append(draw(VERTEX))
        if name == "bfs":
            kw["direction"] = draw(st.sampled_from(["auto", "push", "pull", "sideways"]))
        if name == "sssp":
            kw["method"] = draw(st.sampled_from(["auto", "dijkstra", "bellman-ford", "delta", "nope"]))
            if draw(st.booleans()):
                kw["delta"] = draw(SCALARS)
    elif name == "pagerank":
        kw.update(damping=draw(st.one_of(st.floats(0, 1), SCALARS)), tol=draw(st.one_of(st.just(1e-6), SCALARS)),
                  max_iter=draw(st.one_of(st.integers(0, 30), SCALARS)))
        if draw(st.booleans()):
            kw["personalization"] = draw(st.one_of(arrays(n, ids=False), st.dictionaries(st.integers(-1, n + 1),
                                                                                        st.floats(-1, 2))))
        if draw(st.booleans()):
            kw["nstart"] = draw(arrays(n, ids=False))
        kw["weighted"] = draw(st.booleans())
        kw["dtype"] = draw(st.sampled_from([np.float64, np.float32, np.int32, "float16"]))
    elif name == "hits":
        kw.update(max_iter=draw(st.one_of(st.integers(0, 30), SCALARS)), tol=draw(st.one_of(st.just(1e-8), SCALARS)),
                  normalized=draw(st.booleans()), weighted=draw(st.booleans()))
        if draw(st.booleans()):
            kw["nstart"] = draw(arrays(n, ids=False))
    elif name == "label_propagation":
        kw.update(max_iter=draw(st.one_of(st.integers(0, 30), SCALARS)), seed=draw(st.one_of(st.none(), SCALARS)),
                  mode=draw(st.sampled_from(["semi-synchronous", "synchronous", "asynchronous", "x"])))
    elif name == "betweenness_centrality":
        kw.update(k=draw(st.one_of(st.none(), SCALARS)), seed=draw(st.one_of(st.none(), st.integers(0, 5))),
                  normalized=draw(st.booleans()), endpoints=draw(st.booleans()),
                  weight=draw(st.sampled_from([None, "weight", "x"])))
    return G, name, args, kw


HUGE_ITERS = st.sampled_from([2**63, 2**63 - 1, 2**64, 10**30, 10**400, np.uint64(2**64 - 1),
                               np.int64(2**63 - 1), -2**63, 2.0**63])


@st.composite
def iteration_case(draw):
    """An iterative algorithm with an enormous max_iter and a tolerance it may never meet:
    every call must end within the call limit (a fixed point, a stall or a typed error),
    with no allocation sized by max_iter."""
    G = small_graph(draw)
    name = draw(st.sampled_from(["pagerank", "hits", "eigenvector_centrality", "katz_centrality",
                                 "label_propagation"]))
    kw = {"max_iter": draw(HUGE_ITERS), "backend": "cpu"}
    if name != "label_propagation":
        kw["tol"] = draw(st.sampled_from([0, 0.0, 5e-324, 1e-300, 1e-12, 1e-6]))
    if name == "pagerank":
        kw.update(damping=draw(st.sampled_from([0.0, 0.5, 0.85, 0.999, 1.0])),
                  variant=draw(st.sampled_from(["power", "networkx", "hpgraph"])),
                  dtype=draw(st.sampled_from([np.float64, np.float32])))
        if draw(st.booleans()):
            kw["nstart"] = draw(arrays(G.num_vertices, ids=False))
    elif name == "katz_centrality":
        kw["alpha"] = draw(st.sampled_from([0.01, 0.1, 0.5, 1.0]))
    elif name == "label_propagation":
        kw["mode"] = draw(st.sampled_from(["semi-synchronous", "synchronous"]))
    return G, name, [], kw


SEMIRINGS = ["plus_times", "min_plus", "max_times", "lor_land", "any_pair", "plus_times[float64]",
             "min_plus[int32]", "max_min[bool]", "plus_first", "bogus", "plus_times[complex64]", "", 3]


@st.composite
def mxv_case(draw):
    G = small_graph(draw)
    n = G.num_vertices
    x = draw(st.one_of(arrays(n, ids=False), arrays(n + 1, ids=False)))
    kw = {"backend": draw(st.sampled_from(["cpu", "cpu", "bogus"]))}
    if draw(st.booleans()):
        kw["mask"] = draw(st.one_of(arrays(n, ids=False), st.just(np.ones(n, dtype=bool))))
        kw["complement"] = draw(st.booleans())
        kw["replace"] = draw(st.booleans())
    if draw(st.booleans()):
        kw["accum"] = draw(st.sampled_from(["plus", "min", "max", "bogus", None, "times"]))
    if draw(st.booleans()):
        kw["out"] = draw(arrays(n, ids=False))
    if draw(st.booleans()):
        kw["format"] = draw(st.sampled_from(["csr", "hyb", "ell", "coo", "bogus"]))
    return G, x, draw(st.sampled_from(SEMIRINGS)), kw


@st.composite
def matrix_case(draw):
    kind = draw(st.sampled_from(["scipy_csr", "scipy_coo", "hp_csr", "hp_coo", "dense", "other"]))
    nr = draw(st.integers(0, 6))
    nc = draw(st.sampled_from([nr, nr, nr + 1]))
    nnz = draw(st.integers(0, 8))
    indices = draw(arrays(nnz))
    values = draw(st.one_of(st.none(), arrays(nnz, ids=False)))
    indptr = draw(st.one_of(st.just(np.sort(np.array(draw(st.lists(st.integers(0, nnz), min_size=nr + 1,
                                                                   max_size=nr + 1)), dtype=np.int64))),
                            arrays(nr + 1)))
    directed = draw(st.sampled_from([None, True, False]))
    return kind, nr, nc, indptr, indices, values, directed


def _scipy_input(kind, nr, nc, indptr, indices, values):
    """A scipy matrix whose arrays are then overwritten with the drawn (possibly broken) ones,
    as a caller mutating ``A.indptr`` after construction would; None if scipy refuses them."""
    try:
        ind = np.asarray(indices, dtype=np.int64).ravel()
        A = sp.csr_array((np.ones(ind.size), ind % max(nc, 1), np.r_[0, np.full(nr, ind.size)].astype(np.int64)),
                         shape=(nr, nc)) if kind == "scipy_csr" else sp.coo_array(
            (np.ones(ind.size), (ind % max(nr, 1), ind % max(nc, 1))), shape=(nr, nc))
    except (ValueError, TypeError, OverflowError):
        return None
    if kind == "scipy_csr":
        try:
            A.indices = ind
            ip = np.asarray(indptr)
            if ip.dtype.kind in "iu" and ip.ndim == 1:
                A.indptr = ip.astype(np.int64)
        except (ValueError, TypeError):
            return None
    else:
        A.row = ind
    return A


def _build_matrix(kind, A, nr, nc, indptr, indices, values, directed):
    if kind.startswith("scipy"):
        return hp.Graph(A, directed=directed)
    if kind == "hp_csr":
        return hp.Graph(hp.CSR(indptr, indices, values, shape=(nr, nc)), directed=directed)
    if kind == "hp_coo":
        return hp.Graph(hp.COO(indices, indices, values, shape=(nr, nc), check=False), directed=directed)
    if kind == "dense":
        return hp.Graph(np.ones((nr, nc)), directed=directed)
    return hp.Graph(indices, directed=directed)


def _run_algorithm(G, name, args, kw):
    return getattr(hp, name)(G, *args, **kw)


@fuzz_settings(700)
@given(edge_case())
def test_fuzz_from_edges(case):
    src, dst, w, kw = case
    ok, G = checked(f"from_edges({kw})", hp.Graph.from_edges, src, dst, w, **kw)
    if ok:
        assert G.num_vertices >= 0 and G.num_edges >= 0


@fuzz_settings(500)
@given(algorithm_case())
def test_fuzz_algorithms(case):
    G, name, args, kw = case
    checked(f"{name}({G!r}, {args}, {kw})", _run_algorithm, G, name, args, kw)


@fuzz_settings(200)
@given(iteration_case())
def test_fuzz_huge_max_iter(case):
    G, name, args, kw = case
    checked(f"{name}({G!r}, {kw})", _run_algorithm, G, name, args, kw)


@fuzz_settings(400)
@given(mxv_case())
def test_fuzz_mxv(case):
    G, x, semiring, kw = case
    checked(f"mxv({G!r}, x={x!r}, {semiring!r}, {kw})", hp.mxv, G, x, semiring, **kw)


@fuzz_settings(400)
@given(matrix_case())
def test_fuzz_matrices(case):
    kind, nr, nc, indptr, indices, values, directed = case
    A = _scipy_input(kind, nr, nc, indptr, indices, values) if kind.startswith("scipy") else None
    if kind.startswith("scipy") and A is None:
        return
    ok, G = checked(f"matrix{case[:3]}", _build_matrix, kind, A, nr, nc, indptr, indices, values, directed)
    if ok:  # a graph that was accepted must be usable
        checked(f"pagerank(matrix{case[:3]})", hp.pagerank, G, max_iter=5, tol=1.0, backend="cpu")
        checked(f"connected_components(matrix{case[:3]})", hp.connected_components, G, backend="cpu")


@fuzz_settings(150)
@given(st.data())
def test_fuzz_write(tmp_path_factory, data):
    tmp = tmp_path_factory.getbasetemp()
    G = small_graph(data.draw)
    name = data.draw(st.sampled_from(["g.mtx", "g.el", "g.gr", "g.lg", "g.npz", "g.mtx.gz", "g.xyz", "",
                                      "nodir/g.el", ".", "g.csv.bz2"]))
    fmt = data.draw(st.sampled_from([None, None, "mtx", "bogus", "npz"]))
    comment = data.draw(st.sampled_from([None, "a\nb", "%%MatrixMarket", "\x00"]))
    checked(f"write({name}, {fmt})", hp.write, G, tmp / name, format=fmt, comment=comment)


@fuzz_settings(150)
@given(st.sampled_from(["erdos_renyi", "rmat", "grid_2d"]), st.data())
def test_fuzz_generators(name, data):
    sizes = st.one_of(st.integers(-2, 12), st.sampled_from([10**12, 2**62, 1.5, "4", None, 40, 64]))
    if name == "erdos_renyi":
        args = (data.draw(sizes),)
        kw = dict(m=data.draw(st.one_of(st.none(), sizes)), p=data.draw(st.one_of(st.none(), SCALARS)))
    elif name == "rmat":
        args = (data.draw(sizes),)
        kw = dict(edge_factor=data.draw(sizes), a=data.draw(st.one_of(st.just(0.57), SCALARS)))
    else:
        args = (data.draw(sizes), data.draw(sizes))
        kw = {}
    kw["seed"] = data.draw(st.one_of(st.none(), st.integers(0, 3), st.just("x")))
    kw["backend"] = "cpu"
    checked(f"{name}{args} {kw}", getattr(hp.generators, name), *args, **kw)


@pytest.mark.gpu
@fuzz_settings(400)
@given(edge_case())
def test_fuzz_from_edges_gpu(case):
    """The same cases built on the device: dtype checks must run before CuPy sees the arrays,
    and absurd sizes must give DeviceOutOfMemory / HostOutOfMemory, not CuPy's errors."""
    src, dst, w, kw = case
    kw = dict(kw, backend="gpu")
    checked(f"from_edges({kw})", hp.Graph.from_edges, src, dst, w, **kw)


@pytest.mark.gpu
@fuzz_settings(300)
@given(algorithm_case())
def test_fuzz_algorithms_gpu(case):
    G, name, args, kw = case
    kw = dict(kw, backend="gpu" if kw["backend"] == "cpu" else kw["backend"])
    checked(f"{name}(gpu, {G!r}, {args}, {kw})", _run_algorithm, G, name, args, kw)


@pytest.fixture(scope="module")
def gpu_iterations_compiled():
    """Each iterative algorithm once on a small device graph, so that the call limit of the
    cases below measures iterations, not the first call's kernel compiles (which take
    seconds when many test workers compile on one host at once)."""
    G = hp.Graph.from_edges(np.array([0, 1, 2, 3, 1]), np.array([1, 2, 0, 1, 4]), num_vertices=6)
    for name, kw in [("pagerank", {"dtype": np.float64}), ("pagerank", {"dtype": np.float32}),
                     ("hits", {}), ("eigenvector_centrality", {}), ("katz_centrality", {}),
                     ("label_propagation", {"mode": "semi-synchronous"}),
                     ("label_propagation", {"mode": "synchronous"})]:
        try:
            getattr(hp, name)(G, backend="gpu", **kw)
        except HpgraphError:
            pass


@pytest.mark.gpu
@fuzz_settings(150)
@given(iteration_case())
def test_fuzz_huge_max_iter_gpu(gpu_iterations_compiled, case):
    """On the device: the PageRank loop keeps a fixed ring of per-iteration scalars."""
    G, name, args, kw = case
    kw = dict(kw, backend="gpu")
    checked(f"{name}(gpu, {G!r}, {kw})", _run_algorithm, G, name, args, kw)


@pytest.mark.parametrize("n", [10**12, 10**15, 2**62])
def test_absurd_num_vertices_is_typed(n):
    with pytest.raises(hp.exceptions.HostOutOfMemory, match="needs at least"):
        hp.Graph.from_edges([0], [1], num_vertices=n, backend="cpu")
