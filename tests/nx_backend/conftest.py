"""Shared fixtures of the NetworkX backend tests."""

from __future__ import annotations

import networkx as nx
import pytest


@pytest.fixture(autouse=True)
def _quiet_cache_warning():
    """Silence networkx's "cache" warnings (about cached backend conversions) in these tests."""
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.warnings_to_ignore.discard("cache")
