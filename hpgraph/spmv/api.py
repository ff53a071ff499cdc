"""Public GraphBLAS-style products: :func:`mxv`, :func:`vxm`, and the engine's :func:`spmv`.

Semantics (``docs/INTERNALS.md``, section "spmv")::

    t[i] = ADD_j MUL(A[i, j], x[j])           mxv  (entry value first; pattern entries are 1)
    t[j] = ADD_i MUL(x[i], A[i, j])           vxm  (vector value first)

* A row with no stored entry (or, with ``x_active``, none from an active source) has "no
  value": the result holds ``out``'s value there, or the monoid identity without ``out``;
  ``accum`` is not applied to it.
* ``mask`` (bool array or Bitmask over the output) selects the rows computed; ``complement``
  flips it (with no mask, ``complement=True`` computes nothing, as in GraphBLAS).  Rows not
  computed keep ``out``'s value (the identity without ``out``), or get the identity when
  ``replace``.
* ``accum``: ``y[i] = accum(out[i], t[i])`` where ``t[i]`` has a value (needs ``out``; without
  ``out`` it changes nothing).
* The result is a new array of ``out.dtype`` when ``out`` is given (values are cast to it, as
  GraphBLAS casts into the output), else of the semiring's output dtype.  Inputs (and
  ``out``) are never written.

Backends: ``backend.resolve(backend, x, <A's device arrays>)``; ``"gpu"`` runs
``hpgraph.spmv.gpu.spmv``, ``"cpu"`` runs :func:`hpgraph.spmv.cpu.spmv`.  Operands on the other
side are copied over; the result comes back on the side of ``x``.
"""

from __future__ import annotations

import difflib

import numpy as np

from .. import backend as _backend
from .. import dtypes as _dtypes
from ..exceptions import DimensionMismatch, DomainMismatch, HpgraphError, InvalidValue
from ._shared import FORMATS, RELABEL_BASES  # noqa: F401  (part of this module's API)

__all__ = ["mxv", "vxm", "spmv", "FORMATS"]



# ---------------------------------------------------------------------------------------
# argument helpers


def _is_graph(obj) -> bool:
    try:
        from ..graph import Graph
    except ImportError:  # pragma: no cover - graph module not there yet
        return False
    return isinstance(obj, Graph)


def _graph_matrix(G, which: str, backend, *arrays):
    """``G.A`` / ``G.AT`` from the Graph on the side the product will run on (cached there)."""
    probe = [a.words if _is_bitmask(a) else a for a in arrays]
    probe.append(_matrix_probe(G.A))
    side = _backend.resolve(backend, *probe)
    if side == "gpu" and hasattr(G, "to_device"):
        G = G.to_device()
    elif side == "cpu" and hasattr(G, "to_host"):
        G = G.to_host()
    M = getattr(G, which)
    return M if M.format == "csr" else M.asformat("csr")


def _as_matrix(A, name: str = "A"):
    """An hpgraph sparse matrix from a format, a Graph (its ``A``) or scipy/cupyx sparse."""
    from .. import formats

    if _is_graph(A):
        return A.A
    if getattr(A, "format", None) in ("coo", "csr", "csc", "ell", "hyb") and hasattr(A, "asformat") \
            and hasattr(A, "on_device"):
        return A
    try:
        return formats.from_any(A)
    except HpgraphError as exc:
        try:
            err = type(exc)(f"{name}: {exc}")
        except TypeError:  # an error class with another signature: keep it as it is
            raise exc from None
        raise err from None
    except Exception as exc:
        raise InvalidValue(f"{name} must be an hpgraph sparse matrix, a Graph, or a scipy / cupyx "
                           f"sparse matrix, got {type(A).__name__} ({exc})") from None


