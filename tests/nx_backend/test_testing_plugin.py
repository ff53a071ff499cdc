"""The pytest plugin that counts the tests executing an hpgraph implementation."""

import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_plugin_counts_only_tests_that_reach_hpgraph(tmp_path):
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
    env = dict(os.environ, PYTHONPATH=ROOT, HPGRAPH_NX_COUNT_JSON=str(out_json))
    env.pop("NETWORKX_TEST_BACKEND", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "hpgraph.nx_backend.testing", str(tmp_path / "test_sample.py")],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "tests that executed an hpgraph implementation: 2 (1 passed, 1 failed)" in r.stdout
    assert "declined a call of a function it dispatches: 1" in r.stdout
    data = json.loads(out_json.read_text())
    assert data["counts"]["passed"] == 1 and data["counts"]["failed"] == 1
    assert data["functions"] == ["number_connected_components", "pagerank"]
    assert [k.split("::")[1] for k in sorted(data["tests"])] == [
        "test_declined", "test_reaches_and_fails", "test_reaches_hpgraph"]
