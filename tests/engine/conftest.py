"""Fixtures for the engine tests: small random graphs with the awkward cases, and references.

The ``examples`` package (the paper's programs) lives at the repository root; tests import it
from there (``--import-mode=importlib`` does not put the root on ``sys.path``).
"""

from __future__ import annotations

import heapq
import sys
import time
import types
import weakref
from collections import deque
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _case(name, n, src, dst, w=None, directed=True):
    return (name, n, np.asarray(src, np.int64), np.asarray(dst, np.int64),
            None if w is None else np.asarray(w), directed)


def make_cases():
    """(name, n, src, dst, weights, directed): self-loops, duplicates, isolated vertices,
    several components, zero weights, empty graphs, directed and undirected."""
    rng = np.random.default_rng(12345)
    out = []
    # random directed, integer weights 0..9 (zeros included, exact in float32), duplicates
    n, m = 60, 240
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    s[:5] = d[:5]                                    # self-loops
    s[5:10], d[5:10] = s[10:15], d[10:15]            # duplicate edges (other weights)
    out.append(_case("random_directed", n + 5, s, d, rng.integers(0, 10, m).astype(np.float32)))
    # undirected, two components + isolated vertices
    s1, d1 = rng.integers(0, 30, 80), rng.integers(0, 30, 80)
    s2, d2 = rng.integers(40, 70, 90), rng.integers(40, 70, 90)
    out.append(_case("undirected_2comp", 75, np.r_[s1, s2], np.r_[d1, d2],
                     rng.integers(1, 6, 170).astype(np.float32), directed=False))
    # unweighted directed, skewed (a hub), self-loop at the source
    hub = np.zeros(50, np.int64)
    s3 = np.r_[hub, rng.integers(0, 120, 300), 0]
    d3 = np.r_[rng.integers(0, 120, 50), rng.integers(0, 120, 300), 0]
    out.append(_case("unweighted_hub", 130, s3, d3))
    # path with zero weights (high diameter)
    k = 40
    out.append(_case("zero_path", k, np.arange(k - 1), np.arange(1, k), np.zeros(k - 1, np.float32)))
    # no edges at all, one vertex
    out.append(_case("no_edges", 7, [], [], np.zeros(0, np.float32)))
    out.append(_case("single", 1, [], []))
    return out


CASES = make_cases()
CASE_IDS = [c[0] for c in CASES]


def build(case, backend="cpu"):
    import hpgraph as hp

    name, n, s, d, w, directed = case
    G = hp.Graph.from_edges(s, d, w, num_vertices=n, directed=directed)
    return G.to_device() if backend == "gpu" else G


def edge_list(G):
    """[(u, v, w)] of the graph's stored directed entries (w = 1 if unweighted)."""
    from hpgraph import backend

    A = G.to_host().A if G.on_device else G.A
    ip = np.asarray(backend.to_host(A.indptr))
    ix = np.asarray(backend.to_host(A.indices))
    vals = A.values
    vals = np.ones(ix.size) if vals is None else np.asarray(backend.to_host(vals), np.float64)
    out = []
    for u in range(ip.size - 1):
        for e in range(ip[u], ip[u + 1]):
            out.append((u, int(ix[e]), float(vals[e])))
    return out


def ref_sssp(n, edges, s):
    dist = [np.inf] * n
    dist[s] = 0.0
    adj = [[] for _ in range(n)]
    for u, v, w in edges:
        adj[u].append((v, w))
    pq = [(0.0, s)]
    while pq:
        dd, u = heapq.heappop(pq)
        if dd > dist[u]:
            continue
        for v, w in adj[u]:
            if dd + w < dist[v]:
                dist[v] = dd + w
                heapq.heappush(pq, (dist[v], v))
    return np.array(dist)


def ref_bfs(n, edges, s):
    depth = [-1] * n
    depth[s] = 0
    adj = [[] for _ in range(n)]
    for u, v, _ in edges:
        adj[u].append(v)
    dq = deque([s])
    while dq:
        u = dq.popleft()
        for v in adj[u]:
            if depth[v] < 0:
                depth[v] = depth[u] + 1
                dq.append(v)
    return np.array(depth)


