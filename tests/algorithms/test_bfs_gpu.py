"""GPU BFS: the cooperative kernel (hpgraph.algorithms._bfs_gpu) compiles with NVRTC everywhere;
on the GPU, depths equal scipy's and parents are valid on the shared cases and on graphs built
to hit each kernel path (huge / heavy / light top-down vertices, long bottom-up rows, many
levels), by the kernel and by the engine program that bfs_gpu_path='auto' takes on sparse
graphs."""

import numpy as np
import pytest
import scipy.sparse as sp

import hpgraph as hp
from hpgraph.algorithms import _bfs_gpu, _coop


@pytest.mark.parametrize("idt,pdt,par", [(np.int32, np.int64, np.int32),
                                         (np.int64, np.int64, np.int64),
                                         (np.int32, np.int32, np.int32)])
@pytest.mark.parametrize("block", [256, 1024])
def test_bfs_kernel_compiles_with_nvrtc(idt, pdt, par, block):
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="NVRTC (the nvrtc extra) is not installed")
    src, name = _bfs_gpu.bfs_source(idt, pdt, par, block)
    assert name.startswith("hpg_bfs_coop_") and f"__launch_bounds__(BLOCK) {name}(" in src
    ptx = hp.backend.compile_ptx(src, name=name + ".cu", options=("-std=c++17",))
    assert f".entry {name}(" in ptx


def test_bfs_kernel_source_rejects_bad_block():
    with pytest.raises(ValueError, match="block"):
        _bfs_gpu.bfs_source(block=100)


def test_launch_shape_override(hp_config):
    assert _bfs_gpu.launch_shape(100, 400) == (_bfs_gpu.BLOCK, 1)        # sparse: narrow
    assert _bfs_gpu.launch_shape(100, 3000) == (1024, 1)
    hp_config(bfs_gpu_shape=(1024, 1))
    assert _bfs_gpu.launch_shape(10, 10) == (1024, 1)


# ---------------------------------------------------------------------------------------------
# GPU


def _graph(n, s, d, directed):
    G = hp.Graph.from_edges(np.asarray(s), np.asarray(d), num_vertices=n, directed=directed)
    A = sp.coo_matrix((np.ones(len(s)), (s, d)), shape=(n, n)).tocsr()
    if not directed:
        A = (A + A.T).tocsr()
    return G.to_device(), A


