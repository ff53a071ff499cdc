"""benchmarks/bench_host_overhead.py: phase timers around the engine, results checked against
SciPy, the phases removed again after the run; bad arguments stop it before any work."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_host_overhead  # noqa: E402


def test_rows_checked_with_phases(tmp_path):
    from hpgraph.engine import run as run_mod

    bind = run_mod.bind
    out = tmp_path / "b.json"
    assert bench_host_overhead.main(["--scale", "8", "--repeat", "3", "--out", str(out)]) == 0
    assert run_mod.bind is bind                     # the timers are gone
    rows = json.loads(out.read_text())["rows"]
    assert [r["label"].split(",")[0] for r in rows] == ["BFSParents", "SSSPNearFar", "hp.bfs",
                                                        "hp.sssp"]
    assert all(r["check"] == "ok" for r in rows)
    for r in rows[:2]:
        ph = r["phases_us"]
        assert set(ph) >= {"wall", "bind", "execute"} and r["phase_calls"]["bind"] == 1.0
        assert 0 < ph["bind"] < ph["wall"] and 0 < ph["execute"] < ph["wall"]


@pytest.mark.parametrize("args", [["--scale", "2"], ["--repeat", "0"]])
def test_bad_arguments_stop_it(args):
    with pytest.raises(SystemExit, match="--scale"):
        bench_host_overhead.main(args)
