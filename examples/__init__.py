"""Vertex programs written against hpgraph's public API (importable: ``from examples.sssp import SSSP``)."""
