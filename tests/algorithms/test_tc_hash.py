"""The hash triangle kernels (hpgraph/algorithms/_tc_hash.py): NVRTC compilation, their
preprocessing and a line-by-line Python transcription of their logic against networkx (no GPU
needed), and the kernels themselves on the device against networkx and a SciPy trace."""

import networkx as nx
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import _tc_hash
from hpgraph.algorithms._triangles import _oriented

MASK64 = (1 << 64) - 1


def host(a):
    return hp.backend.to_host(a)


@pytest.mark.parametrize("idx,ptr", [(np.int32, np.int64), (np.int64, np.int64),
                                     (np.int32, np.int32)])
def test_hash_kernels_compile(idx, ptr):
    try:
        src, name = _tc_hash.tc_hash_source(idx, ptr)
        ptx = hp.backend.compile_ptx(src, name + ".cu", ("-std=c++17",))
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert f".entry {name}_warp(" in ptx and f".entry {name}_block(" in ptx


def _random_graph(seed, n=61, m=500):
    """Random edges with a hub (vertex 0), self-loops and repeats; and its networkx twin."""
    rng = np.random.default_rng(seed)
    s = np.concatenate([rng.integers(0, n - 1, m), np.zeros(50, np.int64), [3, 3]])
    d = np.concatenate([rng.integers(0, n - 1, m), rng.integers(1, n - 1, 50), [3, 4]])
    G = hp.Graph.from_edges(s, d, num_vertices=n, directed=False, backend="cpu")
    H = nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from((a, b) for a, b in zip(s.tolist(), d.tolist()) if a != b)
    return G, H


@pytest.mark.parametrize("split", [2048, 3])
def test_structure_orders_lists_by_rank_and_groups_in_edges(hp_config, split, monkeypatch):
    hp_config(triangle_hash_split=split)
    G, _ = _random_graph(1)
    indptr, ind, erow = _oriented(G)
    st = _tc_hash.structure(indptr, ind, erow, G.num_vertices)
    deg = np.bincount(erow, minlength=G.num_vertices) + np.bincount(ind, minlength=G.num_vertices)
    key = deg.astype(np.int64) * G.num_vertices + np.arange(G.num_vertices)
    for u in range(G.num_vertices):
        row = st.indices[indptr[u]:indptr[u + 1]]
        assert sorted(row.tolist()) == sorted(ind[indptr[u]:indptr[u + 1]].tolist())
        assert np.all(np.diff(key[row]) > 0) and np.all(key[row] > key[u])
    for v in range(G.num_vertices):
        es = st.tedge[st.tptr[v]:st.tptr[v + 1]]
        assert np.all(st.indices[es] == v)
    assert st.tptr[-1] == ind.shape[0]
    # a vertex's tasks: disjoint pieces (<= triangle_hash_split) of its in-edges holding all its
    # look-ups (pieces without any are left out)
    tv, tb, te = (np.concatenate(x) for x in zip(st.warp_tasks, st.block_tasks))
    assert np.all(te - tb <= hp.config["triangle_hash_split"]) and np.all(te > tb)
    outdeg = np.diff(indptr)
    looks = np.array([int(indptr[erow[e] + 1]) - e - 1 for e in st.tedge])   # along tedge
    for v in range(G.num_vertices):
        pieces = sorted(zip(tb[tv == v].tolist(), te[tv == v].tolist()))
        assert all(st.tptr[v] <= a < b <= st.tptr[v + 1] for a, b in pieces)
        assert all(p[1] <= q[0] for p, q in zip(pieces, pieces[1:]))
        want = looks[st.tptr[v]:st.tptr[v + 1]].sum() if outdeg[v] > 0 else 0
        assert sum(looks[a:b].sum() for a, b in pieces) == want
    # warp tasks: the first warp_heavy cost more than TCH_CHEAP, the others at most that
    wv, wb, we = st.warp_tasks
    cost = np.array([looks[a:b].sum() + hp.config["triangle_hash_edge_cost"] * (b - a)
                     for a, b in zip(wb.tolist(), we.tolist())])
    assert np.all(cost[:st.warp_heavy] > _tc_hash.TCH_CHEAP)
    assert np.all(cost[st.warp_heavy:] <= _tc_hash.TCH_CHEAP)
    work = sum(int(indptr[u + 1]) - e - 1 for u in range(G.num_vertices)
               for e in range(indptr[u], indptr[u + 1]) if outdeg[st.indices[e]] > 0)
    assert st.work == work > 0


