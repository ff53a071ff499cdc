"""Graph construction refuses bad input with typed errors before any native code or large
allocation: absurd sizes, non-numeric dtypes, ragged inputs, broken scipy / hpgraph matrices."""

import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph._memory import check_host_bytes, format_bytes, host_memory_bytes
from hpgraph.exceptions import DomainMismatch, HostOutOfMemory, InvalidGraph


@pytest.mark.parametrize("n", [10**12, 2**62])
def test_absurd_num_vertices(n):
    with pytest.raises(HostOutOfMemory) as info:
        hp.Graph.from_edges([0], [1], num_vertices=n, backend="cpu")
    msg = str(info.value)
    assert f"num_vertices={n:,}" in msg
    need = int(re.search(r"\(([\d,]+) bytes\)", msg).group(1).replace(",", ""))
    assert need == (n + 1) * 8 + 1 * 8  # int64 row pointers + one int64 column index
    assert isinstance(info.value, MemoryError)


def test_absurd_id_without_num_vertices():
    with pytest.raises(HostOutOfMemory, match="relabel"):
        hp.Graph.from_edges(np.array([0]), np.array([10**12]), backend="cpu")


@pytest.mark.parametrize("name", ["src", "dst"])
@pytest.mark.parametrize("bad", [np.array(["a", "b"]), np.array([1, None], dtype=object),
                                 np.array([b"x", b"y"]), np.array(["2020-01-01"] * 2, dtype="datetime64[D]")])
def test_non_numeric_ids(name, bad):
    good = np.array([0, 1])
    args = {"src": good, "dst": good, name: bad}
    with pytest.raises(InvalidGraph, match=f"{name} must hold integer vertex ids"):
        hp.Graph.from_edges(args["src"], args["dst"], backend="cpu")


@pytest.mark.parametrize("bad", [np.array(["1.0", "2"]), np.array([1.0, None], dtype=object)])
def test_non_numeric_weights(bad):
    with pytest.raises(DomainMismatch, match="weights must hold numbers"):
        hp.Graph.from_edges([0, 1], [1, 0], weights=bad, backend="cpu")


def test_ragged_ids():
    with pytest.raises(InvalidGraph, match="src cannot be turned into an array"):
        hp.Graph.from_edges([[0, 1], [2]], [1, 0], backend="cpu")


def test_caller_arrays_unchanged():
    src = np.array([3, 1, 1, 0], dtype=np.int64)
    dst = np.array([0, 2, 2, 3], dtype=np.int64)
    w = np.array([1.5, 2.0, 0.5, 4.0])
    copies = [a.copy() for a in (src, dst, w)]
    G = hp.Graph.from_edges(src, dst, w, directed=False, duplicates="sum", backend="cpu")
    for a, c in zip((src, dst, w), copies):
        np.testing.assert_array_equal(a, c)
    assert G.to_scipy()[1, 2] == 2.5


def _csr():
    return sp.csr_array((np.ones(3), np.array([1, 2, 0]), np.array([0, 2, 3, 3])), shape=(3, 3))


@pytest.mark.parametrize("field,value,fragment", [
    ("indices", np.array([1, 7, 0]), "indices must lie in"),
    ("indices", np.array([1, -1, 0]), "indices must lie in"),
    ("indptr", np.array([0, 3, 1, 3]), "non-decreasing"),
    ("indptr", np.array([0, 2, 3, 9]), "end at most"),
])
def test_scipy_matrix_changed_after_construction(field, value, fragment):
    """scipy checks a CSR when it is built; arrays changed afterwards are caught before
    scipy's C++ routines (has_sorted_indices) index with them."""
    A = _csr()
    setattr(A, field, value)
    with pytest.raises(InvalidGraph, match=fragment):
        hp.Graph(A, directed=True)


def test_unchecked_hpgraph_matrix_is_checked_by_graph():
    bad = hp.CSR(np.array([0, 2, 2]), np.array([5, 1]), np.array([1.0, 2.0]), shape=(2, 2))  # check=False
    with pytest.raises(InvalidGraph, match="out of range"):
        hp.Graph(bad, directed=True)


