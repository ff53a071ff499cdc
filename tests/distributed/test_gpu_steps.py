"""The distributed BFS level kernels and PageRank loop (hpgraph.distributed._gpu_steps): NVRTC
compiles them everywhere; on the device they run as a job of a communicator of one rank (the
path a job of several GPUs takes, which one GPU otherwise skips for the single-GPU functions)
and through the public functions on every GPU of the machine; depths are checked against
SciPy's, PageRank against the single-process CPU result."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph.distributed import _gpu_steps

from .conftest import CASES


@pytest.mark.parametrize("idt,pdt", [(np.int32, np.int64), (np.int64, np.int64), (np.int32, np.int32)])
def test_level_kernels_compile_with_nvrtc(idt, pdt):
    pytest.importorskip("cupy_backends.cuda.libs.nvrtc", reason="NVRTC (the nvrtc extra) is not installed")
    src = _gpu_steps.bfs_level_source(idt, pdt)
    ptx = hp.backend.compile_ptx(src, name="bfs_level.cu", options=("-std=c++17",))
    for k in _gpu_steps._KERNELS:
        assert f".entry {k}(" in ptx


def _special_graphs():
    """Graphs that reach each code path: a hub above HUGE (the grid's loop) and one above
    HEAVY (a block), long bottom-up rows (> LONG in-edges before a frontier one), isolated
    vertices, a directed chain, and several components."""
    rng = np.random.default_rng(7)
    out = []
    n = 12000
    hub = np.zeros(_gpu_steps.HUGE + 500, dtype=np.int64)
    leaves = np.arange(1, _gpu_steps.HUGE + 501)
    mid = np.full(400, 9000)
    mid_leaves = rng.choice(np.arange(9001, n), 400, replace=False)
    extra = rng.integers(0, n - 50, size=(2, 3000))      # vertices n-50.. stay isolated
    src = np.concatenate([hub, mid, extra[0]])
    dst = np.concatenate([leaves, mid_leaves, extra[1]])
    out.append(("hubs-u", src, dst, n, False, [0]))
    # a long row: vertex 1's first 300 in-edges come from leaves (never in a frontier before
    # it), its last from vertex 5999 (depth 1); a pull from depth 1 finds it past LONG
    leaves = np.arange(100, 400)
    src = np.concatenate([[0, 1], np.ones(300, dtype=np.int64), [0, 2]])
    dst = np.concatenate([[5999, 5999], leaves, [2, 3]])
    out.append(("long-row-u", src, dst, 6000, False, [0]))
    out.append(("chain-d", np.arange(0, 999), np.arange(1, 1000), 1200, True, [0, 500]))
    s = rng.integers(0, 3000, 20000)
    d = rng.integers(0, 3000, 20000)
    out.append(("random-d", s, d, 3000, True, [3, 7, 11]))
    return out


def _scipy_depth(src, dst, n, directed, sources):
    A = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    ref = csg.shortest_path(A, directed=directed, unweighted=True, indices=sources).min(axis=0)
    return np.where(np.isinf(ref), -1, ref).astype(np.int32)


# ---------------------------------------------------------------------------------------------
# GPU

@pytest.fixture(scope="module")
def gpu_cluster():
    from hpgraph import distributed as hpd

    c = hpd.Cluster(backend="gpu")
    yield c
    c.close()


def _job_bfs(dg, sources, alpha):
    from hpgraph.distributed._job import run_job
    from hpgraph.distributed.algorithms import _bfs_kernel

    values, _ = run_job(dg, _bfs_kernel, dict(sources=sources, push_alpha=alpha))
    return np.concatenate(values)


#: Beamer's alpha: 0 pushes every level it can, inf pulls every level, 14 mixes them
ALPHAS = (0.0, 14.0, np.inf)


@pytest.mark.gpu
def test_level_kernels_on_the_shared_cases(gpu_cluster):
    """Every rank's kernel path (no single-GPU shortcut)."""
    from hpgraph import distributed as hpd

    for case in CASES.graph_cases(min_n=len(gpu_cluster.workers)):   # a vertex per rank
        dg = hpd.DistributedGraph(gpu_cluster, CASES.to_graph(case, "cpu"))
        A = CASES.to_scipy(case)
        for sources in ([0], [case.n - 1, 0]):
            ref = csg.shortest_path(A, directed=True, unweighted=True, indices=sources).min(axis=0)
            for alpha in ALPHAS:
                np.testing.assert_array_equal(_job_bfs(dg, sources, alpha),
                                              np.where(np.isinf(ref), -1, ref),
                                              err_msg=f"{case.name} alpha={alpha}")
        dg.release()


@pytest.mark.gpu
def test_level_kernels_on_special_graphs(gpu_cluster):
    from hpgraph import distributed as hpd

    for name, src, dst, n, directed, sources in _special_graphs():
        G = hp.Graph.from_edges(src, dst, num_vertices=n, directed=directed)
        dg = hpd.DistributedGraph(gpu_cluster, G)
        ref = _scipy_depth(src, dst, n, directed, sources)
        for alpha in ALPHAS:
            np.testing.assert_array_equal(_job_bfs(dg, sources, alpha), ref,
                                          err_msg=f"{name} alpha={alpha}")
            np.testing.assert_array_equal(hpd.bfs(dg, sources, push_alpha=alpha), ref,
                                          err_msg=f"{name} alpha={alpha}")
        dg.release()


@pytest.mark.gpu
def test_pagerank_loop_on_the_shared_cases(gpu_cluster):
    from hpgraph import distributed as hpd
    from hpgraph.distributed._job import run_job
    from hpgraph.distributed.algorithms import _pagerank_kernel

    for case in CASES.graph_cases(min_n=len(gpu_cluster.workers)):
        G = CASES.to_graph(case, "cpu")
        dg = hpd.DistributedGraph(gpu_cluster, G)
        for dtype, atol in ((np.float64, 1e-12), (np.float32, 1e-6)):
            values, info = run_job(dg, _pagerank_kernel, dict(
                damping=0.85, tol=1e-6, max_iter=100, weighted=False, dtype=np.dtype(dtype).name))
            want = hp.pagerank(G, backend="cpu", dtype=np.float64)
            np.testing.assert_allclose(np.concatenate(values), want, rtol=0, atol=atol,
                                       err_msg=case.name)
        dg.release()
