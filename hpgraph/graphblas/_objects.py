"""``Matrix`` and ``Vector``: typed sparse GraphBLAS objects on the host or the device.

A :class:`Matrix` holds an :class:`hpgraph.formats.CSR` (sorted columns, no duplicate
entries) on NumPy or CuPy arrays; a :class:`Vector` holds sorted, distinct indices and their
values.  Both are immutable: every operation returns a new object (``out=`` is read, never
written), so an object can be shared freely and a failed call changes nothing.

Construction never goes through Python lists: tuples of arrays (``from_coo``), SciPy /
cupyx sparse (``from_scipy``), dense arrays (``from_dense``), python-graphblas objects
(``from_graphblas``, through their CSR / COO arrays) and a :class:`hpgraph.Graph`'s adjacency
(``from_graph``, which shares the graph's arrays).
"""

from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .. import dtypes as _dt
from .._arrayops import any_true
from ..exceptions import DimensionMismatch, InvalidValue
from ..formats import CSR
from ..formats._base import expand_indptr, indptr_from_sorted, stable_argsort
from . import _kern
from ._methods import MatrixMethods, VectorMethods

__all__ = ["Matrix", "Vector", "Mask"]

from ._build import (_I64, _combine_duplicates, _dtype, _index_array, _size, _values_array,
                     _xp_of)

# =======================================================================================
# masks


class Mask:
    """A mask: an object, structural or by value, possibly complemented.

    Made by ``M.S`` (structure), ``M.V`` (values: an entry counts when it is nonzero / True)
    and ``~mask`` (complement), as in python-graphblas.  A plain Matrix / Vector passed as
    ``mask=`` is a value mask.
    """

    __slots__ = ("parent", "structure", "complement")

    def __init__(self, parent, structure: bool, complement: bool = False):
        self.parent = parent
        self.structure = bool(structure)
        self.complement = bool(complement)

    def __invert__(self):
        return Mask(self.parent, self.structure, not self.complement)

    def __repr__(self):
        return f"{'~' if self.complement else ''}{'S' if self.structure else 'V'}({self.parent!r})"

    def true_keys(self):
        """Sorted keys where the (uncomplemented) mask is True."""
        keys, vals = self.parent._keys(), self.parent._vals_or_none()
        if self.structure or vals is None:
            return keys
        xp = self.parent.xp
        return keys[_kern.cast(vals, np.bool_, xp)]


class _Base:
    """Shared pieces of Matrix and Vector."""

    @property
    def S(self) -> Mask:
        """Structural mask of this object."""
        return Mask(self, True)

    @property
    def V(self) -> Mask:
        """Value mask of this object."""
        return Mask(self, False)

    @property
    def xp(self):
        return self._xp

    @property
    def on_device(self) -> bool:
        return self._xp is not np

    @property
    def dtype(self) -> np.dtype:
        return self._dtype


# =======================================================================================
# Vector


