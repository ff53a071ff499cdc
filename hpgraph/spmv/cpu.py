"""CPU reference (and fast path) for semiring sparse matrix-vector products, in NumPy.

``y = A (+).(x) x`` over CSR: for every stored entry ``e = (i, j)`` the product
``MUL(A[i, j], x[j])`` is formed with one vectorised call, and the products of each non-empty
row are combined with the monoid's segmented reduction (``ufunc.reduceat`` for built-ins,
``TypedMonoid.np_reduce_segments`` otherwise).  There is no Python loop over rows.

Performance notes
-----------------
* ``x[j]`` is gathered with ``np.take(..., mode="wrap")``: column ids are valid by the format's
  invariants, and skipping the per-element bounds check of the default ``mode="raise"`` makes
  the gather (the dominant cost: one random read per entry) about 1.5x faster.
* The entries are processed in cache-sized blocks that end on row boundaries (about
  :data:`BLOCK` entries each), so the gathered ``x[j]``, the products and the reduction stay in
  the L2 cache instead of streaming three ``nnz``-long temporaries through memory.
* NumPy releases the GIL inside ``take``, ufunc loops and ``reduceat``, so the blocks are shared
  between :func:`num_threads` threads (``HPGRAPH_NUM_THREADS`` overrides the count), the
  calling thread included, which take chunks of a few blocks from a shared queue.
* The segment structure of a matrix (non-empty rows, their starts, block boundaries) depends
  only on ``indptr`` and is cached per ``indptr`` array (matrices are immutable).
* Row masks select rows before any product is formed; ``x_active`` drops entries whose source
  is inactive before the multiply.  Index arrays ``i`` / ``j`` are only materialised for index
  operators (``sr.mul.is_index_op``).
"""

from __future__ import annotations

import os
import queue
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._config import config
from ..exceptions import DimensionMismatch, DomainMismatch, InvalidValue

__all__ = ["spmv", "num_threads", "set_num_threads", "BLOCK"]

#: Target number of entries per block (row-aligned).  64 Ki entries of float64 (512 KiB of
#: products) leave room in a 1-2 MiB L2 cache for the column indices and values.
BLOCK = 1 << 16

#: Blocks per unit of work handed to a thread (dynamic scheduling).
_CHUNK_BLOCKS = 4

#: Fraction of the matrix's entries above which a row mask is applied after computing all rows
#: (the cached full-matrix plan is cheaper than extracting a large sub-matrix).
_MASK_FULL_FRACTION = 0.5

# ---------------------------------------------------------------------------------------
# threads

_pool = None
_pool_size = 0
_pool_lock = threading.Lock()
_nthreads_override = None


def num_threads() -> int:
    """Number of worker threads the CPU kernels use.

    ``set_num_threads(n)`` wins, then the environment variable ``HPGRAPH_NUM_THREADS``, then the
    number of CPU cores this process may run on.
    """
    if _nthreads_override is not None:
        return _nthreads_override
    env = os.environ.get("HPGRAPH_NUM_THREADS")
    if env:
        try:
            n = int(env)
        except ValueError:
            raise InvalidValue(f"HPGRAPH_NUM_THREADS must be a positive integer, got {env!r}") from None
        if n < 1:
            raise InvalidValue(f"HPGRAPH_NUM_THREADS must be a positive integer, got {env!r}")
        return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def set_num_threads(n: int | None) -> None:
    """Set the number of CPU worker threads (``None`` restores the default rule)."""
    global _nthreads_override
    if n is not None:
        n = int(n)
        if n < 1:
            raise InvalidValue(f"num_threads must be a positive integer, got {n!r}")
    _nthreads_override = n


def _get_pool(n: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size < n:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="hpgraph-spmv")
            _pool_size = n
        return _pool


# ---------------------------------------------------------------------------------------
# per-matrix cache (keyed by the identity of an immutable array, dropped when it dies)

_cache: dict = {}
_cache_lock = threading.Lock()


def _cached(owner: np.ndarray, tag, factory):
    """``factory()`` cached for the lifetime of the array ``owner`` (by identity) and ``tag``."""
    key = (id(owner), tag)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None and hit[0]() is owner:
        return hit[1]
    value = factory()
    try:
        ref = weakref.ref(owner)
    except TypeError:  # not weak-referenceable: do not cache
        return value
    with _cache_lock:
        if key not in _cache:
            weakref.finalize(owner, _cache.pop, key, None)
        _cache[key] = (ref, value)
    return value


