"""Vertex programs (``hp.VertexProgram``, ``hp.run``): the public names of
:mod:`hpgraph.engine`, where the abstraction lives (:mod:`hpgraph.engine.program` defines and
checks programs, :mod:`~hpgraph.engine.bind` types them against a graph,
:mod:`~hpgraph.engine.run` runs them).  Kept so that ``hpgraph.program.X`` keeps working."""

from .engine.bind import BoundProgram, bind, default_priority_delta  # noqa: F401
from .engine.program import (  # noqa: F401
    APPLY_TO,
    DEFAULT_MAX_ITERATIONS_NUMERIC,
    DIRECTIONS,
    EDGES,
    GATHER_FROM,
    PRIORITY_ORDERS,
    SELECTING,
    PropertySpec,
    Seeded,
    VertexProgram,
)
from .engine.results import RunResult, SuperstepStats  # noqa: F401
from .engine.run import run  # noqa: F401

__all__ = ["VertexProgram", "run", "RunResult", "SuperstepStats", "Seeded"]
