"""Shared test configuration: the ``gpu`` marker skips where no CUDA device is visible; the
count of graphblas differential checks is printed at the end (summed over pytest-xdist's
workers when the suite runs with ``-n``)."""

import sys

import pytest

from hpgraph import backend


def pytest_collection_modifyitems(config, items):
    if backend.has_gpu():
        return
    skip = pytest.mark.skip(reason=f"no GPU: {backend.gpu_unavailable_reason()}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend_name(request):
    """Run a test on both backends (the GPU one is skipped without a device)."""
    return request.param


@pytest.fixture(autouse=True)
def _device_loop_waits():
    """A call asking for the device loop runs there from its first call: the tests check that
    it does (or falls back for a reason they name) and cover the device loop of the drop-ins
    that ask for it, so a loop module new to the kernel cache is waited for.  The default (the
    host loop while it compiles in the background) has tests of its own (tests/engine)."""
    from hpgraph import config

    with config.set(engine_loop_wait=True):
        yield


@pytest.fixture
def hp_config():
    """``hp_config(key=value, ...)`` sets ``hp.config`` keys until the test ends (the previous
    values come back at teardown, as with ``monkeypatch``)."""
    from hpgraph import config

    restores = []

    def set_keys(**values):
        restores.append(config.set(**values))

    yield set_keys
    for restore in reversed(restores):
        restore.__exit__(None, None, None)


_GB_COUNTS = []        # per pytest-xdist worker: its graphblas differential checks


def _gb_checks() -> int:
    helpers = sys.modules.get("tests.graphblas._helpers")
    return helpers.COUNT["combinations"] if helpers is not None else 0


def pytest_sessionfinish(session):
    out = getattr(session.config, "workeroutput", None)
    if out is not None:                      # an xdist worker: report to the controller
        out["gb_combinations"] = _gb_checks()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _GB_COUNTS.append(getattr(node, "workeroutput", {}).get("gb_combinations", 0))


def pytest_terminal_summary(terminalreporter):
    total = _gb_checks() + sum(_GB_COUNTS)
    if total:
        terminalreporter.write_line(f"graphblas differential checks: {total} combinations vs python-graphblas")
