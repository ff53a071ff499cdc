"""GraphBLAS objects and operations on the host (NumPy / SciPy) or the GPU (CuPy).

:class:`Matrix` and :class:`Vector` are typed, immutable sparse objects; every operation
returns a new object and takes the GraphBLAS C API 2.0 output arguments as keywords:
``mask`` (a Matrix / Vector = value mask, ``M.S`` structural, ``M.V`` value, ``~mask``
complemented), ``accum`` (a binary op), ``replace`` and ``out`` (the current output, never
written).  Operators come from :mod:`hpgraph.ops` (names such as ``"min_plus"``, built-ins or
user-defined from Python functions).  Names and argument order follow python-graphblas::

    python-graphblas                           hpgraph.graphblas
    C(M.S, accum=plus) << A.mxm(B, min_plus)   C = mxm(A, B, "min_plus", mask=M.S, accum="plus", out=C)
    w << A.mxv(v, plus_times)                  w = mxv(A, v, "plus_times")
    C << A.ewise_add(B, max)                   C = ewise_add(A, B, "max")
    C << select.tril(A)                        C = select(A, "tril")
    w << A.reduce_rowwise(monoid.min)          w = reduce_rowwise(A, "min")
    C << A[I, J]                               C = extract(A, I, J)
    C[I, J] << B                               C = assign(C, B, I, J)

Example: triangles of an undirected graph as ``sum(L .* (L @ L))`` with ``L = tril(A, -1)``::

    >>> import numpy as np, hpgraph as hp
    >>> from hpgraph import graphblas as gb
    >>> A = hp.Matrix.from_coo(np.array([0, 1, 1, 2, 0, 2]), np.array([1, 0, 2, 1, 2, 0]), True)
    >>> L = gb.select(A, "tril", -1)
    >>> int(gb.reduce_scalar(gb.mxm(L, L, "plus_pair[int64]", mask=L.S)))
    1

On the device the masked product is one sorted-list intersection per entry of ``L``.  With
vertices relabelled by ascending degree first (``P = argsort(degree)``,
``U = select(extract(A, P, P), "triu", 1)``), ``mxm(U, U.T, "plus_pair[int64]", mask=U.S)``
intersects exactly the lists ``hp.triangle_count`` does (each vertex's higher-degree
neighbours); ``tril`` on arbitrary ids costs about twice that on R-MAT graphs.

The GPU path runs when the operands live on the device (``A.to_device()``, or built from
CuPy / cupyx arrays); results stay there.
"""

from ._ewise import apply, ewise_add, ewise_mult, ewise_union, select
from ._mxm import mxm, mxv, vxm
from ._objects import Mask, Matrix, Vector
from ._ops2 import (assign, diag, extract, kronecker, reduce_columnwise, reduce_rowwise,
                    reduce_scalar, transpose)

__all__ = ["Matrix", "Vector", "Mask", "mxm", "mxv", "vxm", "ewise_add", "ewise_mult",
           "ewise_union", "apply", "select", "reduce_rowwise", "reduce_columnwise",
           "reduce_scalar", "extract", "assign", "transpose", "kronecker", "diag"]
