"""BFS against scipy.sparse.csgraph on the shared random graphs, on both backends."""

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.exceptions import IndexOutOfBound, InvalidValue


def reference_depth(cases, case, sources):
    A = cases.to_scipy(case)
    d = csg.shortest_path(A, directed=True, unweighted=True, indices=np.atleast_1d(sources))
    d = d.min(axis=0)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def check_bfs(cases, case, res, sources):
    depth, parent = cases.host(res.depth), cases.host(res.parent)
    n = case.n
    assert depth.dtype == np.int32 and depth.shape == (n,)
    assert parent.dtype in (np.int32, np.int64) and parent.shape == (n,)
    ref = reference_depth(cases, case, sources)
    np.testing.assert_array_equal(depth, ref)
    src = np.unique(sources)
    np.testing.assert_array_equal(parent[src], src)
    assert np.array_equal(parent == -1, depth == -1)
    others = np.flatnonzero(depth > 0)
    p = parent[others].astype(np.int64)
    np.testing.assert_array_equal(depth[p], depth[others] - 1)
    s, d, _ = cases.directed_edges(case)
    assert np.isin(p * n + others, s * n + d).all(), "parent -> v is not an edge"


def pick_sources(case, k=2):
    rng = np.random.default_rng(case.n)
    return [0] + sorted(rng.integers(0, case.n, k - 1).tolist())