def _check_vector(v, name: str, n: int, what: str):
    """``v`` as a 1-D array (host or device, not copied) of length ``n``."""
    if v is None:
        raise InvalidValue(f"{name} must be a 1-D array of length {n}, got None")
    if not (isinstance(v, np.ndarray) or _backend.is_device_array(v)):
        try:
            v = np.asarray(v)
        except Exception:
            raise InvalidValue(f"{name} must be a 1-D array, got {type(v).__name__}") from None
    if v.ndim != 1:
        raise DimensionMismatch(f"{name} must be 1-D, got an array of shape {tuple(v.shape)}")
    if v.shape[0] != n:
        raise DimensionMismatch(f"{name} has length {v.shape[0]} but {what} is {n}")
    try:
        _dtypes.lookup_dtype(v.dtype)
    except DomainMismatch as exc:
        raise DomainMismatch(f"{name}: {exc}") from None
    return v


def _is_bitmask(m) -> bool:
    return hasattr(m, "words") and hasattr(m, "to_bool") and hasattr(m, "n")


def _check_mask(mask, name: str, n: int):
    if mask is None:
        return None
    if _is_bitmask(mask):
        if int(mask.n) != n:
            raise DimensionMismatch(f"{name} is a Bitmask over {int(mask.n)} vertices but the "
                                    f"output has {n} rows")
        return mask
    if not (isinstance(mask, np.ndarray) or _backend.is_device_array(mask)):
        try:
            mask = np.asarray(mask)
        except Exception:
            raise InvalidValue(f"{name} must be a bool array or a Bitmask, got {type(mask).__name__}") from None
    if mask.dtype != np.bool_:
        raise DomainMismatch(f"{name} must be a bool array or a Bitmask, got an array of dtype "
                             f"{mask.dtype} (use mask.astype(bool) or a Bitmask)")
    if mask.ndim != 1 or mask.shape[0] != n:
        raise DimensionMismatch(f"{name} must have length {n} (the output length), got shape "
                                f"{tuple(mask.shape)}")
    return mask


def _check_format(format):
    if format is None:
        return None
    f = format.strip().lower() if isinstance(format, str) else None
    base, plus, suffix = (None, "", "") if f is None else f.partition("+")
    ok = base in FORMATS or (base is not None and base.split(":", 1)[0] in ("csr_vector", "csr_lb", "csr_mp")
                             and ":" in base and base.split(":", 1)[1].isdigit()
                             and int(base.split(":", 1)[1]) > 0)
    if plus and not (suffix == "relabel" and base.split(":", 1)[0] in RELABEL_BASES):
        ok = False
    if not ok:
        raise InvalidValue(f"format must be one of {FORMATS}, 'csr_vector:<G>', 'csr_lb:<items>', "
                           f"'csr_mp:<items>', a CSR kernel ({', '.join(RELABEL_BASES)}) followed "
                           f"by '+relabel', or None, got {format!r}")
    return None if f == "auto" else f


def _semiring_names():
    try:
        from ..ops._core import builtin_names

        return builtin_names("semiring")
    except Exception:  # pragma: no cover
        return []


def _typed_semiring(semiring, a_dtype, x_dtype):
    """A TypedSemiring from an object or a name; untyped ones get ``ops.default_dtype``."""
    from .. import ops

    try:
        s = ops.lookup_semiring(semiring)
    except InvalidValue as exc:
        if isinstance(semiring, str):
            base = semiring.split("[")[0].strip().split(".")[-1]
            close = difflib.get_close_matches(base, _semiring_names(), n=5, cutoff=0.6)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise InvalidValue(f"unknown semiring {semiring!r}{hint} ({exc})") from None
        raise
    except HpgraphError:
        raise
    except Exception as exc:
        raise InvalidValue(f"semiring must be a Semiring or a name such as 'min_plus', got "
                           f"{type(semiring).__name__}: {exc}") from None
    if isinstance(s, ops.TypedSemiring):
        return s
    if not isinstance(s, ops.Semiring):
        raise InvalidValue(f"semiring must be a Semiring or a name such as 'min_plus', got {s!r}")
    return s[ops.default_dtype(s, a_dtype, x_dtype)]


