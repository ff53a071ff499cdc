"""PageRank's fused iteration (hpgraph/algorithms/_pagerank_fused.py): NVRTC compilation, the
renumbered structure and a transcription of one kernel pass iterated against networkx (no GPU
needed), and the kernel on the device against networkx for both GPU steps."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import _pagerank_fused as prf


def nx_ranks(H, n, **kw):
    r = nx.pagerank(H, tol=1e-13, max_iter=1000, **kw)
    return np.array([r[i] for i in range(n)])


@pytest.mark.parametrize("dtype,idx,ptr,weighted", [
    (np.float32, np.int32, np.int32, False), (np.float64, np.int32, np.int32, False),
    (np.float32, np.int32, np.int64, True), (np.float64, np.int64, np.int64, True)])
def test_fused_kernel_compiles(dtype, idx, ptr, weighted):
    try:
        src, name = prf.fused_source(dtype, idx, ptr, weighted)
        ptx = hp.backend.compile_ptx(src, name + ".cu", ("-std=c++17",))
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert f".entry {name}(" in ptx


def _graph(seed, n=300, m=2000, directed=True):
    """Random multigraph with self-loops, repeats, dangling and isolated vertices, weights
    including 0."""
    rng = np.random.default_rng(seed)
    s = np.concatenate([rng.integers(0, n - 20, m), np.zeros(200, np.int64), [5, 5, 5]])
    d = np.concatenate([rng.integers(0, n - 10, m), rng.integers(0, n - 10, 200), [5, 6, 6]])
    w = rng.integers(0, 5, s.shape[0]).astype(np.float64)
    G = hp.Graph.from_edges(s, d, w, num_vertices=n, directed=directed, duplicates="keep",
                            backend="cpu")
    H = nx.MultiDiGraph() if directed else nx.MultiGraph()
    H.add_nodes_from(range(n))
    H.add_weighted_edges_from(zip(s.tolist(), d.tolist(), w.tolist()))
    return G, H


@pytest.mark.parametrize("block_row,seg", [(2048, 4096), (3, 2), (0, 1)])
def test_structure_renumbers_by_in_degree(block_row, seg, monkeypatch):
    monkeypatch.setattr(prf, "PRF_BLOCK_ROW", block_row)
    monkeypatch.setattr(prf, "PRF_SEG", seg)
    G, _ = _graph(1)
    AT = G.AT
    st = prf.structure(AT, np.float64)
    deg = np.diff(AT.indptr)
    ndeg = np.diff(st.indptr)
    np.testing.assert_array_equal(ndeg, deg[st.perm])
    assert np.all(np.diff(ndeg) <= 0)
    np.testing.assert_array_equal(st.perm[st.rank], np.arange(G.num_vertices))
    for i in range(0, G.num_vertices, 7):   # same in-edges (sources renumbered), same weights
        v = st.perm[i]
        old = sorted(zip(AT.indices[AT.indptr[v]:AT.indptr[v + 1]].tolist(),
                         AT.values[AT.indptr[v]:AT.indptr[v + 1]].tolist()))
        new = sorted(zip(st.perm[st.cols[st.indptr[i]:st.indptr[i + 1]]].tolist(),
                         st.vals[st.indptr[i]:st.indptr[i + 1]].tolist()))
        assert old == new
    assert st.r1 == int((ndeg > prf.PRF_BLOCK_ROW).sum())
    assert st.r2 == int((ndeg > prf.PRF_WARP_ROW).sum())
    # the block rows' segments tile their entries, at most PRF_SEG each, in row order
    assert st.segptr[0] == 0 and st.segptr[-1] == st.indptr[st.r1]
    lens = np.diff(st.segptr)
    assert np.all(lens > 0) and np.all(lens <= seg)
    assert np.all(st.indptr[st.seg_row] <= st.segptr[:-1])
    assert np.all(st.segptr[1:] <= st.indptr[st.seg_row + 1])
    np.testing.assert_array_equal(np.bincount(st.seg_row, minlength=st.r1), st.row_nseg)


def _emu_pagerank(G, damping, weighted, p=None, dw=None, iters=300):
    """The kernel's pass (``finish`` after each row's sum) iterated in the renumbered space."""
    n = G.num_vertices
    AT = G.AT
    st = prf.structure(AT if weighted else hp.formats.CSR(AT.indptr, AT.indices, None,
                                                         shape=AT.shape), np.float64)
    A = G.to_scipy()
    outw = np.asarray(A.sum(axis=1)).ravel() if weighted else np.diff(A.indptr).astype(float)
    S = np.where(outw != 0, 1.0 / np.where(outw != 0, outw, 1), 0.0)[st.perm]
    pn = None if p is None else p[st.perm]
    dn = None if dw is None else dw[st.perm]
    x = np.full(n, 1.0 / n)
    w = x * S
    dsum = x[S == 0].sum()
    for _ in range(iters):
        x_new = np.empty(n)
        err = dan = 0.0
        for v in range(n):
            js = range(st.indptr[v], st.indptr[v + 1])
            y = sum((st.vals[j] if weighted else 1.0) * w[st.cols[j]] for j in js)
            pv = 1.0 / n if pn is None else pn[v]
            dv = pv if dn is None else dn[v]
            x_new[v] = damping * (y + dsum * dv) + (1 - damping) * pv
            err += abs(x_new[v] - x[v])
            if S[v] == 0:
                dan += x_new[v]
        x, w, dsum = x_new, x_new * S, dan
        if err < 1e-14:
            break
    return x[st.rank]


@pytest.mark.parametrize("weighted,pers", [(False, False), (True, False), (False, True)])
def test_fused_pass_emulated_matches_networkx(weighted, pers):
    G, H = _graph(2, n=120, m=700)
    n = G.num_vertices
    kw, p = {}, None
    if pers:
        rng = np.random.default_rng(3)
        p = rng.random(n)
        p /= p.sum()
        kw["personalization"] = {i: float(p[i]) for i in range(n)}
    x = _emu_pagerank(G, 0.85, weighted, p=p)
    ref = nx_ranks(H, n, weight="weight" if weighted else None, **kw)
    np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["fused", "spmv"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("tiers", [(2048, 32, 4, 4096), (4, 1, 2, 3), (0, 0, 1, 1),
                                   (10**9, 10**9, 32, 4096), (8, 2, 4, 5)])
def test_gpu_steps_match_networkx(kernel, weighted, tiers, monkeypatch):
    """Every tier split (block rows cut in segments / warp / sub-warp rows) and both steps give
    networkx's ranks."""
    monkeypatch.setattr(prf, "PRF_BLOCK_ROW", tiers[0])
    monkeypatch.setattr(prf, "PRF_WARP_ROW", tiers[1])
    monkeypatch.setattr(prf, "PRF_SUB", tiers[2])
    monkeypatch.setattr(prf, "PRF_SEG", tiers[3])
    for directed in (True, False):
        G, H = _graph(4, directed=directed)
        n = G.num_vertices
        ref = nx_ranks(H, n, weight="weight" if weighted else None)
        with hp.config.set(pagerank_kernel=kernel):
            x = hp.backend.to_host(hp.pagerank(G.to_device(), tol=1e-13, max_iter=1000,
                                               weighted=weighted, backend="gpu"))
            x32 = hp.backend.to_host(hp.pagerank(G.to_device(), tol=1e-6, weighted=weighted,
                                                 dtype=np.float32, backend="gpu"))
        np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-13)
        assert x32.dtype == np.float32
        np.testing.assert_allclose(x32, ref, rtol=2e-4, atol=1e-6)


@pytest.mark.gpu
def test_gpu_fused_personalization_and_dangling():
    G, H = _graph(5)
    n = G.num_vertices
    rng = np.random.default_rng(6)
    pers = {int(v): float(w) for v, w in zip(rng.choice(n, 5, replace=False), rng.random(5))}
    dang = {int(rng.integers(n)): 1.0, int(rng.integers(n)): 3.0}
    nst = {0: 1.0, n - 1: 4.0}
    ref = nx_ranks(H, n, weight=None, personalization=pers, dangling=dang, nstart=nst)
    with hp.config.set(pagerank_kernel="fused"):
        x = hp.backend.to_host(hp.pagerank(G.to_device(), tol=1e-13, max_iter=1000,
                                           personalization=pers, dangling=dang, nstart=nst,
                                           backend="gpu"))
    np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-13)
