"""hpgraph.generators: sizes, simplicity, symmetry, seeds, degree skew, grid diameter."""

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import hpgraph as hp
from hpgraph import generators as gen
from hpgraph.exceptions import InvalidValue


def simple(G):
    """No self-loops and no repeated (row, col) entries."""
    A = G.to_scipy()
    A.sort_indices()
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    assert not np.any(rows == A.indices), "self-loop"
    same = (rows[1:] == rows[:-1]) & (A.indices[1:] == A.indices[:-1])
    assert not same.any(), "duplicate edge"


def symmetric(G, values=True):
    A = G.to_scipy()
    assert (A != A.T).nnz == 0 if values else (A.astype(bool) != A.T.astype(bool)).nnz == 0


def same(G, H):
    A, B = G.to_scipy(), H.to_scipy()
    return A.shape == B.shape and A.nnz == B.nnz and (A != B).nnz == 0


# ------------------------------------------------------------------------------------------
# R-MAT


def test_rmat_basic():
    G = gen.rmat(10, seed=1, backend="cpu")
    assert G.num_vertices == 1024
    assert not G.directed and not G.weighted
    simple(G)
    symmetric(G)
    # at most edge_factor * n undirected edges were drawn
    assert 0.5 * 16 * 1024 < G.num_edges / 2 <= 16 * 1024


def test_rmat_directed_counts():
    G = gen.rmat(8, edge_factor=4, seed=3, directed=True, backend="cpu")
    assert G.directed
    simple(G)
    # keeping loops and duplicates gives exactly edge_factor * 2**scale entries
    H = gen.rmat(8, edge_factor=4, seed=3, directed=True, backend="cpu", remove_self_loops=False,
                 remove_duplicates=False)
    assert H.num_edges == 4 * 256
    A = H.to_scipy()
    assert A.diagonal().sum() > 0  # R-MAT draws some loops


def test_rmat_reproducible():
    a = gen.rmat(9, seed=7, backend="cpu")
    b = gen.rmat(9, seed=7, backend="cpu")
    c = gen.rmat(9, seed=8, backend="cpu")
    assert same(a, b)
    assert not same(a, c)
    ea = gen.rmat_edges(9, seed=7, backend="cpu")
    eb = gen.rmat_edges(9, seed=7, backend="cpu")
    np.testing.assert_array_equal(ea.src, eb.src)
    np.testing.assert_array_equal(ea.dst, eb.dst)


