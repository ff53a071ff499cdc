"""hpgraph.exchange: DLPack in / out and PyTorch Geometric's edge_index.

Oracles: NumPy's own DLPack (np.from_dlpack), scipy.sparse for the edge lists, pandas groupby
for duplicate edges; torch where it is installed (it is not a test dependency).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph.exceptions import DeviceUnavailable, DimensionMismatch, DomainMismatch, IndexOutOfBound, \
    InvalidValue


class _Producer:
    """A DLPack producer that is not a NumPy array (as a torch CPU tensor would be)."""

    def __init__(self, a, device=(1, 0)):
        self._a, self._device = a, device

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._device


def _random_edges(seed, n=30, m=200):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n - 3, m)  # the last 3 vertices are isolated
    dst = rng.integers(0, n - 3, m)
    dst[:5] = src[:5]  # self-loops
    src[100:120], dst[100:120] = src[:20], dst[:20]  # duplicates
    w = rng.integers(0, 5, m).astype(np.float32)  # zero weights too
    return src, dst, w, n


def _oracle_dense(src, dst, w, n):
    """min over duplicate edges, with the pattern kept separately (zero weights are edges)."""
    pd = pytest.importorskip("pandas")
    best = pd.DataFrame({"s": src, "d": dst, "w": w}).groupby(["s", "d"])["w"].min()
    dense = np.zeros((n, n), np.float32)
    present = np.zeros((n, n), bool)
    for (s, d), x in best.items():
        dense[s, d] = x
        present[s, d] = True
    return dense, present


def test_from_dlpack_is_zero_copy_on_the_host():
    a = np.arange(10, dtype=np.int64)
    out = hp.from_dlpack(_Producer(a))
    assert isinstance(out, np.ndarray) and np.shares_memory(out, a)
    np.testing.assert_array_equal(out, a)
    assert hp.from_dlpack(a) is a


def test_from_dlpack_rejects_other_devices_and_non_dlpack():
    a = np.arange(3)
    with pytest.raises(DeviceUnavailable, match="ROCm device"):
        hp.from_dlpack(_Producer(a, device=(10, 0)))
    with pytest.raises(InvalidValue, match="DLPack protocol"):
        hp.from_dlpack([1, 2, 3])


@pytest.mark.parametrize("seed", range(3))
def test_from_edge_index_matches_oracle(seed):
    src, dst, w, n = _random_edges(seed)
    ei = np.stack([src, dst])
    before = ei.copy()
    G = hp.from_edge_index(_Producer(ei), _Producer(w), num_nodes=n)
    np.testing.assert_array_equal(ei, before)
    dense, present = _oracle_dense(src, dst, w, n)
    A = G.to_scipy()
    assert G.num_vertices == n and G.directed
    np.testing.assert_array_equal(A.toarray(), dense)
    got = np.zeros((n, n), bool)
    coo = A.tocoo()
    got[coo.row, coo.col] = True
    np.testing.assert_array_equal(got, present)


def test_from_edge_index_undirected_and_unweighted():
    ei = np.array([[0, 1, 3], [1, 2, 3]])
    G = hp.Graph.from_edge_index(ei, directed=False)
    assert not G.directed and not G.weighted and G.num_vertices == 4
    expected = sp.coo_array((np.ones(5), ([0, 1, 1, 2, 3], [1, 0, 2, 1, 3])), shape=(4, 4)).toarray()
    np.testing.assert_array_equal(G.to_scipy().toarray(), expected)
    G0 = hp.from_edge_index(np.zeros((2, 0), np.int64))
    assert G0.num_vertices == 0 and G0.num_edges == 0


@pytest.mark.parametrize("bad, err, words", [
    (np.zeros((3, 4), np.int64), DimensionMismatch, r"shape \(2, E\)"),
    (np.zeros((4, 2), np.int64), DimensionMismatch, r"transpose"),
    (np.zeros((2, 3), np.float64), DomainMismatch, "integer"),
    (np.array([[0, -1], [1, 1]]), IndexOutOfBound, "negative"),
])
def test_from_edge_index_bad_input(bad, err, words):
    with pytest.raises(err, match=words):
        hp.from_edge_index(bad)


def test_from_edge_index_bad_weights_and_num_nodes():
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(DimensionMismatch, match=r"edge_weight must have shape \(2,\)"):
        hp.from_edge_index(ei, np.ones(3))
    with pytest.raises(IndexOutOfBound, match="num_vertices=2"):
        hp.from_edge_index(ei, num_nodes=2)


@pytest.mark.parametrize("directed", [True, False])
def test_to_edge_index_matches_scipy(directed):
    src, dst, w, n = _random_edges(4)
    G = hp.Graph.from_edges(src, dst, w, num_vertices=n, directed=directed)
    ei, ew = hp.to_edge_index(G)
    coo = G.to_scipy().tocoo()  # CSR order, as scipy stores it
    assert ei.dtype == np.int64 and ei.shape == (2, coo.nnz)
    np.testing.assert_array_equal(ei[0], coo.row)
    np.testing.assert_array_equal(ei[1], coo.col)
    np.testing.assert_array_equal(ew, coo.data)
    back = hp.from_edge_index(ei, ew, num_nodes=n, directed=directed)
    np.testing.assert_array_equal(back.to_scipy().toarray(), G.to_scipy().toarray())
    ei32, none = hp.to_edge_index(hp.Graph.from_edges([0], [1]), dtype="int32")
    assert ei32.dtype == np.int32 and none is None
    with pytest.raises(InvalidValue):
        hp.to_edge_index(G, dtype="float32")


def test_results_export_dlpack():
    G = hp.Graph.from_edges([0, 1, 2], [1, 2, 0])
    depth, parent = hp.bfs(G, 0, backend="cpu")
    view = np.from_dlpack(depth)  # what torch.from_dlpack does with it
    assert np.shares_memory(view, depth)
    np.testing.assert_array_equal(view, [0, 1, 2])
    degrees = np.from_dlpack(G.out_degree)  # read-only arrays export too
    np.testing.assert_array_equal(degrees, [1, 1, 1])


def test_torch_round_trip():
    torch = pytest.importorskip("torch")
    ei = torch.tensor([[0, 1, 1, 2], [1, 2, 2, 0]])
    w = torch.tensor([1.0, 2.0, 0.5, 3.0])
    G = hp.from_edge_index(ei, w)
    np.testing.assert_array_equal(G.to_scipy().toarray(), [[0, 1, 0], [0, 0, 0.5], [3, 0, 0]])
    out, ew = hp.to_edge_index(G)
    t = torch.from_dlpack(out)
    assert t.dtype == torch.int64 and t.tolist() == [[0, 1, 2], [1, 2, 0]]
    rank = torch.from_dlpack(hp.pagerank(G, backend="cpu"))
    assert rank.shape == (3,) and abs(float(rank.sum()) - 1.0) < 1e-9
    grad = torch.ones(2, requires_grad=True)
    with pytest.raises(InvalidValue, match="detach"):
        hp.from_dlpack(grad)


@pytest.mark.gpu
def test_device_edge_index_stays_on_the_device():
    cp = pytest.importorskip("cupy")
    src, dst, w, n = _random_edges(6)
    G = hp.from_edge_index(cp.asarray(np.stack([src, dst])), cp.asarray(w), num_nodes=n)
    assert G.on_device
    dense, _ = _oracle_dense(src, dst, w, n)
    np.testing.assert_array_equal(G.to_host().to_scipy().toarray(), dense)
    ei, ew = hp.to_edge_index(G)
    assert isinstance(ei, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(ei), np.stack(G.to_host().to_scipy().tocoo().coords))
    dl = hp.from_dlpack(_Producer(ei, device=ei.__dlpack_device__()))
    assert isinstance(dl, cp.ndarray)
