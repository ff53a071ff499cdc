"""Linear-time, chunked edge list -> CSR build (a counting sort by row), on NumPy or CuPy.

The build never sorts all edges at once.  It makes two passes over the edge chunks and one
pass over the rows:

1. **count**: per chunk, validate the ids and add each row's entries to a degree count
   (``bincount``);
2. **scan**: ``indptr`` = exclusive cumulative sum of the counts;
3. **scatter**: per chunk, a *stable* placement of every entry at its row's cursor: the chunk
   is ordered by row (a chunk-sized stable sort), each entry's rank within its run of equal
   rows is added to the row's cursor, and each run advances its row's cursor once.  So within
   a row entries keep the input order, which the ``first``/``last`` duplicate policies and
   float sums (the same order in both directions of an undirected edge) rely on.  On the
   device, when that order cannot matter (no values, ``min``/``max``, integer ``sum``), one
   atomic kernel per chunk places the entries instead (:mod:`._build_gpu`);
4. **rows**: batches of whole rows (about ``batch_size`` entries each) are ordered by column
   (a stable sort of the batch, skipped when the batch is already ordered) and their
   duplicates combined; the result is compacted in place, in front of the unread part.

Peak memory is the output arrays sized for every entry counted (before duplicates are
removed), one ``int64`` cursor per row, chunk- and batch-sized temporaries, and, when more than
``hp.config["build_trim_waste"]`` of the entries were duplicates (or the index dtype narrows),
a copy of the columns (and values) trimmed to the final size.

An undirected edge ``(u, v)`` puts ``v`` in row ``u`` and ``u`` in row ``v`` (a self-loop once);
the two entries of one edge are interleaved in the scatter order, so both directions see the
edges joining them in the same order and get the same combined value.
"""

from __future__ import annotations

import time

import numpy as np

from .. import backend, cuda_source, dtypes
from .._config import config
from ..backend import device_free_bytes as _device_free_bytes
from ..exceptions import DeviceOutOfMemory, InvalidValue
from . import _build_gpu
from ._base import check_index_dtype_arg, counts_to_indptr, expand_indptr, stable_argsort
from ._chunks import Spec, _side, check_chunk
from .coo import DUPLICATE_POLICIES, _combine
from .csr import CSR
from .._arrayops import all_true, any_true, bincount

#: What to do with an edge ``u -> u``.
SELF_LOOP_POLICIES = ("keep", "drop")

#: Edges per chunk when one edge array is cut into chunks (bounds the scatter temporaries).
DEFAULT_CHUNK = 1 << 25
#: Entries per batch of rows in the row pass (bounds the row-sort temporaries).
DEFAULT_BATCH = 1 << 26

_I64 = np.dtype(np.int64)

#: None, or a callable given ``(stage, seconds)`` after each build stage ("count", "scan",
#: "scatter", "rows"; the device synchronised first) -- for benchmarks, free when None.
TRACE = None

#: Tests set a ``numpy.random.Generator`` here to make the host build place entries in a
#: random order within rows wherever the device uses its unordered atomic scatter, so CI
#: checks that the row pass does not depend on that order.
_SHUFFLE_ROWS = None


# ---------------------------------------------------------------------------------------
# the build


def _mark(xp, stage, t0: float) -> float:
    """Report ``stage`` (begun at ``t0``; None: start the clock) to :data:`TRACE`; the next start."""
    if TRACE is None:
        return 0.0
    if xp is not np:
        xp.cuda.Device().synchronize()
    now = time.perf_counter()
    if stage is not None:
        TRACE(stage, now - t0)
    return now


def _ids(xp, a):
    """Vertex ids as int32/int64 (bincount and stacking need one signed dtype)."""
    a = _side(xp, a)
    return a if a.dtype in (np.int32, np.int64) else a.astype(_I64)


