"""The 64-source betweenness sweeps of ``hpgraph.algorithms._betweenness_gpu`` against
networkx: compiled by NVRTC, executed on the host through the CUDA emulator of the graphblas
tests (CI has no GPU), and run on the device."""

import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import _betweenness_gpu as bgpu
from hpgraph.algorithms.betweenness import _unique_pattern

nx = pytest.importorskip("networkx")


def raw_sums(H, n, endpoints, sources=None):
    """networkx's sums of dependencies before ``_rescale`` (its unnormalized betweenness times
    the undirected correction 2), over ``sources`` (default: every vertex)."""
    from networkx.algorithms.centrality.betweenness import (
        _accumulate_basic, _accumulate_endpoints, _single_source_shortest_path_basic)

    bc = dict.fromkeys(H, 0.0)
    for s in (range(n) if sources is None else sources):
        S, P, sigma, _ = _single_source_shortest_path_basic(H, s)
        acc = _accumulate_endpoints if endpoints else _accumulate_basic
        bc, _ = acc(bc, S, P, sigma, s)
    return np.array([bc[v] for v in range(n)], dtype=np.float64)


def _emulated(monkeypatch):
    emu = pytest.importorskip("tests.graphblas._cuda_emu")
    if not emu.available():
        pytest.skip("g++ is needed to emulate the kernels")
    monkeypatch.setattr(bgpu._backend, "cupy", lambda: np)
    monkeypatch.setattr(bgpu._backend, "raw_module", lambda src, options=(): emu.Module(src))


def _sweeps(G, sources, endpoints, chunk, level_bytes=None):
    A, AT = _unique_pattern(G)
    bc = np.zeros(G.num_vertices, dtype=np.float64)
    out = None
    for i in range(0, len(sources), bgpu.WIDTH):
        out = bgpu.accumulate(A, AT, np.asarray(sources[i:i + bgpu.WIDTH]), bc, endpoints,
                              chunk=chunk, level_bytes=level_bytes)
        if out is None:
            return None
    return bc if out is None else out


@pytest.mark.parametrize("idx,ptr", [(np.int32, np.int32), (np.int32, np.int64),
                                     (np.int64, np.int64)])
def test_sweep_kernels_compile(idx, ptr):
    from hpgraph.exceptions import DeviceUnavailable

    try:
        ptx = hp.backend.compile_ptx(bgpu.brandes_source(np.dtype(idx), np.dtype(ptr)),
                                     "brandes.cu", options=("-std=c++17",))
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
    for name in ("bc_forward", "bc_backward", "bc_finish"):
        assert f".entry {name}" in ptx


# every vertex a source: one sweep (n <= 64) or two (n = 80, the second one narrower); chunks
# of 4 entries split every row of degree > 4 over several warps
EMULATED = [("star-undirected", False), ("star-directed-inward", True), ("grid-5x6", True),
            ("er-1-n40-m120-d", False), ("er-7-n80-m160-u", True), ("components-1-d", False),
            ("loops-dups-u", True), ("two-isolated", False), ("one-vertex-loop", True)]


@pytest.mark.parametrize("name,endpoints", EMULATED)
def test_sweeps_emulated_match_networkx(name, endpoints, cases, monkeypatch):
    _emulated(monkeypatch)
    case = [c for c in cases.graph_cases() if c.name == name][0]
    G = cases.to_graph(case, "cpu", duplicates="keep")
    got = _sweeps(G, list(range(case.n)), endpoints, chunk=4)
    ref = raw_sums(cases.to_networkx(case), case.n, endpoints)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["star-undirected", "er-1-n40-m120-d", "loops-dups-u"])
def test_edge_sweeps_emulated_match_networkx(name, cases, monkeypatch):
    """Each stored entry's carried dependencies (networkx's _accumulate_edges), every vertex a
    source, rows split in chunks of 4; an undirected edge sums its two entries."""
    _emulated(monkeypatch)
    case = [c for c in cases.graph_cases() if c.name == name][0]
    G = cases.to_graph(case, "cpu", duplicates="keep")
    A, AT = _unique_pattern(G)
    edge = np.zeros(A.nnz)
    bc = np.zeros(case.n)
    for i in range(0, case.n, bgpu.WIDTH):
        bgpu.accumulate(A, AT, np.arange(i, min(case.n, i + bgpu.WIDTH)), bc, False, edge=edge,
                        chunk=4)
    rows, cols = A.row_ids(), A.indices
    got = {}
    for r, c, x in zip(rows.tolist(), cols.tolist(), edge.tolist()):
        if r != c:
            key = (r, c) if G.directed else (min(r, c), max(r, c))
            got[key] = got.get(key, 0.0) + x
    H = cases.to_networkx(case)
    ref = nx.edge_betweenness_centrality(H, normalized=False)
    factor = 1.0 if G.directed else 2.0
    want = {((u, v) if G.directed else (min(u, v), max(u, v))): factor * x
            for (u, v), x in ref.items() if u != v}
    assert set(got) == set(want)
    for key, x in want.items():
        assert got[key] == pytest.approx(x, rel=1e-12, abs=1e-12), key