class Vector(_Base, VectorMethods):
    """A sparse vector of ``size`` entries of one dtype.

    Parameters
    ----------
    dtype : dtype-like
        ``bool``, ``int8`` ... ``uint64``, ``float32``, ``float64``.
    size : int
    backend : {"cpu", "gpu"}, default "cpu"
        Where the (empty) vector lives.

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> v = hp.Vector.from_coo(np.array([3, 0]), np.array([1.5, 2.0]), size=5)
    >>> v.nvals, v.to_dense(fill_value=0).tolist()
    (2, [2.0, 0.0, 0.0, 1.5, 0.0])
    """

    def __init__(self, dtype=np.float64, size=0, *, backend="cpu"):
        xp = _backend.cupy() if backend == "gpu" else np
        dt = _dtype(dtype)
        self._set(xp, xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=dt), _size(size, "size"), dt)

    def _set(self, xp, idx, vals, size, dtype):
        self._xp, self._idx, self._vals, self._n, self._dtype = xp, idx, vals, int(size), np.dtype(dtype)
        return self

    @classmethod
    def _new(cls, xp, idx, vals, size, dtype):
        return cls.__new__(cls)._set(xp, idx, vals, size, dtype)

    # -- construction ----------------------------------------------------------------

    @classmethod
    def from_coo(cls, indices, values=1.0, dtype=None, *, size=None, dup_op=None):
        """A vector from an index array and values (an array of the same length, or a
        scalar for every index).  Unsorted indices are fine; duplicates need ``dup_op``."""
        xp = _xp_of(indices, values if hasattr(values, "shape") else None)
        raw = xp.asarray(indices)
        if size is None:
            size = int(raw.max()) + 1 if raw.size else 0
        n = _size(size, "size")
        idx = _index_array(raw, xp, "indices", n)
        vals, dt = _values_array(values, idx.shape[0], xp, dtype)
        idx, vals = _combine_duplicates(xp, idx, vals, dup_op, dt, "Vector.from_coo")
        return cls._new(xp, idx, vals, n, dt)

    @classmethod
    def from_dense(cls, values, missing_value=None, dtype=None):
        """A vector holding every entry of a 1-D array (except those equal to ``missing_value``)."""
        xp = _xp_of(values)
        v = xp.asarray(values)
        if v.ndim != 1:
            raise DimensionMismatch(f"values must be 1-D, got shape {tuple(v.shape)}")
        dt = _dtype(v.dtype if dtype is None else dtype)
        v = _kern.cast(v, dt, xp)
        idx = xp.arange(v.shape[0], dtype=_I64)
        if missing_value is not None:
            keep = v != missing_value
            idx, v = idx[keep], v[keep]
        return cls._new(xp, idx, xp.ascontiguousarray(v), v.shape[0] if missing_value is None else
                        int(xp.asarray(values).shape[0]), dt)

    @classmethod
    def from_graphblas(cls, v):
        """A vector from a python-graphblas ``Vector`` (through its index / value arrays)."""
        idx, vals = v.to_coo()
        return cls._new(np, np.asarray(idx, dtype=_I64), np.asarray(vals), v.size,
                        _dtype(v.dtype.np_type))

    # -- attributes ----------------------------------------------------------------

    @property
    def size(self) -> int:
        return self._n

    @property
    def shape(self) -> tuple:
        return (self._n,)

    @property
    def nvals(self) -> int:
        return int(self._idx.shape[0])

    def _keys(self):
        return self._idx

    def _vals_or_none(self):
        return self._vals

    def _values(self):
        return self._vals

    # -- output ----------------------------------------------------------------

    def to_coo(self):
        """(indices, values): new int64 index array (sorted) and value array."""
        return self._idx.copy(), self._vals.copy()

    extract_tuples = to_coo

    def to_dense(self, fill_value=None):
        """A dense array; ``fill_value`` where there is no entry (required if any is missing)."""
        if fill_value is None and self.nvals != self._n:
            raise InvalidValue("to_dense: the vector has missing entries; pass fill_value=")
        xp = self._xp
        out = xp.full(self._n, fill_value if fill_value is not None else 0, dtype=self._dtype)
        out[self._idx] = self._vals
        return out

    def to_graphblas(self):
        """A python-graphblas ``Vector`` with the same entries."""
        import graphblas as gb

        if self.nvals == 0:
            return gb.Vector(self._dtype, self._n)
        idx, vals = _backend.to_host(self._idx), _backend.to_host(self._vals)
        return gb.Vector.from_coo(idx, vals, dtype=self._dtype, size=self._n)

    def to_device(self) -> "Vector":
        if self.on_device:
            return self
        cp = _backend.cupy()
        return Vector._new(cp, cp.asarray(self._idx), cp.asarray(self._vals), self._n, self._dtype)

    def to_host(self) -> "Vector":
        if not self.on_device:
            return self
        return Vector._new(np, _backend.to_host(self._idx), _backend.to_host(self._vals), self._n,
                           self._dtype)

    def astype(self, dtype) -> "Vector":
        dt = _dtype(dtype)
        return Vector._new(self._xp, self._idx, _kern.cast(self._vals, dt, self._xp), self._n, dt)

    def isequal(self, other, check_dtype=False) -> bool:
        """Same size, same indices and equal values (NaN never equal, as in GraphBLAS)."""
        if not isinstance(other, Vector) or other.size != self.size or other.nvals != self.nvals:
            return False
        if check_dtype and other.dtype != self.dtype:
            return False
        a, b = self.to_host(), other.to_host()
        return bool(np.array_equal(a._idx, b._idx) and np.all(a._vals == b._vals))

    def __repr__(self):
        side = "gpu" if self.on_device else "cpu"
        return f"hpgraph.Vector(size={self._n}, nvals={self.nvals}, dtype={self._dtype.name}, {side})"


# =======================================================================================
# Matrix