def _same_ids(xp, u, v):
    """Contiguous ids of one dtype (int32 or int64) for the device kernels."""
    u, v = _ids(xp, u), _ids(xp, v)
    if u.dtype != v.dtype:
        u, v = u.astype(_I64), v.astype(_I64)
    return xp.ascontiguousarray(u), xp.ascontiguousarray(v)


def _entries(xp, u, v, w, directed: bool, drop_loops: bool):
    """The (row, col, value) entries one chunk of edges stores, in scatter order."""
    u, v = _ids(xp, u), _ids(xp, v)
    if u.dtype != v.dtype:
        u, v = u.astype(_I64), v.astype(_I64)
    if drop_loops:
        keep = u != v
        if not all_true(xp, keep):
            u, v = u[keep], v[keep]
            w = None if w is None else w[keep]
    if directed:
        return u, v, w
    # interleave the two directions of each edge: (u0,v0), (v0,u0), (u1,v1), ...
    r = xp.stack([u, v], axis=1).ravel()
    c = xp.stack([v, u], axis=1).ravel()
    ww = None if w is None else xp.stack([w, w], axis=1).ravel()
    loop = u == v
    if any_true(xp, loop):  # a self-loop is stored once: drop its mirrored entry
        keep = xp.stack([xp.ones_like(loop), ~loop], axis=1).ravel()
        r, c = r[keep], c[keep]
        ww = None if ww is None else ww[keep]
    return r, c, ww


def _count(xp, counts, rows):
    """``counts`` plus a bincount of ``rows`` (grown when ``rows`` reach past its end)."""
    if rows.shape[0] == 0:
        return counts
    c = bincount(xp, rows, minlength=counts.shape[0])
    if c.shape[0] > counts.shape[0]:
        c[:counts.shape[0]] += counts
        return c
    counts += c
    return counts


def build_estimate(n: int, entries: int, idt, vdt, chunk: int, batch: int, directed: bool) -> int:
    """Peak bytes :func:`build_csr` needs after counting ``entries`` entries over ``n`` rows."""
    isz = np.dtype(idt).itemsize
    vsz = 0 if vdt is None else np.dtype(vdt).itemsize
    k = min(chunk * (1 if directed else 2), entries)
    scatter = k * (4 * 8 + 2 * vsz + 1)    # entries (r, c as int64 at worst), perm, run, dest, flags
    rows = min(batch, entries) * (3 * 8 + 2 * vsz + 1)   # keys, perm, sorted keys, values, flags
    # (the trimming copy is optional: made only when it fits, see _trim)
    return entries * (isz + vsz) + (n + 1) * 8 + 2 * n * 8 + max(scatter, rows)


def _check_fits(estimate: int, n: int, entries: int, weighted: bool, owner: str):
    free = _device_free_bytes()
    if estimate <= free:
        return
    helps = ["free other device arrays (and cupy.get_default_memory_pool().free_all_blocks())",
             "a smaller chunk_size"]
    if weighted:
        helps.insert(0, "drop the weights (an unweighted graph stores no value array)")
    helps.append("several GPUs (not supported yet) or backend='cpu'")
    raise DeviceOutOfMemory(
        f"{owner}: building a CSR of {n:,} vertices and up to {entries:,} stored entries needs about "
        f"{estimate / 2**30:.2f} GiB of device memory, but only {free / 2**30:.2f} GiB is free; "
        f"what would help: {'; '.join(helps)}")


def _is_oom(exc) -> bool:
    """CuPy's OutOfMemoryError, or Thrust's ``std::bad_alloc`` (a MemoryError from cupy's sort)."""
    if isinstance(exc, DeviceOutOfMemory):
        return False
    if isinstance(exc, MemoryError):
        return True
    try:
        cp = backend.cupy()
    except Exception:  # noqa: BLE001 -- no device: cannot be a device allocation failure
        return False
    return isinstance(exc, cp.cuda.memory.OutOfMemoryError)


