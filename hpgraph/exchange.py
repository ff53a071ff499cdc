"""Zero-copy exchange with other array libraries: DLPack and PyTorch Geometric's ``edge_index``.

Every array hpgraph returns is a NumPy or CuPy array, and both export DLPack, so
``torch.from_dlpack(hp.pagerank(G))`` needs nothing from here.  This module covers the way in
(any DLPack producer -> NumPy on the host or CuPy on the device, no copy and no host round trip
for device input) and the edge list in PyTorch Geometric's layout: a ``2 x E`` integer tensor,
row 0 the sources and row 1 the targets.  torch is never imported here.
"""

from __future__ import annotations

import numpy as np

from . import backend as _backend
from .exceptions import DeviceUnavailable, DimensionMismatch, DomainMismatch, InvalidValue

__all__ = ["from_dlpack", "from_edge_index", "to_edge_index"]

# DLPack device types (dlpack.h, DLDeviceType)
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DL_NAMES = {1: "CPU", 2: "CUDA", 3: "CUDA host", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 9: "VPI", 10: "ROCm",
             11: "ROCm host", 12: "ext_dev", 13: "CUDA managed", 14: "oneAPI", 15: "WebGPU", 16: "Hexagon"}


def from_dlpack(x):
    """A NumPy (host) or CuPy (CUDA device) array viewing the memory of a DLPack producer.

    Parameters
    ----------
    x : object with ``__dlpack__`` and ``__dlpack_device__``
        A torch tensor, JAX / CuPy / NumPy array, ...  NumPy and CuPy arrays pass through.

    Raises
    ------
    DeviceUnavailable
        ``x`` lives on a device other than the CPU or a CUDA GPU (ROCm, Metal, ...), or on a CUDA
        GPU while no GPU is usable here.
    InvalidValue
        ``x`` speaks no DLPack, or refuses to export (for example a torch tensor that requires
        grad: pass ``x.detach()``).
    """
    if isinstance(x, np.ndarray) or _backend.is_device_array(x) and type(x).__module__.startswith("cupy"):
        return x
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise InvalidValue(f"from_dlpack: expected an object implementing the DLPack protocol (__dlpack__ and "
                           f"__dlpack_device__), got {type(x).__module__}.{type(x).__name__}")
    dev_type, dev_id = (int(v) for v in x.__dlpack_device__())
    try:
        if dev_type in (_DL_CPU, _DL_CUDA_HOST):
            return np.from_dlpack(x)
        if dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
            cp = _backend.cupy()
            return cp.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError) as exc:
        raise InvalidValue(f"from_dlpack: {type(x).__name__} refused the DLPack export ({exc}); a tensor that "
                           "requires grad needs .detach() first") from None
    name = _DL_NAMES.get(dev_type, f"device type {dev_type}")
    raise DeviceUnavailable(f"from_dlpack: the array lives on a {name} device (id {dev_id}); hpgraph reads "
                            "arrays on the CPU or on a CUDA GPU: copy it to one of those first")


def from_edge_index(edge_index, edge_weight=None, num_nodes=None, *, directed=True, duplicates="min",
                    backend=None):
    """Graph of a PyTorch Geometric ``edge_index`` (``2 x E``: sources in row 0, targets in row 1).

    Parameters
    ----------
    edge_index : array_like or DLPack tensor of int, shape (2, E)
        NumPy, CuPy, torch (CPU or CUDA) or anything with DLPack; device input stays on the device.
    edge_weight : array_like or DLPack tensor, shape (E,), optional
        One finite weight per column of ``edge_index``.
    num_nodes : int, optional
        Number of vertices (default: the largest id + 1).
    directed : bool, default True
        PyG stores an undirected graph with both directions; ``directed=False`` also accepts one
        direction per edge and adds the other.
    duplicates, backend
        As in :meth:`hpgraph.Graph.from_edges`.

    Raises
    ------
    DimensionMismatch
        ``edge_index`` is not ``2 x E``, or ``edge_weight`` is not of length E.
    DomainMismatch
        ``edge_index`` is not integer.
    DeviceUnavailable
        A tensor on a device hpgraph cannot read.
    """
    from .graph import Graph

    ei = _array(edge_index, "edge_index")
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise DimensionMismatch(f"from_edge_index: edge_index must have shape (2, E), got {tuple(ei.shape)} "
                                "(transpose an E x 2 array with .T)")
    if ei.dtype.kind not in "iu" and ei.shape[1]:
        raise DomainMismatch(f"from_edge_index: edge_index must hold integer vertex ids, got dtype {ei.dtype}")
    w = None if edge_weight is None else _array(edge_weight, "edge_weight")
    if w is not None and (w.ndim != 1 or w.shape[0] != ei.shape[1]):
        raise DimensionMismatch(f"from_edge_index: edge_weight must have shape ({ei.shape[1]},) (one weight per "
                                f"edge), got {tuple(w.shape)}")
    return Graph.from_edges(ei[0], ei[1], w, num_vertices=num_nodes, directed=directed, duplicates=duplicates,
                            backend=backend)


def to_edge_index(G, dtype="int64"):
    """``(edge_index, edge_weight)`` of a graph in PyTorch Geometric's layout, on the graph's side.

    ``edge_index`` is a ``2 x nnz`` array (int64 by default, as PyG wants) of every stored entry
    in CSR order (an undirected graph gives both directions, as PyG stores it); ``edge_weight``
    is the values, or None for an unweighted graph.  ``torch.from_dlpack(edge_index)`` makes a
    tensor of it without a copy.
    """
    dt = np.dtype(dtype)
    if dt.kind not in "iu":
        raise InvalidValue(f"to_edge_index: dtype must be an integer dtype, got {dt}")
    coo = G.A.to_coo()
    xp = G.xp
    ei = xp.empty((2, coo.nnz), dtype=dt)
    ei[0] = coo.row
    ei[1] = coo.col
    w = None if coo.values is None else coo.values.copy()
    return ei, w


def _array(a, name):
    """NumPy / CuPy array of ``a`` without a copy where DLPack allows one."""
    if isinstance(a, np.ndarray) or _backend.is_device_array(a) and type(a).__module__.startswith("cupy"):
        return a
    if hasattr(a, "__dlpack__") and hasattr(a, "__dlpack_device__"):
        return from_dlpack(a)
    if _backend.is_device_array(a):  # __cuda_array_interface__ only (numba, older libraries)
        return _backend.cupy().asarray(a)
    try:
        return np.asarray(a)
    except (TypeError, ValueError) as exc:
        raise InvalidValue(f"from_edge_index: {name} must be an array or tensor, got {type(a).__name__} "
                           f"({exc})") from None
