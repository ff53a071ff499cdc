"""``nx.config.backends.hpgraph``: the backend's validated configuration.

networkx's :class:`~networkx.utils.configs.Config` is strict (a misspelt name raises
AttributeError); :class:`HpgraphConfig` also checks values when they are set, so a wrong device
or threshold fails where it is written rather than at the next call.
"""

from __future__ import annotations

from networkx.utils.configs import Config

__all__ = ["HpgraphConfig", "DEVICES"]

#: accepted values of ``device``
DEVICES = (None, "auto", "cpu", "gpu")


class HpgraphConfig(Config):
    """Configuration of the hpgraph networkx backend.

    Parameters
    ----------
    device : {None, "auto", "cpu", "gpu"}
        Where hpgraph runs.  None: ``$HPGRAPH_BACKEND``, else the GPU when one is usable.
    min_edges : int
        In automatic dispatch (``nx.config.backend_priority``), networkx graphs with fewer
        adjacency entries stay in networkx: converting them costs more than it saves.
        0 converts every graph.
    """

    device: str | None = None
    min_edges: int = 50_000

    def _on_setattr(self, key, value):
        if key == "device":
            if value not in DEVICES:
                raise ValueError(f"nx.config.backends.hpgraph.device must be one of "
                                 f"{DEVICES}, got {value!r}")
        elif key == "min_edges":
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"nx.config.backends.hpgraph.min_edges must be an int, got "
                                f"{type(value).__name__} {value!r}")
            if value < 0:
                raise ValueError(f"nx.config.backends.hpgraph.min_edges must be >= 0, got "
                                 f"{value}")
        return value