def test_rmat_degree_skew():
    G = gen.rmat(12, seed=0, backend="cpu")
    deg = np.asarray(G.out_degree)
    assert deg.max() > 20 * deg.mean()          # heavy tail
    assert np.median(deg) < deg.mean()           # most vertices are small
    E = gen.erdos_renyi(4096, m=G.num_edges // 2, seed=0, backend="cpu")
    assert np.asarray(E.out_degree).max() < 4 * np.asarray(E.out_degree).mean()


def test_rmat_quadrant_probabilities():
    # scale 1, many edges: the four quadrants appear with probabilities a, b, c, d
    el = gen.rmat_edges(1, edge_factor=100_000, seed=0, directed=True, backend="cpu",
                        remove_self_loops=False, remove_duplicates=False, a=0.5, b=0.2, c=0.2)
    # ids are permuted; with 2 vertices the permutation is identity or a swap
    u, v = el.src.astype(np.int64), el.dst.astype(np.int64)
    frac = np.bincount(u * 2 + v, minlength=4) / u.size
    expected = np.array([0.5, 0.2, 0.2, 0.1])
    if abs(frac[0] - 0.5) > 0.05:  # swapped ids: quadrants mirror
        expected = expected[::-1]
    np.testing.assert_allclose(frac, expected, atol=0.01)


def test_rmat_weights():
    G = gen.rmat(8, seed=2, weights=(1, 64), backend="cpu")
    A = G.to_scipy()
    assert np.dtype(G.dtype).kind == "i"
    assert A.data.min() >= 1 and A.data.max() <= 64 and len(np.unique(A.data)) > 32
    symmetric(G)  # one weight per undirected edge
    U = gen.rmat(8, seed=2, weights="uniform", backend="cpu")
    d = U.to_scipy().data
    assert U.dtype == np.float32 and d.min() >= 0 and d.max() < 1
    F = gen.rmat(8, seed=2, weights=(0.5, 2.0), directed=True, backend="cpu")
    d = F.to_scipy().data
    assert d.min() >= 0.5 and d.max() < 2.0


@pytest.mark.parametrize("kw", [dict(scale=-1), dict(scale=41), dict(scale=4, a=0.6, b=0.3, c=0.3),
                                dict(scale=4, a=-0.1), dict(scale=4, weights="heavy"),
                                dict(scale=4, weights=(5, 1)), dict(scale=4, seed="x"),
                                dict(scale=2.5)])
def test_rmat_bad_args(kw):
    with pytest.raises(InvalidValue):
        gen.rmat(backend="cpu", **kw)


# ------------------------------------------------------------------------------------------
# grid


def test_grid_structure():
    r, c = 7, 11
    G = gen.grid_2d(r, c, backend="cpu")
    assert G.num_vertices == r * c
    assert not G.directed
    assert G.num_edges == 2 * (r * (c - 1) + (r - 1) * c)
    simple(G)
    symmetric(G)
    deg = np.asarray(G.out_degree)
    assert deg.max() == 4 and deg.min() == 2
    A = G.to_scipy()
    v = 3 * c + 4  # (3, 4)
    assert sorted(A.indices[A.indptr[v]:A.indptr[v + 1]].tolist()) == [v - c, v - 1, v + 1, v + c]


def test_grid_diameter():
    r, c = 20, 30
    G = gen.grid_2d(r, c, backend="cpu")
    d = csgraph.shortest_path(G.to_scipy(), unweighted=True, indices=0)
    assert d.max() == r + c - 2 and np.isfinite(d).all()


def test_grid_weights_reproducible():
    a = gen.grid_2d(5, 5, weights=(1, 9), seed=4, backend="cpu")
    b = gen.grid_2d(5, 5, weights=(1, 9), seed=4, backend="cpu")
    assert same(a, b)
    symmetric(a)
    assert gen.grid_2d(1, 1, backend="cpu").num_edges == 0


# ------------------------------------------------------------------------------------------
# Erdos-Renyi


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("m", [0, 1, 100, 2000, 4000, 4950])
def test_er_exact_m(directed, m):
    n = 100
    if directed:
        m = m * 2
    G = gen.erdos_renyi(n, m=m, seed=1, directed=directed, backend="cpu")
    assert G.num_vertices == n
    assert G.num_edges == (m if directed else 2 * m)
    simple(G)
    if not directed:
        symmetric(G)


def test_er_p():
    n, p = 2000, 0.01
    G = gen.erdos_renyi(n, p=p, seed=3, backend="cpu")
    mean = p * n * (n - 1) / 2
    sd = np.sqrt(mean * (1 - p))
    assert abs(G.num_edges / 2 - mean) < 5 * sd
    assert gen.erdos_renyi(10, p=0.0, backend="cpu").num_edges == 0
    assert gen.erdos_renyi(10, p=1.0, backend="cpu").num_edges == 90


def test_er_reproducible_and_uniformish():
    a = gen.erdos_renyi(50, m=200, seed=9, backend="cpu")
    b = gen.erdos_renyi(50, m=200, seed=9, backend="cpu")
    assert same(a, b)
    assert not same(a, gen.erdos_renyi(50, m=200, seed=10, backend="cpu"))
    # every pair about equally likely: no vertex is starved over many draws
    counts = np.zeros(20)
    for s in range(50):
        counts += np.asarray(gen.erdos_renyi(20, m=10, seed=s, backend="cpu").out_degree)
    assert counts.min() > 0.4 * counts.mean()


@pytest.mark.parametrize("kw", [dict(), dict(m=5, p=0.1), dict(m=46), dict(p=1.5), dict(m=-1)])
def test_er_bad_args(kw):
    with pytest.raises(InvalidValue):
        gen.erdos_renyi(10, backend="cpu", **kw)


# ------------------------------------------------------------------------------------------
# small graphs and specs


def test_path_star_complete():
    P = gen.path(5, backend="cpu")
    assert P.num_vertices == 5 and P.num_edges == 8
    Pd = gen.path(5, directed=True, backend="cpu")
    assert Pd.num_edges == 4 and Pd.to_scipy()[0, 1] and not Pd.to_scipy()[1, 0]
    S = gen.star(6, backend="cpu")
    assert S.num_vertices == 6 and np.asarray(S.out_degree).tolist() == [5, 1, 1, 1, 1, 1]
    K = gen.complete(5, backend="cpu")
    assert K.num_edges == 20
    simple(K)
    Kd = gen.complete(5, directed=True, weights=(1, 3), seed=0, backend="cpu")
    assert Kd.num_edges == 20 and Kd.weighted
    assert gen.path(1, backend="cpu").num_edges == 0
    with pytest.raises(InvalidValue):
        gen.path(0, backend="cpu")


def test_specs():
    assert gen.is_spec("rmat:8") and gen.is_spec("GRID:3x4") and not gen.is_spec("g.mtx")
    assert gen.from_spec("rmat:8:4", seed=1, backend="cpu").num_vertices == 256
    assert gen.from_spec("kron:6", backend="cpu").num_vertices == 64
    assert gen.from_spec("grid:3x4", backend="cpu").num_vertices == 12
    assert gen.from_spec("grid:5", backend="cpu").num_vertices == 25
    assert gen.from_spec("er:100:300", backend="cpu").num_edges == 600
    assert gen.from_spec("er:100:0.5", backend="cpu").num_vertices == 100
    assert gen.from_spec("path:10", directed=True, backend="cpu").num_edges == 9
    assert gen.from_spec("star:10", backend="cpu").num_edges == 18
    assert gen.from_spec("complete:5", backend="cpu").num_edges == 20
    el = gen.edges_from_spec("rmat:6", seed=3, backend="cpu")
    assert el.num_vertices == 64 and el.source == "rmat:6:16"


@pytest.mark.parametrize("spec", ["rmat:", "rmat:x", "rmat:8:4:2", "grid:3x", "grid:2x3x4", "er:10",
                                  "er:10:x", "path:-1", "foo:3", "complete:a", "star"])
def test_bad_specs(spec):
    with pytest.raises(InvalidValue):
        gen.from_spec(spec, backend="cpu")


def test_top_level_names():
    assert hp.rmat is gen.rmat and hp.grid_2d is gen.grid_2d and hp.erdos_renyi is gen.erdos_renyi


# ------------------------------------------------------------------------------------------
# GPU


@pytest.mark.gpu
def test_rmat_gpu_reproducible():
    a = gen.rmat(12, seed=5, backend="gpu", weights=(1, 64))
    b = gen.rmat(12, seed=5, backend="gpu", weights=(1, 64))
    assert a.on_device
    assert same(a, b)
    simple(a)
    symmetric(a)
    assert a.num_vertices == 4096


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["grid:30x20", "er:500:2000", "er:50:1000", "path:9", "star:9", "complete:9"])
def test_generators_gpu(name):
    G = gen.from_spec(name, seed=1, backend="gpu", weights="uniform")
    H = gen.from_spec(name, seed=1, backend="cpu", weights="uniform")
    assert G.on_device
    assert G.num_vertices == H.num_vertices and G.num_edges == H.num_edges
    simple(G)
    symmetric(G)
