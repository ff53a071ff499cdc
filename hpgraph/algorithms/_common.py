"""Argument handling shared by every algorithm: graph coercion, backend side, sources, results."""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from ..exceptions import IndexOutOfBound, InvalidValue


def as_graph(G, *, argname: str = "G"):
    """Return ``G`` as an hpgraph ``Graph`` (accepts a Graph, scipy/cupyx sparse, or networkx)."""
    from ..graph import Graph

    if isinstance(G, Graph):
        return G
    if hasattr(G, "adj") and hasattr(G, "is_directed"):  # a networkx graph
        return Graph.from_networkx(G)
    try:
        return Graph.from_scipy(G)
    except Exception as exc:  # pragma: no cover - message below is the useful part
        raise InvalidValue(
            f"{argname} must be an hpgraph.Graph, a scipy/cupyx sparse matrix or a networkx graph; "
            f"got {type(G).__name__} ({exc})"
        ) from None


def prepare(G, backend=None):
    """Resolve the backend and move the graph to that side.

    Returns
    -------
    (Graph, str, bool)
        The graph on the chosen side, ``"cpu"`` or ``"gpu"``, and whether the caller's input lived
        on the device (results go back to the input's side).
    """
    G = as_graph(G)
    input_on_device = bool(getattr(G, "on_device", False))
    side = _backend.resolve(backend, *( [G.A.indptr] if input_on_device else [] ))
    G = G.to_device() if side == "gpu" else G.to_host()
    return G, side, input_on_device


def kernel_or_engine(G, choice: str, kernel_degree: float) -> str:
    """A drop-in's GPU path on ``G``: ``choice`` (its ``hp.config`` key) unless ``"auto"``;
    then ``"kernel"`` (its single-launch cooperative kernel) above ``kernel_degree`` stored
    entries per vertex, else ``"engine"`` (its vertex program; also for no vertex at all)."""
    if choice != "auto":
        return choice
    n = int(G.num_vertices)
    if n == 0:
        return "engine"
    return "kernel" if int(G.A.nnz) / n > kernel_degree else "engine"


def vertex_id_dtype(n: int) -> np.dtype:
    """dtype of vertex-id results (parents, predecessors, labels) on a graph of ``n`` vertices:
    int32, or int64 from 2**31 - 1 vertices on."""
    return np.dtype(np.int64) if n >= 2**31 - 1 else np.dtype(np.int32)


def check_sources(G, source, *, argname: str = "source", allow_many: bool = True):
    """Validate vertex id(s): returns a 1-D int64 numpy array of distinct-or-not sources."""
    n = G.num_vertices
    arr = np.asarray(_backend.to_host(source))
    if arr.ndim > 1 or (arr.ndim == 1 and not allow_many):
        raise InvalidValue(f"{argname} must be a vertex id{' or a list of ids' if allow_many else ''}, "
                           f"got an array of shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.floor(arr)):
            arr = arr.astype(np.int64)
        else:
            raise InvalidValue(f"{argname} must be an integer vertex id, got {source!r}")
    arr = np.atleast_1d(arr).astype(np.int64)
    if arr.size == 0:
        raise InvalidValue(f"{argname} must name at least one vertex, got an empty list")
    bad = arr[(arr < 0) | (arr >= n)]
    if bad.size:
        raise IndexOutOfBound(f"{argname} {int(bad[0])} is out of range for a graph of {n} vertices "
                              f"(valid ids are 0..{n - 1})")
    return arr


def finish(array, on_device_input: bool, to=None):
    """Put a result on the input's side (cupy in -> cupy out), or on the side named by ``to``.

    ``to`` may be None (input's side), ``"numpy"`` or ``"cupy"``.
    """
    if array is None:
        return None
    if to not in (None, "numpy", "cupy"):
        raise InvalidValue(f"to must be None, 'numpy' or 'cupy', got {to!r}")
    want_device = (to == "cupy") or (to is None and on_device_input)
    if want_device:
        return _backend.to_device(array)
    return _backend.to_host(array)
