"""pytest plugin: run SciPy's own ``scipy.sparse.csgraph`` tests against :mod:`hpgraph.csgraph`.

::

    python -m pytest -p hpgraph.csgraph.testing --pyargs scipy.sparse.csgraph.tests

Before the test modules are imported, every public function of ``scipy.sparse.csgraph`` is
replaced by hpgraph's (``from scipy.sparse.csgraph import dijkstra`` in SciPy's tests then
gets :func:`hpgraph.csgraph.dijkstra`).  hpgraph's own wrappers reach SciPy through its private
modules, so they are unaffected.  ``HPGRAPH_CSGRAPH_BACKEND`` (``cpu`` / ``gpu``) pins where the
engine functions run.
"""

from __future__ import annotations

import functools
import os

#: (test file, test name) -> reason: SciPy tests that check a documented difference
XFAILS = {
    ("test_connected_components.py", "test_int64_indices_directed"): (
        "connection='strong' numbers components by their smallest vertex; SciPy numbers them "
        "in the order its depth-first search finishes them (same partition)"),
}
#: the same, only where the engine functions run on the GPU (the CPU path calls SciPy's own
#: Dijkstra, whose predecessors SciPy's tests expect)
GPU_XFAILS = {
    ("test_shortest_path.py", "test_predecessors"): (
        "where several shortest paths exist the GPU engine may choose another predecessor than "
        "SciPy (distances are identical)"),
}


def _pinned(f, backend):
    @functools.wraps(f)
    def run(*args, **kwargs):
        kwargs.setdefault("backend", backend)
        return f(*args, **kwargs)
    return run


#: Markers SciPy's test files use and scipy/conftest.py registers; registered here too, since
#: pytest (9.2) checks a package's marks before that conftest's pytest_configure has run.
SCIPY_MARKERS = ("slow", "xslow", "xfail_on_32bit", "array_api_backends", "skip_xp_backends",
                 "xfail_xp_backends", "skip_xp_invalid_arg", "timeout", "fail_slow",
                 "thread_unsafe", "parallel_threads_limit", "iterations")


def pytest_configure(config):
    import scipy.sparse.csgraph as sc

    for name in SCIPY_MARKERS:
        config.addinivalue_line("markers", f"{name}: a marker of SciPy's own tests")

    import hpgraph.csgraph as hc

    backend = os.environ.get("HPGRAPH_CSGRAPH_BACKEND")
    for name in hc.__all__:
        if name in ("NegativeCycleError", "NULL_IDX"):
            continue
        f = getattr(hc, name)
        if backend and name in hc.ENGINE:
            f = _pinned(f, backend)
        setattr(sc, name, f)


def pytest_report_header(config):
    import hpgraph.csgraph as hc

    return (f"hpgraph.csgraph substituted for scipy.sparse.csgraph "
            f"({len(hc.__all__) - 2} functions, {len(hc.ENGINE)} on hpgraph's engine)")


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        key = (os.path.basename(str(item.path)), item.name.split("[", 1)[0])
        reason = XFAILS.get(key)
        if reason is None and os.environ.get("HPGRAPH_CSGRAPH_BACKEND", "").lower() == "gpu":
            reason = GPU_XFAILS.get(key)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
