"""python-graphblas-style methods of Matrix and Vector: each one is the module function of
:mod:`hpgraph.graphblas` with the object first (``A.mxm(B, "min_plus", mask=M.S)`` is
``mxm(A, B, "min_plus", mask=M.S)``), so python-graphblas code translates line by line.
"""

from __future__ import annotations

from ..exceptions import InvalidValue


class CommonMethods:
    """Methods of both Matrix and Vector."""

    def ewise_add(self, other, op="plus", **kw):
        """:func:`hpgraph.graphblas.ewise_add` (``self`` first)."""
        from ._ewise import ewise_add

        return ewise_add(self, other, op, **kw)

    def ewise_mult(self, other, op="times", **kw):
        """:func:`hpgraph.graphblas.ewise_mult` (``self`` first)."""
        from ._ewise import ewise_mult

        return ewise_mult(self, other, op, **kw)

    def ewise_union(self, other, op, left_default, right_default, **kw):
        """:func:`hpgraph.graphblas.ewise_union` (``self`` first)."""
        from ._ewise import ewise_union

        return ewise_union(self, other, op, left_default, right_default, **kw)

    def apply(self, op, left=None, right=None, thunk=None, **kw):
        """:func:`hpgraph.graphblas.apply` on ``self``."""
        from ._ewise import apply

        return apply(self, op, left, right, thunk, **kw)

    def select(self, op, thunk=None, **kw):
        """:func:`hpgraph.graphblas.select` on ``self``."""
        from ._ewise import select

        return select(self, op, thunk, **kw)

    def reduce_scalar(self, monoid="plus", *, allow_empty=True):
        """:func:`hpgraph.graphblas.reduce_scalar` of ``self``."""
        from ._ops2 import reduce_scalar

        return reduce_scalar(self, monoid, allow_empty=allow_empty)

    def __getitem__(self, index):
        """``A[rows, cols]`` / ``v[rows]``: :func:`hpgraph.graphblas.extract`."""
        from ._ops2 import extract

        if hasattr(self, "nrows"):
            if not (isinstance(index, tuple) and len(index) == 2):
                raise InvalidValue("Matrix[...] needs two indices: A[rows, cols]")
            return extract(self, index[0], index[1])
        return extract(self, index)


class MatrixMethods(CommonMethods):
    """Methods of Matrix only."""

    def mxm(self, other, semiring="plus_times", **kw):
        """:func:`hpgraph.graphblas.mxm` (``self`` first)."""
        from ._mxm import mxm

        return mxm(self, other, semiring, **kw)

    def mxv(self, v, semiring="plus_times", **kw):
        """:func:`hpgraph.graphblas.mxv` (``self`` first)."""
        from ._mxm import mxv

        return mxv(self, v, semiring, **kw)

    def reduce_rowwise(self, monoid="plus", **kw):
        """:func:`hpgraph.graphblas.reduce_rowwise` of ``self``."""
        from ._ops2 import reduce_rowwise

        return reduce_rowwise(self, monoid, **kw)

    def reduce_columnwise(self, monoid="plus", **kw):
        """:func:`hpgraph.graphblas.reduce_columnwise` of ``self``."""
        from ._ops2 import reduce_columnwise

        return reduce_columnwise(self, monoid, **kw)

    def kronecker(self, other, op="times", **kw):
        """:func:`hpgraph.graphblas.kronecker` (``self`` first)."""
        from ._ops2 import kronecker

        return kronecker(self, other, op, **kw)

    def diag(self, k=0):
        """The ``k``-th diagonal as a Vector (:func:`hpgraph.graphblas.diag`)."""
        from ._ops2 import diag

        return diag(self, k)


class VectorMethods(CommonMethods):
    """Methods of Vector only."""

    def vxm(self, A, semiring="plus_times", **kw):
        """:func:`hpgraph.graphblas.vxm` (``self`` first)."""
        from ._mxm import vxm

        return vxm(self, A, semiring, **kw)

    def reduce(self, monoid="plus", *, allow_empty=True):
        """:func:`hpgraph.graphblas.reduce_scalar` of ``self`` (python-graphblas' name)."""
        return self.reduce_scalar(monoid, allow_empty=allow_empty)

    def diag(self, k=0):
        """The diagonal Matrix of ``self`` (:func:`hpgraph.graphblas.diag`)."""
        from ._ops2 import diag

        return diag(self, k)
