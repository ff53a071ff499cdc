"""The tuning keys of hp.config: defaults, validation, restoring, and what each one changes.

Every key is read where it is used, at call time, so ``with hp.config.set(...)`` applies to the
calls inside the block.  The GPU-only keys (launch shapes, kernel timelines, the GPU BFS and near-far
paths, cuSPARSE preference) are exercised by the GPU tests
(tests/algorithms/test_bfs_gpu.py, test_sssp_gpu.py, tests/spmv/test_relabel_gpu.py,
tests/graphblas/test_mxm_kernels.py); here they are validated and, where the decision is plain
Python, checked on the CPU.
"""

from __future__ import annotations

import importlib
import math
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

import hpgraph as hp
from hpgraph._config_keys import SPMV_FORMAT
from hpgraph.exceptions import InvalidValue

#: every tuning key with the default it must keep (the values the module knobs had)
DEFAULTS = {
    "bfs_alpha": 15.0,
    "bfs_beta": 18.0,
    "bfs_gpu_path": "auto",
    "bfs_gpu_kernel_degree": 8.0,
    "bfs_engine_push_alpha": 4.0,
    "bfs_pull_format": "csr_vector:4",
    "bfs_gpu_sparse_degree": 8.0,
    "bfs_gpu_shape": None,
    "bfs_gpu_profile": False,
    "sssp_gpu_nearfar": "auto",
    "sssp_gpu_kernel_degree": 8.0,
    "sssp_gpu_shape": None,
    "sssp_gpu_profile": False,
    "sssp_delta_factor": 128.0,
    "kcore_blocks_per_sm": 2,
    "labelprop_hub_split_per_sm": 2,
    "sssp_bf_push_alpha": None,
    "triangle_merge_heavy": 2048,
    "triangle_hash_split": 2048,
    "triangle_hash_block_work": 4096,
    "triangle_hash_edge_cost": 8,
    "triangle_kernel": "auto",
    "triangle_auto_wedges": 12.0,
    "betweenness_cpu_batch_entries": 1 << 23,
    "betweenness_gpu_batch_entries": 1 << 27,
    "apsp_max_vertices": 20_000,
    "iterate_stall_contracting": 100,
    "iterate_stall_general": 1000,
    "iterate_stall_shrink": 0.5,
    "engine_mixed_batch": 8,
    "engine_graph_min": 16,
    "engine_block_loop_steps": 1024,
    "spmv_auto_csr": "csr_lb",
    "spmv_hyb_max_coo_share": 0.1,
    "spmv_hyb_min_fill": 0.5,
    "spmv_auto_relabel": True,
    "spmv_relabel_min_nnz": 1 << 22,
    "spmv_relabel_memory_share": 0.5,
    "spmv_cpu_parallel_min_nnz": 1 << 18,
    "mxm_prefer_cusparse": False,
    "mxm_cusparse_max_flops": 1 << 30,
    "mxm_dot_heavy_cost": 2048,
    "mxm_dot_kernel": "auto",
    "mxm_hash_split": 512,
    "mxm_hash_block_work": 8192,
    "io_direct_min_bytes": 1 << 20,
    "io_arrow_min_bytes": 1 << 16,
    "force_int64": False,
    "build_trim_waste": 1 / 16,
    "distributed_bfs_push_alpha": 14.0,
    "distributed_comm_timeout": 120.0,
}

