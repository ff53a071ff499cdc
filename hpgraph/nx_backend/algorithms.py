"""networkx functions implemented on hpgraph (what ``backend="hpgraph"`` runs).

Every function takes the networkx signature, receives an :class:`~.graph.HpGraph` (networkx
converts the input) and returns what networkx returns: dicts / sets / lists of plain Python
numbers keyed by networkx's node labels, generators where networkx yields, and networkx's
exceptions.  Registration (:func:`~._registry.implements`) records, per function, the hpgraph
algorithms it needs (a function whose algorithm is missing is declined by ``can_run``) and an
optional argument check (``can_run`` declines what it does not support).

The implementations live in the modules imported below (one per family); importing this module
registers all of them in :data:`REGISTRY`.
"""

from __future__ import annotations

from . import (  # noqa: F401  (registration)
    _analysis, _betweenness_subset, _biconnected, _centrality, _community, _components, _cuts,
    _density, _distance_measures, _edge_traversal, _graphical, _link_community, _matrix, _measures,
    _mixing, _paths, _paths_all, _predicates, _squares, _structural, _traversal)
from ._registry import CALLS, REGISTRY, Implementation, device, hp_algorithm, implements
from .graph import HpGraph

__all__ = ["REGISTRY", "CALLS", "implements", "Implementation", "device", "hp_algorithm",
           "HpGraph"]
