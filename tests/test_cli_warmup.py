"""``hpgraph warmup``: argument checks on any machine, the compile on the GPU."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hpgraph import backend, cli

REPO = Path(__file__).resolve().parents[1]


def _usage_error(rc, err, fragment):
    assert rc == 2, err
    assert "hpgraph: error:" in err and fragment in err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, fragment", [
    (["--algorithms", "bfs,nosuch"], "unknown algorithm 'nosuch'"),
    (["--algorithms", "pagernk"], "did you mean 'pagerank'"),
    (["--algorithms", " , "], "--algorithms: expected at least one algorithm name"),
    (["--scale", "0"], "--scale: expected 1 to 30, got 0"),
    (["--scale", "31"], "--scale: expected 1 to 30, got 31"),
    (["--edge-factor", "0"], "--edge-factor: expected a positive number, got 0"),
    (["--scale", "x"], "invalid int value: 'x'"),
])
def test_bad_arguments(capsys, argv, fragment):
    _usage_error(cli.main(["warmup", *argv]), capsys.readouterr().err, fragment)


def test_cpu_backend_compiles_nothing(capsys, monkeypatch):
    monkeypatch.setenv("HPGRAPH_BACKEND", "cpu")
    assert cli.main(["warmup", "--scale", "4"]) == 0
    assert capsys.readouterr().out.startswith("hpgraph warmup: nothing to compile on the CPU backend")
    assert cli.main(["warmup", "--scale", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "cpu" and report["steps"] == {}


def test_listed_in_help(capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--help"])
    assert "warmup" in capsys.readouterr().out


@pytest.mark.gpu
@pytest.mark.skipif(not backend.has_gpu(), reason="needs a GPU")
def test_gpu_warmup_fills_empty_kernel_caches(tmp_path):
    """In a process with empty caches the run stores kernels; a second process finds them all
    and compiles nothing."""
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path / "cupy"), XDG_CACHE_HOME=str(tmp_path))
    env.pop("HPGRAPH_BACKEND", None)
    argv = [sys.executable, "-m", "hpgraph", "warmup", "--scale", "8", "--edge-factor", "8",
            "--algorithms", "bfs,sssp,cc", "--json"]
    reports = []
    for _ in range(2):
        p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
        assert p.returncode == 0, p.stderr
        reports.append(json.loads(p.stdout))
    first, again = reports
    assert first["backend"] == "gpu"
    assert list(first["steps"]) == ["graph", "summary", "bfs", "sssp", "cc"]
    assert first["cache_dirs"] == {"cupy": str(tmp_path / "cupy"),
                                   "hpgraph": str(tmp_path / "hpgraph" / "kernels")}
    assert first["new_files"]["cupy"] > 0
    assert again["new_files"] == {"cupy": 0, "hpgraph": 0}
