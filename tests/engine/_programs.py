"""Vertex programs shared by the engine tests (imported as ``tests.engine._programs``; pytest
puts the repository root on ``sys.path``)."""

import numpy as np

import hpgraph as hp


class Mixed(hp.VertexProgram):
    """Every property dtype, given as scalars, Seeded rules and arrays; ``ro`` is never
    written by update (read in place when given as a device array)."""

    properties = {"d": ("float32", np.inf), "b": ("bool", False), "i8": ("int8", -3),
                  "u64": ("uint64", 2**63 + 5), "f64": ("float64", -0.0),
                  "lab": ("int32", -1), "ro": ("int64", 0)}
    reduce = "min"

    def init(self, graph, active=None, **props):
        return props, active

    def gather(src, edge, dst):
        return src.d + edge + src.ro % 3

    def update(v, y):
        m = min(v.d, y)
        return {"d": m, "b": v.b or m < 5, "i8": v.i8 + 1 if m < v.d else v.i8,
                "u64": v.u64 - 1 if m < v.d else v.u64, "f64": v.f64 + m if m < v.d else v.f64,
                "lab": v.lab if v.lab >= 0 else 7}


class BFSAny(hp.VertexProgram):
    """BFS depths with an ``any`` reduce and a mask that rejects every visited vertex, declared
    (``mask_excludes_active``): the GPU engine fuses its push supersteps."""

    edges = "in"
    properties = {"depth": ("int32", -1)}
    reduce = "any"
    apply_to = "received"
    mask_excludes_active = True

    def init(self, graph, source=0):
        return {"depth": hp.Seeded(-1, 0)}, [int(source)]

    def mask(v):
        return v.depth < 0

    def gather(src, edge, dst):
        return src.depth + 1

    def update(v, y):
        return {"depth": y if v.depth < 0 else v.depth}


class FalselyExcluded(BFSAny):
    """Declares ``mask_excludes_active`` with a mask that lets active vertices receive."""

    mask_excludes_active = True

    def mask(v):
        return v.depth < 5
