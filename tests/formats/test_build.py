"""The chunked counting-sort CSR build (hpgraph.formats._build) against NumPy/SciPy references."""

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph import backend
from hpgraph.exceptions import (DeviceOutOfMemory, DimensionMismatch, DomainMismatch, IndexOutOfBound,
                                InvalidGraph, InvalidValue)
from hpgraph.formats import _build
from hpgraph.formats._build import build_csr, build_estimate, segment_reduce_source
from hpgraph.formats._chunks import array_chunks

POLICIES = ("min", "max", "sum", "first", "last", "keep")


# ---------------------------------------------------------------------------------------
# an independent reference: stable lexsort + reduceat in NumPy (and SciPy for "sum")


def reference(u, v, w, n, directed, how, drop_loops):
    """(indptr, indices, values) hpgraph must produce, computed with plain NumPy."""
    u, v = np.asarray(u, np.int64), np.asarray(v, np.int64)
    w = None if w is None else np.asarray(w)
    if drop_loops:
        keep = u != v
        u, v = u[keep], v[keep]
        w = None if w is None else w[keep]
    a, b = (u, v) if directed else (np.minimum(u, v), np.maximum(u, v))
    order = np.lexsort((np.arange(a.shape[0]), b, a))     # by (a, b), then input order
    a, b = a[order], b[order]
    w = None if w is None else w[order]
    m = a.shape[0]
    if how != "keep" and m:
        new = np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])]
        starts = np.flatnonzero(new)
        ends = np.r_[starts[1:] - 1, m - 1]
        if w is not None:
            if how == "first":
                w = w[starts]
            elif how == "last":
                w = w[ends]
            else:
                if w.dtype == bool:
                    uf = {"sum": np.logical_or, "min": np.logical_and, "max": np.logical_or}[how]
                else:
                    uf = {"sum": np.add, "min": np.minimum, "max": np.maximum}[how]
                w = uf.reduceat(w, starts).astype(w.dtype)
        a, b = a[starts], b[starts]
    seq = np.arange(a.shape[0])
    if not directed:
        off = a != b
        a, b, seq = np.r_[a, b[off]], np.r_[b, a[off]], np.r_[seq, seq[off]]
        w = None if w is None else np.r_[w, w[off]]
    o = np.lexsort((seq, b, a))
    rows, cols = a[o], b[o]
    vals = None if w is None else w[o]
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=n))] if n else np.zeros(1, np.int64)
    return indptr, cols, vals


def random_edges(rng, n, m, dtype=np.float64):
    u = rng.integers(0, n, m)
    v = rng.integers(0, n, m)
    # a few hubs, duplicates and self-loops on purpose
    hub = rng.random(m) < 0.2
    u[hub] = 0
    dup = rng.random(m) < 0.2
    if m:
        v[dup] = v[0]
        u[dup] = u[0]
    loop = rng.random(m) < 0.1
    v[loop] = u[loop]
    if dtype == bool:
        w = rng.random(m) < 0.5
    else:
        w = rng.integers(-9, 10, m).astype(dtype)
    return u, v, w


def check(csr, ref):
    indptr, cols, vals = ref
    assert csr.indptr.tolist() == indptr.tolist()
    assert csr.indices.tolist() == cols.tolist()
    if vals is None:
        assert csr.values is None
    else:
        assert csr.values.dtype == vals.dtype
        assert csr.values.tolist() == vals.tolist()


# ---------------------------------------------------------------------------------------
# build_csr directly, small chunks and batches so every pass runs many times


@pytest.mark.parametrize("how", POLICIES)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("force64", [False, True])
def test_build_matches_reference(hp_config, how, directed, drop, force64):
    hp_config(force_int64=force64)
    rng = np.random.default_rng(hash((how, directed, drop)) % 2**32)
    for trial in range(12):
        n = int(rng.integers(1, 40))
        m = int(rng.integers(0, 300))
        u, v, w = random_edges(rng, n, m)
        for weights in (w, None):
            csr = build_csr(array_chunks(u, v, weights, int(rng.integers(1, 60))), num_vertices=n,
                            directed=directed, duplicates=how, self_loops="drop" if drop else "keep",
                            batch_size=int(rng.integers(1, 80)))
            assert csr.index_dtype == (np.int64 if force64 else np.int32)
            assert csr.indptr.dtype == csr.indices.dtype == csr.index_dtype
            ref = reference(u, v, weights, n, directed, how if weights is not None or how == "keep"
                            else "min", drop)
            check(csr, ref)
            csr.check(full=True)