def _slot(w, shift):
    h = int(w) & 0xFFFFFFFF
    h ^= (int(w) & MASK64) >> 32
    return ((h * 0x9E3779B1) & 0xFFFFFFFF) >> shift


def _emu_count_vertex(v, t0, t1, indptr, st, erow, G, CAP, pv, items=_tc_hash.TCH_ITEMS):
    """``count_vertex<G, CAP>`` of the kernel source, threads of the group taken in turn."""
    ind, tedge = st.indices, st.tedge
    b0, b1 = indptr[v], indptr[v + 1]
    c = 0
    for p0 in range(b0, b1, CAP):
        p1 = min(p0 + CAP, b1)
        bits = 5
        while (1 << bits) < _tc_hash.TCH_SPREAD * (p1 - p0):
            bits += 1
        mask, shift = (1 << bits) - 1, 32 - bits
        table = [-1] * (1 << bits)
        for i in range(p0, p1):                      # h_insert
            s = _slot(ind[i], shift)
            while table[s] != -1:
                s = (s + 1) & mask
            table[s] = int(ind[i])
        for c0 in range(t0, t1, G):
            seg, start, us = [], [], []
            for tid in range(G):
                j = c0 + tid
                if j < t1:
                    e = int(tedge[j])
                    u = int(erow[e])
                    start.append(e + 1)
                    seg.append(int(indptr[u + 1]) - (e + 1))
                    us.append(u)
                else:
                    start.append(0)
                    seg.append(0)
                    us.append(0)
            incl = np.cumsum(seg)
            excl = incl - np.array(seg)
            base = np.array(start) - excl
            tot = int(incl[-1])
            cn = min(G, t1 - c0)
            for tid in range(G):
                for k0 in range(tid * items, tot, G * items):
                    lo, hi = 0, cn - 1
                    while lo < hi:
                        mid = (lo + hi + 1) >> 1
                        if excl[mid] <= k0:
                            lo = mid
                        else:
                            hi = mid - 1
                    nxt = excl[lo + 1] if lo + 1 < cn else tot
                    for k in range(k0, min(k0 + items, tot)):
                        while k >= nxt:
                            lo += 1
                            nxt = excl[lo + 1] if lo + 1 < cn else tot
                        w = int(ind[base[lo] + k])
                        s = _slot(w, shift)          # h_find
                        while table[s] != -1 and table[s] != w:
                            s = (s + 1) & mask
                        if table[s] == w:
                            c += 1
                            pv[us[lo]] += 1
                            pv[v] += 1
                            pv[w] += 1
    return c


@pytest.mark.parametrize("group,cap,seed,split,items", [(32, 64, 0, 2048, 4), (8, 3, 1, 5, 1),
                                                        (4, 1, 2, 1, 3), (256, 2048, 3, 7, 4)])
def test_hash_kernel_logic_emulated(hp_config, group, cap, seed, split, items, monkeypatch):
    hp_config(triangle_hash_split=split)
    G, H = _random_graph(seed)
    n = G.num_vertices
    indptr, ind, erow = _oriented(G)
    st = _tc_hash.structure(indptr, ind, erow, n)
    pv = np.zeros(n, np.int64)
    tasks = [np.concatenate(x) for x in zip(st.warp_tasks, st.block_tasks)]
    total = sum(_emu_count_vertex(int(v), int(b), int(e), indptr, st, erow, group, cap, pv,
                                  items)
                for v, b, e in zip(*(t.tolist() for t in tasks)))
    ref = nx.triangles(H)
    assert total == sum(ref.values()) // 3
    np.testing.assert_array_equal(pv, [ref[i] for i in range(n)])


