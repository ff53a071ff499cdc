"""Label propagation against plain-Python references of the same deterministic rules, plus
sanity properties, both backends."""

from collections import Counter

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.exceptions import InvalidValue

MASK = (1 << 64) - 1


def host(a):
    return hp.backend.to_host(a)


def py_priority(v, seed):
    z = (v + 0x9E3779B97F4A7C15 * ((0 if seed is None else seed) + 1)) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)   # compared as signed 64-bit below


def signed(z):
    return z - (1 << 64) if z >= 1 << 63 else z


def neighbour_lists(cases, case):
    """Multiset of neighbour ids per vertex: distinct non-loop neighbours (undirected), or
    predecessors + successors with a mutual pair twice (directed)."""
    s, d, _ = cases.directed_edges(case)
    nb = [[] for _ in range(case.n)]
    for u, v in zip(s.tolist(), d.tolist()):
        if u == v:
            continue
        nb[u].append(v)
        if case.directed:
            nb[v].append(u)
    return nb


def py_colouring(nb, n, seed):
    """Welsh-Powell: vertices by decreasing degree (neighbour-list length), ties by decreasing
    signed priority, each the smallest colour its coloured neighbours lack."""
    prio = [signed(py_priority(v, seed)) for v in range(n)]
    colour = [-1] * n
    for v in sorted(range(n), key=lambda v: (len(nb[v]), prio[v]), reverse=True):
        used = {colour[u] for u in nb[v]}
        colour[v] = next(k for k in range(n + 1) if k not in used)
    return colour, max(colour, default=-1) + 1


def most_frequent(labels, nbs):
    cnt = Counter(labels[u] for u in nbs)
    mx = max(cnt.values())
    return [lab for lab, k in cnt.items() if k == mx]


def py_semi_sync(nb, n, max_iter, seed):
    colour, ncol = py_colouring(nb, n, seed)
    labels = list(range(n))
    for _ in range(max_iter):
        changed = False
        for c in range(ncol):
            for v in range(n):                       # one by one within the class
                if colour[v] != c or not nb[v]:
                    continue
                best = most_frequent(labels, nb[v])
                new = labels[v] if labels[v] in best else min(best)
                if new != labels[v]:
                    labels[v], changed = new, True
        if not changed:
            break
    return np.array(labels)


def py_sync(nb, n, max_iter):
    labels = list(range(n))
    for _ in range(max_iter):
        new = [min(most_frequent(labels, nb[v])) if nb[v] else labels[v] for v in range(n)]
        if new == labels:
            break
        labels = new
    return np.array(labels)


