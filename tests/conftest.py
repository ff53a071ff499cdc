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