#: (key, a valid non-default value, bad values: wrong type or out of range)
CASES = [
    ("bfs_alpha", 2.5, ["2", 0, -1, math.inf, True]),
    ("bfs_beta", 30, [None, 0, math.nan]),
    ("bfs_gpu_path", "engine", ["gpu", 1, "steps"]),
    ("bfs_gpu_kernel_degree", 2.5, [-1, "8"]),
    ("bfs_engine_push_alpha", 8, [0, "4"]),
    ("bfs_pull_format", "csr_scalar", ["csr_vector:", "fast", 4]),
    ("bfs_gpu_sparse_degree", 0, [-1, "8", math.inf]),
    ("bfs_gpu_shape", (512, 2), [(500, 1), (2048, 1), (256, 0), [256], "256x1", (256.0, 1)]),
    ("bfs_gpu_profile", True, [1, "yes"]),
    ("sssp_gpu_nearfar", "engine", ["auto ", None, "steps"]),
    ("sssp_gpu_kernel_degree", 4.5, [-0.5, "x"]),
    ("sssp_gpu_shape", (1024, 1), [(1056, 1), (32,)]),
    ("sssp_gpu_profile", True, [0]),
    ("sssp_delta_factor", 32, [0, -5, math.inf]),
    ("kcore_blocks_per_sm", 8, [0, 65, 1.5, False]),
    ("labelprop_hub_split_per_sm", 0, [-1, 2.0, None]),
    ("sssp_bf_push_alpha", 2.0, [0, -1, "2"]),
    ("triangle_merge_heavy", 0, [-1, 2048.0]),
    ("triangle_hash_split", 1, [0, None]),
    ("triangle_hash_block_work", 0, [-1]),
    ("triangle_hash_edge_cost", 0, [-1, "8"]),
    ("triangle_kernel", "merge", ["Hash", None, 1]),
    ("triangle_auto_wedges", 0.5, [-1, math.inf, "12", None]),
    ("betweenness_cpu_batch_entries", 64, [0, 1e6]),
    ("betweenness_gpu_batch_entries", 64, [0]),
    ("apsp_max_vertices", 10, [-1, None]),
    ("iterate_stall_contracting", 10, [0, 1.5]),
    ("iterate_stall_general", 10, [0, None]),
    ("iterate_stall_shrink", 1.0, [0, 1.5, -0.5]),
    ("engine_mixed_batch", 3, [0, 2000]),
    ("engine_graph_min", 2, [1, "16"]),
    ("engine_block_loop_steps", 16, [0, 1 << 14]),
    ("spmv_auto_csr", "csr_mp", ["csr_vector", "csr"]),
    ("spmv_hyb_max_coo_share", 0.0, [1.5, -0.1]),
    ("spmv_hyb_min_fill", 1.0, [2, None]),
    ("spmv_auto_relabel", False, ["off"]),
    ("spmv_relabel_min_nnz", 0, [-1, 1e6]),
    ("spmv_relabel_memory_share", 0.0, [1.01, "0.5"]),
    ("spmv_cpu_parallel_min_nnz", 256, [-1]),
    ("mxm_prefer_cusparse", True, [None]),
    ("mxm_cusparse_max_flops", 0, [-1, 2.0**30]),
    ("mxm_dot_heavy_cost", 0, [-8]),
    ("mxm_dot_kernel", "merge", ["dot", 1]),
    ("mxm_hash_split", 1, [0]),
    ("mxm_hash_block_work", 0, [-1]),
    ("io_direct_min_bytes", 0, [-1, "1M"]),
    ("io_arrow_min_bytes", 0, [-1, 1.5]),
    ("force_int64", True, ["1"]),
    ("build_trim_waste", 0.0, [1.5]),
    ("distributed_bfs_push_alpha", math.inf, [-1, math.nan, "14"]),
    ("distributed_comm_timeout", 5, [0, math.inf]),
]