@pytest.mark.parametrize("how", POLICIES)
@pytest.mark.parametrize("dtype", [None, np.float64, np.int32, bool])
def test_any_order_within_rows(how, dtype, monkeypatch):
    """Where the device scatters in arbitrary order (no values, min/max, integer sum) the
    result must not depend on it: the host build, shuffled the same way, still matches."""
    monkeypatch.setattr(_build, "_SHUFFLE_ROWS", np.random.default_rng(99))
    rng = np.random.default_rng(13)
    for trial in range(5):
        n = int(rng.integers(1, 50))
        u, v, w = random_edges(rng, n, int(rng.integers(0, 400)), dtype or np.float64)
        w = None if dtype is None else w
        for directed in (True, False):
            csr = build_csr(array_chunks(u, v, w, 64), num_vertices=n, directed=directed, duplicates=how,
                            self_loops="drop" if trial % 2 else "keep", batch_size=37)
            check(csr, reference(u, v, w, n, directed, how if w is not None or how == "keep" else "min",
                                 bool(trial % 2)))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint8, bool])
@pytest.mark.parametrize("how", ["sum", "min", "max"])
def test_value_dtypes(dtype, how):
    rng = np.random.default_rng(7)
    u, v, w = random_edges(rng, 25, 400, dtype)
    for directed in (True, False):
        csr = build_csr(array_chunks(u, v, w, 37), num_vertices=25, directed=directed, duplicates=how,
                        batch_size=50)
        check(csr, reference(u, v, w, 25, directed, how, False))


def test_sum_matches_scipy():
    """SciPy's COO -> CSR sums duplicates: the same matrix, directed and undirected."""
    rng = np.random.default_rng(3)
    for n, m in ((1, 0), (1, 5), (50, 2000), (300, 5000)):
        u, v, w = random_edges(rng, n, m)
        w = np.abs(w) + 1  # scipy's addition drops entries that sum to zero
        A = sp.coo_array((w, (u, v)), shape=(n, n)).tocsr()
        A.sum_duplicates()
        G = hp.Graph.from_edges(u, v, w, num_vertices=n, duplicates="sum", backend="cpu", chunk_size=97)
        assert G.A.indptr.tolist() == A.indptr.tolist()
        assert G.A.indices.tolist() == A.indices.tolist()
        assert G.A.values.tolist() == A.data.tolist()
        half = sp.coo_array((w, (np.minimum(u, v), np.maximum(u, v))), shape=(n, n)).tocsr()
        S = (half + sp.triu(half, 1).T).tocsr()
        S.sum_duplicates()
        S.sort_indices()
        Gu = hp.Graph.from_edges(u, v, w, num_vertices=n, directed=False, duplicates="sum", backend="cpu",
                                 chunk_size=13)
        assert Gu.A.indptr.tolist() == S.indptr.tolist()
        assert Gu.A.indices.tolist() == S.indices.tolist()
        assert Gu.A.values.tolist() == S.data.tolist()


def test_empty_and_isolated():
    csr = build_csr(array_chunks(np.zeros(0, np.int64), np.zeros(0, np.int64), None, 4), num_vertices=5)
    assert csr.shape == (5, 5) and csr.nnz == 0 and csr.indptr.tolist() == [0] * 6
    csr = build_csr(array_chunks(np.zeros(0, np.int64), np.zeros(0, np.int64), None, 4))
    assert csr.shape == (0, 0) and csr.indptr.tolist() == [0]
    G = hp.Graph.from_edges([3], [3], num_vertices=10, directed=False, self_loops="drop", backend="cpu")
    assert G.num_edges == 0 and G.num_vertices == 10


def test_no_global_sort(monkeypatch):
    """Every stable sort the build makes is bounded by a chunk or a batch of rows."""
    sizes = []
    real = _build.stable_argsort

    def spy(xp, a):
        sizes.append(int(a.shape[0]))
        return real(xp, a)

    monkeypatch.setattr(_build, "stable_argsort", spy)
    rng = np.random.default_rng(11)
    n, m = 2000, 20000
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.random(m)
    csr = build_csr(array_chunks(u, v, w, 500), num_vertices=n, directed=False, duplicates="first",
                    batch_size=1000)
    check(csr, reference(u, v, w, n, False, "first", False))
    assert sizes and max(sizes) <= 1000 + int(np.diff(csr.indptr).max())