def _shapes():
    """(name, n, src, dst, directed): graphs that exercise each kernel path."""
    rng = np.random.default_rng(7)
    out = []
    # a star of 20,000 leaves: the centre is a HUGE top-down vertex; from a leaf, a long
    # bottom-up row (the centre scans its in-edges for the one leaf of the frontier)
    k = 20000
    out.append(("star", k + 1, np.zeros(k, np.int64), np.arange(1, k + 1), False))
    # 300 hubs of degree 600 (heavy: a block each) around a ring
    hubs, deg = 300, 600
    s = np.repeat(np.arange(hubs), deg)
    d = hubs + rng.integers(0, 50000, hubs * deg)
    ring = np.arange(hubs)
    out.append(("hubs", hubs + 50000, np.concatenate([s, ring]),
                np.concatenate([d, (ring + 1) % hubs]), False))
    # a long path (many levels) with a tail of isolated vertices
    m = 5000
    out.append(("path", m + 100, np.arange(m - 1), np.arange(1, m), False))
    # directed: a binary tree plus random back edges
    t = 1 << 14
    v = np.arange(1, t)
    b = rng.integers(0, t, 4000)
    out.append(("tree-directed", t, np.concatenate([(v - 1) // 2, b]),
                np.concatenate([v, rng.integers(0, t, 4000)]), True))
    # R-MAT-like: skewed, self-loops and duplicates
    G = hp.generators.rmat(12, edge_factor=16, seed=5, directed=False, backend="cpu")
    r, c = G.A.to_scipy().nonzero()
    out.append(("rmat12", G.num_vertices, r, c, True))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("launch", [(256, 2), (1024, 1), (128, 8)], ids=lambda x: f"{x[0]}x{x[1]}")
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("shape", _shapes(), ids=lambda x: x[0])
def test_bfs_kernel_paths(hp_config, shape, direction, launch, cases):
    # forced: bfs_gpu_path='auto' would take the engine on the sparse shapes
    hp_config(bfs_gpu_shape=launch, bfs_gpu_path="kernel")
    _check_shape(shape, direction, cases)


def _check_shape(shape, direction, cases):
    """hp.bfs on one of _shapes() from its largest-degree vertex, its last vertex and several
    sources (one repeated), checked against SciPy."""
    name, n, s, d, directed = shape
    Gd, A = _graph(n, s, d, directed)
    deg = np.diff(A.indptr)
    for srcs in ([int(deg.argmax())], [n - 1], [1, 1, 3, int(deg.argmax())]):
        res = hp.bfs(Gd, srcs, direction=direction)
        cases.check_bfs_matrix(res, A, n, sorted(set(srcs)))


@pytest.mark.gpu
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_bfs_kernel_matches_engine_on_shared_cases(hp_config, direction, cases):
    """Kernel, engine (device loop) and auto GPU paths: depths and parents checked against
    SciPy on every shared case."""
    for case in cases.graph_cases(min_n=1):
        G = cases.to_graph(case, "gpu")
        s = case.n // 2
        es, ed, _ = cases.directed_edges(case)
        A = sp.coo_matrix((np.ones(es.size), (es, ed)), shape=(case.n, case.n)).tocsr()
        for path in ("kernel", "engine", "auto"):
            hp_config(bfs_gpu_path=path)
            cases.check_bfs_matrix(hp.bfs(G, s, direction=direction), A, case.n, [s])


@pytest.mark.gpu
def test_bfs_kernel_streams_and_repeats(cases):
    """Calls on two streams and repeated calls: every result stays intact."""
    import cupy

    G = hp.generators.rmat(13, seed=3, backend="gpu")
    A = G.A.to_scipy()
    s1, s2 = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    res = []
    for i, s in enumerate((0, 1, 2, 0, 7, 0)):
        with (s1 if i % 2 else s2):
            res.append(hp.bfs(G, s))
    cupy.cuda.Device().synchronize()
    for r, s in zip(res, (0, 1, 2, 0, 7, 0)):
        cases.check_bfs_matrix(r, A, G.num_vertices, [s])
    assert res[0].depth.data.ptr != res[3].depth.data.ptr


@pytest.mark.gpu
def test_bfs_kernel_int64_indices(cases):
    G = hp.generators.rmat(10, seed=2, backend="cpu")
    A = G.A.to_scipy()
    r, c = A.nonzero()
    Gd = hp.Graph.from_edges(r, c, num_vertices=A.shape[0], directed=True,
                             index_dtype="int64").to_device()
    assert np.dtype(Gd.A.indices.dtype) == np.int64
    cases.check_bfs_matrix(hp.bfs(Gd, 3), A, G.num_vertices, [3])


@pytest.mark.gpu
def test_bfs_kernel_refusal_falls_back_to_engine(monkeypatch, cases):
    """A refused cooperative launch (e.g. too many blocks under MPS) runs the engine's BFS."""
    from cupy_backends.cuda.api.driver import CUDADriverError

    G = hp.generators.rmat(9, seed=4, backend="gpu")
    A = G.A.to_scipy()

    def refuse(*a, **k):
        raise CUDADriverError(720)   # CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE

    monkeypatch.setattr(_coop.CoopKernel, "_launch", refuse)
    cases.check_bfs_matrix(hp.bfs(G, 0), A, G.num_vertices, [0])
    plan = _bfs_gpu._plan(G, np.int32)
    assert plan.kern.refused
    cases.check_bfs_matrix(hp.bfs(G, 1), A, G.num_vertices, [1])     # remembered: straight to the engine


@pytest.mark.gpu
def test_bfs_kernel_profile_and_dead_bitmap(hp_config):
    """The recorded timeline has one record per non-empty level with the frontier sizes of
    the result; the preset "visited" bitmap marks exactly the vertices no edge enters."""
    hp_config(bfs_gpu_profile=True)
    G = hp.generators.rmat(11, seed=6, directed=True, backend="gpu")
    A = G.A.to_scipy()
    res = hp.bfs(G, 0)
    depth = hp.backend.to_host(res.depth)
    plan = _bfs_gpu._plan(G, np.int32)
    prof = plan.profile()
    reached = depth[depth >= 0]
    assert prof["levels"] == reached.max() + 1
    assert prof["frontier"] == np.bincount(reached).tolist()
    assert len(prof["level_us"]) == prof["levels"] and prof["total_us"] > 0
    dead = np.unpackbits(hp.backend.to_host(plan.dead).view(np.uint8), bitorder="little")
    n = G.num_vertices
    np.testing.assert_array_equal(dead[:n].astype(bool), np.diff(A.T.tocsr().indptr) == 0)
    assert dead[n:].all()


@pytest.mark.gpu
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("shape", _shapes(), ids=lambda x: x[0])
def test_bfs_engine_path_on_kernel_shapes(hp_config, shape, direction, cases):
    """The engine program (device loop) on the same graphs, multi-source and repeated sources
    included."""
    hp_config(bfs_gpu_path="engine")
    _check_shape(shape, direction, cases)