class Matrix(_Base, MatrixMethods):
    """A sparse matrix of one dtype, stored as an :class:`hpgraph.formats.CSR`.

    Parameters
    ----------
    dtype : dtype-like
    nrows, ncols : int
    backend : {"cpu", "gpu"}, default "cpu"

    Examples
    --------
    >>> import numpy as np, hpgraph as hp
    >>> A = hp.Matrix.from_coo(np.array([0, 1]), np.array([1, 0]), np.array([2, 3]), nrows=2, ncols=2)
    >>> A.nvals, A.dtype.name
    (2, 'int64')
    >>> [a.tolist() for a in A.to_coo()]
    [[0, 1], [1, 0], [2, 3]]
    """

    def __init__(self, dtype=np.float64, nrows=0, ncols=0, *, backend="cpu"):
        xp = _backend.cupy() if backend == "gpu" else np
        dt = _dtype(dtype)
        nr, nc = _size(nrows, "nrows"), _size(ncols, "ncols")
        csr = CSR(xp.zeros(nr + 1, dtype=_I64), xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=dt), (nr, nc))
        self._set(csr, dt)

    def _set(self, csr, dtype):
        self._csr = csr
        self._xp = csr.xp
        self._dtype = np.dtype(dtype)
        self._kcache = None
        self._tcsr = None
        self._corder = None
        return self

    @classmethod
    def _new(cls, csr, dtype=None):
        return cls.__new__(cls)._set(csr, dtype if dtype is not None else (csr.dtype or np.bool_))

    @classmethod
    def _from_keys(cls, xp, keys, vals, nrows, ncols, dtype):
        """A matrix from sorted distinct keys ``row * ncols + col`` (trusted input)."""
        if ncols:
            row, col = keys // ncols, keys % ncols
        else:
            row = col = keys
        idt = _dt.index_dtype(nrows, ncols, keys.shape[0])
        indptr = indptr_from_sorted(xp, row, nrows, idt)
        csr = CSR._new(indptr, xp.ascontiguousarray(col.astype(idt)),
                       xp.ascontiguousarray(vals), (nrows, ncols))
        m = cls._new(csr, dtype)
        m._kcache = (keys, row, col)
        return m

    # -- construction ----------------------------------------------------------------

    @classmethod
    def from_coo(cls, rows, columns, values=1.0, dtype=None, *, nrows=None, ncols=None, dup_op=None):
        """A matrix from row and column index arrays and values (array or scalar).

        Entries may come in any order; duplicates need ``dup_op`` (``"plus"``, ``"first"``...).
        """
        xp = _xp_of(rows, columns, values if hasattr(values, "shape") else None)
        r, c = xp.asarray(rows), xp.asarray(columns)
        if nrows is None:
            nrows = int(r.max()) + 1 if r.size else 0
        if ncols is None:
            ncols = int(c.max()) + 1 if c.size else 0
        nr, nc = _size(nrows, "nrows"), _size(ncols, "ncols")
        _check_key_space(nr, nc)
        r = _index_array(r, xp, "rows", nr)
        c = _index_array(c, xp, "columns", nc)
        if r.shape[0] != c.shape[0]:
            raise DimensionMismatch(f"rows and columns must have the same length, got {r.shape[0]} "
                                    f"and {c.shape[0]}")
        vals, dt = _values_array(values, r.shape[0], xp, dtype)
        keys, vals = _combine_duplicates(xp, r * nc + c, vals, dup_op, dt, "Matrix.from_coo")
        return cls._from_keys(xp, keys, vals, nr, nc, dt)

    @classmethod
    def from_scipy(cls, A, dup_op=None, dtype=None):
        """A matrix from a ``scipy.sparse`` or ``cupyx.scipy.sparse`` array / matrix.

        A canonical CSR (sorted, no duplicates) is shared, not copied; other inputs are
        converted (duplicates combined with ``dup_op``, an error without one).
        """
        from ..formats import from_any

        try:
            m = from_any(A)
        except Exception as exc:
            raise InvalidValue(f"from_scipy: A must be a scipy / cupyx sparse matrix, got "
                               f"{type(A).__name__} ({exc})") from None
        return cls.from_csr_format(m, dup_op=dup_op, dtype=dtype)

    from_cupyx = from_scipy

    @classmethod
    def from_csr_format(cls, m, dup_op=None, dtype=None):
        """A matrix sharing an hpgraph format's arrays when it is a canonical CSR."""
        csr = m if m.format == "csr" else m.asformat("csr")
        xp = csr.xp
        dt = _dtype(dtype) if dtype is not None else (csr.dtype or np.dtype(np.bool_))
        rows = expand_indptr(xp, csr.indptr, csr.nnz, csr.index_dtype)
        nr, nc = csr.shape
        _check_key_space(nr, nc)
        keys = rows.astype(_I64) * nc + csr.indices.astype(_I64)
        dup = csr.nnz > 1 and any_true(xp, keys[1:] <= keys[:-1])
        if dup:
            vals = csr.values if csr.values is not None else xp.ones(csr.nnz, dtype=dt)
            keys, vals = _combine_duplicates(xp, keys, _kern.cast(vals, dt, xp), dup_op, dt,
                                             "Matrix.from_scipy")
            return cls._from_keys(xp, keys, vals, nr, nc, dt)
        if csr.values is not None and csr.values.dtype != dt:
            csr = CSR._new(csr.indptr, csr.indices, _kern.cast(csr.values, dt, xp), csr.shape)
        out = cls._new(csr, dt)
        out._kcache = (keys, rows.astype(_I64), csr.indices.astype(_I64))
        return out

    @classmethod
    def from_graph(cls, G, dtype=None):
        """The adjacency matrix of a :class:`hpgraph.Graph`, sharing its arrays (no copy).

        An unweighted graph gives a ``bool`` matrix whose entries are all True.
        """
        A = getattr(G, "A", None)
        if A is None or getattr(A, "format", None) != "csr":
            raise InvalidValue(f"from_graph: G must be an hpgraph.Graph, got {type(G).__name__}")
        return cls.from_csr_format(A, dtype=dtype)

    @classmethod
    def from_dense(cls, values, missing_value=None, dtype=None):
        """A matrix holding every entry of a 2-D array (except those equal to ``missing_value``)."""
        xp = _xp_of(values)
        a = xp.asarray(values)
        if a.ndim != 2:
            raise DimensionMismatch(f"values must be 2-D, got shape {tuple(a.shape)}")
        dt = _dtype(a.dtype if dtype is None else dtype)
        a = _kern.cast(a, dt, xp)
        nr, nc = (int(s) for s in a.shape)
        _check_key_space(nr, nc)
        keys = xp.arange(nr * nc, dtype=_I64)
        vals = a.reshape(-1)
        if missing_value is not None:
            keep = vals != missing_value
            keys, vals = keys[keep], vals[keep]
        return cls._from_keys(xp, keys, xp.ascontiguousarray(vals), nr, nc, dt)

    @classmethod
    def from_graphblas(cls, M):
        """A matrix from a python-graphblas ``Matrix`` (through its CSR arrays)."""
        indptr, cols, vals = M.to_csr()
        dt = _dtype(M.dtype.np_type)
        csr = CSR(np.asarray(indptr).astype(_I64), np.asarray(cols).astype(_I64),
                  np.asarray(vals, dtype=dt), (M.nrows, M.ncols))
        return cls._new(csr, dt)

    # -- attributes ----------------------------------------------------------------

    @property
    def nrows(self) -> int:
        return self._csr.shape[0]

    @property
    def ncols(self) -> int:
        return self._csr.shape[1]

    @property
    def shape(self) -> tuple:
        return self._csr.shape

    @property
    def nvals(self) -> int:
        return self._csr.nnz

    @property
    def csr(self) -> CSR:
        """The stored :class:`hpgraph.formats.CSR` (sorted, no duplicates)."""
        return self._csr

    @property
    def T(self):
        """:func:`hpgraph.graphblas.transpose` of ``self``."""
        from ._ops2 import transpose

        return transpose(self)

    def _coords(self):
        """(keys, rows, cols) as int64 arrays, built once."""
        if self._kcache is None:
            xp, csr = self._xp, self._csr
            rows = expand_indptr(xp, csr.indptr, csr.nnz, csr.index_dtype).astype(_I64)
            cols = csr.indices.astype(_I64)
            _check_key_space(*csr.shape)
            self._kcache = (rows * self.ncols + cols, rows, cols)
        return self._kcache

    def _keys(self):
        return self._coords()[0]

    def _transpose_csr(self) -> CSR:
        """CSR of ``A^T`` with values (built once per Matrix)."""
        t = getattr(self, "_tcsr", None)
        if t is None:
            csr = self._csr if self._csr.values is not None else self._csr.astype(self._dtype)
            t = self._tcsr = csr.transpose()
        return t

    def _symmetric(self) -> "Matrix":
        """``self``, marked equal to its transpose (the caller built it symmetric): products
        read its own CSR as ``A^T`` instead of building a transpose."""
        csr = self._csr if self._csr.values is not None else self._csr.astype(self._dtype)
        self._tcsr = csr
        return self

    def _column_order(self):
        """Positions of the stored entries in column-major order (by column, then row), built
        once per Matrix: the masked product groups a mask's entries by column with it."""
        p = getattr(self, "_corder", None)
        if p is None:
            p = self._corder = stable_argsort(self._xp, self._csr.indices)
        return p

    def _vals_or_none(self):
        return self._csr.values

    def _values(self):
        v = self._csr.values
        if v is None:
            return self._xp.ones(self.nvals, dtype=self._dtype)
        return v

    # -- output ----------------------------------------------------------------

    def to_coo(self):
        """(rows, columns, values): new arrays, sorted by row then column."""
        _, r, c = self._coords()
        return r.copy(), c.copy(), self._values().copy()

    extract_tuples = to_coo

    def to_scipy(self, format="csr"):
        """A ``scipy.sparse.csr_array`` (``format`` any scipy format name) on the host."""
        import scipy.sparse as sp

        csr = self._csr.to_host()
        vals = np.asarray(_backend.to_host(self._values()))
        out = sp.csr_array((vals, np.asarray(csr.indices), np.asarray(csr.indptr)), shape=self.shape)
        return out if format == "csr" else out.asformat(format)

    def to_cupyx(self):
        """A ``cupyx.scipy.sparse.csr_matrix`` on the device."""
        import cupyx.scipy.sparse as csp

        d = self.to_device()
        return csp.csr_matrix((d._values(), d._csr.indices, d._csr.indptr), shape=self.shape)

    def to_dense(self, fill_value=None):
        """A dense 2-D array; ``fill_value`` where there is no entry (required if one is missing)."""
        if fill_value is None and self.nvals != self.nrows * self.ncols:
            raise InvalidValue("to_dense: the matrix has missing entries; pass fill_value=")
        xp = self._xp
        out = xp.full(self.nrows * self.ncols, 0 if fill_value is None else fill_value, dtype=self._dtype)
        out[self._keys()] = self._values()
        return out.reshape(self.shape)

    def to_graphblas(self):
        """A python-graphblas ``Matrix`` with the same entries (built from the CSR arrays)."""
        import graphblas as gb

        if self.nvals == 0:  # (SuiteSparse mis-sizes an imported empty CSR with no columns)
            return gb.Matrix(self._dtype, self.nrows, self.ncols)
        csr = self._csr.to_host()
        vals = np.asarray(_backend.to_host(self._values()))
        return gb.Matrix.from_csr(np.asarray(csr.indptr, dtype=np.uint64),
                                  np.asarray(csr.indices, dtype=np.uint64), vals,
                                  dtype=self._dtype, ncols=self.ncols)

    def to_device(self) -> "Matrix":
        if self.on_device:
            return self
        return Matrix._new(self._csr.to_device(), self._dtype)

    def to_host(self) -> "Matrix":
        if not self.on_device:
            return self
        return Matrix._new(self._csr.to_host(), self._dtype)

    def astype(self, dtype) -> "Matrix":
        dt = _dtype(dtype)
        csr = CSR._new(self._csr.indptr, self._csr.indices, _kern.cast(self._values(), dt, self._xp),
                       self.shape)
        return Matrix._new(csr, dt)

    def isequal(self, other, check_dtype=False) -> bool:
        """Same shape, same pattern and equal values (NaN never equal, as in GraphBLAS)."""
        if not isinstance(other, Matrix) or other.shape != self.shape or other.nvals != self.nvals:
            return False
        if check_dtype and other.dtype != self.dtype:
            return False
        a, b = self.to_host(), other.to_host()
        return bool(np.array_equal(a._keys(), b._keys()) and np.all(a._values() == b._values()))

    def __repr__(self):
        side = "gpu" if self.on_device else "cpu"
        return (f"hpgraph.Matrix(nrows={self.nrows}, ncols={self.ncols}, nvals={self.nvals}, "
                f"dtype={self._dtype.name}, {side})")


def _check_key_space(nrows, ncols):
    if int(nrows) * int(ncols) >= 2 ** 62:
        raise NotImplementedError(f"hpgraph.Matrix of shape ({nrows}, {ncols}): matrices with "
                                  "nrows * ncols >= 2**62 (hypersparse key space) are not supported")