def test_bfs_matches_scipy(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    if case.n == 0:
        with pytest.raises(IndexOutOfBound):
            hp.bfs(G, 0, backend=backend_name)
        return
    for s in set(pick_sources(case, 3)):
        res = hp.bfs(G, s, backend=backend_name)
        check_bfs(cases, case, res, [s])


@pytest.mark.cases(min_n=2)
def test_bfs_directions_agree(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    s = pick_sources(case, 2)[-1]
    results = {d: hp.bfs(G, s, direction=d, backend=backend_name) for d in ("push", "pull", "auto")}
    for d, res in results.items():
        check_bfs(cases, case, res, [s])
    np.testing.assert_array_equal(cases.host(results["push"].depth), cases.host(results["pull"].depth))


@pytest.mark.cases(min_n=3)
def test_bfs_multi_source(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    srcs = pick_sources(case, 4)
    for d in ("auto", "pull", "push"):
        res = hp.bfs(G, srcs, direction=d, backend=backend_name)
        check_bfs(cases, case, res, srcs)


def test_bfs_switches_direction_on_rmat(cases):
    from hpgraph.algorithms._bfs import bfs_arrays

    case = [c for c in cases.graph_cases() if c.name == "rmat-medium-s9-u"][0]
    G = cases.to_graph(case)
    deg = np.asarray(G.out_degree)
    s = int(np.argmax(deg))
    depth, parent, dirs = bfs_arrays(G, np.array([s]), direction="auto")
    assert "pull" in dirs and dirs[0] == "push", dirs
    ref = reference_depth(cases, case, [s])
    np.testing.assert_array_equal(depth, ref)


def test_bfs_grid_stays_top_down_mostly(cases):
    from hpgraph.algorithms._bfs import bfs_arrays

    G = hp.generators.grid_2d(40, 40, backend="cpu")
    depth, parent, dirs = bfs_arrays(G, np.array([0]), direction="auto")
    assert int(depth.max()) == 78
    assert dirs.count("push") > len(dirs) // 2


def test_bfs_path_depths(backend_name):
    G = hp.Graph.from_edges(np.arange(9), np.arange(1, 10), num_vertices=10, directed=True)
    res = hp.bfs(G, 3, backend=backend_name, to="numpy")
    np.testing.assert_array_equal(res.depth, [-1, -1, -1, 0, 1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(res.parent, [-1, -1, -1, 3, 3, 4, 5, 6, 7, 8])
    depth, parent = res  # a NamedTuple
    assert isinstance(res, hp.algorithms.BFSResult)


def test_bfs_bad_input():
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3)
    with pytest.raises(IndexOutOfBound):
        hp.bfs(G, 3, backend="cpu")
    with pytest.raises(IndexOutOfBound):
        hp.bfs(G, -1, backend="cpu")
    with pytest.raises(IndexOutOfBound):
        hp.bfs(G, [0, 5], backend="cpu")
    with pytest.raises(InvalidValue):
        hp.bfs(G, [], backend="cpu")
    with pytest.raises(InvalidValue):
        hp.bfs(G, 0.5, backend="cpu")
    with pytest.raises(InvalidValue):
        hp.bfs(G, 0, direction="sideways", backend="cpu")
    with pytest.raises(InvalidValue):
        hp.bfs(G, 0, backend="cpu", to="torch")
    with pytest.raises(InvalidValue):
        hp.bfs(G, 0, backend="tpu")


def test_bfs_accepts_scipy_and_networkx(cases):
    case = [c for c in cases.graph_cases() if c.name.startswith("components-1")][0]
    ref = reference_depth(cases, case, [0])
    r1 = hp.bfs(cases.to_scipy(case), 0, backend="cpu")
    np.testing.assert_array_equal(r1.depth, ref)
    r2 = hp.bfs(cases.to_networkx(case), 0, backend="cpu")
    np.testing.assert_array_equal(r2.depth, ref)


def test_bfs_does_not_modify_input(cases):
    case = cases.graph_cases(min_n=50)[0]
    G = cases.to_graph(case)
    before = (G.A.indptr.copy(), G.A.indices.copy())
    hp.bfs(G, 0, backend="cpu")
    np.testing.assert_array_equal(G.A.indptr, before[0])
    np.testing.assert_array_equal(G.A.indices, before[1])


@pytest.mark.gpu
def test_bfs_result_side_follows_input(cases):
    import cupy

    case = [c for c in cases.graph_cases() if c.name == "rmat-medium-s9-u"][0]
    Gh = cases.to_graph(case, "cpu")
    Gd = cases.to_graph(case, "gpu")
    rd = hp.bfs(Gd, 0)
    assert isinstance(rd.depth, cupy.ndarray) and isinstance(rd.parent, cupy.ndarray)
    rh = hp.bfs(Gh, 0, backend="gpu")
    assert isinstance(rh.depth, np.ndarray)
    assert isinstance(hp.bfs(Gd, 0, to="numpy").depth, np.ndarray)
    assert isinstance(hp.bfs(Gh, 0, backend="gpu", to="cupy").depth, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(rd.depth), rh.depth)


# The GPU runs BFS as a vertex program (hpgraph.algorithms._bfs.bfs_engine); the engine's CPU
# path runs the same program, so CI checks its logic on every graph case.
def test_bfs_engine_program_on_cpu(graph_case, cases):
    from hpgraph.algorithms._bfs import BFSResult, bfs_engine

    case = graph_case
    if case.n == 0:
        return
    G = cases.to_graph(case, "cpu")
    sources = pick_sources(case, 3)
    for d in ("auto", "push", "pull"):
        depth, parent = bfs_engine(G, np.array(sources), direction=d, side="cpu")
        check_bfs(cases, case, BFSResult(depth, parent), sources)


def test_bfs_engine_program_compiles():
    """NVRTC compiles the BFS programs' generated kernels (no GPU needed)."""
    from hpgraph import backend, program
    from hpgraph.algorithms._bfs import _BFS_ANY, _BFSKeys
    from hpgraph.engine import codegen

    pytest.importorskip("cupy_backends.cuda.libs.nvrtc")
    G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend="cpu")
    n = G.num_vertices
    bp = program.bind(_BFSKeys, G, dict(key=np.full(n, -1, np.int64), vid=np.arange(n, dtype=np.int64),
                                        parent=np.full(n, -1, np.int64), active=np.array([0])))
    ptx = backend.compile_ptx(codegen.program_source(bp, np.dtype(np.int32)), "bfs_keys.cu")
    for k in codegen.KERNELS:
        assert k in ptx
    for idt, prog in _BFS_ANY.items():
        bp = program.bind(prog, G, dict(active=np.array([0])))
        src = codegen.program_source(bp, idt)
        assert "#define HP_ANY 1" in src and "#define HP_HAS_MASK 1" in src
        ptx = backend.compile_ptx(src, "bfs_any.cu")
        for k in codegen.KERNELS:
            assert k in ptx


def _random_graph(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    m = int(rng.integers(0, 6 * n + 1))
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    k = min(m, 5)
    s[:k] = d[:k]                                  # self-loops
    if m > 20:
        s[10:15], d[10:15] = s[15:20], d[15:20]    # duplicate edges
    directed = bool(rng.integers(0, 2))
    extra = int(rng.integers(0, 4))                # isolated vertices
    return n + extra, s, d, directed


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_bfs_random_graphs_depths_and_parents(backend_name, direction, cases):
    """Many random graphs: depths equal scipy.sparse.csgraph; parents are valid (at depth - 1,
    along an existing edge) -- the GPU program may pick any frontier in-neighbour."""
    import scipy.sparse as sp

    for seed in range(40):
        n, s, d, directed = _random_graph(seed)
        G = hp.Graph.from_edges(s, d, num_vertices=n, directed=directed)
        A = sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)).tocsr()
        if not directed:
            A = (A + A.T).tocsr()
        srcs = sorted(set(np.random.default_rng(seed).integers(0, n, 1 + seed % 3).tolist()))
        Gb = G.to_device() if backend_name == "gpu" else G
        results = [hp.bfs(Gb, srcs, direction=direction, backend=backend_name)]
        if backend_name == "cpu":   # the engine program (the GPU path) on the CPU engine
            from hpgraph.algorithms._bfs import BFSResult, bfs_engine

            results.append(BFSResult(*bfs_engine(G, np.array(srcs), direction=direction,
                                                 side="cpu")))
        for res in results:
            cases.check_bfs_matrix(res, A, n, srcs)


@pytest.mark.gpu
def test_bfs_gpu_repeated_calls_fresh_results(cases):
    """The engine keeps run buffers per graph: every call's result is SciPy's BFS from its own
    source, and stays so after later calls (they do not overwrite earlier results)."""
    G = hp.generators.rmat(12, seed=3, backend="gpu")
    A = G.to_scipy()
    n = G.num_vertices
    srcs = (0, 1, 0, 5)
    r = [hp.bfs(G, s) for s in srcs]
    for x, s in zip(r, srcs):  # checked after all four calls
        cases.check_bfs_matrix(x, A, n, [s])
    assert r[0].depth.data.ptr != r[2].depth.data.ptr


@pytest.mark.parametrize("nsrc", [1, 3, 12], ids=["1src", "3src", "12src"])
def test_bfs_engine_setup(backend_name, nsrc, cases):
    """hp.bfs's engine path (Seeded depth/parent, inline frontier up to 8 sources, only
    depth/parent copied out), repeated sources included, on random graphs (CPU: the CPU
    engine runs the same program and arguments)."""
    import scipy.sparse as sp

    from hpgraph.algorithms._bfs import BFSResult, bfs_engine
    for seed in range(12):
        n, s, d, directed = _random_graph(100 + seed)
        G = hp.Graph.from_edges(s, d, num_vertices=n, directed=directed)
        A = sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)).tocsr()
        if not directed:
            A = (A + A.T).tocsr()
        rng = np.random.default_rng(seed)
        raw = rng.integers(0, n, nsrc)
        srcs = sorted(set(raw.tolist()))
        Gb = G.to_device() if backend_name == "gpu" else G
        for _ in range(2):
            res = BFSResult(*bfs_engine(Gb, raw.astype(np.int64), side=backend_name))
            cases.check_bfs_matrix(res, A, n, srcs)
