"""The inventory of where each dispatched function gets its answer (issue #18): it covers the
registry exactly, the README's NetworkX section lists the same three classes, and the functions
said to call hpgraph's algorithms declare them (so ``can_run`` declines them in a build that
lacks one)."""

import re
from pathlib import Path

import pytest

from hpgraph.nx_backend._inventory import ALGORITHM, BACKEND, CONVERSION
from hpgraph.nx_backend.algorithms import REGISTRY

README = Path(__file__).resolve().parents[2] / "README.md"

CLASSES = [("(a) Calls an hpgraph algorithm", ALGORITHM),
           ("(b) Reads of the converted graph", CONVERSION),
           ("(c) Computed in the backend", BACKEND)]


def test_classes_cover_the_registry_once():
    names = [n for _, d in CLASSES for n in d]
    assert len(names) == len(set(names))
    assert set(names) == set(REGISTRY)


def _paragraph(text, header):
    start = text.index(f"**{header} (")
    end = text.find("\n\n", start)
    return text[start:end]


@pytest.mark.parametrize("header,inventory", CLASSES)
def test_readme_lists_each_class(header, inventory):
    para = _paragraph(README.read_text(encoding="utf-8"), header)
    count = int(re.match(rf"\*\*{re.escape(header)} \((\d+)\)", para).group(1))
    listed = set()
    for token in re.findall(r"`([^`]+)`", para):
        name = token.rsplit(".", 1)[-1]
        if not token.startswith("hpgraph.") and name in REGISTRY:
            listed.add(name)
    assert listed == set(inventory)
    assert count == len(inventory)


def test_algorithm_class_declares_what_it_calls():
    """Every function of class (a) declares the hpgraph algorithms its entry names (those of
    hpgraph.algorithms; hpgraph.csgraph is always present) among its ``needs``."""
    from hpgraph.algorithms import _WHERE

    for name, calls in ALGORITHM.items():
        named = {a for a in re.findall(r"hpgraph\.(\w+)", calls) if a in _WHERE}
        assert named or calls.startswith("hpgraph.csgraph"), name
        assert named <= set(REGISTRY[name].needs), (name, named - set(REGISTRY[name].needs))