def test_index_dtype_shrinks_after_duplicates():
    """Sized for every counted entry, the columns are trimmed (and narrowed) once duplicates go."""
    u = np.zeros(10, np.int64)
    csr = build_csr(array_chunks(u, u + 1, None, 3), num_vertices=2, duplicates="min")
    assert csr.nnz == 1 and csr.indices.base is None or csr.indices.base.shape[0] == 1


# ---------------------------------------------------------------------------------------
# Graph.from_edges with chunks


def _chunked(u, v, w, size):
    out = []
    for s in range(0, len(u), size):
        out.append((u[s:s + size], v[s:s + size]) if w is None else (u[s:s + size], v[s:s + size],
                                                                       w[s:s + size]))
    return out


@pytest.mark.parametrize("kind", ["list", "iterator", "callable", "arrow_table", "arrow_batches", "dict",
                                  "edgelist"])
def test_from_edges_chunk_kinds(kind):
    rng = np.random.default_rng(5)
    n, m = 60, 900
    u, v, w = random_edges(rng, n, m)
    parts = _chunked(u, v, w, 128)
    if kind == "list":
        chunks = parts
    elif kind == "iterator":
        chunks = iter(parts)
    elif kind == "callable":
        chunks = lambda: iter(parts)  # noqa: E731
    elif kind.startswith("arrow"):
        pa = pytest.importorskip("pyarrow")
        batches = [pa.record_batch({"src": a, "dst": b, "weight": c}) for a, b, c in parts]
        chunks = pa.Table.from_batches(batches) if kind == "arrow_table" else batches
    elif kind == "dict":
        chunks = [{"src": a, "dst": b, "weights": c} for a, b, c in parts]
    else:
        from hpgraph.io import EdgeList

        chunks = [EdgeList(a, b, c, n, True) for a, b, c in parts]
    G = hp.Graph.from_edges(chunks, num_vertices=n, directed=False, duplicates="max", backend="cpu")
    check(G.A, reference(u, v, w, n, False, "max", False))
    assert not G.directed


def test_from_edges_chunks_infer_num_vertices_and_dtypes():
    parts = [(np.array([0, 5], np.int32), np.array([1, 2], np.uint16)), ([7], [0])]
    G = hp.Graph.from_edges(parts, backend="cpu")
    assert G.num_vertices == 8 and G.A.indices.tolist() == [1, 2, 0]
    assert G.A.indptr.tolist() == [0, 1, 1, 1, 1, 1, 2, 2, 3]
    assert G.A.values is None


def test_from_edges_chunks_caller_data_unchanged():
    rng = np.random.default_rng(9)
    u, v, w = random_edges(rng, 30, 300)
    parts = _chunked(u, v, w, 50)
    copies = [tuple(a.copy() for a in p) for p in parts]
    hp.Graph.from_edges(parts, num_vertices=30, directed=False, duplicates="sum", backend="cpu")
    for p, c in zip(parts, copies):
        for a, b in zip(p, c):
            assert np.array_equal(a, b) and a.flags.writeable
    uu, vv, ww = u.copy(), v.copy(), w.copy()
    hp.Graph.from_edges(u, v, w, directed=False, duplicates="sum", backend="cpu", chunk_size=7)
    assert np.array_equal(u, uu) and np.array_equal(v, vv) and np.array_equal(w, ww)


