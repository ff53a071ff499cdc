"""hp.config: validated keys, context manager, environment variables."""

from __future__ import annotations

import subprocess
import sys

import pytest

import hpgraph as hp
from hpgraph.exceptions import InvalidValue


def test_defaults_and_set_restore():
    assert hp.config["engine_loop"] == "auto"
    assert hp.config["max_supersteps"] is None
    with hp.config.set(engine_loop="host", max_supersteps=5):
        assert hp.config["engine_loop"] == "host" and hp.config.get("max_supersteps") == 5
    assert hp.config["engine_loop"] == "auto" and hp.config["max_supersteps"] is None
    hp.config["push_alpha"] = 2
    try:
        assert hp.config["push_alpha"] == 2.0
    finally:
        hp.config.reset()
    assert hp.config["push_alpha"] is None


@pytest.mark.parametrize("kw,match", [
    ({"engine_loop": "gpu"}, "engine_loop.*one of"),
    ({"max_supersteps": 0}, "max_supersteps.*>= 1"),
    ({"max_supersteps": 2.5}, "max_supersteps"),
    ({"push_alpha": -1}, "push_alpha.*> 0"),
    ({"trace": "yes"}, "trace.*True or False"),
    ({"engine_loop_blocks_per_sm": -1}, "blocks_per_sm"),
])
def test_bad_values_change_nothing(kw, match):
    before = {k: hp.config[k] for k in hp.config.keys()}
    with pytest.raises(InvalidValue, match=match):
        hp.config.set(**{"trace": True, **kw})
    assert {k: hp.config[k] for k in hp.config.keys()} == before


def test_unknown_key_suggests_the_near_one():
    with pytest.raises(InvalidValue, match="did you mean 'engine_loop'"):
        hp.config.set(engin_loop="host")
    with pytest.raises(InvalidValue, match="no key"):
        hp.config["nope"]


def test_repr_and_describe():
    text = repr(hp.config)
    assert all(k in text for k in hp.config.keys())
    assert "cooperative" in hp.config.describe("engine_loop")


def test_environment_variables():
    code = "import hpgraph as hp; print(hp.config['max_supersteps'], hp.config['trace'])"
    env = {"HPGRAPH_MAX_SUPERSTEPS": "12", "HPGRAPH_TRACE": "1", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=str(__import__("pathlib").Path(__file__).parents[1]))
    assert out.stdout.split() == ["12", "True"], out.stderr
    env["HPGRAPH_MAX_SUPERSTEPS"] = "many"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=str(__import__("pathlib").Path(__file__).parents[1]))
    assert out.returncode != 0 and "HPGRAPH_MAX_SUPERSTEPS" in out.stderr


def test_trace_logs_every_superstep(caplog):
    G = hp.generators.path(4, backend="cpu")
    with hp.config.set(trace=True), caplog.at_level("INFO", logger="hpgraph.engine"):
        hp.run(_Hops, G, backend="cpu", source=0)
    lines = [r.getMessage() for r in caplog.records if r.name == "hpgraph.engine"]
    assert lines[0].startswith("run _Hops on cpu") and len(lines) == 1 + 4
    assert "superstep 3: push" in lines[-1] or "superstep 3: pull" in lines[-1]


class _Hops(hp.VertexProgram):
    properties = {"d": ("int32", -1)}
    reduce = "max"
    apply_to = "received"

    def init(self, graph, source=0):
        return {"d": hp.Seeded(-1, 0)}, [source]

    def mask(v):
        return v.d < 0

    def gather(src, edge, dst):
        return src.d + 1

    def update(v, y):
        return y if v.d < 0 else v.d


@pytest.mark.gpu
def test_dump_source_saves_every_compiled_module(tmp_path):
    pytest.importorskip("cupy")
    if not hp.has_gpu():
        pytest.skip("raw_module needs a device")
    from examples.sssp import SSSP

    # a program never compiled in this process (a unique constant): its module is compiled now
    Fresh = type("Fresh", (SSSP,), {"nonce": float(tmp_path.stat().st_ino % 100003) + 0.5,
                                    "gather": _gather_with_nonce})
    with hp.config.set(dump_source=str(tmp_path)):
        hp.run(Fresh, hp.generators.path(4, backend="gpu"), backend="gpu", source=0)
    files = list(tmp_path.glob("*.cu"))
    assert files and any("hp_pull_ell" in f.read_text() for f in files)


def test_cuda_source_render_is_strict():
    from hpgraph.cuda_source import render

    assert render("a ${X} $Y", {"X": 1}, Y="b") == "a 1 b"
    with pytest.raises(KeyError, match="Y"):
        render("a ${X} $Y", X=1)
    with pytest.raises(InvalidValue):
        hp.config.set(dump_source=3)


def test_cuda_source_save(tmp_path):
    from hpgraph.cuda_source import save

    p = save("__global__ void k() {}", tmp_path / "d")
    assert p.read_text() == "__global__ void k() {}" and p.suffix == ".cu"
    assert save("__global__ void k() {}", tmp_path / "d") == p


def _gather_with_nonce(self, src, edge, dst):
    return min(src.dist + edge, self.nonce * 1e30)