def build_csr(chunks, *, num_vertices=None, directed=True, duplicates="min", self_loops="keep",
              index_dtype=None, xp=np, batch_size=None, chunk_hint=DEFAULT_CHUNK,
              validate=True, owner="Graph.from_edges", ncols=None):
    """A CSR adjacency matrix from chunks of edges, by a stable counting sort by row.

    Parameters
    ----------
    chunks : callable
        Called twice (count pass, scatter pass); each call returns an iterable of
        ``(src, dst, weights)`` chunks (weights may be None) that must be the same both times.
    num_vertices : int, optional
        Default: the largest id + 1.
    directed : bool
        False stores both directions of each edge (a self-loop once).
    duplicates : {"min", "max", "sum", "first", "last", "keep"}
        How entries with the same (row, col) combine (see :meth:`COO.deduplicate`).
    self_loops : {"keep", "drop"}
    index_dtype : {None, "int32", "int64"}
        Default: the smallest that fits the final size (``hp.config["force_int64"]`` forces
        int64).
    xp : numpy or cupy
        Where the matrix is built; host chunks are copied to the device one at a time.
    batch_size : int, optional
        Entries per batch of rows in the row pass (default :data:`DEFAULT_BATCH`).
    chunk_hint : int
        The largest chunk expected (only used for the device memory estimate).
    validate : bool
        Check every chunk (ids, lengths, dtypes); False for arrays the caller checked.
    ncols : int, optional
        A rectangular ``num_vertices x ncols`` matrix (``directed=True`` only; the chunks'
        ``dst`` are column ids, which the caller has checked).

    Raises
    ------
    DeviceOutOfMemory
        The estimated peak does not fit in free device memory (nothing large was allocated),
        or an allocation failed during the build (the pool's cached blocks are released).
    """
    if duplicates not in DUPLICATE_POLICIES:
        raise InvalidValue(f"{owner}: duplicates must be one of {DUPLICATE_POLICIES}, got {duplicates!r}")
    if self_loops not in SELF_LOOP_POLICIES:
        raise InvalidValue(f"{owner}: self_loops must be one of {SELF_LOOP_POLICIES}, got {self_loops!r}")
    if batch_size is None:
        batch_size = DEFAULT_BATCH
    if xp is np:
        return _build(chunks, num_vertices, directed, duplicates, self_loops, index_dtype, xp,
                      batch_size, chunk_hint, validate, owner, ncols)
    try:
        return _build(chunks, num_vertices, directed, duplicates, self_loops, index_dtype, xp,
                      batch_size, chunk_hint, validate, owner, ncols)
    except Exception as exc:
        if not _is_oom(exc):
            raise
        what = f"{type(exc).__name__}: {exc}"
    # Raised outside the handler: the failed allocation's traceback (and the build's arrays its
    # frames hold) is gone by now, so the pool can really release them.
    xp.get_default_memory_pool().free_all_blocks()
    free, total = xp.cuda.runtime.memGetInfo()
    raise DeviceOutOfMemory(
        f"{owner}: the device ran out of memory during the CSR build ({what}); {free / 2**30:.2f} GiB "
        f"of {total / 2**30:.2f} GiB is free now (the pool's cached blocks were released). What would "
        "help: drop the weights, a smaller chunk_size, host chunks instead of whole device arrays, "
        "or backend='cpu'")


