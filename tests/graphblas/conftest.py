"""Fixtures of the graphblas tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def emulated_gb(monkeypatch):
    from tests.graphblas import _cuda_emu

    if not _cuda_emu.available():
        pytest.skip("g++ is not installed (the CUDA host emulation needs it)")
    _cuda_emu.emulate(monkeypatch)