@pytest.fixture
def emulated_kernels(monkeypatch):
    """The hash kernels' own device driver (``tc_hash_count``) on the host: CuPy replaced by
    its NumPy stand-in and the kernels run by the CUDA emulator of the graphblas tests (g++)."""
    emu = pytest.importorskip("tests.graphblas._cuda_emu")
    if not emu.available():
        pytest.skip("g++ is needed to emulate the kernels")
    fake = emu.emulate_device_driver(monkeypatch)
    _tc_hash._kernels.cache_clear()          # no module of a real device in the cache
    yield fake
    _tc_hash._kernels.cache_clear()          # nor an emulated one after the test


def _dense_core(seed, n=90):
    """A dense random graph (long out-lists: pieces of small table caps) and its twin."""
    H = nx.gnp_random_graph(n, 0.4, seed=seed)
    e = np.array(list(H.edges()))
    return hp.Graph.from_edges(e[:, 0], e[:, 1], num_vertices=n, directed=False,
                               backend="cpu"), H


@pytest.mark.parametrize("wcap,bcap,items,cheap,batch,spread,bwork,split", [
    (64, 1024, 8, 64, 16, 4, 4096, 2048),   # the shipped constants and keys
    (2, 3, 8, 0, 3, 4, 0, 5),               # every task to the block kernel, tables in pieces
    (64, 1024, 3, 10**9, 3, 4, 10**9, 5),   # every task to the warp kernel, claimed 3 at a time
    (1, 1, 1, 5, 1, 2, 50, 3), (8, 16, 5, 20, 7, 8, 100, 2048)])
@pytest.mark.parametrize("make", [_random_graph, _dense_core], ids=["random", "dense"])
def test_hash_kernels_run_emulated(hp_config, emulated_kernels, monkeypatch, make, wcap, bcap,
                                   items, cheap, batch, spread, bwork, split):
    """``tc_hash_count`` with the kernels themselves (not a transcription): warp and block
    kernels, table pieces, loads before probes, and the warp tasks claimed one at a time up to
    ``warp_heavy`` and in batches after it; totals and per-vertex counts against networkx."""
    for name, value in (("TCH_WARP_CAP", wcap), ("TCH_BLOCK_CAP", bcap), ("TCH_ITEMS", items),
                        ("TCH_CHEAP", cheap), ("TCH_BATCH", batch), ("TCH_SPREAD", spread)):
        monkeypatch.setattr(_tc_hash, name, value)
    hp_config(triangle_hash_block_work=bwork, triangle_hash_split=split)
    G, H = make(7)
    n = G.num_vertices
    indptr, ind, erow = _oriented(G)
    st = _tc_hash.structure(indptr, ind, erow, n)
    dev = emulated_kernels._dev
    st = st._replace(indices=dev(st.indices), tedge=dev(st.tedge),
                     warp_tasks=tuple(dev(x) for x in st.warp_tasks),
                     block_tasks=tuple(dev(x) for x in st.block_tasks))
    total, pv = _tc_hash.tc_hash_count(dev(indptr), dev(erow), st, n, True)
    ref = nx.triangles(H)
    assert total == sum(ref.values()) // 3
    np.testing.assert_array_equal(np.asarray(pv), [ref[i] for i in range(n)])


def _trace_counts(G):
    """(total, per vertex) triangles from SciPy: (A A) .* A over the simple graph."""
    A = G.to_scipy().astype(np.int64)
    A.setdiag(0)
    A.eliminate_zeros()
    A.data[:] = 1
    C = (A @ A).multiply(A)
    return int(C.sum()) // 6, np.asarray(C.sum(axis=1)).ravel() // 2


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["hash", "merge"])
@pytest.mark.cases(directed=False)
def test_gpu_kernels_match_networkx(graph_case, cases, kernel):
    G = cases.to_graph(graph_case, "gpu")
    ref = nx.triangles(cases.to_networkx(graph_case))
    ref = np.array([ref[i] for i in range(graph_case.n)], dtype=np.int64)
    with hp.config.set(triangle_kernel=kernel):
        assert hp.triangle_count(G, backend="gpu") == int(ref.sum()) // 3
        np.testing.assert_array_equal(host(hp.triangles(G, backend="gpu")), ref)