def _build(chunks, num_vertices, directed, duplicates, self_loops, index_dtype, xp, batch_size,
           chunk_hint, validate, owner, ncols=None):
    drop = self_loops == "drop"
    spec = Spec()
    if index_dtype is not None:  # refuse before allocating per-vertex counts
        check_index_dtype_arg(index_dtype, owner, (num_vertices or 0,))
    t = _mark(xp, None, 0.0)
    if xp is np and not validate and num_vertices is not None and _SHUFFLE_ROWS is None \
            and getattr(chunks, "one_array", False):
        csr = _host_one_chunk(chunks, int(num_vertices), directed, drop, duplicates, index_dtype,
                              batch_size, owner, ncols)
        if csr is not None:
            _mark(xp, "scatter", t)          # count, scan and scatter in one call
            return csr
    # -- 1. count -----------------------------------------------------------------------
    counts = xp.zeros(0 if num_vertices is None else int(num_vertices), dtype=_I64)
    top = -1
    biggest = 0
    for k, (u, v, w) in enumerate(chunks()):
        if validate:
            u, v, w = check_chunk(xp, u, v, w, k, spec, num_vertices, owner)
        else:
            w = None if w is None else _side(xp, w)
            if not spec.seen:
                spec.seen, spec.weighted = True, w is not None
                spec.wdtype = None if w is None else np.dtype(w.dtype)
        u, v = _ids(xp, u), _ids(xp, v)
        biggest = max(biggest, int(u.shape[0]))
        if u.shape[0] == 0:
            continue
        if num_vertices is None:
            top = max(top, int(u.max()), int(v.max()))
        elif xp is not np:  # one atomic kernel, no per-chunk bincount arrays
            u, v = _same_ids(xp, u, v)
            _build_gpu.count(xp, counts, u, v, directed, drop)
            continue
        if drop:
            keep = u != v
            u, v = u[keep], v[keep]
        counts = _count(xp, counts, u)
        counts = _count(xp, counts, v[u != v] if not directed else v[:0])
    n = int(num_vertices) if num_vertices is not None else top + 1
    if counts.shape[0] < n:
        grown = xp.zeros(n, dtype=_I64)
        grown[:counts.shape[0]] = counts
        counts = grown
    entries = int(counts.sum()) if n else 0
    vdt = spec.wdtype
    ncols = n if ncols is None else int(ncols)
    idt = _pick_index_dtype(index_dtype, max(n, ncols), entries, owner)
    if xp is not np:
        est = build_estimate(n, entries, idt, vdt, max(biggest, 1), batch_size, directed)
        _check_fits(est, n, entries, vdt is not None, owner)
    t = _mark(xp, "count", t)
    # -- 2. scan ------------------------------------------------------------------------
    indptr = counts_to_indptr(xp, counts, _I64)
    del counts
    t = _mark(xp, "scan", t)
    # -- 3. scatter ---------------------------------------------------------------------
    cols = xp.empty(entries, dtype=idt)
    vals = None if vdt is None else xp.empty(entries, dtype=vdt)
    cursor = indptr[:-1].copy()
    unordered = (xp is not np or _SHUFFLE_ROWS is not None) and _build_gpu.order_free(duplicates, vdt)
    placed = 0
    for u, v, w in chunks():
        if len(u) == 0:
            continue
        w = None if w is None else _side(xp, w)
        if unordered and xp is not np:
            u, v = _same_ids(xp, u, v)
            _build_gpu.scatter(xp, cursor, u, v, w, cols, vals, directed, drop)
            continue
        r, c, ww = _entries(xp, u, v, w, directed, drop)
        if xp is np and not unordered and placed == 0 and r.shape[0] == entries \
                and _host_counting_sort(n, ncols, r, c, ww, cols, vals) is not None:
            placed = entries
            continue
        placed += int(r.shape[0])
        if unordered:  # host stand-in for the atomic scatter: any order within a row
            p = _SHUFFLE_ROWS.permutation(r.shape[0])
            r, c, ww = r[p], c[p], (None if ww is None else ww[p])
        _scatter(xp, cursor, r, c, ww, cols, vals)
    del cursor
    t = _mark(xp, "scatter", t)
    # -- 4. rows (the list hands over the only references, so trimmed copies can free them)
    out = [cols, vals]
    del cols, vals
    csr = _finish_rows(xp, n, ncols, indptr, out, duplicates, index_dtype, batch_size, owner)
    _mark(xp, "rows", t)
    return csr