# ---------------------------------------------------------------------------------------
# segment plans


class _Plan:
    """Segment structure of a CSR-like ``indptr``: the non-empty rows and their blocks.

    Attributes
    ----------
    nrows : int
    nnz : int
    rows : ndarray of intp or None
        Ids of the non-empty rows (``None`` when every row is non-empty: segment s is row s).
    starts : ndarray of intp
        First entry of each non-empty row (segment).
    lengths : ndarray of intp
        Entries per segment.
    bounds : ndarray of intp
        Block boundaries in segment space, ``bounds[0] == 0``, ``bounds[-1] == nseg``.
    blocks : list of (s0, s1, p0, p1)
        Segment range and entry range of each block.
    local : ndarray of intp
        Start of each segment relative to the first entry of its block.
    """

    __slots__ = ("nrows", "nnz", "rows", "starts", "lengths", "bounds", "blocks", "local")

    def __init__(self, indptr: np.ndarray, block: int | None = None):
        block = BLOCK if block is None else int(block)
        indptr = np.asarray(indptr)
        self.nrows = len(indptr) - 1
        self.nnz = int(indptr[-1]) if self.nrows >= 0 and len(indptr) else 0
        lens = np.diff(indptr).astype(np.intp, copy=False)
        if self.nrows > 0 and lens.min(initial=1) > 0:
            self.rows = None
            self.starts = indptr[:-1].astype(np.intp, copy=False)
            self.lengths = lens
        else:
            rows = np.flatnonzero(lens)
            self.rows = rows
            self.starts = indptr[rows].astype(np.intp, copy=False)
            self.lengths = lens[rows]
        nseg = len(self.starts)
        if nseg == 0:
            self.bounds = np.zeros(1, np.intp)
        else:
            targets = np.arange(0, self.nnz, block, dtype=np.intp)
            b = np.searchsorted(self.starts, targets, side="left")
            self.bounds = np.unique(np.concatenate([b, [0, nseg]])).astype(np.intp)
        # per block (s0, s1, p0, p1) as Python ints, and each segment's start relative to its
        # block: the block loop then runs three NumPy calls and almost no other Python work
        # (each call hands the GIL over, which is what limits thread scaling)
        bnd = self.bounds
        p_lo = self.starts[bnd[:-1]] if nseg else np.zeros(0, np.intp)
        p_hi = np.append(p_lo[1:], self.nnz) if nseg else np.zeros(0, np.intp)
        self.blocks = list(zip(bnd[:-1].tolist(), bnd[1:].tolist(), p_lo.tolist(), p_hi.tolist()))
        if nseg:
            block_of_seg = np.repeat(np.arange(len(p_lo), dtype=np.intp), np.diff(bnd))
            self.local = self.starts - p_lo[block_of_seg]
        else:
            self.local = np.zeros(0, np.intp)

    @property
    def nseg(self) -> int:
        return len(self.starts)

    def seg_rows(self) -> np.ndarray:
        """Row id of every segment."""
        return np.arange(self.nrows, dtype=np.intp) if self.rows is None else self.rows


def _plan_for(indptr: np.ndarray) -> _Plan:
    block = BLOCK
    return _cached(indptr, ("plan", block), lambda: _Plan(indptr, block))


# ---------------------------------------------------------------------------------------
# helpers


def _mask_to_bool(mask, n: int, name: str) -> np.ndarray:
    """A host bool array of length ``n`` from a bool array or a Bitmask-like object."""
    if hasattr(mask, "to_bool") and hasattr(mask, "words"):
        b = mask.to_bool()
        if hasattr(b, "__cuda_array_interface__"):
            from .. import backend

            b = backend.to_host(b)
        b = np.asarray(b, dtype=bool)
    else:
        b = np.asarray(mask)
        if b.dtype != np.bool_:
            raise DomainMismatch(f"{name} must be a bool array or a Bitmask, got an array of dtype {b.dtype}")
    if b.ndim != 1 or len(b) != n:
        raise DimensionMismatch(f"{name} must have length {n}, got shape {b.shape}")
    return b


