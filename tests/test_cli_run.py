"""``hpgraph run`` / ``hpgraph bench`` / ``hpgraph demo`` as a new user runs them: the installed
console script in a subprocess, on a Matrix Market file written by hand, plus in-process checks
of every algorithm's --validate path."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from hpgraph import cli

MTX = """%%MatrixMarket matrix coordinate real general
% a small directed weighted graph with an unreachable part
7 7 9
1 2 1.5
2 3 2.0
1 3 4.0
3 4 1.0
4 2 0.5
4 5 3.0
5 5 1.0
6 7 2.0
7 6 2.0
"""


def hpgraph(*args, cwd=None):
    """The installed ``hpgraph`` script (``python -m hpgraph`` if it is not on PATH), on the CPU."""
    exe = shutil.which("hpgraph")
    cmd = [exe] if exe else [sys.executable, "-m", "hpgraph"]
    env = dict(os.environ, HPGRAPH_BACKEND="cpu")
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


@pytest.fixture
def mtx(tmp_path):
    p = tmp_path / "graph.mtx"
    p.write_text(MTX)
    return p


def one_line_error(r, fragment):
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("hpgraph: error:")]
    assert len(lines) == 1 and fragment in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_new_user_session(mtx, tmp_path):
    r = hpgraph("info", mtx)
    assert r.returncode == 0, r.stderr
    assert "vertices     7" in r.stdout and "directed" in r.stdout
    r = hpgraph("run", "bfs", mtx, "--validate", "--source", "0", "--output", tmp_path / "bfs.csv")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "trial 1" in out and "trial 3" in out and "MTEPS" in out
    assert "validate     OK" in out and "reached 5 vertices" in out
    rows = (tmp_path / "bfs.csv").read_text().splitlines()
    assert rows[0] == "vertex,depth,parent" and rows[1] == "0,0,0" and rows[6] == "5,-1,-1"
    r = hpgraph("run", "sssp", mtx, "--validate", "--json", "--trials", "2",
                "--output", tmp_path / "d.npy")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["validation"]["ok"] is True and len(rep["trials"]) == 2 and rep["source"] == 0
    assert rep["vertices"] == 7 and rep["edges"] == 9 and all(m > 0 for m in rep["mteps"])
    rec = np.load(tmp_path / "d.npy")
    np.testing.assert_allclose(rec["distance"][:5], [0, 1.5, 3.5, 4.5, 7.5])


def test_errors_are_one_line(mtx, tmp_path):
    one_line_error(hpgraph("run", "bfz", mtx), "unknown algorithm 'bfz' (did you mean 'bfs'?)")
    one_line_error(hpgraph("run", "bfs", tmp_path / "missing.mtx"), "missing.mtx")
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.0\n")
    one_line_error(hpgraph("run", "bfs", bad), "bad.mtx")
    one_line_error(hpgraph("run", "bfs", mtx, "--source", "7"), "--source 7 is out of range")
    one_line_error(hpgraph("run", "bfs", mtx, "--output", tmp_path / "x.txt"), ".npy or .csv")
    one_line_error(hpgraph("run", "bfs", mtx, "--output", tmp_path / "no" / "x.npy"),
                   "does not exist")
    one_line_error(hpgraph("run", "pagerank", mtx, "--source", "1"), "--source does not apply")
    one_line_error(hpgraph("run", "bfs", mtx, "--trials", "0"), "--trials must be at least 1")
    r = hpgraph("run", "bfs", mtx, "--source", "x")
    assert r.returncode == 2 and "invalid int value" in r.stderr
    r = hpgraph("run")
    assert r.returncode == 2 and "hpgraph: error:" in r.stderr


def test_gpu_requested_without_gpu(mtx):
    from hpgraph import backend

    if backend.has_gpu():
        pytest.skip("a GPU is usable here")
    one_line_error(hpgraph("run", "bfs", mtx, "--backend", "gpu"), "backend='gpu' was requested")


def test_bench_and_demo(tmp_path):
    r = hpgraph("bench", "--scale", "6", "--trials", "1", "--algorithms", "bfs,pagerank",
                "--json-out", tmp_path / "b.json", "--plot", tmp_path / "b.png")
    assert r.returncode == 0, r.stderr
    assert "MTEPS" in r.stdout and "rmat:6" in r.stdout and "grid:8x8" in r.stdout
    rep = json.loads((tmp_path / "b.json").read_text())
    assert {(x["graph"].split()[0], x["algorithm"]) for x in rep["results"]} == \
        {("rmat:6", "bfs"), ("rmat:6", "pagerank"), ("grid:8x8", "bfs"), ("grid:8x8", "pagerank")}
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"
    one_line_error(hpgraph("bench", "--algorithms", "bfs,nope"), "unknown algorithm 'nope'")
    r = hpgraph("demo", "--scale", "8", "--backend", "cpu")
    assert r.returncode == 0, r.stderr
    for name in ("bfs", "sssp", "pagerank", "tc"):
        assert f"  {name} " in r.stdout
    assert "GTEPS" in r.stdout and "triangles" in r.stdout


# ---------------------------------------------------------------------------------------------
# in process: every algorithm's run + validation, and the helpers


@pytest.mark.parametrize("algo", list(cli.ALGORITHMS))
def test_every_algorithm_validates(algo, capsys):
    argv = ["run", algo, "rmat:7", "--backend", "cpu", "--trials", "1", "--validate", "--json"]
    if algo in ("bc", "bcw", "ebc", "ebcw"):
        argv += ["--samples", "20"]
    if algo in ("scc", "wcc"):
        argv += ["--directed"]
    assert cli.main(argv) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["algorithm"] == algo and rep["result"]
    assert rep["validation"]["ok"] in (True, None)  # None: no reference (widest, lp)


def test_validation_failure_exits_1(monkeypatch, capsys):
    monkeypatch.setattr(cli._validate, "validate_result", lambda *a, **k: (False, "made-up mismatch"))
    assert cli.main(["run", "bfs", "path:5", "--backend", "cpu", "--validate"]) == 1
    assert "made-up mismatch" in capsys.readouterr().err


def test_unavailable_algorithm(monkeypatch, capsys):
    monkeypatch.setattr(cli._algorithms, "algorithm_function", lambda name: None)
    assert cli.main(["run", "tc", "path:5", "--backend", "cpu"]) == 2
    assert "not available in this build" in capsys.readouterr().err
    assert cli.main(["demo", "--scale", "5", "--backend", "cpu", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert all("skipped" in v for v in info["algorithms"].values())


def test_write_result_formats(tmp_path):
    cli.write_result(tmp_path / "t.csv", {"triangles": 12})
    assert (tmp_path / "t.csv").read_text() == "triangles\n12\n"
    cli.write_result(tmp_path / "t.npy", {"triangles": 12})
    assert int(np.load(tmp_path / "t.npy")) == 12
    cli.write_result(tmp_path / "r.npy", {"rank": np.array([0.5, 0.5])})
    np.testing.assert_array_equal(np.load(tmp_path / "r.npy"), [0.5, 0.5])
    cli.write_result(tmp_path / "d.csv", {"distance": np.array([0.0, np.inf])})
    assert (tmp_path / "d.csv").read_text().splitlines()[2] == "1,inf"