def _typed_accum(accum, dtype):
    if accum is None:
        return None
    from .. import ops

    if isinstance(accum, ops.TypedBinaryOp):
        return accum
    try:
        op = ops.lookup_binary(accum)
    except HpgraphError as exc:
        raise InvalidValue(f"accum must be a binary op (object or name such as 'plus'): {exc}") from None
    if isinstance(op, ops.TypedBinaryOp):
        return op
    return op[dtype]


def _array_side(a) -> str:
    return "gpu" if _backend.is_device_array(a) else "cpu"


def _matrix_probe(A):
    """A device array of ``A`` when it lives on the GPU (for ``backend.resolve``), else None."""
    if not getattr(A, "on_device", False):
        return None
    for name in ("indptr", "indices", "row", "col", "values"):
        a = getattr(A, name, None)
        if a is not None and _backend.is_device_array(a):
            return a
    ell = getattr(A, "ell", None)
    if ell is not None:
        return _matrix_probe(ell)
    return None


def _to_side(a, side: str):
    if a is None:
        return None
    if _is_bitmask(a):
        if side == "gpu":
            if _backend.is_device_array(a.words):
                return a
            if hasattr(a, "to_device"):
                return a.to_device()
            return type(a)(_backend.to_device(a.words), a.n)
        if not _backend.is_device_array(a.words):
            return a
        if hasattr(a, "to_host"):
            return a.to_host()
        return type(a)(_backend.to_host(a.words), a.n)
    if side == "gpu":
        return _backend.to_device(a)
    return _backend.to_host(a)


def _matrix_to_side(A, side: str):
    if side == "gpu":
        return A if A.on_device else _device_copy(A)
    return A.to_host() if A.on_device else A


def _device_copy(A):
    """The device copy of host matrix ``A``, made once and kept in ``A``'s cache
    (:meth:`~hpgraph.formats.SparseMatrix.derived`): a repeated GPU product with a host matrix
    neither copies it again nor loses the per-matrix device caches (HYB parts, column
    relabeling, A^T)."""
    return A.derived("device_copy", A.to_device)


# ---------------------------------------------------------------------------------------
# cached transposes (vxm on a plain matrix)


def _transpose_csr(A):
    """CSR of ``A^T``, built once and kept in ``A``'s cache: every format, CSC (a relabelled
    view) and COO/ELL/HYB (converted) included."""
    from ..formats import CSR

    def make():
        if A.format == "csc":  # CSC of A is the CSR of A^T: no work
            return CSR(A.indptr, A.indices, A.values, (A.ncols, A.nrows))
        return (A if A.format == "csr" else A.asformat("csr")).transpose()

    return A.derived("transpose_csr", make)


# ---------------------------------------------------------------------------------------
# vxm: the multiply with its operands swapped (so vxm runs as mxv over A^T)

#: built-in multiplies equal to their flip
_COMMUTATIVE = {"plus", "times", "min", "max", "land", "lor", "lxor", "eq", "ne", "pair", "any",
                "secondi"}
