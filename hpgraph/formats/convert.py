"""scipy.sparse / cupyx.scipy.sparse input, and :func:`from_any`."""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidGraph, InvalidValue
from ._base import _REGISTRY, SparseMatrix, check_index_dtype_arg, native_dtype
from .coo import COO
from .csr import CSC, CSR, sort_compressed
from .._arrayops import any_true


def _is_cupyx_sparse(A) -> bool:
    # Duck-typed so that hpgraph never imports cupyx just to look at an object.
    return type(A).__module__.startswith("cupyx.scipy.sparse") and hasattr(A, "format")


def _is_scipy_sparse(A) -> bool:
    mod = type(A).__module__
    if not mod.startswith("scipy.sparse"):
        return False
    import scipy.sparse as sp

    return sp.issparse(A)


def is_sparse_input(A) -> bool:
    """True for scipy.sparse and cupyx.scipy.sparse arrays / matrices."""
    return _is_scipy_sparse(A) or _is_cupyx_sparse(A)


def from_scipy(A, *, format=None, index_dtype=None, pattern=False):
    """An hpgraph matrix from a scipy.sparse or cupyx.scipy.sparse array or matrix.

    COO, CSR and CSC inputs give the same hpgraph format, sharing the input's arrays when
    their dtypes already fit (the matrix then reads, never writes, them).  Unsorted CSR/CSC
    indices are sorted into new arrays; duplicates are kept (COO/CSR/CSC count them in
    ``nnz``; :class:`hpgraph.Graph` sums them, as scipy does).  Other scipy formats (dia,
    lil, dok, bsr) go through ``tocsr()``.

    Parameters
    ----------
    A : scipy.sparse or cupyx.scipy.sparse array/matrix
        A cupyx input gives a device matrix.  An hpgraph format (or a Graph, for its ``A``)
        is accepted too and only converted as the options ask.
    format : {None, "coo", "csr", "csc", "ell", "hyb"}
        Convert the result to this format.
    index_dtype : {None, "int32", "int64"}
        Force the index dtype.
    pattern : bool
        Drop the values (pattern-only result).

    Raises
    ------
    InvalidValue
        ``A`` is not a sparse matrix.
    DomainMismatch
        The value dtype is not supported (complex, float16...).
    """
    inner = getattr(A, "A", None) if not is_sparse_input(A) else None
    if isinstance(A, SparseMatrix):
        m = A
    elif isinstance(inner, SparseMatrix):  # a Graph: its adjacency matrix
        m = inner
    else:
        m = _convert_sparse(A, index_dtype, pattern)
    if pattern:
        m = m.pattern()
    if format is not None:
        m = m.asformat(format, index_dtype=index_dtype) if index_dtype is not None else m.asformat(format)
    elif index_dtype is not None:
        m = m.with_index_dtype(index_dtype)
    return m


def _convert_sparse(A, index_dtype, pattern):
    if _is_scipy_sparse(A):
        xp = np
    elif _is_cupyx_sparse(A):
        from .. import backend

        xp = backend.cupy()
    else:
        raise InvalidValue(f"from_scipy: expected a scipy.sparse or cupyx.scipy.sparse matrix, got "
                           f"{type(A).__module__}.{type(A).__name__}")
    if len(A.shape) != 2:
        raise InvalidGraph(f"from_scipy: expected a 2-D sparse matrix, got shape {A.shape}")
    shape = (int(A.shape[0]), int(A.shape[1]))
    fmt = A.format
    if fmt in ("csr", "csc"):  # before A.nnz, which reads indptr[-1]
        _check_compressed(xp, fmt, shape, A.indptr, A.indices, None if pattern else A.data)
    if fmt not in ("coo", "csr", "csc"):
        A = A.tocsr()
        fmt = "csr"
    sizes = (shape[0], shape[1], int(A.nnz))
    idt = check_index_dtype_arg(index_dtype, "from_scipy", sizes)
    values = None if pattern else native_dtype(A.data, xp)
    if fmt == "coo":
        # check=True: scipy checks ids when the matrix is built, not after its arrays change.
        return COO(A.row, A.col, values, shape, check=True, index_dtype=idt)
    cls = CSR if fmt == "csr" else CSC
    indptr, indices = A.indptr, A.indices
    _check_compressed(xp, fmt, shape, indptr, indices, values)
    if not A.has_sorted_indices:
        nmajor, nminor = (shape[0], shape[1]) if fmt == "csr" else (shape[1], shape[0])
        idt2 = idt if idt is not None else indices.dtype
        indices, values = sort_compressed(xp, indptr.astype(idt2, copy=False), indices.astype(idt2, copy=False),
                                          values, nmajor, nminor, np.dtype(idt2))
    return cls(indptr, indices, values, shape, index_dtype=idt)


def _check_compressed(xp, fmt, shape, indptr, indices, values):
    """Validate a scipy / cupyx CSR or CSC before any compiled routine reads it.

    scipy checks only lengths when a matrix is built (and nothing after its arrays change);
    its C++ routines (``has_sorted_indices``, products) then index with ``indptr`` unchecked,
    so a decreasing or too large ``indptr`` or an out-of-range index would read out of bounds.
    """
    nmajor, nminor = (shape[0], shape[1]) if fmt == "csr" else (shape[1], shape[0])
    owner = f"from_scipy ({fmt})"
    for name, a in (("indptr", indptr), ("indices", indices)):
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise InvalidGraph(f"{owner}: {name} must be a 1-D integer array, got dtype {a.dtype} and "
                               f"shape {tuple(a.shape)}")
    if indptr.shape[0] != nmajor + 1:
        raise InvalidGraph(f"{owner}: indptr must have {nmajor + 1} entries for shape {shape}, got "
                           f"{indptr.shape[0]}")
    nnz = int(indices.shape[0])
    if values is not None and (values.ndim != 1 or values.shape[0] != nnz):
        raise InvalidGraph(f"{owner}: data must have one value per index ({nnz}), got shape "
                           f"{tuple(values.shape)}")
    if int(indptr[0]) != 0 or int(indptr[-1]) > nnz:
        raise InvalidGraph(f"{owner}: indptr must start at 0 and end at most at len(indices) = {nnz}, got "
                           f"{int(indptr[0])} and {int(indptr[-1])}")
    if nmajor and any_true(xp, indptr[1:] < indptr[:-1]):
        raise InvalidGraph(f"{owner}: indptr must be non-decreasing")
    if nnz and (int(indices.min()) < 0 or int(indices.max()) >= nminor):
        raise InvalidGraph(f"{owner}: indices must lie in [0, {nminor}), got values in "
                           f"[{int(indices.min())}, {int(indices.max())}]")


def from_any(A, **kw):
    """An hpgraph matrix from scipy / cupyx sparse, an hpgraph format (returned as is), or an
    object whose ``.A`` is an hpgraph format (a :class:`hpgraph.Graph`).

    Keyword arguments go to :func:`from_scipy` for sparse inputs.
    """
    if isinstance(A, SparseMatrix):
        return A
    inner = getattr(A, "A", None) if not is_sparse_input(A) else None
    if isinstance(inner, SparseMatrix):
        return inner
    if is_sparse_input(A):
        return from_scipy(A, **kw)
    raise InvalidValue(
        f"expected a scipy.sparse / cupyx.scipy.sparse matrix, an hpgraph sparse format "
        f"({', '.join(sorted(_REGISTRY))}) or a Graph; got {type(A).__module__}.{type(A).__name__}")
