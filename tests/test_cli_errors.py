"""Command-line exit statuses, output paths checked before the run, the ``tc`` advice,
``--max-iter`` / ``--tol`` and the duplicate report of ``hpgraph info`` (in-process)."""

import json
import os

import networkx as nx
import numpy as np
import pytest

from hpgraph import cli

EDGES = "0 1\n1 2\n2 0\n2 3\n3 1\n"


@pytest.fixture
def el(tmp_path):
    p = tmp_path / "g.el"
    p.write_text(EDGES)
    return p


@pytest.fixture
def no_run(monkeypatch):
    """Fail the test if an algorithm starts: the checks must come first."""
    def boom(*a, **k):
        raise AssertionError("the algorithm ran before the argument check")

    monkeypatch.setattr(cli._algorithms, "run_algorithm", boom)


def _main(capsys, *args):
    rc = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("tb", [[], ["--traceback"]])
def test_bad_input_is_2_with_or_without_traceback(tmp_path, capsys, tb):
    bad = tmp_path / "bad.mtx"
    bad.write_bytes(b"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 9 1\n")
    rc, _, err = _main(capsys, *tb, "info", bad, "--backend", "cpu")
    assert rc == 2
    assert "hpgraph: error:" in err and "out of bounds" in err
    assert ("Traceback" in err) == bool(tb)


