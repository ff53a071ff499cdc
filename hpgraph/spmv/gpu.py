"""GPU semiring SpMV: format choice, kernel cache and launches (CuPy RawModule kernels).

Entry points
------------
:func:`spmv`
    ``y = A (+).(x) x`` with the semantics of :func:`hpgraph.spmv.cpu.spmv` (mask, complement,
    x_active, out, replace, accum).  ``format=None`` picks the kernel from the matrix's degree
    distribution (see :func:`choose_format`); ``format=`` forces ``"hyb"``, ``"ell"``,
    ``"csr"`` (auto among CSR kernels), ``"csr_vector"`` (G lanes per row, G from the mean
    degree; ``"csr_vector:8"`` forces G), ``"csr_scalar"`` (one thread per row, the paper's CSR
    baseline), ``"csr_lb"`` (load-balanced; ``"csr_lb:16"`` sets the entries per lane per warp
    chunk, default :data:`ITEMS`), ``"csr_mp"`` (merge path staged through shared memory;
    ``"csr_mp:4"`` sets the merge items per thread, default :data:`MP_ITEMS`), ``"coo"`` (HYB
    with K = 0: pure segmented COO); ``"csc"`` runs on the CSR of the same matrix.  A CSR
    kernel's name followed by ``"+relabel"`` (``"csr_mp+relabel"``, ``"csr_lb:4+relabel"``,
    ``"csr+relabel"``) runs it with the columns renumbered by descending column count (see
    "Column relabeling" below).
:func:`push`
    Sparse-frontier push over out-edges, combined with the monoid's atomic.
:func:`get_kernels`
    Compile (once) and return the kernels of a :class:`~hpgraph.spmv.codegen.KernelSpec`.

Derived matrices (the HYB/ELL/CSR of a given matrix, degree statistics, chunk tables, scratch
buffers, the column relabeling) are cached per matrix object (formats are immutable), so
repeated calls neither rebuild nor allocate beyond the result.

Column relabeling
-----------------
On power-law graphs every CSR kernel is bound by the random gathers of ``x`` (each a 32-byte
L2 sector), and the hub columns, which take most of those gathers, are spread over all of ``x``
(one hot value per 128-byte line).  :func:`column_relabel` (once per matrix, cached) computes
``perm``, the column ids by descending count (ties by id), its inverse ``rank`` and
``cols2 = rank[cols]`` with every row's entries kept in their order.  A relabeled product
gathers ``x2 = x[perm]`` (one small kernel, ``ncols`` reads) and runs the unchanged CSR kernel
on ``(indptr, cols2, values, x2)``: the hub columns' values sit together at the front of
``x2``, so they share cache lines and stay in L1.  Rows are untouched (masks, complement, out,
accum, replace apply as before) and every row is reduced in the same order, so results are
bit-identical to the plain kernel's.

When it applies: a CSR kernel (``csr_lb``, ``csr_mp``, ``csr_vector``, ``csr_scalar``), a
semiring product (:func:`spmv`) whose multiply reads the column only through ``x[j]`` (not
``secondi`` / ``firstj`` / user index ops reading ``j``: :func:`codegen.reads_column`), and no
``x_active`` (it is indexed by the original column).  Otherwise the plain kernel runs, even
when ``"+relabel"`` was asked for.  An automatic choice (format None / ``"auto"`` / ``"csr"`` /
``"csc"``) relabels only with ``hp.config["spmv_auto_relabel"]`` on, at least
``hp.config["spmv_relabel_min_nnz"]`` entries, and when the relabeling fits
``hp.config["spmv_relabel_memory_share"]`` of the available device memory.  :data:`TRACE` (a
callable, tests and benchmarks) receives each product's kernel family and relabel decision.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from .._config import config
from ..exceptions import CompileError, DimensionMismatch, DomainMismatch, InvalidValue
from . import codegen
from .codegen import MASK_BITS, MASK_BOOL, MASK_NONE
from . import launch as _launch
from ._shared import (BLOCK, FORMATS, RELABEL_BASES, _as_csr, _cached,  # noqa: F401
                      _derived, _dummy, _grid, _lock)
from .relabel import _GATHER, ColumnRelabel, column_relabel, gather, relabel_fits  # noqa: F401

__all__ = ["spmv", "push", "get_kernels", "choose_format", "matrix_stats",
           "FORMATS", "clear_caches", "column_relabel", "ColumnRelabel", "gather", "RELABEL_BASES"]

# Compile-time constants of the generated kernels (each one changes the generated source and is
# part of the kernel's cache key; benchmarks/bench_spmv.py sets them to compare variants).  The
# run-time policy (which kernel, whether to relabel) is in hp.config: spmv_auto_csr,
# spmv_hyb_max_coo_share, spmv_hyb_min_fill, spmv_auto_relabel, spmv_relabel_min_nnz,
# spmv_relabel_memory_share.
ITEMS = 8            # entries per lane per warp chunk (segmented kernels): 256 per warp
LB_MIN_BLOCKS = 0    # __launch_bounds__ min blocks for csr_lb (0: let the compiler choose)
PUSH_ITEMS = 4       # frontier entries per thread of the push kernel
MP_BLOCK = 256       # csr_mp threads per block ...
MP_ITEMS = 8         # ... and merge items per thread: a tile is MP_BLOCK * MP_ITEMS items
MP_SHARED_MAX = 46 * 1024   # csr_mp halves its items per thread until its tile fits this
STREAM = 1           # how csr_lb / csr_mp load cols and values (KernelSpec.stream); 1-3.
                     # 1 (__ldcs, streaming): R-MAT 22, H200, every semiring: csr_lb 1.017 ->
                     # 0.996-1.001 ms, csr_lb+relabel 0.813-0.817 -> 0.797-0.804 ms
#: None, or a callable receiving ``dict(family=, relabel=, reason=)`` after each product is
#: dispatched (an observer for tests and benchmarks: which kernel ran, and why relabeling was
#: or was not used)
TRACE = None

_KERNELS: dict = {}           # KernelSpec -> {role: RawKernel}
_FAST: dict = {}              # cheap tuple key -> (spec, kernels)
_COLUMN_FREE: dict = {}       # semiring key -> its multiply does not read j (relabel allowed)


def clear_caches():
    """Forget compiled kernels (tests).  What a matrix derives lives on the matrix
    (:meth:`~hpgraph.formats.SparseMatrix.derived`) and goes with it."""
    with _lock:
        _KERNELS.clear()
        _FAST.clear()
        _GATHER.clear()
        _COLUMN_FREE.clear()


# ---------------------------------------------------------------------------------------
# kernels


def get_kernels(spec: codegen.KernelSpec) -> dict:
    """``{role: cupy.RawKernel}`` for ``spec``, compiled once per process.

    CuPy's on-disk cache makes a new process reuse the compiled binary of an identical source.

    Raises
    ------
    CompileError
        With the generated source and NVRTC's log (``.dump()`` prints numbered source).
    """
    k = _KERNELS.get(spec)
    if k is not None:
        return k
    with _lock:
        k = _KERNELS.get(spec)
        if k is not None:
            return k
        src, names = codegen.generate(spec)
        try:
            mod = backend.raw_module(src, ("-std=c++17",), None)
            k = {role: mod.get_function(n) for role, n in names.items()}
        except CompileError as exc:
            raise CompileError(f"NVRTC failed to compile {spec.module_name}", source=src,
                               log=exc.log, name=spec.module_name) from None
        _KERNELS[spec] = k
        return k


_FRONTIER_DEGREE = None


def _frontier_degree():
    """Elementwise kernel ``deg[i] = indptr[f[i] + 1] - indptr[f[i]]`` (int64), built once."""
    global _FRONTIER_DEGREE
    if _FRONTIER_DEGREE is None:
        _FRONTIER_DEGREE = backend.cupy().ElementwiseKernel(
            "raw I indptr, F f", "int64 deg", "deg = (long long)(indptr[f + 1] - indptr[f])",
            "hpgraph_frontier_degree")
    return _FRONTIER_DEGREE


# ---------------------------------------------------------------------------------------
# derived matrices and statistics (cached per matrix object)


def matrix_stats(A) -> dict:
    """Degree statistics of ``A``'s rows (cached): nrows, nnz, mean, max, cv, K, coo_share, ell_fill."""
    def build():
        cp = backend.cupy()
        csr = _as_csr(A)
        n = csr.nrows
        if n == 0:
            return dict(nrows=0, nnz=0, mean=0.0, max=0, cv=0.0, K=0, coo_share=0.0, ell_fill=1.0)
        lens = cp.diff(csr.indptr).astype(cp.int64)
        nnz = int(csr.nnz)
        mean = nnz / n
        need = -(-n // 3)
        kth = n - need
        K = int(cp.partition(lens, kth)[kth])
        spill = int(cp.maximum(lens - K, 0).sum())
        mx = int(lens.max())
        var = float(((lens.astype(cp.float64) - mean) ** 2).mean())
        ell_nnz = nnz - spill
        return dict(nrows=n, nnz=nnz, mean=mean, max=mx, cv=(var ** 0.5) / mean if mean else 0.0,
                    K=K, coo_share=spill / nnz if nnz else 0.0,
                    ell_fill=ell_nnz / (K * n) if K * n else 1.0)
    return _cached(A, "stats", build)


def _vector_group(mean: float) -> int:
    g = 1
    while g < 32 and g < mean:
        g *= 2
    return g


def choose_format(A) -> str:
    """The kernel family ``format=None`` runs for ``A``: ``"hyb"``, ``"ell"`` or
    ``hp.config["spmv_auto_csr"]``.

    A HYB or ELL matrix runs as it is.  Otherwise, from the row-length distribution: when the
    paper's K leaves at most ``hp.config["spmv_hyb_max_coo_share"]`` of the entries to the COO
    part and the ELL block is at least ``hp.config["spmv_hyb_min_fill"]`` full (regular graphs:
    grids, meshes; H200: HYB runs the 2048^2 grid at 0.49x cuSPARSE's time),
    HYB (mostly ELL, coalesced, one thread per row) wins; on skewed (power-law) graphs the
    load-balanced CSR kernel wins over HYB (whose COO part reads a row index per entry).
    """
    if A.format in ("hyb", "ell"):
        return A.format
    st = matrix_stats(A)
    if st["nnz"] == 0:
        return config["spmv_auto_csr"]
    if (st["coo_share"] <= config["spmv_hyb_max_coo_share"]
            and st["ell_fill"] >= config["spmv_hyb_min_fill"]):
        return "hyb"
    return config["spmv_auto_csr"]


def _resolve_format(A, format):
    """(family, matrix in that family's format, group)."""
    f = "auto" if format is None else str(format).lower()
    group = None
    if f.startswith("csr_vector:") or f.startswith("csr_lb:") or f.startswith("csr_mp:"):
        f, _, arg = f.partition(":")
        try:
            group = int(arg)
        except ValueError:
            raise InvalidValue(f"format {format!r}: expected csr_vector:<G>, csr_lb:<items> or "
                               "csr_mp:<items>") from None
        if f == "csr_lb":  # entries per lane per warp chunk
            if group not in (1, 2, 4, 8, 16, 32):
                raise InvalidValue(f"format {format!r}: items must be a power of two in 1..32")
            return "csr_lb", _as_csr(A), group
        if f == "csr_mp":  # merge items per thread
            if not 1 <= group <= 32:
                raise InvalidValue(f"format {format!r}: items must be in 1..32")
            return "csr_mp", _as_csr(A), group
    if f not in FORMATS:
        raise InvalidValue(f"format must be one of {FORMATS} (or 'csr_vector:<G>'), got {format!r}")
    if f == "auto":
        f = choose_format(A)
    elif f in ("csr", "csc"):
        f = config["spmv_auto_csr"]
    if f == "csr_scalar":
        return "csr_vector", _as_csr(A), 1
    if f == "csr_vector":
        csr = _as_csr(A)
        if group is None:
            group = _vector_group(matrix_stats(A)["mean"])
        return "csr_vector", csr, group
    if f == "csr_lb":
        return "csr_lb", _as_csr(A), ITEMS
    if f == "csr_mp":
        return "csr_mp", _as_csr(A), MP_ITEMS
    if f == "hyb":
        if A.format == "hyb":
            return "hyb", A, 1
        return "hyb", _cached(A, "hyb", lambda: _as_csr(A).to_hyb()), 1
    if f == "coo":
        if A.format == "hyb" and A.K == 0:
            return "hyb", A, 1
        return "hyb", _cached(A, "hyb0", lambda: _as_csr(A).to_hyb(K=0)), 1
    if f == "ell":
        if A.format == "ell":
            return "ell", A, 1
        if A.format == "hyb" and A.coo.nnz == 0:
            return "ell", A.ell, 1
        return "ell", _cached(A, "ell", lambda: _as_csr(A).to_ell()), 1
    raise InvalidValue(f"unknown format {format!r}")  # pragma: no cover


def _split_relabel(format):
    """``(base format, relabel asked)``: ``"csr_mp:4+relabel"`` -> ``("csr_mp:4", True)``."""
    if format is None:
        return None, False
    f = str(format).strip().lower()
    base, plus, suffix = f.partition("+")
    if not plus:
        return f, False
    if suffix != "relabel" or base.split(":", 1)[0] not in RELABEL_BASES:
        raise InvalidValue(f"format {format!r}: only a CSR kernel ({', '.join(RELABEL_BASES)}, "
                           "with an optional ':<n>') takes a suffix, and it is '+relabel' (an "
                           "automatic choice relabels with hp.config['spmv_auto_relabel'])")
    return base, True


# ---------------------------------------------------------------------------------------
# column relabeling (see the module docstring)


def _column_free(sr) -> bool:
    """The semiring's multiply reads the column only through ``x[j]`` (cached per semiring)."""
    key = getattr(sr, "key", None)
    hit = _COLUMN_FREE.get(key) if key is not None else None
    if hit is None:
        hit = not codegen.reads_column(sr.mul)
        if key is not None:
            _COLUMN_FREE[key] = hit
    return hit


_RELABEL_FAMILIES = ("csr_lb", "csr_mp", "csr_vector")


def _relabel_decision(asked: bool, chosen: bool, family: str, M, xa_mode: int, relabel_x):
    """``(relabel, reason)`` for one product (the rule of the module docstring)."""
    if not asked:
        if not chosen:
            return False, "not asked"
        if not config["spmv_auto_relabel"]:
            return False, "auto off"
    if family not in _RELABEL_FAMILIES:
        return False, "not a CSR kernel"
    if relabel_x is None:
        return False, "edge value reads the column"
    if xa_mode != MASK_NONE:
        return False, "x_active"
    if not asked and int(M.nnz) < config["spmv_relabel_min_nnz"]:
        return False, "small"
    if not asked and not relabel_fits(M, config["spmv_relabel_memory_share"]):
        return False, "memory"
    return True, "asked" if asked else "auto"



# ---------------------------------------------------------------------------------------
# argument normalisation


def _mask_arg(m, n: int, what: str):
    """(mode, device array) for a Bitmask or bool array over ``n`` entries."""
    if m is None:
        return MASK_NONE, None
    cp = backend.cupy()
    if hasattr(m, "words") and hasattr(m, "n"):
        if int(m.n) != n:
            raise DimensionMismatch(f"{what} is a Bitmask over {int(m.n)} entries, expected {n}")
        w = m.words
        if not backend.is_device_array(w):
            w = cp.asarray(w)
        if w.dtype != np.uint32:
            raise DomainMismatch(f"{what}: Bitmask words must be uint32, got {w.dtype}")
        return MASK_BITS, cp.ascontiguousarray(w)
    a = m if backend.is_device_array(m) else cp.asarray(m)
    if a.dtype != np.bool_:
        raise DomainMismatch(f"{what} must be a bool array or a Bitmask, got dtype {a.dtype}")
    if a.ndim != 1 or a.shape[0] != n:
        raise DimensionMismatch(f"{what} must have length {n}, got shape {tuple(a.shape)}")
    return MASK_BOOL, cp.ascontiguousarray(a)


def _vec(v, n: int, what: str):
    cp = backend.cupy()
    a = v if backend.is_device_array(v) else cp.asarray(v)
    if a.ndim != 1 or a.shape[0] != n:
        raise DimensionMismatch(f"{what} must be a 1-D array of length {n}, got shape {tuple(a.shape)}")
    return cp.ascontiguousarray(a)


def _typed_accum(accum, dtype):
    if accum is None or hasattr(accum, "c_expr"):
        return accum
    from .. import ops

    return ops.lookup_binary(accum, dtype)


# ---------------------------------------------------------------------------------------
# the product


def spmv(A, x, sr, *, row_mask=None, complement=False, x_active=None, out=None, replace=False,
         accum=None, format=None, terminal=True):
    """``y[i] = ADD_j MUL(A[i, j], x[j])`` on the GPU; semantics of :func:`hpgraph.spmv.cpu.spmv`.

    Parameters
    ----------
    A : hpgraph sparse matrix with cupy arrays (CSR, HYB, ELL, COO or CSC)
    x : cupy.ndarray
        Length ``A.ncols``; read as ``x.dtype`` and converted to ``sr.in_dtype`` in the kernel.
    sr : TypedSemiring
    row_mask : Bitmask or cupy bool array, optional
    complement : bool
    x_active : Bitmask or cupy bool array, optional
        Entries from inactive sources are skipped.
    out : cupy.ndarray, optional
        Never written; the result has its dtype.
    replace : bool
    accum : TypedBinaryOp, optional
    format : str, optional
        See the module docstring; None = automatic.
    terminal : bool
        Allow the monoid's terminal early exit (results are the same; False is for tests).

    Returns
    -------
    cupy.ndarray
        New array of length ``A.nrows``.
    """
    x = _vec(x, A.ncols, "x")
    key_extra = ("sr", sr, x.dtype.str)

    def build(family, a_dtype, idx_dtype, **flags):
        return codegen.semiring_spec(family, sr, a_dtype=a_dtype, x_dtype=x.dtype,
                                     index_dtype=idx_dtype, **flags)

    return _run(A, build, key_extra, (x,), sr.add, np.dtype(sr.out_dtype), row_mask=row_mask,
                complement=complement, x_active=x_active, out=out, replace=replace, accum=accum,
                format=format, terminal=terminal, relabel_x=0 if _column_free(sr) else None)


def _run(A, build, key_extra, extra_args, monoid, y_dt, *, row_mask, complement, x_active, out,
         replace, accum, format, terminal, relabel_x):
    """The product; ``relabel_x`` is the position in ``extra_args`` of the vector the edge
    expression reads at the column (``x``) when that is its only use of ``j`` (relabeling
    allowed), else None."""
    cp = backend.cupy()
    nrows, ncols = int(A.shape[0]), int(A.shape[1])
    format, asked = _split_relabel(format)
    family, M, group = _resolve_format(A, format)
    mask_mode, mask = _mask_arg(row_mask, nrows, "row_mask")
    xa_mode, xa = _mask_arg(x_active, ncols, "x_active")
    # csr_mp gathers x while staging only when edge values do not depend on the row (no mask,
    # no complement, no "i" in the edge expression); otherwise its gathers wait on the
    # sequential merge walk, so an automatic choice (format None / "auto" / "csr" / "csc")
    # falls back to csr_lb there (the row check is made once per kernel key below).  An
    # explicit "csr_mp" always runs csr_mp.
    chosen = format is None or str(format).lower() in ("auto", "csr", "csc")
    if family == "csr_mp" and chosen and (mask_mode != MASK_NONE or complement):
        family, group = "csr_lb", ITEMS
    relabel, why = _relabel_decision(asked, chosen, family, M, xa_mode, relabel_x)
    if out is not None:
        out = _vec(out, nrows, "out")
        res_dt = out.dtype
        accum = _typed_accum(accum, np.result_type(res_dt, y_dt))
    else:
        res_dt = y_dt
        accum = None
    complement = bool(complement)
    replace = bool(replace) and out is not None
    a_dt = None if M.dtype is None else np.dtype(M.dtype)
    idx_dt = np.dtype(M.index_dtype)
    items = ITEMS
    block = BLOCK
    stream = 0
    if family in ("csr_lb", "csr_mp"):
        items, group = group, 1
        stream = STREAM
    if family == "csr_mp":
        block = MP_BLOCK
    minb = LB_MIN_BLOCKS if family == "csr_lb" else 0
    fkey = (key_extra, family, None if a_dt is None else a_dt.str, idx_dt.str, mask_mode, complement,
            xa_mode, None if out is None else res_dt.str, accum, replace, bool(terminal), group, items, minb,
            block, stream, chosen)
    hit = _FAST.get(fkey)
    if hit is None:
        if family == "csr_mp" and chosen:
            probe = build(family, a_dt, idx_dt, mask=mask_mode, complement=complement, x_active=xa_mode)
            if not codegen.row_free(probe):  # the edge expression reads the row
                family, items, block, minb = "csr_lb", ITEMS, BLOCK, LB_MIN_BLOCKS
        while True:
            spec = build(family, a_dt, idx_dt, mask=mask_mode, complement=complement, x_active=xa_mode,
                         out_dtype=None if out is None else res_dt, accum=accum, replace=replace,
                         terminal=terminal, group=group, items=items, block=block, min_blocks=minb,
                         stream=stream)
            # csr_mp's tile lives in static shared memory (48 KiB at most): 8-byte types halve it
            if family != "csr_mp" or items == 1 or codegen.mp_shared_bytes(spec) <= MP_SHARED_MAX:
                break
            items //= 2
        hit = (spec, get_kernels(spec))
        _FAST[fkey] = hit
    spec, kern = hit
    family = spec.family
    if TRACE is not None:
        TRACE(dict(family=family, relabel=relabel, reason=why))

    y = cp.empty(nrows, dtype=res_dt)
    if nrows == 0:
        return y
    if relabel:  # same kernel, renumbered columns and x (bit-identical results)
        R = column_relabel(M)
        extra_args = list(extra_args)
        extra_args[relabel_x] = gather(extra_args[relabel_x], R.perm)
        extra_args = tuple(extra_args)
        M = R
    d = _dummy()
    mask_p = d if mask is None else mask
    xa_p = d if xa is None else xa
    out_p = d if out is None else out
    if family == "ell":
        _launch._launch_ell(kern["ell"], M, y, d, d, out_p, mask_p, xa_p, extra_args)
    elif family == "csr_vector":
        _launch._launch_vector(kern["vector"], M, group, y, out_p, mask_p, xa_p, extra_args)
    elif family == "csr_lb":
        _launch._launch_lb(kern, M, y, out_p, mask_p, xa_p, extra_args, y_dt, spec.items)
    elif family == "csr_mp":
        _launch._launch_mp(kern, M, y, out_p, mask_p, xa_p, extra_args, y_dt, spec)
    else:
        _launch._launch_hyb(kern, M, y, out, out_p, mask_p, xa_p, extra_args, y_dt, spec)
    return y


def push(A_out, frontier, x, sr, y, touched=None, *, mask=None, complement=False):
    """Combine ``MUL(A_out[src, dst], x[src])`` into ``y[dst]`` for every out-edge of the frontier.

    Parameters
    ----------
    A_out : CSR with cupy arrays
        Row ``src`` holds the out-edges of ``src`` (the graph's ``A``).
    frontier : cupy integer array
        Active sources (any order; duplicates are processed twice).
    x : cupy.ndarray
        Source values (length ``A_out.nrows``).
    sr : TypedSemiring
        The edge value is ``MUL(a, x[src])`` with ``i = dst``, ``j = src`` (as in
        ``mxv(A_out^T, x)``); the monoid must have an atomic form (``sr.add.atomic`` not None).
    y : cupy.ndarray
        Accumulator of dtype ``sr.out_dtype``, length ``A_out.ncols``; **updated in place**.
    touched : Bitmask or cupy uint32 array, optional
        Bits of the destinations reached are set in place (atomicOr).
    mask, complement : optional
        Only destinations allowed by the mask (bool array or Bitmask over ``y``) are updated.

    Returns
    -------
    (y, touched)
    """
    cp = backend.cupy()
    csr = _as_csr(A_out)
    if sr.add.atomic is None:
        raise DomainMismatch(
            f"push needs a monoid with an atomic form; {sr.add!r} has none (8/16-bit or bool dtype). "
            "Use a 32/64-bit dtype, or the pull path (mxv over the transpose).")
    nsrc, ndst = int(csr.shape[0]), int(csr.shape[1])
    if not backend.is_device_array(y) or y.ndim != 1 or y.shape[0] != ndst:
        raise DimensionMismatch(f"y must be a cupy array of length {ndst} (A_out.ncols)")
    if y.dtype != np.dtype(sr.out_dtype):
        raise DomainMismatch(f"y has dtype {y.dtype} but the semiring reduces {np.dtype(sr.out_dtype)}")
    if not y.flags.c_contiguous:
        raise InvalidValue("y must be C-contiguous (it is updated in place)")
    x = _vec(x, nsrc, "x")
    idx_dt = np.dtype(csr.index_dtype)
    f = frontier if backend.is_device_array(frontier) else cp.asarray(frontier)
    f = cp.ascontiguousarray(f.ravel().astype(idx_dt, copy=False))
    mask_mode, m = _mask_arg(mask, ndst, "mask")
    words = None
    if touched is not None:
        words = touched.words if hasattr(touched, "words") else touched
        if not backend.is_device_array(words) or words.dtype != np.uint32 or words.size < -(-ndst // 32):
            raise InvalidValue("touched must be a device Bitmask or a cupy uint32 array of ceil(n/32) words")
    nf = int(f.size)
    if nf == 0:
        return y, touched
    a_dt = None if csr.dtype is None else np.dtype(csr.dtype)
    fkey = ("push", sr, x.dtype.str, None if a_dt is None else a_dt.str, idx_dt.str, mask_mode, bool(complement))
    hit = _FAST.get(fkey)
    if hit is None:
        spec = codegen.semiring_spec("push", sr, a_dtype=a_dt, x_dtype=x.dtype, index_dtype=idx_dt,
                                     mask=mask_mode, complement=complement, items=PUSH_ITEMS, block=BLOCK)
        hit = (spec, get_kernels(spec))
        _FAST[fkey] = hit
    spec, kern = hit
    d = _dummy()
    # frontier offsets: the sources' out-degrees (one elementwise launch) and their prefix sum
    fptr = cp.zeros(nf + 1, dtype=cp.int64)
    cp.cumsum(_frontier_degree()(csr.indptr, f), out=fptr[1:])
    grid = backend.num_sms() * 8
    kern["push"]((grid,), (BLOCK,),
                 (np.int64(nf), f, fptr, csr.indptr, csr.indices, _launch._vals(csr, d), y,
                  d if words is None else words, np.int32(0 if words is None else 1),
                  d if m is None else m, x))
    return y, touched
