"""Triangle counting against networkx.triangles and a SciPy trace, both backends; the GPU
kernel's source is NVRTC-compiled here (no GPU needed)."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import _kernels, _triangles
from hpgraph.exceptions import InvalidValue


def host(a):
    return hp.backend.to_host(a)


@pytest.mark.cases(directed=False)
def test_triangles_match_networkx(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    t = host(hp.triangles(G, backend=backend_name))
    assert t.dtype == np.int64 and t.shape == (case.n,)
    H = cases.to_networkx(case)          # self-loops are in H; networkx ignores them too
    ref = np.array([nx.triangles(H)[i] for i in range(case.n)], dtype=np.int64)
    np.testing.assert_array_equal(t, ref)
    total = hp.triangle_count(G, backend=backend_name)
    assert type(total) is int and total == int(ref.sum()) // 3


@pytest.mark.cases(directed=False)
def test_triangles_keep_duplicates(graph_case, backend_name, cases):
    """Repeated entries (a graph built with duplicates='keep') do not change the counts."""
    case = graph_case
    G = cases.to_graph(case, "cpu", duplicates="keep")
    G = G.to_device() if backend_name == "gpu" else G
    H = cases.to_networkx(case)
    assert hp.triangle_count(G, backend=backend_name) == sum(nx.triangles(H).values()) // 3


@pytest.mark.cases(directed=True)
def test_triangles_reject_directed(graph_case, backend_name, cases):
    G = cases.to_graph(graph_case, backend_name)
    with pytest.raises(InvalidValue, match="symmetrize"):
        hp.triangle_count(G, backend=backend_name)
    with pytest.raises(InvalidValue):
        hp.triangles(G, backend=backend_name)


@pytest.mark.parametrize("scale,ef", [(9, 16), (11, 8)])
def test_triangle_count_rmat_trace(scale, ef, backend_name):
    G = hp.generators.rmat(scale, edge_factor=ef, seed=scale, backend="cpu")
    total, per_vertex = _trace_counts(G)
    assert hp.triangle_count(G, backend=backend_name) == total
    np.testing.assert_array_equal(host(hp.triangles(G, backend=backend_name)), per_vertex)


def _trace_counts(G):
    """(total, per vertex) triangles from SciPy: trace of (A A) .* A over the simple graph."""
    A = G.to_scipy().astype(np.int64)
    A.setdiag(0)
    A.eliminate_zeros()
    A.data[:] = 1
    C = (A @ A).multiply(A)
    return int(C.sum()) // 6, np.asarray(C.sum(axis=1)).ravel() // 2


def test_triangles_small_graphs(backend_name):
    K = hp.generators.complete(6, backend="cpu")
    assert hp.triangle_count(K, backend=backend_name) == 20
    np.testing.assert_array_equal(host(hp.triangles(K, backend=backend_name)), [10] * 6)
    for n in (0, 1, 2):
        G = hp.Graph.from_edges([], [], num_vertices=n, directed=False, backend="cpu")
        assert hp.triangle_count(G, backend=backend_name) == 0
        assert host(hp.triangles(G, backend=backend_name)).shape == (n,)
    # a hub with a long list against short ones (the binary-search path on the GPU)
    s = [0] * 200 + list(range(1, 200))
    d = list(range(1, 201)) + list(range(2, 201))
    G = hp.Graph.from_edges(s, d, num_vertices=201, directed=False, backend="cpu")
    H = nx.Graph(list(zip(s, d)))
    assert hp.triangle_count(G, backend=backend_name) == sum(nx.triangles(H).values()) // 3
    ref = nx.triangles(H)
    np.testing.assert_array_equal(host(hp.triangles(G, backend=backend_name)),
                                  [ref[i] for i in range(201)])


def test_triangles_inputs(backend_name):
    H = nx.gnp_random_graph(40, 0.3, seed=2)
    ref = sum(nx.triangles(H).values()) // 3
    assert hp.triangle_count(H, backend=backend_name) == ref
    assert hp.triangle_count(nx.to_scipy_sparse_array(H), backend=backend_name) == ref
    t = hp.triangles(H, backend=backend_name, to="numpy")
    assert isinstance(t, np.ndarray) and t.sum() == 3 * ref


@pytest.mark.parametrize("idx,ptr", [(np.int32, np.int64), (np.int64, np.int64),
                                     (np.int32, np.int32)])
def test_tc_kernel_compiles(idx, ptr):
    try:
        from hpgraph.backend import compile_ptx

        src, name = _kernels.tc_source(idx, ptr)
        ptx = compile_ptx(src, name + ".cu")
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert name in ptx


def test_oriented_structure_is_a_dag_with_each_edge_once():
    from hpgraph.algorithms._triangles import _oriented

    G = hp.generators.rmat(8, seed=1, backend="cpu")
    indptr, indices, erow = _oriented(G)
    A = G.to_scipy()
    assert indices.shape[0] * 2 == A.nnz - (A.diagonal() != 0).sum()
    deg = np.diff(A.indptr)
    r, c = erow.astype(np.int64), indices.astype(np.int64)
    assert np.all((deg[r] < deg[c]) | ((deg[r] == deg[c]) & (r < c)))
    for v in range(0, G.num_vertices, 17):  # rows sorted, distinct
        row = indices[indptr[v]:indptr[v + 1]]
        assert np.all(np.diff(row) > 0)


# -- the GPU kernels' logic, transcribed to Python (CI has no GPU) ------------------------------


def _emu_intersect(ind, a0, a1, b0, b1, pv, ratio):
    """Line-by-line transcription of ``intersect`` in hpgraph/algorithms/_kernels.py."""
    la, lb = a1 - a0, b1 - b0
    if la <= 0 or lb <= 0:
        return 0
    s0, s1, l0, l1 = a0, a1, b0, b1
    if la > lb:
        s0, s1, l0, l1 = b0, b1, a0, a1
        la, lb = lb, la
    if ind[s1 - 1] < ind[l0] or ind[l1 - 1] < ind[s0]:
        return 0
    c = 0
    if lb > ratio * la:
        lo = l0
        for i in range(s0, s1):
            key = ind[i]
            hi = l1
            while lo < hi:
                mid = lo + ((hi - lo) >> 1)
                if ind[mid] < key:
                    lo = mid + 1
                else:
                    hi = mid
            if lo >= l1:
                break
            if ind[lo] == key:
                c += 1
                pv[key] += 1
                lo += 1
    else:
        i, j = s0, l0
        x, y = ind[i], ind[j]
        while True:
            if x == y:
                c += 1
                pv[x] += 1
                i += 1
                if i >= s1:
                    break
                j += 1
                if j >= l1:
                    break
                x, y = ind[i], ind[j]
            elif x < y:
                i += 1
                if i >= s1:
                    break
                x = ind[i]
            else:
                j += 1
                if j >= l1:
                    break
                y = ind[j]
    return c


def _emu_tc(indptr, ind, erow, n, threshold, ratio):
    """Both kernels: thread per light edge, then warp per heavy edge (lanes in turn)."""
    pv = np.zeros(n, np.int64)
    total = 0
    heavy = _kernels.heavy_edges(indptr, ind, erow, threshold)
    for e in range(ind.size):                       # thread kernel
        u, v = int(erow[e]), int(ind[e])
        a0, a1, b0, b1 = indptr[u], indptr[u + 1], indptr[v], indptr[v + 1]
        if (a1 - a0) + (b1 - b0) <= threshold:
            c = _emu_intersect(ind, a0, a1, b0, b1, pv, ratio)
            pv[u] += c
            pv[v] += c
            total += c
    for e in heavy.tolist():                        # warp kernel
        u, v = int(erow[e]), int(ind[e])
        s0, s1, l0, l1 = indptr[u], indptr[u + 1], indptr[v], indptr[v + 1]
        if s1 - s0 > l1 - l0:
            s0, l0, s1, l1 = l0, s0, l1, s1
        ce = 0
        if s1 > s0 and l1 > l0:
            for lane in range(32):
                for i in range(s0 + lane, s1, 32):
                    key = ind[i]
                    lo, hi = l0, l1
                    while lo < hi:
                        mid = lo + ((hi - lo) >> 1)
                        if ind[mid] < key:
                            lo = mid + 1
                        else:
                            hi = mid
                    if lo < l1 and ind[lo] == key:
                        ce += 1
                        pv[key] += 1
        pv[u] += ce
        pv[v] += ce
        total += ce
    return total, pv


@pytest.mark.parametrize("threshold,ratio", [(10**9, 8), (0, 8), (12, 8), (12, 1), (10**9, 10**9)])
def test_kernel_logic_emulated(threshold, ratio):
    from hpgraph.algorithms._triangles import _oriented

    rng = np.random.default_rng(threshold % 97 + ratio)
    s = np.concatenate([rng.integers(0, 60, 500), np.zeros(50, np.int64)])   # a hub
    d = np.concatenate([rng.integers(0, 60, 500), rng.integers(1, 60, 50)])
    G = hp.Graph.from_edges(s, d, num_vertices=61, directed=False, backend="cpu")
    indptr, ind, erow = _oriented(G)
    total, pv = _emu_tc(indptr, ind, erow, 61, threshold, ratio)
    H = nx.Graph()
    H.add_nodes_from(range(61))
    H.add_edges_from((a, b) for a, b in zip(s.tolist(), d.tolist()) if a != b)
    ref = nx.triangles(H)
    assert total == sum(ref.values()) // 3
    np.testing.assert_array_equal(pv, [ref[i] for i in range(61)])


def test_function_names_survive_submodule_imports():
    """Importing ``hpgraph.algorithms.<module>`` first must not make ``hp.<name>`` the module."""
    import subprocess
    import sys

    code = ("import hpgraph.algorithms._triangles, hpgraph.algorithms._pagerank, "
            "hpgraph.algorithms._hits, hpgraph.algorithms._label_propagation, hpgraph.algorithms.kcore\n"
            "import hpgraph as hp, types\n"
            "for f in (hp.triangles, hp.triangle_count, hp.pagerank, hp.hits, hp.label_propagation, "
            "hp.k_core, hp.algorithms.triangles):\n"
            "    assert callable(f) and not isinstance(f, types.ModuleType), f\n"
            "from hpgraph.algorithms._triangles import simple_pairs\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("heavy,ratio", [(0, 16), (8, 1), (64, 10**9), (2048, 16)])
def test_triangle_kernels_every_split(hp_config, heavy, ratio, backend_name, monkeypatch):
    """Both GPU kernels (thread per light edge, warp per heavy edge) and both intersection
    strategies give the trace count, whatever the tuning constants send where."""
    hp_config(triangle_merge_heavy=heavy, triangle_kernel="merge")
    monkeypatch.setattr(_kernels, "TC_SEARCH_RATIO", ratio)
    G = hp.generators.rmat(10, edge_factor=16, seed=3, backend="cpu")
    total, per_vertex = _trace_counts(G)
    Gd = G.to_device() if backend_name == "gpu" else G
    assert hp.triangle_count(Gd, backend=backend_name) == total
    np.testing.assert_array_equal(host(hp.triangles(Gd, backend=backend_name)), per_vertex)


def test_auto_takes_merge_beyond_the_hash_kernels_offsets(monkeypatch):
    """``"auto"`` never picks the hash kernels for out-lists their 32-bit offsets cannot hold
    (they would refuse them): a complete graph (many wedges per edge) with a block size that
    makes its longest out-list too long."""
    from hpgraph.algorithms import _tc_hash

    G = hp.generators.complete(40, backend="cpu")     # 9,880 wedges on 780 edges
    assert _triangles.method(G) == "hash"
    monkeypatch.setattr(_tc_hash, "TCH_BLOCK", 2**31 // (39 + _tc_hash.TCH_ITEMS) + 1)
    assert _triangles.method(G) == "merge"
    assert hp.triangle_count(G, backend="cpu") == 40 * 39 * 38 // 6