def test_chunk_errors():
    ok = (np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(DimensionMismatch, match=r"chunks\[1\]"):
        hp.Graph.from_edges([ok, (np.array([0]), np.array([1, 2]))], backend="cpu")
    with pytest.raises(IndexOutOfBound, match=r"chunks\[1\]\.dst\[1\] = -4"):
        hp.Graph.from_edges([ok, (np.array([0, 1]), np.array([1, -4]))], backend="cpu")
    with pytest.raises(IndexOutOfBound, match=r"chunks\[0\]\.src\[1\] = 9 is out of range"):
        hp.Graph.from_edges([(np.array([0, 9]), np.array([1, 2]))], num_vertices=5, backend="cpu")
    with pytest.raises(DomainMismatch, match=r"chunks\[1\]\.weights has dtype float32"):
        hp.Graph.from_edges([(*ok, np.ones(2)), (*ok, np.ones(2, np.float32))], backend="cpu")
    with pytest.raises(InvalidGraph, match=r"chunks\[1\]: has no weights"):
        hp.Graph.from_edges([(*ok, np.ones(2)), ok], backend="cpu")
    with pytest.raises(InvalidGraph, match="not finite"):
        hp.Graph.from_edges([(*ok, np.array([1.0, np.nan]))], backend="cpu")
    with pytest.raises(InvalidGraph, match="integer vertex ids"):
        hp.Graph.from_edges([(np.array([0.5]), np.array([1]))], backend="cpu")
    with pytest.raises(InvalidValue, match=r"chunks\[0\] must be"):
        hp.Graph.from_edges([(np.array([0]),)], backend="cpu")
    with pytest.raises(InvalidValue, match="self_loops"):
        hp.Graph.from_edges([ok], self_loops="no", backend="cpu")
    with pytest.raises(InvalidValue, match="self_loops"):
        hp.Graph.from_edges(*ok, self_loops="no", backend="cpu")
    with pytest.raises(InvalidValue, match="duplicates"):
        hp.Graph.from_edges([ok], duplicates="avg", backend="cpu")
    with pytest.raises(InvalidValue, match="dst is missing"):
        hp.Graph.from_edges(np.array([0, 1]), backend="cpu")
    with pytest.raises(InvalidValue, match="chunk_size"):
        hp.Graph.from_edges(*ok, chunk_size=0, backend="cpu")
    with pytest.raises(InvalidValue, match="int32 cannot index"):
        hp.Graph.from_edges([ok], num_vertices=2**31, index_dtype="int32", backend="cpu")


def test_index_dtype_int64_from_edges():
    rng = np.random.default_rng(2)
    u, v, w = random_edges(rng, 20, 200)
    G = hp.Graph.from_edges(u, v, w, directed=False, index_dtype="int64", backend="cpu", chunk_size=9)
    assert G.A.indptr.dtype == G.A.indices.dtype == np.int64
    check(G.A, reference(u, v, w, 20, False, "min", False))


# ---------------------------------------------------------------------------------------
# memory


def test_memory_usage_exact(hp_config):
    hp_config(build_trim_waste=0.0)   # always trim: arrays of exactly nnz entries
    rng = np.random.default_rng(4)
    u, v, _ = random_edges(rng, 100, 1000)
    G = hp.Graph.from_edges(u, v, num_vertices=100, directed=False, backend="cpu")
    mu = G.memory_usage()
    assert mu == {"indptr": 101 * 4, "indices": G.num_edges * 4, "values": 0}
    Gw = hp.Graph.from_edges(u, v, np.ones(1000, np.float32), num_vertices=100, directed=True,
                             backend="cpu")
    assert Gw.memory_usage() == {"indptr": 404, "indices": Gw.num_edges * 4, "values": Gw.num_edges * 4}
    _ = Gw.AT
    _ = Gw.out_degree
    deep = Gw.memory_usage(deep=True)
    assert deep["AT"] == 404 + 8 * Gw.num_edges and deep["out_degree"] == 400


def test_few_duplicates_keep_the_buffer_and_memory_usage_counts_it():
    """Below build_trim_waste the columns stay a view of the counted buffer (no copy at the peak);
    memory_usage reports the buffer held, not the view."""
    n = 1000
    u = np.arange(n)
    v = (u + 1) % n
    u2, v2 = np.r_[u, 5], np.r_[v, 6]          # one duplicate among 1001 edges
    G = hp.Graph.from_edges(u2, v2, np.ones(n + 1, np.float32), num_vertices=n, backend="cpu")
    assert G.num_edges == n
    assert G.A.indices.nbytes == 4 * n
    assert G.memory_usage() == {"indptr": 4 * (n + 1), "indices": 4 * (n + 1), "values": 4 * (n + 1)}
    check(G.A, reference(u2, v2, np.ones(n + 1, np.float32), n, True, "min", False))
    many = hp.Graph.from_edges(np.r_[u, u], np.r_[v, v], num_vertices=n, backend="cpu")
    assert many.memory_usage() == {"indptr": 4 * (n + 1), "indices": 4 * n, "values": 0}


def test_estimate_and_refusal(monkeypatch):
    est = build_estimate(n=2**27, entries=4_300_000_000, idt=np.int64, vdt=None, chunk=2**25,
                         batch=2**26, directed=False)
    # the output (8 B/entry) plus per-vertex arrays and chunk / batch temporaries
    assert 8 * 4_300_000_000 < est < 8 * 4_300_000_000 + 8 * 2**30
    monkeypatch.setattr(_build, "_device_free_bytes", lambda: 10 * 2**30)
    with pytest.raises(DeviceOutOfMemory, match=r"needs about .* GiB .* only 10.00 GiB is free.*drop the weights"):
        _build._check_fits(est, 2**27, 4_300_000_000, True, "Graph.from_edges")
    _build._check_fits(2**30, 10, 10, False, "Graph.from_edges")  # fits: no error


def test_device_kernels_compile_with_nvrtc():
    from hpgraph.backend import compile_ptx
    from hpgraph.exceptions import DeviceUnavailable

    from hpgraph import dtypes

    ctypes = sorted({dtypes.c_type(d) for d in (bool, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                                np.uint32, np.int64, np.uint64, np.float32, np.float64)})
    srcs = []
    for how in ("sum", "min", "max"):
        for ctype in ctypes:
            srcs.append(segment_reduce_source(how, ctype).replace("segment_reduce(",
                                                                   f"segment_reduce_{len(srcs)}("))
    from hpgraph.formats._build_gpu import count_source, id_range_source, scatter_source

    for idc in ("int", "long long"):
        srcs.append(count_source(idc)[0])
        srcs.append(id_range_source(idc, "unsigned int")[0])
        for outc in ("int", "long long"):
            for vc in (None, *ctypes):
                srcs.append(scatter_source(idc, outc, vc)[0])
    try:
        ptx = compile_ptx("\n".join(srcs), name="hpgraph_segment_reduce_test.cu")
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert ".entry segment_reduce_0" in ptx
    assert ".entry hpg_build_id_range_long_long_unsigned_int" in ptx
    assert ".entry hpg_build_count_long_long" in ptx and ".entry hpg_build_scatter_int_long_long_float" in ptx


# ---------------------------------------------------------------------------------------
# the device path (the lead runs these on the GPU machine)


@pytest.mark.gpu
@pytest.mark.parametrize("how", POLICIES)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("force64", [False, True])
def test_gpu_build_matches_reference(hp_config, how, directed, force64):
    cp = backend.cupy()
    hp_config(force_int64=force64)
    rng = np.random.default_rng(21)
    for trial in range(6):
        n = int(rng.integers(1, 60))
        m = int(rng.integers(0, 500))
        u, v, w = random_edges(rng, n, m, np.float32)
        for weights in (w, None):
            for drop in (False, True):
                G = hp.Graph.from_edges(cp.asarray(u), cp.asarray(v),
                                        None if weights is None else cp.asarray(weights), num_vertices=n,
                                        directed=directed, duplicates=how, self_loops="drop" if drop else "keep",
                                        chunk_size=int(rng.integers(1, 80)))
                assert G.on_device
                check(G.A.to_host(), reference(u, v, weights, n, directed,
                                               how if weights is not None or how == "keep" else "min", drop))


@pytest.mark.gpu
def test_gpu_host_chunks_and_generator():
    rng = np.random.default_rng(8)
    u, v, w = random_edges(rng, 300, 5000, np.float32)
    G = hp.Graph.from_edges(_chunked(u, v, w, 700), num_vertices=300, directed=False, duplicates="sum",
                            backend="gpu")
    assert G.on_device
    check(G.A.to_host(), reference(u, v, w, 300, False, "sum", False))
    ch = hp.generators.rmat_chunks(12, seed=1, backend="gpu", chunk_size=5000)
    Gd = hp.Graph.from_edges(ch, directed=False, self_loops="drop")
    us, vs = zip(*[(backend.to_host(a), backend.to_host(b)) for a, b, _ in ch()])
    uu, vv = np.concatenate(us), np.concatenate(vs)
    check(Gd.A.to_host(), reference(uu, vv, None, 4096, False, "min", True))


@pytest.mark.gpu
def test_gpu_trim_skipped_when_it_does_not_fit(hp_config, monkeypatch):
    """No room for the trimming copy: the columns stay a view, indptr takes their dtype."""
    cp = backend.cupy()
    hp_config(force_int64=False)
    u = np.r_[np.arange(50), np.arange(50)]
    v = (u + 1) % 50
    G = hp.Graph.from_edges(cp.asarray(u), cp.asarray(v), num_vertices=50)
    assert G.A.indices.dtype == np.int32 and G.num_edges == 50
    real = _build._device_free_bytes
    calls = []

    def tight():
        calls.append(1)
        return real() if len(calls) == 1 else 0   # the up-front estimate passes, the copy does not

    monkeypatch.setattr(_build, "_device_free_bytes", tight)
    G2 = hp.Graph.from_edges(cp.asarray(u), cp.asarray(v), num_vertices=50)
    assert G2.A.indptr.dtype == G2.A.indices.dtype
    assert G2.memory_usage()["indices"] == 100 * G2.A.indices.dtype.itemsize
    check(G2.A.to_host(), reference(u, v, None, 50, True, "min", False))


@pytest.mark.gpu
def test_gpu_out_of_memory_is_typed_and_pool_stays_usable(monkeypatch):
    cp = backend.cupy()
    u = cp.arange(1000) % 37
    monkeypatch.setattr(_build, "_device_free_bytes", lambda: 1024)
    with pytest.raises(DeviceOutOfMemory, match="only 0.00 GiB is free"):
        hp.Graph.from_edges(u, (u + 1) % 37)
    monkeypatch.undo()

    def boom(*a, **k):
        raise cp.cuda.memory.OutOfMemoryError(1 << 40, 0)

    monkeypatch.setattr(_build, "_build", boom)
    with pytest.raises(DeviceOutOfMemory, match="ran out of memory during the CSR build"):
        hp.Graph.from_edges(u, (u + 1) % 37)

    def bad_alloc(*a, **k):
        raise MemoryError("std::bad_alloc: cudaErrorMemoryAllocation: out of memory")

    monkeypatch.setattr(_build, "_build", bad_alloc)
    with pytest.raises(DeviceOutOfMemory):
        hp.Graph.from_edges(u, (u + 1) % 37)
    monkeypatch.undo()
    # 2**36 vertices need 512 GiB of per-vertex counters: refused by the size check before any
    # allocation (Graph.from_edges), naming the bytes and the device's memory
    with pytest.raises(DeviceOutOfMemory, match="needs at least 512.0 GiB .* of GPU memory"):
        hp.Graph.from_edges(u, (u + 1) % 37, num_vertices=2**36)
    G = hp.Graph.from_edges(u, (u + 1) % 37, directed=False)
    assert G.num_edges == 2 * 37
    assert G.A.indptr.tolist()[:3] == [0, 2, 4]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, bool])
