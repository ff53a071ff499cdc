"""The documentation's examples run: every ``>>>`` example of the user guide (docs/guide/*.md)
and of the docstrings that carry examples, as doctests on the CPU backend.

The Sphinx build itself (warnings as errors) runs in ``.ci/run``; here only the examples, so
that a changed result or signature fails the test suite where it is introduced.
"""

from __future__ import annotations

import doctest
import importlib
import pathlib
import pkgutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE = sorted((ROOT / "docs" / "guide").glob("*.md"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# modules whose docstring examples are complete, deterministic sessions
MODULES = ["hpgraph.ops", "hpgraph.graphblas"]
#: examples each package holds at least (a finder that misses the submodules fails)
MIN_EXAMPLES = {"hpgraph.ops": 5, "hpgraph.graphblas": 60}


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


def _with_submodules(name):
    """The package ``name`` and its modules (the public functions live in private ones)."""
    mod = importlib.import_module(name)
    subs = [f"{name}.{m.name}" for m in pkgutil.iter_modules(getattr(mod, "__path__", []))]
    return [mod] + [importlib.import_module(s) for s in subs]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    attempted = 0
    for mod in _with_submodules(name):
        for test in finder.find(mod, mod.__name__):
            runner.run(test)
            attempted += len(test.examples)
    failed, _ = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} docstring examples of {name} failed (of {attempted})"
    assert attempted >= MIN_EXAMPLES[name], f"only {attempted} docstring examples found in {name}"