@pytest.mark.cases(max_n=300)
def test_semi_synchronous_matches_reference(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    nb = neighbour_lists(cases, case)
    for seed in (None, 7):
        lab = host(hp.label_propagation(G, seed=seed, backend=backend_name))
        assert lab.dtype == np.int32 and lab.shape == (case.n,)
        np.testing.assert_array_equal(lab, py_semi_sync(nb, case.n, 100, seed))
    for max_iter in (1, 2):  # stopped before the fixed point: the same partial sweeps
        lab = host(hp.label_propagation(G, max_iter=max_iter, backend=backend_name))
        np.testing.assert_array_equal(lab, py_semi_sync(nb, case.n, max_iter, None))


@pytest.mark.cases(max_n=300)
def test_synchronous_matches_reference(graph_case, backend_name, cases):
    case = graph_case
    G = cases.to_graph(case, backend_name)
    nb = neighbour_lists(cases, case)
    for max_iter in (1, 3, 30):
        lab = host(hp.label_propagation(G, max_iter=max_iter, mode="synchronous",
                                        backend=backend_name))
        np.testing.assert_array_equal(lab, py_sync(nb, case.n, max_iter))


@pytest.mark.parametrize("mode", ["semi-synchronous", "synchronous"])
def test_labels_stay_in_component(graph_case, backend_name, cases, mode):
    case = graph_case
    lab = host(hp.label_propagation(cases.to_graph(case, backend_name), mode=mode,
                                    backend=backend_name))
    if case.n == 0:
        return
    _, comp = csg.connected_components(cases.to_scipy(case), directed=True, connection="weak")
    assert np.all((lab >= 0) & (lab < case.n))
    np.testing.assert_array_equal(comp[lab], comp)
    # a semi-synchronous fixed point: every label is among the most frequent of its neighbours
    if mode == "semi-synchronous":
        nb = neighbour_lists(cases, case)
        for v in range(case.n):
            if nb[v]:
                assert lab[v] in most_frequent(lab, nb[v])
            else:
                assert lab[v] == v


@pytest.mark.parametrize("mode", ["semi-synchronous", "synchronous"])
def test_two_cliques_two_communities(backend_name, mode):
    i, j = np.triu_indices(6, 1)
    s = np.concatenate([i, i + 6])
    d = np.concatenate([j, j + 6])
    perm = np.random.default_rng(1).permutation(13)   # 13 vertices: one isolated
    G = hp.Graph.from_edges(perm[s], perm[d], num_vertices=13, directed=False, backend="cpu")
    lab = host(hp.label_propagation(G, mode=mode, backend=backend_name))
    assert len(set(lab[perm[:6]])) == 1 and len(set(lab[perm[6:12]])) == 1
    assert lab[perm[0]] != lab[perm[6]]
    assert lab[perm[12]] == perm[12]
    assert len(np.unique(lab)) == 3


def test_semi_synchronous_settles_where_synchronous_oscillates(backend_name):
    S = hp.generators.star(8, backend="cpu")
    lab = host(hp.label_propagation(S, backend=backend_name))
    assert len(np.unique(lab)) == 1
    osc = host(hp.label_propagation(S, mode="synchronous", max_iter=11, backend=backend_name))
    assert len(np.unique(osc)) == 2      # centre and leaves keep swapping


@pytest.mark.parametrize("max_iter", [10**12, 10**12 + 1, 2**63 - 1])
def test_synchronous_oscillation_with_a_huge_max_iter_ends(backend_name, max_iter):
    """A graph that oscillates between two states returns at once with the labels the
    reference reaches after the same number of iterations (found by the long fuzz run: it ran
    for the whole max_iter)."""
    S = hp.generators.star(6, backend="cpu")
    nb = [sorted(set(S.to_scipy()[[v]].indices.tolist()) - {v}) for v in range(6)]
    parity = 2 + max_iter % 2          # the reference needs only the parity of max_iter
    for G in (S, hp.Graph.from_edges([0, 1, 1], [1, 0, 1], num_vertices=2, directed=False)):
        if G is not S:
            nb = [[1], [0]]
        lab = host(hp.label_propagation(G, mode="synchronous", max_iter=max_iter, backend=backend_name))
        np.testing.assert_array_equal(lab, py_sync(nb, G.num_vertices, parity))


def test_label_propagation_rmat(backend_name):
    """A 1024-vertex R-MAT graph: exactly the plain-Python semi-synchronous reference (built
    from SciPy's adjacency lists, not from hpgraph), labels inside components."""
    G = hp.generators.rmat(10, seed=3, backend="cpu")
    lab = host(hp.label_propagation(G, backend=backend_name))
    A = G.to_scipy().tocsr()
    n = A.shape[0]
    nb = [[int(u) for u in A.indices[A.indptr[v]:A.indptr[v + 1]] if u != v] for v in range(n)]
    np.testing.assert_array_equal(lab, py_semi_sync(nb, n, 100, None))
    _, comp = csg.connected_components(A, directed=False)
    np.testing.assert_array_equal(comp[lab], comp)
    assert len(np.unique(lab)) < G.num_vertices // 2


def test_label_propagation_arguments():
    G = hp.generators.path(4, backend="cpu")
    for kw in ({"mode": "async"}, {"max_iter": -1}, {"seed": -3}, {"seed": 1.5}):
        with pytest.raises(InvalidValue):
            hp.label_propagation(G, backend="cpu", **kw)
    np.testing.assert_array_equal(hp.label_propagation(G, max_iter=0, backend="cpu"), np.arange(4))
    E = hp.Graph.from_edges([], [], num_vertices=0, directed=False, backend="cpu")
    assert hp.label_propagation(E, backend="cpu").shape == (0,)


@pytest.mark.parametrize("seed", [None, 0, 7, 2**40])
def test_priorities_are_the_splitmix64_finaliser(seed):
    """The colouring's priorities are exactly the documented splitmix64 hash (a mutated shift
    or constant gives another bijection, which the graph tests alone do not notice)."""
    from hpgraph.algorithms._label_propagation import priorities

    got = priorities(300, seed)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [signed(py_priority(v, seed)) for v in range(300)])