@pytest.mark.parametrize("how", POLICIES)
def test_gpu_value_dtypes(dtype, how):
    """Every policy and value dtype on the device: the unordered (atomic) scatter where the order
    cannot matter, the stable one elsewhere; mixed id dtypes."""
    cp = backend.cupy()
    rng = np.random.default_rng(12)
    u, v, w = random_edges(rng, 40, 3000, dtype)
    for directed in (True, False):
        G = hp.Graph.from_edges(cp.asarray(u.astype(np.int32)), cp.asarray(v), cp.asarray(w), num_vertices=40,
                                directed=directed, duplicates=how, chunk_size=512)
        check(G.A.to_host(), reference(u, v, w, 40, directed, how, False))


@pytest.mark.parametrize("pattern", [False, True])
def test_csr_csc_from_coo_and_transpose_small_chunks(pattern, monkeypatch):
    """COO -> CSR / CSC and CSR.transpose go through the same counting sort: rectangular
    shapes, duplicates kept in input order, many chunks and row batches."""
    from hpgraph.formats import COO, csr as csr_mod

    monkeypatch.setattr(csr_mod, "DEFAULT_CHUNK", 7)
    monkeypatch.setattr(_build, "DEFAULT_BATCH", 5)
    rng = np.random.default_rng(31)
    for nr, nc, m in ((1, 1, 0), (3, 17, 60), (17, 3, 60), (40, 25, 500)):
        r, c = rng.integers(0, nr, m), rng.integers(0, nc, m)
        if m:
            r[::5], c[::5] = r[0], c[0]
        vals = None if pattern else rng.integers(-50, 50, m).astype(np.float32)
        coo = COO(r, c, vals, (nr, nc))
        o = np.lexsort((np.arange(m), c, r))      # by row, column, then input order
        A = coo.to_csr()
        assert A.shape == (nr, nc)
        assert A.indptr.tolist() == np.r_[0, np.cumsum(np.bincount(r, minlength=nr))].tolist()
        assert A.indices.tolist() == c[o].tolist()
        assert (A.values is None) if pattern else A.values.tolist() == vals[o].tolist()
        oc = np.lexsort((np.arange(m), r, c))     # by column, row, then input order
        C = coo.to_csc()
        assert C.indptr.tolist() == np.r_[0, np.cumsum(np.bincount(c, minlength=nc))].tolist()
        assert C.indices.tolist() == r[oc].tolist()
        assert (C.values is None) if pattern else C.values.tolist() == vals[oc].tolist()
        T = A.transpose()
        assert T.shape == (nc, nr) and T.indptr.tolist() == C.indptr.tolist()
        assert T.indices.tolist() == C.indices.tolist()
        assert (T.values is None) if pattern else T.values.tolist() == C.values.tolist()


