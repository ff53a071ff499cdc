"""benchmarks/ab_trees.py: fresh processes per tree, each importing that tree's hpgraph, rows
checked against their oracles; bad arguments stop it before any process starts."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import ab_trees  # noqa: E402


def test_first_use_on_two_labels_of_one_tree(tmp_path, capsys):
    out = tmp_path / "ab.json"
    assert ab_trees.main(["--trees", "a=.,b=.", "--workload", "first-use", "--rounds", "1",
                          "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["failed"] == [] and set(res["rows"]) == {"a", "b"}
    (rows,) = res["rows"]["a"]             # the warming process of each tree is not counted
    assert set(rows) == {"new BFSParents, device loop asked", "new SSSPNearFar, device loop asked",
                         "hp.bfs, grid 64 x 64", "hp.sssp, grid 64 x 64"}
    assert all(r["check"] == "ok" and r["first_ms"] > 0 for r in rows.values())
    assert "first_ms: median over 1 rounds" in capsys.readouterr().out


def test_rmat_rows_checked_with_deferred_kernels_withheld(tmp_path):
    """The R-MAT workload (scale 12 here) with the block loop withheld and a push_alpha: every
    row checked against SciPy."""
    out = tmp_path / "ab.json"
    assert ab_trees.main(["--trees", "a=.", "--workload", "rmat", "--quick", "--rounds", "1",
                          "--repeat", "1", "--withhold", "hp_block_loop", "--push-alpha", "2",
                          "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    (rows,) = res["rows"]["a"]
    assert len(rows) == 10 and all(r["check"] == "ok" for r in rows.values())
    assert res["meta"]["push_alpha"] == 2.0 and res["meta"]["withhold"] == "hp_block_loop"


def test_budget_stops_after_the_first_round_and_keeps_its_json(tmp_path, capsys):
    """--budget: no round starts once it is spent, at least one runs; the JSON says how many."""
    out = tmp_path / "ab.json"
    assert ab_trees.main(["--trees", "a=.", "--workload", "rmat", "--quick", "--rounds", "3",
                          "--repeat", "1", "--budget", "0.001", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert len(res["rows"]["a"]) == 1 and res["meta"]["rounds_done"] == 1
    assert res["meta"]["rounds"] == 3 and res["meta"]["budget"] == 0.001
    text = capsys.readouterr().out
    assert "1 of 3 rounds done" in text and "median over 1 rounds" in text


@pytest.mark.parametrize("args, match", [
    (["--trees", "a=.", "--budget", "0"], "--budget"),
    (["--trees", "a=.", "--budget", "-5"], "--budget"),
    (["--trees", "a"], "--trees"), (["--trees", "a="], "--trees"),
    (["--trees", "a=no/such/dir"], "--trees"), (["--trees", "=."], "--trees"),
    (["--trees", "a=.,a=."], "given twice"),
    (["--trees", "a=.", "--rounds", "0"], "at least 1"),
    (["--trees", "a=.", "--withhold", "hp_blockloop"], "--withhold"),
    (["--trees", "a=.", "--workload", "first-use", "--no-compile-wait"], "rmat only"),
    (["--trees", "a=.", "--workload", "first-use", "--push-alpha", "2"], "rmat only")])
def test_bad_arguments_stop_before_any_process(args, match):
    with pytest.raises(SystemExit, match=match):
        ab_trees.main(args)