#: the module globals the keys replaced: none may come back
OLD_KNOBS = {
    "hpgraph.algorithms._bfs": ("ALPHA", "BETA", "GPU_PATH", "PUSH_ALPHA_ENGINE", "PULL_FORMAT"),
    "hpgraph.algorithms._sssp": ("GPU_NEARFAR", "AUTO_GPU_MAX_DEGREE", "BF_PUSH_ALPHA"),
    "hpgraph.algorithms._sssp_nearfar": ("DELTA_FACTOR", "STEP_BLOCKS_PER_SM", "GRAPH_MIN"),
    "hpgraph.algorithms._bfs_gpu": ("PROFILE", "SHAPE", "SPARSE_DEGREE"),
    "hpgraph.algorithms._sssp_gpu": ("PROFILE", "SHAPE"),
    "hpgraph.algorithms._iterate": ("STALL_CONTRACTING", "STALL_GENERAL", "SHRINK_GENERAL"),
    "hpgraph.algorithms._kernels": ("TC_HEAVY",),
    "hpgraph.algorithms.betweenness": ("BATCH_ENTRIES",),
    "hpgraph.algorithms.paths": ("APSP_MAX_VERTICES",),
    "hpgraph.algorithms._tc_hash": ("TCH_SPLIT", "TCH_BLOCK_WORK", "TCH_EDGE_COST"),
    "hpgraph.spmv.gpu": ("AUTO_CSR", "AUTO_RELABEL", "RELABEL_MIN_NNZ", "RELABEL_MEMORY_SHARE",
                         "AUTO_ELL_MAX_COO_SHARE", "AUTO_ELL_MIN_FILL"),
    "hpgraph.spmv.cpu": ("PARALLEL_MIN_NNZ",),
    "hpgraph.graphblas._mxm_gpu": ("PREFER_CUSPARSE", "CUSPARSE_MAX_FLOPS"),
    "hpgraph.graphblas._mdot_gpu": ("HEAVY_COST",),
    "hpgraph.distributed.algorithms": ("BFS_PUSH_ALPHA",),
    "hpgraph.distributed._job": ("COMM_TIMEOUT",),
    "hpgraph.engine.gpu": ("MIXED", "GRAPH_MIN", "BLOCK_LOOP_STEPS"),
    "hpgraph.formats._build": ("FORCE_INT64", "TRIM_WASTE"),
    "hpgraph.io._direct": ("MIN_FILE_BYTES",),
    "hpgraph.io._arrow": ("MIN_BYTES",),
}


def test_defaults_are_the_former_knob_values():
    assert {k: hp.config[k] for k in DEFAULTS} == DEFAULTS
    assert set(DEFAULTS) == {k for k, _, _ in CASES}
    for k in DEFAULTS:
        assert len(hp.config.describe(k)) > 40, k


@pytest.mark.parametrize("module", sorted(OLD_KNOBS))
def test_no_module_knob_left(module):
    mod = importlib.import_module(module)
    assert [n for n in OLD_KNOBS[module] if hasattr(mod, n)] == []


@pytest.mark.parametrize("key,good,bad", CASES, ids=[c[0] for c in CASES])
def test_key_validated_and_restored(key, good, bad):
    before = hp.config[key]
    for value in bad:
        with pytest.raises(InvalidValue, match=key) as err:
            hp.config.set(**{key: value})
        assert repr(value) in str(err.value)        # says what it got
        assert hp.config[key] == before
    with hp.config.set(**{key: good}):
        assert hp.config[key] == good
    assert hp.config[key] == before
    hp.config[key] = good
    hp.config.reset()
    assert hp.config[key] == before


def test_every_key_rejects_an_object():
    for key in hp.config.keys():
        with pytest.raises(InvalidValue, match=key):
            hp.config.set(**{key: object()})


def test_spmv_format_pattern_matches_the_spmv_formats():
    from hpgraph.spmv._shared import FORMATS, RELABEL_BASES

    assert all(SPMV_FORMAT.fullmatch(f) for f in FORMATS)
    assert all(SPMV_FORMAT.fullmatch(f + ":4+relabel") for f in ("csr_vector", "csr_lb", "csr_mp"))
    assert all(SPMV_FORMAT.fullmatch(f + "+relabel") for f in RELABEL_BASES)
    assert not SPMV_FORMAT.fullmatch("hyb:4") and not SPMV_FORMAT.fullmatch("csr_lb:x")


def test_environment_parsers():
    code = ("import hpgraph as hp; print(hp.config['bfs_gpu_shape'], hp.config['sssp_bf_push_alpha'],"
            " hp.config['force_int64'], hp.config['bfs_pull_format'], hp.config['bfs_alpha'])")
    env = {"HPGRAPH_BFS_GPU_SHAPE": "512x2", "HPGRAPH_SSSP_BF_PUSH_ALPHA": "3",
           "HPGRAPH_FORCE_INT64": "2", "HPGRAPH_BFS_PULL_FORMAT": "none", "HPGRAPH_BFS_ALPHA": "9",
           "PATH": ""}
    root = str(Path(__file__).parents[1])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=root)
    assert out.stdout.split() == ["(512,", "2)", "3.0", "True", "None", "9.0"], out.stderr
    reset = ("import hpgraph as hp; hp.config.set(force_int64=False, bfs_alpha=1.0); hp.config.reset();"
             " print(hp.config['force_int64'], hp.config['bfs_alpha'], hp.config.default('force_int64'))")
    out = subprocess.run([sys.executable, "-c", reset], env=env, capture_output=True, text=True, cwd=root)
    assert out.stdout.split() == ["True", "9.0", "False"], out.stderr     # reset keeps the environment
    env["HPGRAPH_SSSP_GPU_SHAPE"] = "100x1"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=root)
    assert out.returncode != 0 and "HPGRAPH_SSSP_GPU_SHAPE" in out.stderr