def test_memory_limit_follows_ulimit():
    """host_memory_bytes honours the address-space limit (ulimit -v), in a child process."""
    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.getrlimit("
            "resource.RLIMIT_AS)[1])); from hpgraph._memory import host_memory_bytes; "
            "print(host_memory_bytes())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == 3 << 30
    assert host_memory_bytes() >= 1 << 28


def test_check_host_bytes_message():
    with pytest.raises(HostOutOfMemory, match=r"building X needs at least 7\.3 TiB .* bytes"):
        check_host_bytes(8 * 10**12, "building X")
    check_host_bytes(1024, "a small thing")  # fits: no error
    assert format_bytes(1536) == "1.5 KiB" and format_bytes(12) == "12 B"


@pytest.mark.parametrize("call", [
    lambda: hp.generators.grid_2d(10**6, 10**6, backend="cpu"),
    lambda: hp.generators.erdos_renyi(10**12, m=5, backend="cpu"),
    lambda: hp.generators.rmat(40, backend="cpu"),
])
def test_generators_refuse_sizes_that_cannot_fit(call):
    with pytest.raises(HostOutOfMemory, match="needs at least"):
        call()


def test_rmat_without_edges():
    G = hp.generators.rmat(3, edge_factor=0, backend="cpu")
    assert G.num_vertices == 8 and G.num_edges == 0


@pytest.mark.gpu
@pytest.mark.parametrize("sdt,ddt", [(np.int32, np.int32), (np.int32, np.int64), (np.uint16, np.int64),
                                     (np.uint64, np.int32)])
def test_gpu_id_range_matches_numpy(sdt, ddt):
    """The device id-range pass (one kernel; CuPy's reductions for uint64) gives the vertex
    count and the errors the NumPy checks give."""
    from hpgraph.exceptions import IndexOutOfBound

    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(3)
    s = rng.integers(0, 700, 5000).astype(sdt)
    d = rng.integers(0, 900, 5000).astype(ddt)
    G = hp.Graph.from_edges(cp.asarray(s), cp.asarray(d), backend="gpu")
    assert G.num_vertices == max(int(s.max()), int(d.max())) + 1
    ref = sp.csr_matrix((np.ones(5000), (s.astype(np.int64), d.astype(np.int64))),
                        shape=(G.num_vertices,) * 2)
    ref.sum_duplicates()
    assert G.num_edges == ref.nnz
    with pytest.raises(IndexOutOfBound, match=r"dst\[\d+\] = \d+ is out of range for num_vertices=800"):
        hp.Graph.from_edges(cp.asarray(s), cp.asarray(d), num_vertices=800, backend="gpu")
    if np.dtype(ddt).kind == "i":
        d2 = d.copy()
        d2[17] = -5
        dd = cp.asarray(d2)
        with pytest.raises(IndexOutOfBound, match=r"dst\[17\] = -5 is negative"):
            hp.Graph.from_edges(cp.asarray(s), dd, backend="gpu")
        assert int(dd[17]) == -5   # the caller's array is untouched


@pytest.mark.gpu
def test_gpu_id_range_of_strided_columns():
    """Columns of an (m, 2) device array and reversed views (strided, negative strides): the
    id range, so the vertex count, is NumPy's."""
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(4)
    E = rng.integers(0, 500, (3000, 2)).astype(np.int32)
    E[1234, 1] = 777
    D = cp.asarray(E)
    G = hp.Graph.from_edges(D[:, 0], D[:, 1], backend="gpu")
    assert G.num_vertices == 778
    ref = sp.csr_matrix((np.ones(3000), (E[:, 0].astype(np.int64), E[:, 1].astype(np.int64))),
                        shape=(778, 778))
    ref.sum_duplicates()
    assert G.num_edges == ref.nnz
    G2 = hp.Graph.from_edges(D[::-1, 0], D[::-1, 1], backend="gpu")
    assert G2.num_vertices == 778 and G2.num_edges == ref.nnz