def ref_widest(n, edges, s):
    width = [0.0] * n
    width[s] = np.inf
    changed = True
    while changed:
        changed = False
        for u, v, w in edges:
            c = min(width[u], w)
            if c > width[v]:
                width[v] = c
                changed = True
    return np.array(width)


@pytest.fixture
def host_loop():
    """Run the test with the GPU engine's host loop (CUDA-graph batches), not the device loop."""
    import hpgraph as hp

    with hp.config.set(engine_loop="host"):
        yield


@pytest.fixture
def refs():
    return types.SimpleNamespace(sssp=ref_sssp, bfs=ref_bfs, widest=ref_widest,
                                 edge_list=edge_list, build=build, cases=CASES, host=host)


def host(a):
    from hpgraph import backend

    return np.asarray(backend.to_host(a))


def pytest_generate_tests(metafunc):
    # a test taking ``case`` runs on every graph case
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", CASES, ids=CASE_IDS)


@pytest.fixture
def emulated(monkeypatch, request):
    """``run(prog, G, ...)`` through gpu.execute on emulated kernels."""
    import hpgraph as hp
    from hpgraph import program
    from hpgraph.engine import codegen, gpu, gpu_state
    from tests.engine._emulator import LATE, _Array, _FakeCupy, _Kernels, _Late

    # the emulated kernels are the host loop's; the device loop is tested on the GPU
    restore = hp.config.set(engine_loop="host")
    request.addfinalizer(lambda: restore.__exit__(None, None, None))

    fake = _FakeCupy()
    state = {}

    def program_source(bp, idt):
        # one "source" per program code, as the real generator (the engine caches sources)
        src = f"// emulated {len(state)}"
        state[src] = (bp, idt)
        return src

    def raw_module(src, options=()):
        kern = _Kernels(*state[src])

        def get_function(name):
            if hasattr(kern, name):
                return kern.launch(name)

            def missing(*args):         # the device loop (hp_loop) has no transcription
                raise NotImplementedError(f"the emulated engine has no kernel {name}")
            return missing
        return types.SimpleNamespace(get_function=get_function)

    def raw_modules(src, option_sets, defer=(), cooperative=()):
        # deferred units (the block loop's): ready at once unless a test sets LATE["looks"]
        return [_Late(raw_module(src, o), LATE["looks"])
                if o in defer and LATE["looks"] else raw_module(src, o)
                for o in option_sets]

    be = types.SimpleNamespace(cupy=lambda: fake, raw_module=raw_module, raw_modules=raw_modules,
                               out_of_memory_guard=hp.backend.out_of_memory_guard,
                               to_host=lambda a: a, num_sms=lambda: 4,
                               is_device_array=lambda a: isinstance(a, _Array),
                               capture_graph=hp.backend.capture_graph)
    monkeypatch.setattr(gpu, "_backend", be)
    monkeypatch.setattr(gpu_state, "_backend", be)
    # run states and sources made here must never meet a real GPU run (and vice versa)
    monkeypatch.setattr(gpu_state, "_states", weakref.WeakKeyDictionary())
    monkeypatch.setattr(gpu_state, "_source_cache", {})
    monkeypatch.setattr(codegen, "program_source", program_source)
    monkeypatch.setattr(gpu_state, "HIST_CAP", 64)      # small ring: exercises the wrap-around
    monkeypatch.setattr(gpu_state, "CHUNK", 2)          # split COO-tail rows into chunks
    monkeypatch.setattr(codegen, "HEAVY", 6)      # heavy push rows

    # push_alpha: the CPU engine's default (common.default_push_alpha), so that the tests can
    # compare directions superstep by superstep
    def run(prog, G, direction="auto", push_alpha=4.0, max_iterations=None,
            outputs=None, engine_loop=None, **params):
        bp = program.bind(prog, G, params, max_iterations, outputs)
        return gpu.execute(bp, G, direction=direction, push_alpha=push_alpha,
                           t_start=time.perf_counter(), loop=engine_loop)
    return run
