"""The ``hpgraph`` command: in-process through ``cli.main`` and as real processes."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hpgraph import backend, cli

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def mtx(tmp_path):
    """chesapeake from the shared data when there, else a small file of the same kind."""
    p = DATA / "chesapeake.mtx.gz"
    if p.is_file():
        return p
    p = tmp_path / "small.mtx"
    p.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 3\n")
    return p


def run(*args, env=None):
    """``python -m hpgraph ARGS`` as a process, forced onto the CPU unless env says otherwise."""
    e = dict(os.environ)
    e.setdefault("HPGRAPH_BACKEND", "cpu")
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "hpgraph", *map(str, args)], capture_output=True,
                          text=True, env=e, cwd=REPO, timeout=120)


def assert_usage_error(rc, err, fragment=""):
    assert rc == 2, err
    assert "hpgraph: error:" in err
    assert "Traceback" not in err
    assert fragment in err


# ------------------------------------------------------------------------------------------
# processes


def test_module_demo_small():
    r = run("demo", "--scale", "8", "--backend", "cpu")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for word in ("backend", "cpu", "vertices     256", "out-degree", "median", "isolated", "HYB", "K =",
                 "ELL fill", "COO share", "generate", "CSR"):
        assert word in out, (word, out)
    assert "Traceback" not in r.stderr


def test_installed_script(mtx):
    exe = shutil.which("hpgraph")
    if exe is None:
        candidate = Path(sys.executable).with_name("hpgraph")
        if not candidate.exists():
            pytest.skip("the hpgraph console script is not installed (pip install -e .)")
        exe = str(candidate)
    env = dict(os.environ, HPGRAPH_BACKEND="cpu")
    r = subprocess.run([exe, "demo", "--scale", "8"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "vertices     256" in r.stdout
    r = subprocess.run([exe, "info", str(mtx)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "vertices" in r.stdout
    r = subprocess.run([exe, "info", "missing.mtx"], capture_output=True, text=True, env=env, timeout=120)
    assert_usage_error(r.returncode, r.stderr, "no such file")
    r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("hpgraph ")


def test_module_info_mtx(mtx):
    r = run("info", mtx)
    assert r.returncode == 0, r.stderr
    if mtx.name == "chesapeake.mtx.gz":
        assert "vertices     39" in r.stdout
        assert "340 stored (170 undirected)" in r.stdout
    assert "undirected, unweighted" in r.stdout
    assert "read" in r.stdout


def test_module_errors(tmp_path):
    r = run("info", tmp_path / "missing.mtx")
    assert_usage_error(r.returncode, r.stderr, "no such file")
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 z 1\n")
    r = run("info", bad)
    assert_usage_error(r.returncode, r.stderr, f"{bad}:4:")
    r = run("demo", "--scale", "x")
    assert_usage_error(r.returncode, r.stderr, "invalid int value")
    r = run("frobnicate")
    assert_usage_error(r.returncode, r.stderr, "invalid choice")
    r = run()
    assert_usage_error(r.returncode, r.stderr, "a command is required")


# ------------------------------------------------------------------------------------------
# in process (fast)


def test_demo_json(capsys):
    assert cli.main(["demo", "--scale", "6", "--backend", "cpu", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vertices"] == 64 and info["backend"] == "cpu"
    assert info["edges"] == 2 * info["undirected_edges"] - info["self_loops"]
    assert set(info["timings"]) == {"generate", "csr", "hyb"}
    assert set(info["out_degree"]) == {"min", "mean", "median", "max"}
    assert info["hyb"]["K"] >= 1 and 0 < info["hyb"]["ell_fill"] <= 1 and 0 <= info["hyb"]["coo_share"] <= 1


def test_demo_reproducible(capsys):
    cli.main(["demo", "--scale", "7", "--backend", "cpu", "--json", "--seed", "3"])
    a = json.loads(capsys.readouterr().out)
    cli.main(["demo", "--scale", "7", "--backend", "cpu", "--json", "--seed", "3"])
    b = json.loads(capsys.readouterr().out)
    assert a["edges"] == b["edges"] and a["out_degree"] == b["out_degree"]


@pytest.mark.parametrize("spec,n,m", [("rmat:8", 256, None), ("rmat:8:4", 256, None), ("grid:4x5", 20, 62),
                                      ("er:100:300", 100, 600), ("path:10", 10, 18), ("star:10", 10, 18),
                                      ("complete:5", 5, 20)])
def test_info_specs(capsys, spec, n, m):
    assert cli.main(["info", spec, "--backend", "cpu", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vertices"] == n
    if m is not None:
        assert info["edges"] == m
    assert "generate" in info["timings"]


def test_info_directed_flag(capsys, tmp_path):
    p = tmp_path / "g.el"
    p.write_text("0 1\n1 2\n2 0\n5 5\n")
    assert cli.main(["info", str(p), "--backend", "cpu", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["directed"] and info["edges"] == 4 and info["self_loops"] == 1
    assert info["isolated"] == 2  # vertices 3 and 4
    assert cli.main(["info", str(p), "--backend", "cpu", "--json", "--undirected"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert not info["directed"] and info["edges"] == 7 and info["undirected_edges"] == 4
    assert cli.main(["info", str(p), "--backend", "cpu", "--json", "--relabel"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vertices"] == 4 and info["isolated"] == 0


def test_info_text(capsys, mtx):
    assert cli.main(["info", str(mtx), "--backend", "cpu", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("graph ")
    assert "HYB          K =" in out and "build time   read" in out


def test_info_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "deg.png"
    assert cli.main(["info", "rmat:8", "--backend", "cpu", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(png) in capsys.readouterr().out


def test_info_plot_without_matplotlib(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    rc = cli.main(["info", "path:5", "--backend", "cpu", "--plot", str(tmp_path / "x.png")])
    assert_usage_error(rc, capsys.readouterr().err, "needs matplotlib")


@pytest.mark.parametrize("argv,fragment", [
    (["info", "nope/nothing.mtx"], "no such file"),
    (["info", "foo:3"], "not a generator spec either"),
    (["info", "rmat:x"], "SCALE must be an integer"),
    (["info", "grid:3x"], "bad generator spec"),
    (["info", "er:5:100"], "exceeds"),
    (["demo", "--scale", "99"], "scale must be"),
    (["demo", "--backend", "tpu"], "invalid choice"),
    (["info"], "required"),
    (["info", "g.mtx", "--directed", "--undirected"], "not allowed with"),
])
def test_bad_arguments(capsys, argv, fragment):
    rc = cli.main(argv + (["--backend", "cpu"] if "--backend" not in argv and argv[0] == "info" else []))
    assert_usage_error(rc, capsys.readouterr().err, fragment)


def test_bad_files(capsys, tmp_path):
    d = tmp_path / "dir.mtx"
    d.mkdir()
    assert_usage_error(cli.main(["info", str(d), "--backend", "cpu"]), capsys.readouterr().err, "directory")
    u = tmp_path / "g.graphml"
    u.write_text("<x/>")
    assert_usage_error(cli.main(["info", str(u), "--backend", "cpu"]), capsys.readouterr().err,
                       "known extensions")
    t = tmp_path / "t.txt"
    t.write_text("0 1\n1 -2\n")
    assert_usage_error(cli.main(["info", str(t), "--backend", "cpu"]), capsys.readouterr().err, f"{t}:2:")
    assert cli.main(["info", str(u), "--backend", "cpu", "--format", "nope"]) == 2
    assert "unknown format" in capsys.readouterr().err


@pytest.mark.skipif(backend.has_gpu(), reason="a GPU is usable here")
def test_gpu_requested_without_gpu(capsys):
    rc = cli.main(["demo", "--scale", "4", "--backend", "gpu"])
    assert_usage_error(rc, capsys.readouterr().err, "backend='gpu' was requested")


def test_help_and_version(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "demo" in out and "info" in out
    assert cli.main(["--version"]) == 0
    assert cli.main(["info", "--help"]) == 0
    assert "rmat:SCALE" in capsys.readouterr().out


def test_traceback_flag(tmp_path, capsys):
    """--traceback adds the traceback and keeps the exit status (2 for a missing file)."""
    args = ["info", str(tmp_path / "missing.mtx"), "--backend", "cpu"]
    assert cli.main(args) == 2
    plain = capsys.readouterr().err
    assert "Traceback" not in plain and "no such file" in plain
    assert cli.main(["--traceback"] + args) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "GraphFileNotFound" in err
    assert "hpgraph: error:" in err and "no such file" in err


def test_register_subcommand(capsys):
    seen = {}

    def add(p):
        p.add_argument("--n", type=int, default=1)

    def handler(args):
        seen["n"] = args.n
        print("hello")
        return 0

    cli.register_subcommand("hello-test", help="test", add_arguments=add, handler=handler)
    try:
        assert cli.main(["hello-test", "--n", "3"]) == 0
        assert seen == {"n": 3} and capsys.readouterr().out == "hello\n"
    finally:
        del cli.SUBCOMMANDS["hello-test"]


def test_load_graph_helper(tmp_path):
    lg = cli.load_graph("grid:3x3", backend="cpu")
    assert lg.kind == "generator" and lg.graph.num_vertices == 9 and set(lg.timings) == {"generate", "csr"}
    p = tmp_path / "g.el"
    p.write_text("0 1 2.5\n")
    lg = cli.load_graph(p, backend="cpu", progress=False)
    assert lg.kind == "file" and lg.graph.weighted and set(lg.timings) == {"read", "csr"}
    assert lg.edges.num_edges == 1