@pytest.mark.parametrize("tb", [[], ["--traceback"]])
def test_internal_error_is_1(el, capsys, monkeypatch, tb):
    def broken(*a, **k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(cli._algorithms, "run_algorithm", broken)
    rc, _, err = _main(capsys, *tb, "run", "cc", el, "--backend", "cpu", "--trials", "1")
    assert rc == 1
    assert "internal error: RuntimeError: simulated bug" in err
    assert ("Traceback" in err) == bool(tb)


def test_not_converged_is_1_and_names_the_flags(el, capsys):
    # networkx agrees that one iteration is not enough here
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(nx.read_edgelist(str(el), create_using=nx.DiGraph, nodetype=int), max_iter=1)
    rc, _, err = _main(capsys, "run", "pagerank", el, "--backend", "cpu", "--max-iter", "1", "--trials", "1")
    assert rc == 1
    assert "ConvergenceError" in err and "--max-iter" in err


@pytest.mark.parametrize("flag,name,fragment", [
    ("--output", "missing/r.npy", "does not exist"),
    ("--output", "r.txt", "must end in .npy or .csv"),
    ("--output", "adir.npy", "is a directory"),
    ("--json-out", "missing/r.json", "does not exist"),
    ("--json-out", "readonly/r.json", "not writable"),
])
def test_run_output_paths_checked_first(el, tmp_path, capsys, no_run, flag, name, fragment):
    (tmp_path / "adir.npy").mkdir()
    ro = tmp_path / "readonly"
    ro.mkdir()
    os.chmod(ro, 0o500)
    try:
        if os.access(ro, os.W_OK) and "readonly" in name:
            pytest.skip("running as a user who can write anywhere (root)")
        rc, _, err = _main(capsys, "run", "cc", el, "--backend", "cpu", flag, tmp_path / name)
    finally:
        os.chmod(ro, 0o700)
    assert rc == 2, err
    assert fragment in err and flag in err


def test_info_plot_path_checked_first(el, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli._graphs, "load_graph_from_args", lambda args: pytest.fail("loaded before the check"))
    rc, _, err = _main(capsys, "info", el, "--plot", tmp_path / "nodir" / "d.png")
    assert rc == 2 and "--plot" in err and "does not exist" in err
    rc, _, err = _main(capsys, "info", el, "--plot", tmp_path / "d.txt")
    assert rc == 2 and "must end in" in err


def test_bench_paths_checked_first(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli._graphs, "load_graph", lambda *a, **k: pytest.fail("loaded before the check"))
    rc, _, err = _main(capsys, "bench", "grid:4x4", "--backend", "cpu", "--json-out", tmp_path / "no" / "b.json")
    assert rc == 2 and "--json-out" in err
    rc, _, err = _main(capsys, "bench", "grid:4x4", "--backend", "cpu", "--json-out", tmp_path / "b.json",
                       "--plot", tmp_path / "no" / "b.png")
    assert rc == 2 and "--plot" in err


def test_run_json_out_is_written(el, tmp_path, capsys):
    out = tmp_path / "r.json"
    rc, _, _ = _main(capsys, "run", "cc", el, "--backend", "cpu", "--trials", "1", "--json-out", out)
    assert rc == 0
    rep = json.loads(out.read_text())
    assert rep["algorithm"] == "cc" and rep["result"]


def test_tc_on_directed_input_advises_undirected(el, capsys, no_run):
    rc, _, err = _main(capsys, "run", "tc", el, "--backend", "cpu")
    assert rc == 2 and "--undirected" in err and "directed" in err


def test_tc_with_undirected_flag_counts_networkx_triangles(el, capsys):
    rc, out, _ = _main(capsys, "run", "tc", el, "--backend", "cpu", "--undirected", "--trials", "1", "--json")
    assert rc == 0
    H = nx.read_edgelist(str(el), nodetype=int)
    assert json.loads(out)["result"].startswith(f"{sum(nx.triangles(H).values()) // 3} triangles")


@pytest.mark.parametrize("algo,kw", [("pagerank", {"tol": 1e-3, "max_iter": 40}),
                                     ("hits", {"tol": 1e-4, "max_iter": 60})])
def test_max_iter_and_tol_reach_the_algorithm(el, tmp_path, capsys, algo, kw):
    res = tmp_path / "r.npy"
    rc, _, err = _main(capsys, "run", algo, el, "--backend", "cpu", "--trials", "1", "--output", res,
                       "--tol", kw["tol"], "--max-iter", kw["max_iter"])
    assert rc == 0, err
    H = nx.read_edgelist(str(el), create_using=nx.DiGraph, nodetype=int)
    nodes = sorted(H)
    if algo == "pagerank":
        # hp.pagerank stops at an L1 change below tol; networkx at one below n * tol
        ref = nx.pagerank(H, tol=kw["tol"] / H.number_of_nodes(), max_iter=kw["max_iter"])
        want = np.array([ref[v] for v in nodes])
        got = np.load(res)
    else:
        from networkx.algorithms.link_analysis.hits_alg import _hits_scipy

        _, auth = _hits_scipy(H, tol=kw["tol"], max_iter=kw["max_iter"])
        want = np.array([auth[v] for v in nodes])
        got = np.load(res, allow_pickle=False)
        got = got["authorities"] if got.dtype.names else got[:, 1] if got.ndim == 2 else got
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_max_iter_on_bfs_is_a_usage_error(el, capsys, no_run):
    rc, _, err = _main(capsys, "run", "bfs", el, "--backend", "cpu", "--max-iter", "3")
    assert rc == 2 and "--max-iter does not apply to bfs" in err


def test_info_reports_duplicates_and_self_loops(tmp_path, capsys):
    p = tmp_path / "dup.el"
    p.write_text("0 1 5\n0 1 2\n1 1 1\n1 2 4\n0 1 7\n2 2 1\n")
    rc, out, _ = _main(capsys, "info", p, "--backend", "cpu", "--json")
    assert rc == 0
    info = json.loads(out)
    # 6 listed lines, distinct pairs (0,1), (1,1), (1,2), (2,2): 2 merged
    assert (info["listed_edges"], info["duplicates_merged"], info["self_loops"]) == (6, 2, 2)
    assert info["duplicate_policy"] == "min"
    rc, out, _ = _main(capsys, "info", p, "--backend", "cpu", "--duplicates", "keep")
    assert "0 of 6 listed edges merged (policy keep)" in out
    rc, out, _ = _main(capsys, "info", p, "--backend", "cpu", "--undirected", "--json")
    info = json.loads(out)
    assert (info["duplicates_merged"], info["undirected_edges"]) == (2, 4)
