"""The pytest plugin that counts the tests executing an hpgraph implementation."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: the checkout first, then what the caller had (where the entry points may come from)
PYTHONPATH = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)


@pytest.mark.parametrize("workers", [None, "2"])
def test_plugin_counts_only_tests_that_reach_hpgraph(tmp_path, workers):
    (tmp_path / "test_sample.py").write_text(textwrap.dedent("""
        import networkx as nx
        import pytest

        def test_reaches_hpgraph():
            assert nx.pagerank(nx.path_graph(3), backend="hpgraph")

        def test_plain_networkx():
            assert nx.pagerank(nx.path_graph(3))

        def test_declined():
            with pytest.raises(NotImplementedError):
                nx.pagerank(nx.MultiGraph([(0, 1)]), backend="hpgraph")

        def test_reaches_and_fails():
            assert nx.number_connected_components(nx.path_graph(3), backend="hpgraph") == 2
    """))
    out_json = tmp_path / "counts.json"
    env = dict(os.environ, PYTHONPATH=PYTHONPATH, HPGRAPH_NX_COUNT_JSON=str(out_json))
    env.pop("NETWORKX_TEST_BACKEND", None)
    xdist = ["-n", workers] if workers else []      # pytest-xdist: the workers' tests summed
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *xdist,
                        "-p", "hpgraph.nx_backend.testing", str(tmp_path / "test_sample.py")],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "tests that executed an hpgraph implementation: 2 (1 passed, 1 failed)" in r.stdout
    assert "declined a call of a function it dispatches: 1" in r.stdout
    data = json.loads(out_json.read_text())
    assert data["counts"]["passed"] == 1 and data["counts"]["failed"] == 1
    assert data["functions"] == ["number_connected_components", "pagerank"]
    assert [k.split("::")[1] for k in sorted(data["tests"])] == [
        "test_declined", "test_reaches_and_fails", "test_reaches_hpgraph"]


STRICT_SAMPLE = """
import networkx as nx
from networkx.utils.backends import _dispatchable


def setup_module():
    # what networkx's conftest sets up for NETWORKX_TEST_BACKEND=hpgraph with fallback on
    _dispatchable._is_testing = True
    nx.config.backend_priority.algos = ["hpgraph"]
    nx.config.fallback_to_nx = True


def test_declined_call():
    # hpgraph declines weight functions; networkx's Dijkstra calls no dispatched function
    assert nx.single_source_dijkstra_path_length(nx.path_graph(3), 0, weight=lambda u, v, d: 1)


def test_served_call():
    G = nx.path_graph(4)
    assert nx.is_isomorphic(G, G)                    # not dispatched: networkx runs it
    assert nx.number_connected_components(G) == 1    # hpgraph's result
"""


def _run_sample(tmp_path, strict):
    (tmp_path / "test_strict.py").write_text(STRICT_SAMPLE)
    out_json = tmp_path / "counts.json"
    env = dict(os.environ, PYTHONPATH=PYTHONPATH, HPGRAPH_NX_COUNT_JSON=str(out_json),
               HPGRAPH_NX_STRICT="1" if strict else "0")
    env.pop("NETWORKX_TEST_BACKEND", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rx", "-p", "no:cacheprovider",
                        "-p", "hpgraph.nx_backend.testing", str(tmp_path / "test_strict.py")],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    return r, json.loads(out_json.read_text())


def test_strict_mode_xfails_declined_calls_instead_of_falling_back(tmp_path):
    r, data = _run_sample(tmp_path, strict=True)
    assert "1 passed, 1 xfailed" in r.stdout, r.stdout
    assert ("hpgraph cannot run networkx's single_source_dijkstra_path_length: weight "
            "functions") in r.stdout
    assert "strict mode (dispatched functions never fall back) = True" in r.stdout
    assert data["counts"]["passed"] == 1 and data["counts"]["xfailed"] == 0
    declined = [t for k, t in data["tests"].items() if k.endswith("test_declined_call")]
    assert declined[0]["functions"] == []
    assert declined[0]["declined"] == ["single_source_dijkstra_path_length"]


def test_without_strict_mode_networkx_runs_the_declined_call(tmp_path):
    r, data = _run_sample(tmp_path, strict=False)
    assert "2 passed" in r.stdout, r.stdout
    # the declined call ran in networkx: that test does not count as reaching hpgraph
    assert "tests that executed an hpgraph implementation: 1 (1 passed)" in r.stdout