# ---------------------------------------------------------------------------------------------
# what the keys change (CPU)


def _scipy_depth(G, s):
    d = csg.shortest_path(G.to_scipy(), indices=s, unweighted=True)
    return np.where(np.isinf(d), -1, d).astype(np.int32)


def test_bfs_alpha_beta_change_directions_not_depths():
    from hpgraph.algorithms._bfs import bfs_arrays

    G = hp.generators.rmat(10, edge_factor=8, seed=2, directed=False, backend="cpu")
    s = int(np.argmax(np.diff(G.A.indptr)))
    ref = _scipy_depth(G, s)
    runs = {}
    for alpha, beta in ((15.0, 18.0), (1e-9, 18.0), (1e9, 18.0), (15.0, 1e9)):
        with hp.config.set(bfs_alpha=alpha, bfs_beta=beta):
            depth, parent, dirs = bfs_arrays(G, np.array([s]), direction="auto")
        np.testing.assert_array_equal(depth, ref)
        runs[alpha, beta] = dirs
    default = runs[15.0, 18.0]
    assert "pull" in default and "push" in default
    # a smaller alpha pulls later, a larger one sooner (bottom-up when m_f > m_u / alpha)
    assert runs[1e-9, 18.0].count("push") > default.count("push")
    assert runs[1e9, 18.0].count("pull") > default.count("pull")
    # beta: back to top-down once the frontier is below n / beta (never, with a huge beta)
    back = runs[15.0, 1e9]
    assert back[back.index("pull"):] == ["pull"] * (len(back) - back.index("pull"))
    assert back != default
    # an explicit argument still wins over the config
    with hp.config.set(bfs_alpha=1e9):
        assert bfs_arrays(G, np.array([s]), alpha=15.0)[2] == default


def test_bfs_pull_format_reaches_the_pull_step(monkeypatch):
    import hpgraph.spmv as spmv_pkg
    from hpgraph.algorithms._bfs import bfs_arrays

    seen = []
    real = spmv_pkg.spmv

    def spy(*args, **kw):
        seen.append(kw.get("format"))
        return real(*args, **kw)

    monkeypatch.setattr(spmv_pkg, "spmv", spy)
    G = hp.generators.rmat(9, seed=5, directed=False, backend="cpu")
    with hp.config.set(bfs_pull_format="csr_scalar"):
        depth, _, dirs = bfs_arrays(G, np.array([0]), direction="pull")
    np.testing.assert_array_equal(depth, _scipy_depth(G, 0))
    assert seen and set(seen) == {"csr_scalar"}
    seen.clear()
    bfs_arrays(G, np.array([0]), direction="pull")
    assert set(seen) == {"csr_vector:4"}


def test_engine_push_alphas_reach_hp_run(monkeypatch):
    import hpgraph.program as program
    from hpgraph.algorithms._bfs import bfs_engine

    seen = []
    real = program.run

    def spy(prog, G, **kw):
        seen.append(kw.get("push_alpha"))
        return real(prog, G, **kw)

    monkeypatch.setattr(program, "run", spy)
    G = hp.generators.grid_2d(6, 7, weights=(1, 9), seed=1, backend="cpu")
    ref = csg.dijkstra(G.to_scipy(), indices=0)
    with hp.config.set(bfs_engine_push_alpha=0.5, sssp_bf_push_alpha=64.0):
        depth, _ = bfs_engine(G, np.array([0]), side="cpu")
        res = hp.sssp(G, 0, method="bellman-ford", backend="cpu")
    np.testing.assert_array_equal(depth, _scipy_depth(G, 0))
    np.testing.assert_allclose(res.distance, ref)
    assert seen == [0.5, 64.0]
    seen.clear()
    bfs_engine(G, np.array([0]), side="cpu")
    hp.sssp(G, 0, method="bellman-ford", backend="cpu")
    assert seen == [4.0, None]


