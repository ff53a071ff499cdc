"""Semiring sparse matrix-vector products.

Public: :func:`mxv` (``y[i] = ADD_j MUL(A[i, j], x[j])``) and :func:`vxm`
(``y[j] = ADD_i MUL(x[i], A[i, j])``), GraphBLAS semantics for masks, ``complement``,
``replace``, ``accum`` and ``out``.  Internal: :func:`spmv`, the engine's entry with
``x_active`` (skip inactive sources).  The CPU path is :mod:`hpgraph.spmv.cpu` (NumPy); the GPU
path, :mod:`hpgraph.spmv.gpu`, is imported only when the GPU backend runs.
"""

from .api import FORMATS, flip_semiring, mxv, spmv, vxm

__all__ = ["mxv", "vxm", "spmv", "flip_semiring", "FORMATS"]