def _host_one_chunk(chunks, n, directed, drop, duplicates, index_dtype, batch_size, owner, ncols):
    """Steps 1-3 in one SciPy counting sort when the edges are one host chunk of checked ids
    (a ``one_array`` source, read once more for free); None where that does not apply."""
    it = iter(chunks())
    first = next(it, None)
    if first is None or next(it, None) is not None or first[0].shape[0] == 0:
        return None
    u, v, w = first
    w = None if w is None else _side(np, w)
    r, c, ww = _entries(np, u, v, w, directed, drop)
    entries = int(r.shape[0])
    ncols = n if ncols is None else int(ncols)
    idt = _pick_index_dtype(index_dtype, max(n, ncols), entries, owner)
    cols = np.empty(entries, dtype=idt)
    vals = None if ww is None else np.empty(entries, dtype=ww.dtype)
    indptr = _host_counting_sort(n, ncols, r, c, ww, cols, vals)
    if indptr is None:
        return None
    del r, c, ww
    out = [cols, vals]
    del cols, vals
    return _finish_rows(np, n, ncols, indptr.astype(_I64, copy=False), out, duplicates, index_dtype,
                        batch_size, owner)


def _pick_index_dtype(index_dtype, n, size, owner):
    """An explicit ``index_dtype`` (validated); else int64 under ``hp.config["force_int64"]``;
    else the rule."""
    if index_dtype is not None:
        return check_index_dtype_arg(index_dtype, owner, (n, size))
    if config["force_int64"]:
        return _I64
    return dtypes.index_dtype(n, size)


def _host_counting_sort(n, ncols, r, c, w, cols, vals):
    """Place one host chunk holding every entry by SciPy's compiled COO -> CSR counting sort.

    ``coo_tocsr`` is the same stable counting sort as :func:`_scatter` (entries keep their
    order within a row), one linear pass in C++ instead of a chunk-sized argsort and a dozen
    array passes.  It writes straight into ``cols`` / ``vals`` and returns the row pointers
    (``cols.dtype``).  It does not check indices, so it is only called on ids the build has
    validated (``0 <= id < n``).  Returns None, having written nothing, where it does not
    apply (SciPy missing, a value dtype its compiled routines lack): the caller then
    scatters with NumPy.
    """
    if vals is not None and not (vals.dtype.kind in "biu" or vals.dtype in (np.float32, np.float64)):
        return None
    try:
        from scipy.sparse._sparsetools import coo_tocsr
    except ImportError:
        return None
    idt = cols.dtype
    k = int(r.shape[0])
    if vals is None:  # the routine always moves values: one byte per entry, thrown away
        src_vals, out_vals = np.zeros(k, dtype=np.bool_), np.empty(k, dtype=np.bool_)
    else:
        src_vals, out_vals = np.ascontiguousarray(w, dtype=vals.dtype), vals
    indptr = np.empty(n + 1, dtype=idt)
    try:
        coo_tocsr(n, ncols, k, np.ascontiguousarray(r, dtype=idt), np.ascontiguousarray(c, dtype=idt),
                  src_vals, indptr, cols, out_vals)
    except (TypeError, ValueError):  # argument types the compiled routine refuses: nothing written
        return None
    return indptr


def _scatter(xp, cursor, r, c, w, cols, vals):
    """Place entries at their rows' cursors, keeping the chunk's order within each row."""
    k = int(r.shape[0])
    if k == 0:
        return
    if all_true(xp, r[1:] >= r[:-1]):
        rs, cs, ws = r, c, w
    else:
        perm = stable_argsort(xp, r)
        rs, cs = r[perm], c[perm]
        ws = None if w is None else w[perm]
        del perm
    new = xp.empty(k, dtype=bool)
    new[0] = True
    xp.not_equal(rs[1:], rs[:-1], out=new[1:])
    starts = xp.flatnonzero(new)
    run = xp.cumsum(new, dtype=_I64) - 1
    del new
    dest = cursor[rs] + (xp.arange(k, dtype=_I64) - starts[run])
    del run
    cols[dest] = cs
    if vals is not None:
        vals[dest] = ws
    del dest
    ends = xp.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = k
    cursor[rs[starts]] += ends - starts