def test_cooperative_launch_shape_rules():
    from hpgraph.algorithms import _bfs_gpu, _sssp_gpu

    assert _bfs_gpu.launch_shape(100, 800) == (256, 1)
    assert _bfs_gpu.launch_shape(100, 801) == (1024, 1)
    assert _sssp_gpu.launch_shape(100, 801) == (256, 4)
    assert _sssp_gpu.launch_shape(100, 800) == (256, 1)
    with hp.config.set(bfs_gpu_sparse_degree=10):
        assert _bfs_gpu.launch_shape(100, 1000) == (256, 1)
        assert _sssp_gpu.launch_shape(100, 1000) == (256, 1)
    with hp.config.set(bfs_gpu_shape=(512, 2), sssp_gpu_shape=[128, 8]):
        assert _bfs_gpu.launch_shape(100, 800) == (512, 2)
        assert _sssp_gpu.launch_shape(100, 800) == (128, 8)


def test_bfs_gpu_path_choice():
    from hpgraph.algorithms._bfs import gpu_bfs_impl

    G = hp.generators.grid_2d(10, 10, backend="cpu")
    deg = G.A.nnz / G.num_vertices            # stored entries per vertex: 3.6
    assert gpu_bfs_impl(G) == "engine"
    with hp.config.set(bfs_gpu_kernel_degree=deg - 0.01):
        assert gpu_bfs_impl(G) == "kernel"
    with hp.config.set(bfs_gpu_kernel_degree=deg):
        assert gpu_bfs_impl(G) == "engine"
    with hp.config.set(bfs_gpu_path="kernel"):
        assert gpu_bfs_impl(G) == "kernel"
        # no vertex: nothing for the kernel to launch
        assert gpu_bfs_impl(hp.Graph.from_edges([], [], num_vertices=0)) == "engine"


def test_sssp_gpu_nearfar_choice_and_delta_factor():
    from hpgraph.algorithms import _sssp_nearfar as nf
    from hpgraph.algorithms._sssp import gpu_nearfar_impl

    G = hp.generators.grid_2d(10, 10, weights=(4, 4), seed=1, backend="cpu")
    deg = G.num_edges / G.num_vertices
    stored = G.A.nnz / G.num_vertices         # what the rule reads: 3.6 entries per vertex
    assert gpu_nearfar_impl(G) == "engine"
    with hp.config.set(sssp_gpu_kernel_degree=stored - 0.01):
        assert gpu_nearfar_impl(G) == "kernel"
    with hp.config.set(sssp_gpu_kernel_degree=stored):
        assert gpu_nearfar_impl(G) == "engine"
    with hp.config.set(sssp_gpu_nearfar="kernel"):
        assert gpu_nearfar_impl(G) == "kernel"
    assert nf.default_delta(G) == pytest.approx(128 * 4 / deg)
    with hp.config.set(sssp_delta_factor=32):
        assert nf.default_delta(G) == pytest.approx(32 * 4 / deg)
        # the default delta changes the buckets, never the distances
        res = hp.sssp(G, 0, method="near-far", backend="cpu")
    np.testing.assert_allclose(res.distance, csg.dijkstra(G.to_scipy(), indices=0))


def test_spmv_auto_format_thresholds(monkeypatch):
    """The automatic GPU format's rule on given row-length statistics (the statistics
    themselves are computed on the device)."""
    from hpgraph.spmv import gpu

    stats = {}
    monkeypatch.setattr(gpu, "matrix_stats", lambda A: stats)
    A = hp.generators.grid_2d(4, 4, backend="cpu").A
    grid = dict(nnz=48, coo_share=0.0, ell_fill=0.75)       # regular: HYB
    skewed = dict(nnz=48, coo_share=0.4, ell_fill=0.2)      # power law: a CSR kernel
    stats.update(grid)
    assert gpu.choose_format(A) == "hyb"
    with hp.config.set(spmv_hyb_min_fill=0.8):
        assert gpu.choose_format(A) == "csr_lb"
    with hp.config.set(spmv_hyb_max_coo_share=0.0, spmv_auto_csr="csr_mp"):
        assert gpu.choose_format(A) == "hyb"
    stats.update(skewed)
    assert gpu.choose_format(A) == "csr_lb"
    with hp.config.set(spmv_auto_csr="csr_mp"):
        assert gpu.choose_format(A) == "csr_mp"
    with hp.config.set(spmv_hyb_max_coo_share=0.5, spmv_hyb_min_fill=0.1):
        assert gpu.choose_format(A) == "hyb"


