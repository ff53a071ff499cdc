"""Importing hpgraph is cheap: no cupy, no compilation; public names resolve lazily."""

import subprocess
import sys


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_import_loads_no_cupy_and_no_heavy_modules():
    out = _run("import sys, hpgraph\n"
               "heavy = [m for m in ('cupy', 'cupyx', 'networkx', 'graphblas', 'matplotlib', "
               "'hpgraph.spmv', 'hpgraph.engine', 'hpgraph.compiler') if m in sys.modules]\n"
               "print(heavy)")
    assert out.strip() == "[]"


def test_public_names_resolve():
    import hpgraph as hp

    for name in hp.__all__:
        assert getattr(hp, name) is not None, name
    assert callable(hp.bfs) and callable(hp.mxv) and isinstance(hp.Graph, type)
    assert "pagerank" in dir(hp)


def test_algorithms_alone_do_not_load_cupy_on_cpu():
    out = _run("import sys, numpy as np, hpgraph as hp\n"
               "G = hp.Graph.from_edges([0, 1], [1, 2], num_vertices=3, backend='cpu')\n"
               "hp.bfs(G, 0, backend='cpu'); hp.sssp(G, 0, backend='cpu')\n"
               "print('cupy' in sys.modules)")
    assert out.strip() == "False"