#: built-in multiplies whose flip is another built-in
_COUNTERPART = {"first": "second", "second": "first", "minus": "rminus", "rminus": "minus",
                "div": "rdiv", "rdiv": "div", "lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}

_flip_cache: dict = {}


def _builtin_mul_name(mul):
    parent = getattr(mul, "parent", None)
    if parent is not None and getattr(parent, "is_builtin", False):
        return parent.name
    return None


def flip_semiring(sr):
    """The typed semiring ``sr'`` with ``MUL'(a, x) = MUL(x, a)``: ``vxm(x, A, sr) == mxv(A^T, x, sr')``.

    Index operators follow SuiteSparse:GraphBLAS' ``vxm``: ``secondi`` (= ``firstj``) is the
    contracted index (the row of ``A``), and ``firsti`` is 0 (the row of the 1 x n vector).
    A user-defined index op reads ``i`` = output position and ``j`` = contracted index in both
    ``mxv`` and ``vxm``.
    """
    hit = _flip_cache.get(sr.key)
    if hit is not None:
        return hit
    from .. import ops
    from ..ops import TypedBinaryOp, TypedSemiring

    mul = sr.mul
    name = _builtin_mul_name(mul)
    result = None
    if name in _COMMUTATIVE:
        result = sr
    elif name in _COUNTERPART and getattr(sr.add.parent, "is_builtin", False):
        try:
            cand = ops.lookup_semiring(f"{sr.add.parent.name}_{_COUNTERPART[name]}", sr.in_dtype)
            if cand.out_dtype == sr.out_dtype and cand.in_dtype == sr.in_dtype:
                result = cand
        except HpgraphError:
            result = None
    if result is None:
        if name == "firsti":
            out = mul.out_dtype
            lit = _dtypes.c_literal(0, out)

            def cfun(x, y, i, j, _lit=lit):
                return _lit

            def npfun(x, y, i, j, _out=out):
                shape = np.broadcast_shapes(*(np.shape(a) for a in (x, y, i, j) if a is not None))
                return np.zeros(shape, dtype=_out)

            fmul = TypedBinaryOp("vxm_firsti", mul.in_dtype, out, True, "",
                                 ("vxm_firsti", mul.in_dtype.name, out.name), cfun, npfun, None)
        else:
            def cfun(x, y, i, j, _m=mul):
                return _m.c_expr(y, x, i, j)

            npfun = None
            if getattr(mul, "_np", None) is not None:
                def npfun(x, y, i, j, _m=mul):
                    return _m.np_call(y, x, i, j)

            fmul = TypedBinaryOp(f"flip_{mul.name}", mul.in_dtype, mul.out_dtype, mul.is_index_op,
                                 mul.c_preamble, ("flip",) + tuple(mul.key), cfun, npfun, None)
        pre = "".join(p for p in dict.fromkeys((fmul.c_preamble, sr.add.c_preamble)) if p)
        result = TypedSemiring(f"{sr.name}_vxm", sr.add, fmul, sr.in_dtype, sr.out_dtype,
                               ("vxm",) + tuple(sr.key), pre, sr.parent)
    _flip_cache[sr.key] = result
    return result


# ---------------------------------------------------------------------------------------
# dispatch


def spmv(A, x, semiring, *, row_mask=None, complement=False, x_active=None, out=None,
         replace=False, accum=None, backend=None, format=None):
    """``y = A (+).(x) x`` with masks: the engine's entry point (CPU or GPU).

    Parameters
    ----------
    A : hpgraph sparse matrix, Graph, or scipy / cupyx sparse
        ``y[i] = ADD_j MUL(A[i, j], x[j])``.
    x : array (numpy or cupy)
        Length ``A.ncols``.
    semiring : TypedSemiring, Semiring or str
        Untyped semirings are typed by ``ops.default_dtype(semiring, A.dtype, x.dtype)``.
    row_mask : bool array or Bitmask, optional
        Output rows to compute; ``complement`` flips it.
    complement, replace : bool
    x_active : Bitmask or bool array, optional
        Active sources (the paper's ``x_bitmask``): entries from inactive columns are skipped.
    out : array, optional
        Current values of the output (never written); the result takes its dtype.
    accum : binary op (object or name), optional
        ``y[i] = accum(out[i], t[i])`` where ``t[i]`` has a value.
    backend : {"auto", "cpu", "gpu", None}
    format : str, optional
        Kernel layout on the GPU (:data:`FORMATS`, or ``"csr_vector:<G>"``); ignored on the CPU
        (which always runs CSR).

    Returns
    -------
    array
        New array of length ``A.nrows``, on the side of ``x``.
    """
    A = _as_matrix(A, "A")
    return _run(A, x, semiring, row_mask=row_mask, complement=complement, x_active=x_active,
                out=out, replace=replace, accum=accum, backend=backend, format=format, flip=False)


def _run(A, x, semiring, *, row_mask, complement, x_active, out, replace, accum, backend, format,
         flip, mask_name="mask", op="mxv"):
    nrows, ncols = (int(s) for s in A.shape)
    x = _check_vector(x, "x", ncols, f"the number of {'columns' if op == 'mxv' else 'rows'} of A")
    sr = _typed_semiring(semiring, A.dtype, x.dtype)
    row_mask = _check_mask(row_mask, mask_name, nrows)
    x_active = _check_mask(x_active, "x_active", ncols)
    if out is not None:
        out = _check_vector(out, "out", nrows,
                            "the output length (rows of A)" if op == "mxv" else "the output length (columns of A)")
    res_dtype = np.dtype(out.dtype) if out is not None else np.dtype(sr.out_dtype)
    accum_t = _typed_accum(accum, np.result_type(res_dtype, sr.out_dtype) if out is not None else res_dtype)
    fmt = _check_format(format)
    complement = bool(complement)
    replace = bool(replace)

    x_side = _array_side(x)
    probe = [x, out, _matrix_probe(A)] + [m.words if _is_bitmask(m) else m for m in (row_mask, x_active)]
    side = _backend.resolve(backend, *probe)
    if flip:
        sr = flip_semiring(sr)

    if side == "gpu":
        try:
            from . import gpu as _gpu
        except ImportError as exc:
            raise NotImplementedError(f"GPU mxv is not available in this build "
                                      f"(hpgraph.spmv.gpu failed to import: {exc}); use backend='cpu'") from None
        with _backend.out_of_memory_guard(f"running {op} on the GPU"):
            A_d = _matrix_to_side(A, "gpu")
            y = _gpu.spmv(A_d, _to_side(x, "gpu"), sr, row_mask=_to_side(row_mask, "gpu"),
                          complement=complement, x_active=_to_side(x_active, "gpu"),
                          out=_to_side(out, "gpu"), replace=replace, accum=accum_t, format=fmt)
        return y if x_side == "gpu" else _backend.to_host(y)

    from . import cpu as _cpu

    y = _cpu.spmv(_matrix_to_side(A, "cpu"), _to_side(x, "cpu"), sr, row_mask=_to_side(row_mask, "cpu"),
                  complement=complement, x_active=_to_side(x_active, "cpu"), out=_to_side(out, "cpu"),
                  replace=replace, accum=accum_t)
    return _backend.to_device(y) if x_side == "gpu" else y


# ---------------------------------------------------------------------------------------
# public


def mxv(A, x, semiring, *, mask=None, complement=False, replace=False, accum=None, out=None,
        backend=None, format=None):
    """Matrix-vector product over a semiring: ``y[i] = ADD_j MUL(A[i, j], x[j])``.

    Parameters
    ----------
    A : hpgraph sparse matrix (any format), Graph (uses ``G.A``), or scipy / cupyx sparse
        Pattern-only entries mean 1 (True).
    x : numpy or cupy array
        Dense vector of length ``A.ncols``.
    semiring : Semiring, TypedSemiring or str
        ``"min_plus"``, ``"min_plus[float32]"``, ``hp.semiring.plus_times[np.float64]``, a
        user-defined ``hp.Semiring(...)``.  Untyped semirings are typed by the NumPy promotion of
        ``A.dtype`` and ``x.dtype`` (pattern ignored), ``bool`` for logical semirings, ``int64``
        for index semirings (:func:`hpgraph.ops.default_dtype`).
    mask : bool array or Bitmask, optional
        Structural mask over the output rows (True = compute).
    complement : bool, default False
        Compute where ``mask`` is False (with ``mask=None``: compute nothing).
    replace : bool, default False
        Rows not computed get the monoid identity instead of keeping ``out``'s value.
    accum : binary op (object or name), optional
        ``y[i] = accum(out[i], t[i])`` where the product has a value.
    out : array, optional
        Current output values (length ``A.nrows``); never written.  The result has its dtype.
    backend : {"auto", "cpu", "gpu", None}
        ``None`` reads ``HPGRAPH_BACKEND`` (default auto: GPU when usable or when an input lives
        there).
    format : str, optional
        Kernel layout on the GPU: ``"auto"`` / None (chosen from the row-length distribution),
        ``"hyb"``, ``"ell"``, ``"coo"``, ``"csr"``, ``"csc"``, ``"csr_vector"``,
        ``"csr_vector:<G>"``, ``"csr_scalar"``, ``"csr_lb"``, ``"csr_mp"``, or a CSR kernel
        followed by ``"+relabel"`` (``"csr_mp+relabel"``: columns renumbered by descending
        count for cache locality; same results); ignored by the CPU path.

    Returns
    -------
    numpy or cupy array
        New array of length ``A.nrows``, on the side of ``x``.  Rows with no stored entry hold
        ``out``'s value (the identity without ``out``).

    Raises
    ------
    DimensionMismatch
        ``x``, ``mask`` or ``out`` of the wrong length, or ``x`` not 1-D.
    InvalidValue
        Unknown semiring (with close names), ``format`` or ``backend``.
    DomainMismatch
        Unsupported dtypes, or a mask that is not bool.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, hpgraph as hp
    >>> A = sp.csr_array(np.array([[0, 2.0], [1.0, 0]]))
    >>> hp.mxv(A, np.array([10.0, 20.0]), "min_plus", backend="cpu")
    array([22., 11.])
    """
    if _is_graph(A):
        A = _graph_matrix(A, "A", backend, x, out, mask)
    else:
        A = _as_matrix(A, "A")
    return _run(A, x, semiring, row_mask=mask, complement=complement, x_active=None, out=out,
                replace=replace, accum=accum, backend=backend, format=format, flip=False, op="mxv")


def vxm(x, A, semiring, *, mask=None, complement=False, replace=False, accum=None, out=None,
        backend=None, format=None):
    """Vector-matrix product over a semiring: ``y[j] = ADD_i MUL(x[i], A[i, j])``.

    The vector is the first operand of the multiply.  Runs as ``mxv`` over ``A^T`` (a Graph's
    cached ``G.AT``; for a plain matrix the transpose is cached while ``A`` lives) with the
    multiply's operands swapped.  Index semirings follow SuiteSparse: ``secondi`` gives the row
    ``i`` of ``A`` (the contracted index) and ``firsti`` gives 0.

    Parameters
    ----------
    x : numpy or cupy array
        Length ``A.nrows``.
    A : hpgraph sparse matrix, Graph, or scipy / cupyx sparse
    semiring, mask, complement, replace, accum, out, backend, format
        As in :func:`mxv`; ``mask`` and ``out`` run over the columns of ``A``.

    Returns
    -------
    numpy or cupy array
        New array of length ``A.ncols``, on the side of ``x``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, hpgraph as hp
    >>> A = sp.csr_array(np.array([[0, 2.0], [1.0, 0]]))
    >>> hp.vxm(np.array([10.0, 20.0]), A, "min_plus", backend="cpu")
    array([21., 12.])
    """
    if _is_graph(A):
        AT = _graph_matrix(A, "AT", backend, x, out, mask)
    else:
        M = _as_matrix(A, "A")
        # validate x against A before paying for a transpose
        _check_vector(x, "x", M.nrows, "the number of rows of A")
        AT = _transpose_csr(M)
    return _run(AT, x, semiring, row_mask=mask, complement=complement, x_active=None, out=out,
                replace=replace, accum=accum, backend=backend, format=format, flip=True, op="vxm")
