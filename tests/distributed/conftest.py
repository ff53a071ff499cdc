"""Dask clusters for the hpgraph.distributed tests, and the shared random-graph cases.

One CPU cluster of 2 worker processes and one of 4 are started once per test session and
shared (starting one costs seconds on a 2-core machine); tests that break a cluster (a killed
worker, a changed version) start their own.  The graph cases are those of
``tests/algorithms/conftest.py`` (self-loops, duplicates, isolated vertices, components, zero
weights, empty graphs), loaded from that file.
"""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

import pytest

pytest.importorskip("distributed")

_CASES_FILE = Path(__file__).resolve().parents[1] / "algorithms" / "conftest.py"


def _load_cases():
    spec = importlib.util.spec_from_file_location("_hpgraph_test_cases", _CASES_FILE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CASES = _load_cases()


@pytest.fixture(scope="session")
def cases():
    """The helper namespace of tests/algorithms/conftest.py (graph_cases, to_graph, ...)."""
    return types.SimpleNamespace(**{k: getattr(CASES, k) for k in dir(CASES) if not k.startswith("__")})


def _start(n):
    from hpgraph.distributed import Cluster

    return Cluster(n_workers=n, backend="cpu")


@pytest.fixture(scope="session")
def cluster2():
    c = _start(2)
    yield c
    c.close()


@pytest.fixture(scope="session")
def cluster4():
    c = _start(4)
    yield c
    c.close()


@pytest.fixture(params=[2, 4], ids=["2workers", "4workers"])
def cluster(request):
    """Each of the shared 2- and 4-worker clusters."""
    return request.getfixturevalue(f"cluster{request.param}")
