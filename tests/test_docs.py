"""The documentation's examples run: every ``>>>`` example of the user guide (docs/guide/*.md)
and of the docstrings that carry examples, as doctests on the CPU backend.

The Sphinx build itself (warnings as errors) runs in ``.ci/run``; here only the examples, so
that a changed result or signature fails the test suite where it is introduced.
"""

from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE = sorted((ROOT / "docs" / "guide").glob("*.md"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# modules whose docstring examples are complete, deterministic sessions
MODULES = ["hpgraph.ops", "hpgraph.graphblas"]


@pytest.fixture(autouse=True)
def _cpu(monkeypatch):
    monkeypatch.setenv("HPGRAPH_BACKEND", "cpu")


def _needs(path: pathlib.Path):
    text = path.read_text()
    for mod in ("pandas", "pyarrow", "networkx"):
        if mod in text:
            pytest.importorskip(mod)
    if 'backend="hpgraph"' in text:
        from importlib.metadata import entry_points

        if not any(ep.name == "hpgraph" for ep in entry_points(group="networkx.backends")):
            pytest.skip("hpgraph is not installed (pip install -e .): networkx cannot find its backend")


def test_guide_pages_exist():
    names = {p.stem for p in GUIDE}
    assert {"graphs", "algorithms", "semirings", "vertex_programs", "tables", "interop", "gpus"} <= names


@pytest.mark.parametrize("page", GUIDE, ids=lambda p: p.name)
def test_guide_examples(page):
    _needs(page)
    result = doctest.testfile(str(page), module_relative=False, optionflags=FLAGS, report=True,
                              globs={}, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {page.name} failed"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    attempted = 0
    for test in finder.find(mod, name):
        runner.run(test)
        attempted += len(test.examples)
    failed, _ = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} docstring examples of {name} failed (of {attempted})"
