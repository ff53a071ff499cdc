"""Chunked R-MAT and grid generators (hpgraph._gen_chunks) and the streaming build from them."""

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph import backend
from hpgraph.exceptions import InvalidValue


def _concat(chunks):
    parts = list(chunks())
    u = np.concatenate([backend.to_host(p[0]) for p in parts])
    v = np.concatenate([backend.to_host(p[1]) for p in parts])
    w = None if parts[0][2] is None else np.concatenate([backend.to_host(p[2]) for p in parts])
    return u, v, w


def test_rmat_chunks_reproducible_and_sized():
    ch = hp.generators.rmat_chunks(10, edge_factor=8, seed=4, backend="cpu", chunk_size=1000)
    assert ch.num_vertices == 1024 and ch.num_edges == 8192 and ch.num_chunks == 9
    u1, v1, _ = _concat(ch)
    u2, v2, _ = _concat(ch)
    assert np.array_equal(u1, u2) and np.array_equal(v1, v2) and u1.shape == (8192,)
    assert u1.min() >= 0 and max(u1.max(), v1.max()) < 1024
    other = _concat(hp.generators.rmat_chunks(10, edge_factor=8, seed=5, backend="cpu", chunk_size=1000))
    assert not np.array_equal(u1, other[0])
    # skewed degrees: the busiest vertex has far more than the mean (16) entries
    deg = np.bincount(np.r_[u1, v1], minlength=1024)
    assert deg.max() > 8 * deg.mean()


def test_graph_from_rmat_chunks_matches_scipy():
    ch = hp.generators.rmat_chunks(11, seed=2, backend="cpu", chunk_size=3000, weights=(1, 9))
    G = hp.Graph.from_edges(ch, directed=False, self_loops="drop", duplicates="sum")
    u, v, w = _concat(ch)
    assert w.dtype == np.int32 and w.min() >= 1 and w.max() <= 9
    keep = u != v
    u, v, w = u[keep], v[keep], w[keep]
    n = ch.num_vertices
    A = sp.coo_array((np.r_[w, w].astype(np.int64), (np.r_[u, v], np.r_[v, u])), shape=(n, n)).tocsr()
    A.sum_duplicates()
    assert G.num_vertices == n and not G.directed
    assert G.A.indptr.tolist() == A.indptr.tolist()
    assert G.A.indices.tolist() == A.indices.tolist()
    assert G.A.values.tolist() == A.data.tolist()


def test_grid_chunks_equal_grid_2d():
    for rows, cols, size in ((1, 1, 1), (7, 5, 4), (16, 9, 100)):
        ch = hp.generators.grid_2d_chunks(rows, cols, backend="cpu", chunk_size=size)
        G = hp.Graph.from_edges(ch, num_vertices=rows * cols, directed=False)
        H = hp.generators.grid_2d(rows, cols, backend="cpu")
        assert G.A.indptr.tolist() == H.A.indptr.tolist()
        assert G.A.indices.tolist() == H.A.indices.tolist()
        assert G.num_edges == 2 * (rows * (cols - 1) + (rows - 1) * cols)


def test_chunk_generator_errors():
    with pytest.raises(InvalidValue, match="chunk_size"):
        hp.generators.rmat_chunks(5, chunk_size=0, backend="cpu")
    with pytest.raises(InvalidValue, match="scale"):
        hp.generators.rmat_chunks(-1, backend="cpu")
    with pytest.raises(InvalidValue, match="probabilities"):
        hp.generators.rmat_chunks(5, a=0.6, b=0.3, c=0.3, backend="cpu")
    with pytest.raises(InvalidValue, match="seed"):
        hp.generators.rmat_chunks(5, seed=-3, backend="cpu")
    with pytest.raises(InvalidValue, match="rows"):
        hp.generators.grid_2d_chunks(0, 3, backend="cpu")


@pytest.mark.gpu
def test_rmat_chunks_on_device_build():
    cp = backend.cupy()
    ch = hp.generators.rmat_chunks(12, seed=3, backend="gpu", chunk_size=10000)
    u, v, _ = ch.chunk(0)
    assert isinstance(u, cp.ndarray)
    G = hp.Graph.from_edges(ch, directed=False, self_loops="drop")
    assert G.on_device
    uh, vh, _ = _concat(ch)
    keep = uh != vh
    n = ch.num_vertices
    A = sp.coo_array((np.ones(2 * keep.sum()), (np.r_[uh[keep], vh[keep]], np.r_[vh[keep], uh[keep]])),
                     shape=(n, n)).tocsr()
    A.sum_duplicates()
    Gh = G.to_host()
    assert Gh.A.indptr.tolist() == A.indptr.tolist() and Gh.A.indices.tolist() == A.indices.tolist()
