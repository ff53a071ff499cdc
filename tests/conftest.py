"""Shared test configuration: the ``gpu`` marker skips where no CUDA device is visible."""

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
