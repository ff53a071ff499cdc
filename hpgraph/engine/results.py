"""What a vertex-program run returns (:class:`RunResult`) and what a ``converged`` hook sees
after each superstep (:class:`SuperstepStats`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import backend as _backend

__all__ = ["RunResult", "SuperstepStats"]

@dataclass
class SuperstepStats:
    """What a ``converged(self, stats)`` hook sees after each superstep.

    Attributes
    ----------
    superstep : int
        0-based index of the superstep just finished.
    active : int
        Vertices that were active (sent) in it.
    changed : int
        Vertices whose properties changed (active in the next superstep).
    direction : str
        ``"push"`` or ``"pull"``.
    properties : dict
        The properties after the superstep (read-only; NumPy or CuPy).
    previous : dict
        The properties before it.
    """

    superstep: int
    active: int
    changed: int
    direction: str
    properties: dict
    previous: dict


@dataclass
class RunResult:
    """The outcome of :func:`run`.

    Attributes
    ----------
    properties : dict
        ``{name: array}`` final properties (NumPy on the CPU, CuPy on the GPU); also readable
        as ``result.<name>`` and ``result[name]``.
    supersteps : int
        Supersteps executed (each with at least one active vertex).
    active : list of int
        Active vertices at the start of each superstep.
    directions : list of str
        ``"push"`` or ``"pull"`` for each superstep.
    frontier_edges : list of int
        Edges the frontier would push along (the direction heuristic's input) per superstep.
    converged : bool
        False when the run stopped at ``max_iterations`` with vertices still active.
    time : float
        Wall seconds of the superstep loop (PREPROCESS and compilation excluded).
    setup_time : float
        Wall seconds of PREPROCESS (init, compilation, buffer allocation, transfers).  On the
        GPU: host time until the first superstep is launched (device-side setup work overlaps
        and counts in ``time``).
    backend : str
        ``"cpu"`` or ``"gpu"``.
    syncs : int
        Host synchronisations in the loop (GPU: one small counter read per batch).
    """

    properties: dict
    supersteps: int
    active: list
    directions: list
    frontier_edges: list
    converged: bool
    time: float
    setup_time: float = 0.0
    backend: str = "cpu"
    syncs: int = 0
    extra: dict = field(default_factory=dict)

    def __getitem__(self, name):
        return self.properties[name]

    def __getattr__(self, name):
        props = self.__dict__.get("properties")
        if props is not None and name in props:
            return props[name]
        raise AttributeError(f"RunResult has no attribute or property {name!r}")

    def to_host(self) -> "RunResult":
        """A copy with NumPy property arrays."""
        import copy

        r = copy.copy(self)
        r.properties = {k: _backend.to_host(v) for k, v in self.properties.items()}
        return r

    def __repr__(self):
        props = ", ".join(f"{k}: {getattr(v, 'dtype', '?')}[{len(v)}]"
                          for k, v in self.properties.items())
        return (f"RunResult({props}; supersteps={self.supersteps}, converged={self.converged}, "
                f"backend={self.backend!r}, time={self.time * 1e3:.3f} ms)")


