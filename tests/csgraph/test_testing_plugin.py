"""The pytest plugin that runs SciPy's csgraph tests against hpgraph.csgraph."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_plugin_substitutes_every_function(tmp_path):
    (tmp_path / "test_sample.py").write_text(
        "import scipy.sparse.csgraph as sc\n"
        "import hpgraph.csgraph as hc\n"
        "from scipy.sparse.csgraph import dijkstra, minimum_spanning_tree\n"
        "def test_substituted():\n"
        "    assert dijkstra is hc.dijkstra\n"
        "    assert minimum_spanning_tree is hc.minimum_spanning_tree\n"
        "    names = [n for n in sc.__all__ if n != 'NegativeCycleError']\n"
        "    assert all(getattr(sc, n) is getattr(hc, n) for n in names)\n"
        "    assert sc.NegativeCycleError is hc.NegativeCycleError\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("HPGRAPH_CSGRAPH_BACKEND", None)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "hpgraph.csgraph.testing", str(tmp_path / "test_sample.py")],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "1 passed" in r.stdout, r.stdout + r.stderr