def test_forced_int64_graph_through_algorithms(hp_config, backend_name):
    """A graph built on the forced 64-bit path runs BFS, connected components and PageRank
    with the results SciPy gives on the same edges."""
    from scipy.sparse.csgraph import breadth_first_order, connected_components

    hp_config(force_int64=True)
    rng = np.random.default_rng(17)
    n = 300
    u, v = rng.integers(0, n, 900), rng.integers(0, n, 900)
    G = hp.Graph.from_edges(u, v, num_vertices=n, directed=False, self_loops="drop", backend=backend_name)
    assert G.A.index_dtype == np.int64
    A = sp.coo_array((np.ones(2 * len(u)), (np.r_[u, v], np.r_[v, u])), shape=(n, n)).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    A.data[:] = 1.0          # repeated pairs are one edge (duplicates="min" on a pattern)
    order, pred = breadth_first_order(A, 0, directed=False, return_predecessors=True)
    depth = np.full(n, -1)
    depth[0] = 0
    for x in order[1:]:
        depth[x] = depth[pred[x]] + 1
    assert backend.to_host(hp.bfs(G, 0).depth).tolist() == depth.tolist()
    nc, labels = connected_components(A, directed=False)
    got_nc, got = hp.connected_components(G)
    assert got_nc == nc and backend.to_host(got).tolist() == labels.tolist()
    pr = backend.to_host(hp.pagerank(G, tol=1e-10, max_iter=500))
    deg = np.asarray(A.sum(axis=1)).ravel()
    x = np.full(n, 1.0 / n)
    for _ in range(500):
        x = 0.85 * (A.T @ np.where(deg > 0, x / np.maximum(deg, 1), 0) + x[deg == 0].sum() / n) + 0.15 / n
    assert np.allclose(pr, x, rtol=1e-6, atol=1e-12)