def _finish_rows(xp, n, ncols, indptr, out, duplicates, index_dtype, batch_size, owner):
    """Sort each row by column and combine duplicates, batch by batch, compacting in place.

    ``out`` is ``[cols, vals]``, emptied here so that the trimmed copies can free the originals.
    """
    cols, vals = out
    out.clear()
    entries = int(cols.shape[0])
    lengths = xp.zeros(n, dtype=_I64)
    bounds = _row_batches(xp, indptr, n, entries, batch_size)
    ip_host = backend.to_host(indptr[xp.asarray(bounds)]) if len(bounds) else np.zeros(0, np.int64)
    write = 0
    width = max(ncols, 1)
    for b in range(len(bounds) - 1):
        r0, r1 = int(bounds[b]), int(bounds[b + 1])
        s, e = int(ip_host[b]), int(ip_host[b + 1])
        if e == s:
            continue
        lptr = indptr[r0:r1 + 1] - s
        if _rows_final(xp, lptr, cols[s:e], duplicates):
            # already ordered with nothing to combine: move the batch down, keep its rows
            if write != s:
                cols[write:write + e - s] = cols[s:e].copy()
                if vals is not None:
                    vals[write:write + e - s] = vals[s:e].copy()
            lengths[r0:r1] = lptr[1:] - lptr[:-1]
            write += e - s
            continue
        local = expand_indptr(xp, lptr, e - s, _I64)
        key = local * width + cols[s:e].astype(_I64)
        del local
        bv = None if vals is None else vals[s:e]
        if not all_true(xp, key[1:] >= key[:-1]):
            if bv is None:
                key = xp.sort(key)
            else:
                perm = stable_argsort(xp, key)
                key, bv = key[perm], bv[perm]
                del perm
        if duplicates != "keep" and key.shape[0] > 1:
            key, bv = _combine_sorted(xp, key, bv, duplicates)
        k = int(key.shape[0])
        cols[write:write + k] = (key % width).astype(cols.dtype)
        if vals is not None:
            vals[write:write + k] = bv
        lengths[r0:r1] = bincount(xp, key // width, minlength=r1 - r0)
        write += k
        del key, bv
    nnz = write
    idt = _pick_index_dtype(index_dtype, max(n, ncols), nnz, owner)
    cols, vals = _trim(xp, cols, vals, nnz, idt)
    new_indptr = counts_to_indptr(xp, lengths, cols.dtype)   # idt, unless the copy did not fit
    del lengths
    return CSR._new(new_indptr, cols, vals, (n, ncols))


def _trim(xp, cols, vals, nnz: int, idt):
    """The first ``nnz`` columns (as ``idt``) and values.

    Copied to arrays of the final size when more than ``hp.config["build_trim_waste"]`` of the
    buffer would be wasted or the index dtype narrows, and the copy fits in free device memory; otherwise
    views of the buffers (no copy at the build's peak; ``Graph.memory_usage`` reports the
    buffers held).  Without a copy the columns keep their dtype.
    """
    entries = int(cols.shape[0])
    waste = entries * config["build_trim_waste"]
    want = np.dtype(idt) != cols.dtype or (entries - nnz) > waste
    if want and xp is not np:
        need = nnz * max(np.dtype(idt).itemsize, 0 if vals is None else vals.dtype.itemsize)
        want = need <= _device_free_bytes()
    if want:
        cols = cols[:nnz].astype(idt)           # a fresh array of the final size; frees the old
        if vals is not None and nnz != entries:
            vals = vals[:nnz].copy()
        return cols, vals
    if nnz == entries:
        return cols, vals
    return cols[:nnz], (None if vals is None else vals[:nnz])


def _rows_final(xp, lptr, seg, duplicates) -> bool:
    """True when every row of a batch is ordered by column and (unless ``keep``) has no
    repeated column: the batch needs no sort and no combining."""
    k = int(seg.shape[0])
    if k <= 1:
        return True
    ok = seg[1:] > seg[:-1] if duplicates != "keep" else seg[1:] >= seg[:-1]
    starts = lptr[1:-1]
    starts = starts[(starts > 0) & (starts < k)]
    if starts.shape[0]:
        ok[starts - 1] = True  # a new row may start lower
    return all_true(xp, ok)


def _row_batches(xp, indptr, n, entries, batch_size):
    """Row boundaries ``[0, r1, r2, ..., n]`` of batches of about ``batch_size`` entries."""
    if n == 0:
        return []
    if entries <= batch_size:
        return [0, n]
    targets = xp.arange(batch_size, entries, batch_size, dtype=_I64)
    cut = backend.to_host(xp.searchsorted(indptr, targets, side="right") - 1)
    cut = np.unique(np.clip(cut, 1, n - 1)) if n > 1 else np.zeros(0, np.int64)
    return [0, *cut.tolist(), n]


def _combine_sorted(xp, key, val, how):
    """One entry per distinct key of a sorted key array (values combined by ``how``)."""
    n = int(key.shape[0])
    new = xp.empty(n, dtype=bool)
    new[0] = True
    xp.not_equal(key[1:], key[:-1], out=new[1:])
    starts = xp.flatnonzero(new)
    ng = int(starts.shape[0])
    if ng == n:
        return key, val
    out_key = key[starts]
    if val is None:
        return out_key, None
    ends = xp.empty(ng, dtype=starts.dtype)
    ends[:-1] = starts[1:] - 1
    ends[-1] = n - 1
    if xp is not np and how in ("sum", "min", "max"):
        return out_key, segment_reduce(xp, how, val, starts, ends)
    return out_key, _combine(xp, how, val, new, starts, ends, ng)


# ---------------------------------------------------------------------------------------
# device segment reduction (sequential within a group, so the result depends only on the
# order of the group's entries: both directions of an undirected edge get the same value)

_OPS = {"sum": "acc = acc + x;", "min": "acc = x < acc ? x : acc;", "max": "acc = x > acc ? x : acc;"}


_SEGMENT_REDUCE = """extern "C" __global__ void segment_reduce(const $T* __restrict__ val,
    const long long* __restrict__ starts, const long long* __restrict__ ends,
    $T* __restrict__ out, long long ngroups)
{
    for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < ngroups;
         g += (long long)gridDim.x * blockDim.x) {
        $T acc = val[starts[g]];
        for (long long i = starts[g] + 1; i <= ends[g]; ++i) {
            $T x = val[i];
            $OP
        }
        out[g] = acc;
    }
}
"""


def segment_reduce_source(how: str, ctype: str) -> str:
    """CUDA source of the kernel combining each group ``val[starts[g]..ends[g]]`` in order."""
    op = _OPS[how]
    if ctype == "bool" and how != "sum":
        op = "acc = acc && x;" if how == "min" else "acc = acc || x;"
    elif ctype == "bool":
        op = "acc = acc || x;"
    return cuda_source.render(_SEGMENT_REDUCE, T=ctype, OP=op)


def segment_reduce(xp, how, val, starts, ends):
    """Per-group sum/min/max of contiguous groups of ``val`` on the device, in entry order."""
    ctype = dtypes.c_type(val.dtype)
    mod = backend.raw_module(segment_reduce_source(how, ctype))
    kern = mod.get_function("segment_reduce")
    ng = int(starts.shape[0])
    out = xp.empty(ng, dtype=val.dtype)
    threads = 256
    blocks = max(1, min((ng + threads - 1) // threads, 65535))
    kern((blocks,), (threads,), (xp.ascontiguousarray(val), starts.astype(_I64), ends.astype(_I64), out,
                                 np.int64(ng)))
    return out