def _as_csr(A):
    """A CSR view (object with indptr/indices/values/shape) of any hpgraph format."""
    if getattr(A, "format", None) == "csr":
        return A
    return A.asformat("csr")


def _mul_fast(mul, in_dtype):
    """How to form the products of a multiply: ``(mode, ufunc)``.

    ``mode`` is ``"y"`` (built-in ``second``/``any``: the product is ``x[j]`` itself), ``"a"``
    (``first``: the entry value; ``x`` is not even gathered), ``"one"`` (``pair``), ``"ufunc"``
    (a built-in whose NumPy form is a ufunc of one dtype loop, applied in place), or ``None``
    (call ``mul.np_call``: user-defined ops, index ops, casts, non-ufunc built-ins).
    """
    key = getattr(mul, "key", None)
    parent = getattr(mul, "parent", None)
    if not (isinstance(key, tuple) and len(key) == 3 and key[0] == "binary"
            and getattr(parent, "is_builtin", False)):
        return None, None
    if mul.is_index_op or np.dtype(mul.out_dtype) != in_dtype or np.dtype(mul.in_dtype) != in_dtype:
        return None, None
    name = parent.name
    if name in ("second", "any"):
        return "y", None
    if name == "first":
        return "a", None
    if name == "pair":
        return "one", None
    f = mul.ufunc
    return ("ufunc", f) if f is not None else (None, None)


def _identity_array(sr, n: int, dtype) -> np.ndarray:
    ident = sr.add.identity
    with np.errstate(all="ignore"):
        return np.full(n, np.asarray(ident).astype(dtype), dtype=dtype)


# ---------------------------------------------------------------------------------------
# the block kernel


def _run_blocks(plan, b_lo, b_hi, indices, values, xin, sr, seg_rows, t_out, mode, mul_ufunc,
                reduce_ufunc):
    """Compute ``t_out[s]`` for the segments of ``plan.blocks[b_lo:b_hi]``."""
    in_dt = np.dtype(sr.in_dtype)
    is_index = bool(getattr(sr.mul, "is_index_op", False))
    any_first = reduce_ufunc is None and getattr(sr.add, "terminal_any", False)
    plan_local = plan.local
    scratch = None
    with np.errstate(all="ignore"):
        for s0, s1, p0, p1 in plan.blocks[b_lo:b_hi]:
            m = p1 - p0
            local = plan_local[s0:s1]
            if mode == "one":
                prod = np.ones(m, dtype=in_dt)
            elif mode == "a" and values is not None:
                prod = values[p0:p1]
                if prod.dtype != in_dt:
                    prod = prod.astype(in_dt)
            elif mode == "a":  # first on a pattern matrix: 1
                prod = np.ones(m, dtype=in_dt)
            else:
                cols = indices[p0:p1]
                if mode is not None:  # gather x[j] into a reused, cache-resident buffer
                    if scratch is None or len(scratch) < m:
                        scratch = np.empty(max(m, BLOCK), dtype=in_dt)
                    xg = scratch[:m]
                    np.take(xin, cols, out=xg, mode="wrap")
                else:
                    xg = np.take(xin, cols, mode="wrap")
                if mode == "y":
                    prod = xg
                else:
                    if values is None:
                        a = np.broadcast_to(np.ones(1, dtype=in_dt), (m,))
                    else:
                        a = values[p0:p1]
                        if a.dtype != in_dt:
                            a = a.astype(in_dt)
                    if mode == "ufunc":
                        prod = mul_ufunc(a, xg, out=xg)
                    else:
                        if is_index:
                            i = np.repeat(seg_rows[s0:s1], plan.lengths[s0:s1])
                            prod = sr.mul.np_call(a, xg, i, cols)
                        else:
                            prod = sr.mul.np_call(a, xg)
                        prod = np.asarray(prod)
                        if prod.shape != (m,):
                            prod = np.broadcast_to(prod, (m,))
            dest = t_out[s0:s1]
            if reduce_ufunc is not None:
                if prod.dtype != dest.dtype:
                    prod = prod.astype(dest.dtype)
                reduce_ufunc.reduceat(prod, local, out=dest)
            elif any_first:
                dest[...] = prod[local]  # any: the first product of each row
            else:
                dest[...] = sr.add.np_reduce_segments(prod, local, s1 - s0)


def _reduce_ufunc(add):
    uf = getattr(add, "ufunc", None)
    if isinstance(uf, np.ufunc) and uf.nin == 2 and uf.nout == 1:
        return uf
    return None