def test_trace_reports_each_stage_once(monkeypatch):
    seen = []
    monkeypatch.setattr(_build, "TRACE", lambda stage, sec: seen.append((stage, sec)))
    u = np.array([0, 1, 2, 2, 0], np.int64)
    v = np.array([1, 2, 0, 0, 0], np.int64)
    # two chunks: the stage-by-stage build (one host chunk takes SciPy's one-call path)
    G = hp.Graph.from_edges(lambda: [(u[:2], v[:2], None), (u[2:], v[2:], None)], num_vertices=4,
                            backend="cpu")
    assert [s for s, _ in seen] == ["count", "scan", "scatter", "rows"]
    assert all(sec >= 0 for _, sec in seen)
    check(G.A, reference(u, v, None, 4, True, "min", False))


def test_one_host_array_is_read_once_more_only_when_marked(monkeypatch):
    """SciPy's one-call counting sort takes whole host arrays (reported as the scatter stage);
    a chunk source without the mark is never read a third time."""
    from hpgraph.formats._chunks import array_chunks

    u = np.array([0, 1, 2, 2, 0], np.int64)
    v = np.array([1, 2, 0, 0, 0], np.int64)
    seen, calls = [], []
    monkeypatch.setattr(_build, "TRACE", lambda stage, sec: seen.append(stage))
    src = array_chunks(u, v, None, 1 << 20)
    assert src.one_array
    A = _build.build_csr(src, num_vertices=4, validate=False)
    assert seen == ["scatter"]
    check(A, reference(u, v, None, 4, True, "min", False))

    def counted():
        calls.append(1)
        return iter([(u, v, None)])

    seen.clear()
    B = _build.build_csr(counted, num_vertices=4, validate=False)
    assert len(calls) == 2 and seen == ["count", "scan", "scatter", "rows"]
    check(B, reference(u, v, None, 4, True, "min", False))