def test_sweeps_emulated_sampled_sources_and_one_chunk_rows(cases, monkeypatch):
    _emulated(monkeypatch)
    case = [c for c in cases.graph_cases() if c.name == "rmat-5-s7-e4-d"][0]
    G = cases.to_graph(case, "cpu")
    sources = [3, 100, 7, 64, 0, 127, 45]
    got = _sweeps(G, sources, False, chunk=bgpu.CHUNK)
    ref = raw_sums(cases.to_networkx(case), case.n, False, sources)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_sweeps_emulated_deep_search_gives_way(monkeypatch):
    _emulated(monkeypatch)
    G = hp.generators.path(40, backend="cpu")
    bc = np.zeros(40)
    A, AT = _unique_pattern(G)
    # 40 levels of 40 words need 12,800 bytes: refused, bc untouched
    assert bgpu.accumulate(A, AT, np.array([0]), bc, False, level_bytes=40 * 8 * 10) is None
    assert not bc.any()
    got = bgpu.accumulate(A, AT, np.array([0]), bc, False, level_bytes=40 * 8 * 41)
    np.testing.assert_allclose(got, np.arange(40)[::-1] - 0.0 - (np.arange(40) == 0) * 39)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("endpoints", [False, True])
def test_sweeps_gpu_split_rows_match_networkx(directed, endpoints):
    """Hubs longer than the chunk (split over warps, finished through the atomics) in a graph
    with more than 64 vertices (two sweeps, the second narrower)."""
    rng = np.random.default_rng(7)
    n = 1500
    hub_u = np.zeros(1200, dtype=np.int64)
    hub_v = rng.choice(np.arange(1, n), 1200, replace=False)
    u = np.concatenate([hub_u, rng.integers(0, n, 3000), [5, 5]])
    v = np.concatenate([hub_v, rng.integers(0, n, 3000), [5, 9]])      # a self-loop too
    G = hp.Graph.from_edges(u, v, num_vertices=n, directed=directed, backend="gpu")
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from(zip(u.tolist(), v.tolist()))
    sources = [0, 5] + list(range(100, 170))
    got = hp.betweenness_centrality(G, k=None, endpoints=endpoints, normalized=False,
                                    backend="gpu")
    ref = nx.betweenness_centrality(H, endpoints=endpoints, normalized=False)
    np.testing.assert_allclose(got.get(), [ref[i] for i in range(n)], rtol=1e-9, atol=1e-9)
    # a sample: sources in two sweeps
    A, AT = _unique_pattern(G)
    import cupy

    bc = cupy.zeros(n, dtype=np.float64)
    for i in range(0, len(sources), 64):
        bgpu.accumulate(A, AT, np.array(sources[i:i + 64]), bc, endpoints, chunk=64)
    np.testing.assert_allclose(bc.get(), raw_sums(H, n, endpoints, sources), rtol=1e-9,
                               atol=1e-9)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_edge_betweenness_gpu_sweeps_match_networkx(directed):
    """hp.edge_betweenness_centrality through the sweeps: hubs split over warps, two sweeps."""
    rng = np.random.default_rng(11)
    n = 900
    u = np.concatenate([np.zeros(700, dtype=np.int64), rng.integers(0, n, 1500)])
    v = np.concatenate([rng.choice(np.arange(1, n), 700, replace=False),
                        rng.integers(0, n, 1500)])
    G = hp.Graph.from_edges(u, v, num_vertices=n, directed=directed, backend="gpu")
    H = nx.DiGraph() if directed else nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from(zip(u.tolist(), v.tolist()))
    for k in (None, 70):
        got = hp.edge_betweenness_centrality(G, k=k, seed=3, backend="gpu")
        ref = nx.edge_betweenness_centrality(H, k=k, seed=3)
        s, t, x = (a.get() for a in got)
        mine = {(int(a), int(b)): float(c) for a, b, c in zip(s, t, x)}
        for (a, b), val in ref.items():
            key = (a, b) if directed or (a, b) in mine else (b, a)
            assert mine[key] == pytest.approx(val, rel=1e-9, abs=1e-12)


@pytest.mark.gpu
def test_sweeps_gpu_deep_graph_falls_back_to_products(monkeypatch):
    monkeypatch.setattr(bgpu, "LEVEL_BYTES", 64)
    G = hp.generators.grid_2d(6, 40, backend="gpu")
    H = nx.grid_2d_graph(6, 40)
    H = nx.convert_node_labels_to_integers(H, ordering="sorted")
    got = hp.betweenness_centrality(G, k=10, seed=2, backend="gpu").get()
    ref = nx.betweenness_centrality(H, k=10, seed=2)
    np.testing.assert_allclose(got, [ref[i] for i in range(240)], rtol=1e-9, atol=1e-12)