@pytest.mark.parametrize("w", [None, np.int32])
def test_label_propagation_device_kernels_compile(w):
    from hpgraph.algorithms._label_propagation_gpu import labelprop_source
    from hpgraph.exceptions import DeviceUnavailable

    try:
        ptx = hp.backend.compile_ptx(labelprop_source(np.dtype(np.int32), None if w is None else np.dtype(w)),
                                     "labelprop.cu", options=("-std=c++17",))
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
    assert ".entry lp_class" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_label_propagation_gpu_heavy_vertices(directed):
    """Vertices past the warp kernel's 32 neighbours (the block kernel's hash tables), mutual
    directed pairs counting twice, both schedules: the plain-Python references."""
    from hpgraph.algorithms._label_propagation_gpu import SMEM_CAP

    rng = np.random.default_rng(5)
    n = 2500
    big = SMEM_CAP // 2 + 300          # vertex 1: a table in global memory; vertex 0: in shared
    s = np.concatenate([np.zeros(400, np.int64), np.ones(big, np.int64), rng.integers(2, 60, 300),
                        rng.integers(0, n, 3000)])
    d = np.concatenate([rng.permutation(np.arange(2, n))[:400], rng.permutation(np.arange(2, n))[:big],
                        rng.integers(2, 60, 300), rng.integers(0, n, 3000)])
    if directed:   # some mutual pairs
        s, d = np.concatenate([s, d[:200]]), np.concatenate([d, s[:200]])
    G = hp.Graph.from_edges(s, d, num_vertices=n, directed=directed, backend="gpu")
    pairs = set()
    nb = [[] for _ in range(n)]
    for u, v in zip(s.tolist(), d.tolist()):
        if u == v or (u, v) in pairs or (not directed and (v, u) in pairs):
            continue
        pairs.add((u, v))
        nb[u].append(v)
        nb[v].append(u)
    assert len(nb[1]) > SMEM_CAP // 2 and 32 < len(nb[0]) <= SMEM_CAP // 2
    for split in (2, 0):        # hubs spread over blocks (few per class) / a block per hub
        with hp.config.set(labelprop_hub_split_per_sm=split):
            for seed in (None, 3):
                lab = host(hp.label_propagation(G, seed=seed, backend="gpu"))
                np.testing.assert_array_equal(lab, py_semi_sync(nb, n, 100, seed))
            for it in (1, 2, 5):
                lab = host(hp.label_propagation(G, mode="synchronous", max_iter=it, backend="gpu"))
                np.testing.assert_array_equal(lab, py_sync(nb, n, it))


@pytest.mark.gpu
def test_label_propagation_gpu_more_than_1024_colours():
    """A clique of 1,030 vertices needs 1,030 colours: the device colouring's second window of
    1,024 colours, one class per vertex; plus a path hanging off it.  The plain-Python
    reference."""
    k, n = 1030, 1040
    iu = np.triu_indices(k, 1)
    s = np.concatenate([iu[0], np.arange(k - 1, n - 1)])
    d = np.concatenate([iu[1], np.arange(k, n)])
    G = hp.Graph.from_edges(s, d, num_vertices=n, directed=False, backend="gpu")
    nb = [[] for _ in range(n)]
    for u, v in zip(s.tolist(), d.tolist()):
        nb[u].append(v)
        nb[v].append(u)
    assert py_colouring(nb, n, None)[1] == k
    lab = host(hp.label_propagation(G, max_iter=2, backend="gpu"))
    np.testing.assert_array_equal(lab, py_semi_sync(nb, n, 2, None))


def test_label_propagation_gpu_schedule_host_side():
    """The GPU schedule's host arrays (built here with NumPy in CuPy's place): every vertex with
    neighbours in exactly one list of its class, each hub's row and table covered by the work
    pairs in CHUNK steps, hub tables of a class side by side and never overlapping."""
    from hpgraph.algorithms import _label_propagation_gpu as lpg

    rng = np.random.default_rng(2)
    deg = rng.integers(0, 40, 200).astype(np.int64)
    deg[[3, 50, 120]] = [lpg.SMEM_CAP // 2 + 1, 3 * lpg.CHUNK + 7, lpg.SMEM_CAP // 2]
    classes = [np.arange(0, 70), np.arange(70, 130), np.arange(130, 200)]
    sch = lpg._Schedule(np, deg, classes, np.int32)
    for verts, (l0, lc, h0, mc, hc, i0, ic, s0, sc) in zip(classes, sch.items):
        hubs, mid = sch.heavy[h0:h0 + hc], sch.heavy[h0 + hc:h0 + hc + mc]
        got = np.concatenate([sch.light[l0:l0 + lc], mid, hubs])
        assert sorted(got.tolist()) == sorted(verts[deg[verts] > 0].tolist())
        assert (deg[sch.light[l0:l0 + lc]] <= lpg.LIGHT).all()
        assert (deg[mid] > lpg.LIGHT).all() and (deg[mid] <= lpg.SMEM_CAP // 2).all()
        assert (deg[hubs] > lpg.SMEM_CAP // 2).all() and (np.diff(deg[hubs]) <= 0).all()
        ins = sch.ins[2 * i0:2 * (i0 + ic)].reshape(-1, 2)
        clear = sch.clear[2 * s0:2 * (s0 + sc)].reshape(-1, 2)
        ends = []
        for h, v in enumerate(hubs):
            cap = 1 << int(np.ceil(np.log2(2 * deg[v])))
            assert sorted(ins[ins[:, 0] == h, 1].tolist()) == list(range(0, int(deg[v]), lpg.CHUNK))
            assert sorted(clear[clear[:, 0] == h, 1].tolist()) == list(range(0, cap, lpg.CHUNK))
            t = int(sch.toff[h0 + h])
            ends.append((t, t + cap))
        for (a0, a1), (b0, b1) in zip(sorted(ends), sorted(ends)[1:]):
            assert a1 <= b0
        assert all(e <= sch.scratch for _, e in ends)
    assert [it[4] for it in sch.items] == [2, 0, 0]        # vertex 120 (1,024 neighbours) is mid