def test_triangle_keys_route_the_work():
    from hpgraph.algorithms import _tc_hash, _triangles

    G = hp.generators.rmat(9, edge_factor=16, seed=4, directed=False, backend="cpu")
    indptr, indices, erow = _triangles._oriented(G)
    n = G.num_vertices

    def tasks(st):
        return int(st.warp_tasks[0].shape[0]), int(st.block_tasks[0].shape[0])

    warp, block = tasks(_tc_hash.structure(indptr, indices, erow, n))
    assert warp > 0
    with hp.config.set(triangle_hash_block_work=0):          # every task to the block kernel
        assert tasks(_tc_hash.structure(indptr, indices, erow, n)) == (0, warp + block)
    with hp.config.set(triangle_hash_split=1):               # one task per in-edge with work
        st = _tc_hash.structure(indptr, indices, erow, n)
        tv, tb, te = (np.concatenate(x) for x in zip(st.warp_tasks, st.block_tasks))
        assert np.all(te - tb == 1) and sum(tasks(st)) > warp + block
    # auto: hash from triangle_auto_wedges wedges per oriented edge, merge below
    d = np.diff(indptr)
    per_edge = int((d * (d - 1) // 2).sum()) / indices.shape[0]
    assert _triangles.method(G) == ("hash" if per_edge >= 12 else "merge")
    with hp.config.set(triangle_auto_wedges=math.nextafter(per_edge, 0)):
        assert _triangles.method(G) == "hash"
        assert isinstance(_triangles.preprocess(G), _tc_hash.Structure)
    with hp.config.set(triangle_auto_wedges=per_edge * 1.01):
        assert _triangles.method(G) == "merge"
    grid = hp.generators.grid_2d(30, 30, backend="cpu")      # 0.5 wedges per edge
    assert _triangles.method(grid) == "merge"
    assert _triangles.method(hp.generators.complete(40, backend="cpu")) == "hash"
    for kernel in ("hash", "merge"):
        with hp.config.set(triangle_kernel=kernel, triangle_auto_wedges=0.0):
            assert _triangles.method(grid) == kernel
    with hp.config.set(triangle_kernel="merge"):
        few = int(_triangles.preprocess(G).shape[0])
        with hp.config.set(triangle_merge_heavy=0):
            assert int(_triangles.preprocess(G).shape[0]) == indices.shape[0] > few
    assert hp.triangle_count(G, backend="cpu") == int(np.trace(
        (G.to_scipy() @ G.to_scipy() @ G.to_scipy()).toarray())) // 6


def test_betweenness_batches_and_apsp_limit(monkeypatch):
    import networkx as nx

    from hpgraph.algorithms import betweenness

    G = hp.generators.rmat(7, seed=6, directed=False, backend="cpu")
    ref = nx.betweenness_centrality(nx.from_scipy_sparse_array(G.to_scipy()))
    batches = []
    real = betweenness._accumulate_batch
    monkeypatch.setattr(betweenness, "_accumulate_batch",
                        lambda *a: batches.append(len(a[4])) or real(*a))
    for entries, width in ((1 << 23, G.num_vertices), (G.num_vertices * 5, 5)):
        batches.clear()
        with hp.config.set(betweenness_cpu_batch_entries=entries):
            bc = hp.betweenness_centrality(G, backend="cpu")
        np.testing.assert_allclose(bc, [ref[v] for v in range(G.num_vertices)], atol=1e-12)
        assert max(batches) == width and sum(batches) == G.num_vertices
    P = hp.generators.path(30, backend="cpu")
    assert hp.all_pairs_shortest_path_length(P, backend="cpu").shape == (30, 30)
    with hp.config.set(apsp_max_vertices=29), pytest.raises(InvalidValue, match="apsp_max_vertices"):
        hp.all_pairs_shortest_path_length(P, backend="cpu")


def test_force_int64_on_builds():
    s, d = np.array([0, 1, 2, 0, 0]), np.array([1, 2, 0, 1, 1])
    assert hp.Graph.from_edges(s, d, num_vertices=3).A.indices.dtype == np.int32
    with hp.config.set(force_int64=True):
        G = hp.Graph.from_edges(s, d, num_vertices=3)
    assert G.A.indices.dtype == np.int64 and G.A.indptr.dtype == np.int64
    np.testing.assert_array_equal(G.to_scipy().toarray(), sp.csr_array(
        (np.ones(3), ([0, 1, 2], [1, 2, 0])), shape=(3, 3)).toarray())


def test_io_thresholds_pick_the_parser(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    import hpgraph.io as hio
    from hpgraph.io import _arrow

    G = hp.generators.rmat(8, seed=1, directed=True, backend="cpu")
    path = tmp_path / "g.el"
    hp.write(G, path)
    used = []

    def spy(mod, name):
        real = getattr(mod, name)

        def wrapper(*args, **kw):
            out = real(*args, **kw)
            used.append((name, out is not None))
            return out
        monkeypatch.setattr(mod, name, wrapper)

    spy(hio, "read_direct")
    spy(_arrow, "parse_columns")
    ref = G.to_scipy()
    assert (hp.read(path, backend="cpu").to_scipy() != ref).nnz == 0
    assert ("read_direct", True) not in used and ("parse_columns", True) not in used   # small file
    used.clear()
    with hp.config.set(io_direct_min_bytes=0):
        assert (hp.read(path, backend="cpu").to_scipy() != ref).nnz == 0
    assert ("read_direct", True) in used
    used.clear()
    with hp.config.set(io_arrow_min_bytes=0):
        assert (hp.read(path, backend="cpu").to_scipy() != ref).nnz == 0
    assert ("parse_columns", True) in used and ("read_direct", True) not in used


def test_distributed_keys_reach_the_job(monkeypatch):
    from hpgraph.distributed import _job, algorithms as dalg

    seen = []

    def fake_run_job(dg, kernel, kwargs, **kw):
        seen.append(kwargs["push_alpha"])
        raise KeyboardInterrupt

    monkeypatch.setattr(dalg, "run_job", fake_run_job)
    dg = types.SimpleNamespace(num_vertices=10)
    for cfg, want in (({}, 14.0), ({"distributed_bfs_push_alpha": math.inf}, math.inf)):
        with hp.config.set(**cfg), pytest.raises(KeyboardInterrupt):
            dalg.bfs(dg, 0)
    with hp.config.set(distributed_bfs_push_alpha=0), pytest.raises(KeyboardInterrupt):
        dalg.bfs(dg, 0, push_alpha=3)                    # an argument wins
    assert seen == [14.0, math.inf, 3.0]

    pytest.importorskip("distributed")
    timeouts = []

    def submit(fn, fut, kernel, kwargs, session, timeout, *rest, **kw):
        timeouts.append(timeout)
        raise KeyboardInterrupt

    dg = types.SimpleNamespace(futures=[object()], workers=["w"], comm_epoch=0,
                               cluster=types.SimpleNamespace(client=types.SimpleNamespace(submit=submit)))
    with hp.config.set(distributed_comm_timeout=7.5), pytest.raises(KeyboardInterrupt):
        _job.run_job(dg, None, {})
    with pytest.raises(KeyboardInterrupt):
        _job.run_job(dg, None, {})
    assert timeouts == [7.5, 120.0]


def test_api_reference_lists_every_key():
    """docs/api.md (docs/gen_api.py) has a row per key with its default and documentation."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    missing = [k for k in hp.config.keys()
               if f"| `{k}` | `{hp.config.default(k)!r}` | {hp.config.describe(k)} |" not in text]
    assert missing == [], f"run PYTHONPATH=$PWD python3 docs/gen_api.py; missing or stale: {missing}"