def _segments(plan, indices, values, xin, sr, seg_rows, out_dtype, threads: int):
    """Reduce every segment of ``plan``; returns the segment values (dtype ``out_dtype``)."""
    nseg = plan.nseg
    t = np.empty(nseg, dtype=out_dtype)
    if nseg == 0:
        return t
    mode, mul_ufunc = _mul_fast(sr.mul, np.dtype(sr.in_dtype))
    red = _reduce_ufunc(sr.add)
    nblocks = len(plan.blocks)
    tail = (indices, values, xin, sr, seg_rows, t, mode, mul_ufunc, red)
    if threads <= 1 or nblocks < 2 or plan.nnz < config["spmv_cpu_parallel_min_nnz"]:
        _run_blocks(plan, 0, nblocks, *tail)
        return t
    # Dynamic scheduling: chunks of a few blocks are taken from a shared queue by `threads`
    # workers, the calling thread being one of them, so a worker slowed down (another process
    # on its core, a heavy row) does not hold the others up at the end.
    per = max(1, min(_CHUNK_BLOCKS, nblocks // (4 * threads)))
    work = queue.SimpleQueue()
    for lo in range(0, nblocks, per):
        work.put((lo, min(lo + per, nblocks)))

    def worker():
        while True:
            try:
                lo, hi = work.get_nowait()
            except queue.Empty:
                return
            _run_blocks(plan, lo, hi, *tail)

    pool = _get_pool(threads - 1)
    futures = [pool.submit(worker) for _ in range(threads - 1)]
    try:
        worker()
    finally:
        for f in futures:
            f.result()
    return t


# ---------------------------------------------------------------------------------------
# public entry


def spmv(A, x, sr, *, row_mask=None, complement=False, x_active=None, out=None, replace=False,
         accum=None):
    """``y = A (+).(x) x`` on the CPU, with GraphBLAS mask / accumulate / replace semantics.

    Parameters
    ----------
    A : hpgraph sparse matrix (host)
        Any format; converted to CSR when it is not one (cache CSR yourself for repeated use).
        Pattern entries mean the value 1.
    x : numpy.ndarray
        Dense input vector of length ``A.ncols``; cast to ``sr.in_dtype``.
    sr : TypedSemiring
        ``y[i] = ADD_j MUL(A[i, j], x[j])`` (entry value first).
    row_mask : numpy bool array or Bitmask, optional
        Rows to compute (structural mask over the output).
    complement : bool
        Compute the rows where ``row_mask`` is False.  With ``row_mask=None`` no row is computed
        (GraphBLAS: the complement of "no mask" is empty).
    x_active : Bitmask or bool array, optional
        Active sources: entries ``A[i, j]`` with ``x_active[j]`` False are skipped.
    out : numpy.ndarray, optional
        Current output values (length ``A.nrows``); never written.  The result has its dtype.
    replace : bool
        Rows outside the mask get the identity instead of ``out``'s value.
    accum : TypedBinaryOp, optional
        ``y[i] = accum(out[i], t[i])`` where the product ``t[i]`` has a value (needs ``out``).

    Returns
    -------
    numpy.ndarray
        New array of length ``A.nrows``: dtype ``out.dtype`` when ``out`` is given, else
        ``sr.out_dtype``.  Rows without a value (no stored entry with an active source) hold
        ``out``'s value, or the monoid identity without ``out``.
    """
    csr = _as_csr(A)
    nrows, ncols = (int(s) for s in csr.shape)
    x = np.asarray(x)
    if x.ndim != 1 or len(x) != ncols:
        raise DimensionMismatch(f"x must be a 1-D array of length {ncols} (A.ncols), got shape {x.shape}")
    in_dt = np.dtype(sr.in_dtype)
    out_dt = np.dtype(sr.out_dtype)
    if out is not None:
        out = np.asarray(out)
        if out.ndim != 1 or len(out) != nrows:
            raise DimensionMismatch(f"out must be a 1-D array of length {nrows} (A.nrows), got shape {out.shape}")
    res_dt = out.dtype if out is not None else out_dt

    # which rows are computed
    sel = None  # bool array over rows, or None = all
    if row_mask is not None:
        sel = _mask_to_bool(row_mask, nrows, "mask")
        if complement:
            sel = ~sel
    elif complement:
        sel = np.zeros(nrows, dtype=bool)
    active = None if x_active is None else _mask_to_bool(x_active, ncols, "x_active")

    with np.errstate(all="ignore"):
        xin = x.astype(in_dt, copy=False)
    t_rows, t_vals = _compute(csr, xin, sr, sel, active, out_dt)

    # assemble the result
    if out is None:
        if t_rows is None:  # every row has a value
            return t_vals if t_vals.dtype == res_dt else t_vals.astype(res_dt)
        y = _identity_array(sr, nrows, res_dt)
    else:
        y = out.copy()
        if replace and sel is not None:
            with np.errstate(all="ignore"):
                y[~sel] = np.asarray(sr.add.identity).astype(res_dt)
    rows = np.arange(nrows) if t_rows is None else t_rows
    if accum is not None and out is not None:
        acc_in = np.dtype(getattr(accum, "in_dtype", res_dt))
        with np.errstate(all="ignore"):
            r = accum.np_call(out[rows].astype(acc_in, copy=False), t_vals.astype(acc_in, copy=False))
            y[rows] = np.asarray(r).astype(res_dt, copy=False)
    else:
        with np.errstate(all="ignore"):
            y[rows] = t_vals.astype(res_dt, copy=False)
    return y


def _compute(csr, xin, sr, sel, active, out_dt):
    """Return ``(rows, values)`` of the rows that have a value (rows None = every row, in order)."""
    nrows = int(csr.shape[0])
    indptr = csr.indptr
    indices = csr.indices
    values = None if getattr(csr, "values", None) is None else csr.values
    nnz = int(indptr[-1]) if len(indptr) else 0
    threads = num_threads()

    if sel is not None:
        sel_rows = np.flatnonzero(sel)
        if len(sel_rows) == 0:
            return np.zeros(0, np.intp), np.zeros(0, out_dt)
        if len(sel_rows) == nrows:
            sel = None
    if sel is None and active is None:
        plan = _plan_for(indptr)
        seg_rows = plan.rows if plan.rows is not None else None
        is_index = bool(getattr(sr.mul, "is_index_op", False))
        rows_for_index = plan.seg_rows() if is_index else None
        t = _segments(plan, indices, values, xin, sr, rows_for_index, out_dt, threads)
        return seg_rows, t

    # ---- a subset of rows and/or of entries
    indptr = np.asarray(indptr)
    if sel is not None:
        lens_all = np.diff(indptr)
        sel_nnz = int(lens_all[sel_rows].sum())
        if active is None and sel_nnz > _MASK_FULL_FRACTION * nnz:
            rows, t = _compute(csr, xin, sr, None, None, out_dt)
            if rows is None:
                return sel_rows, t[sel_rows]
            keep = sel[rows]
            return rows[keep], t[keep]
        lens = lens_all[sel_rows]
        sub_ptr = np.zeros(len(sel_rows) + 1, dtype=np.intp)
        np.cumsum(lens, out=sub_ptr[1:])
        m = int(sub_ptr[-1])
        if m == nnz:
            pos = None
        else:
            pos = np.repeat(indptr[sel_rows].astype(np.intp) - sub_ptr[:-1], lens) + np.arange(m, dtype=np.intp)
        row_map = sel_rows
    else:
        sub_ptr = indptr.astype(np.intp, copy=False)
        pos = None
        row_map = None
    if active is not None:
        cols = indices if pos is None else indices[pos]
        keep = active[cols]
        kc = np.zeros(len(keep) + 1, dtype=np.intp)
        np.cumsum(keep, out=kc[1:])
        sub_ptr = kc[sub_ptr]
        kept = np.flatnonzero(keep)
        pos = kept if pos is None else pos[kept]
    sub_indices = indices if pos is None else indices[pos]
    sub_values = None if values is None else (values if pos is None else values[pos])
    sub_plan = _Plan(sub_ptr)
    seg_sub_rows = sub_plan.seg_rows()
    real_rows = seg_sub_rows if row_map is None else row_map[seg_sub_rows]
    is_index = bool(getattr(sr.mul, "is_index_op", False))
    t = _segments(sub_plan, sub_indices, sub_values, xin, sr, real_rows if is_index else None,
                  out_dt, threads)
    return real_rows, t