@pytest.mark.gpu
@pytest.mark.parametrize("wcap,bcap,bwork,split,items,cheap,batch,spread", [
    (64, 2048, 4096, 2048, 4, 64, 16, 2), (1, 1, 0, 1, 1, 0, 1, 2), (2, 3, 10**9, 3, 3, 0, 3, 4),
    (32, 16, 50, 100, 7, 10**9, 5, 8), (64, 2048, 10**9, 2048, 4, 20, 1000, 2)])
def test_gpu_hash_every_split(hp_config, wcap, bcap, bwork, split, items, cheap, batch, spread,
                              monkeypatch):
    """Warp and block kernels, table pieces, task splits, chunking, items per thread and the
    batched claiming of cheap warp tasks: every routing gives the trace."""
    monkeypatch.setattr(_tc_hash, "TCH_WARP_CAP", wcap)
    monkeypatch.setattr(_tc_hash, "TCH_BLOCK_CAP", bcap)
    monkeypatch.setattr(_tc_hash, "TCH_ITEMS", items)
    monkeypatch.setattr(_tc_hash, "TCH_CHEAP", cheap)
    monkeypatch.setattr(_tc_hash, "TCH_BATCH", batch)
    monkeypatch.setattr(_tc_hash, "TCH_SPREAD", spread)
    hp_config(triangle_hash_block_work=bwork)
    hp_config(triangle_hash_split=split)
    G = hp.generators.rmat(11, edge_factor=16, seed=5, backend="cpu")
    total, per_vertex = _trace_counts(G)
    Gd = G.to_device()
    with hp.config.set(triangle_kernel="hash"):
        assert hp.triangle_count(Gd, backend="gpu") == total
        np.testing.assert_array_equal(host(hp.triangles(Gd, backend="gpu")), per_vertex)


def test_out_lists_beyond_32_bit_offsets_are_refused():
    """An out-list so long that a block's concatenated segments would pass 32-bit offsets is
    a NotImplementedError naming the fallback, before anything runs."""
    G, _ = _random_graph(4)
    indptr, ind, erow = _oriented(G)
    st = _tc_hash.structure(indptr, ind, erow, G.num_vertices)
    assert st.max_out == int(np.diff(indptr).max())
    with pytest.raises(NotImplementedError, match="triangle_kernel.*merge"):
        _tc_hash.tc_hash_count(indptr, erow, st._replace(max_out=2**31 // _tc_hash.TCH_BLOCK),
                               G.num_vertices, False)


def test_table_slots_hold_every_piece():
    """The shared tables are sized by the kernels' own rule (>= 32, a power of two, >= 4 cap),
    also for the small and odd caps the GPU tests use."""
    assert _tc_hash.TCH_SPREAD == 4
    assert [_tc_hash.table_slots(c) for c in (1, 3, 8, 9, 16, 17, 64, 1024)] == \
        [32, 32, 32, 64, 64, 128, 256, 4096]


def test_odd_caps_compile(monkeypatch):
    monkeypatch.setattr(_tc_hash, "TCH_WARP_CAP", 3)
    monkeypatch.setattr(_tc_hash, "TCH_BLOCK_CAP", 5)
    src, name = _tc_hash.tc_hash_source(np.int32, np.int64)
    assert "#define WSLOTS 32" in src and "#define BSLOTS 32" in src
    try:
        ptx = hp.backend.compile_ptx(src, name + ".cu", ("-std=c++17",))
    except hp.exceptions.DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert f".entry {name}_block(" in ptx
