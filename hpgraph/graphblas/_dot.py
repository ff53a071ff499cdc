"""Masked SpGEMM by dot products: ``C<M> = A (+).(x) B`` computed per mask entry.

For a mask entry ``(i, j)`` the products are ``A[i, k] * B[k, j]`` over the ``k`` in both row
``i`` of ``A`` and column ``j`` of ``B`` (row ``j`` of ``B^T``).  The shorter of the two lists
is walked and each of its ``k`` looked up in the other operand's sorted keys (one binary
search), so the work is ``sum over mask entries of min(|A[i, :]|, |B[:, j]|)`` searches
instead of every product of the unmasked ``A @ B``: the form triangle counting and k-truss
need (``L .* (L @ L)``), where most products of ``L @ L`` fall outside the mask.

Products of one mask entry come out in ascending ``k`` (the order the row-wise expansion
sums them in), so both methods give identical results, floats included.  Mask entries are
processed in blocks of at most ``max_products`` searches.
"""

from __future__ import annotations

import numpy as np

from . import _kern
from ._keys import lookup, repeat_index, segment_starts

__all__ = ["dot_work", "masked_dot"]

_I64 = np.dtype(np.int64)


def _plan(xp, A, B, mkeys):
    n = B.ncols
    mi, mj = mkeys // n, mkeys % n
    alen = xp.diff(A.csr.indptr.astype(_I64))
    BT = B._transpose_csr()
    btlen = xp.diff(BT.indptr.astype(_I64))
    la, lb = alen[mi], btlen[mj]
    use_a = la <= lb
    return mi, mj, use_a, xp.where(use_a, la, lb), BT


def dot_work(xp, A, B, mkeys) -> int:
    """Number of binary searches :func:`masked_dot` makes for the mask keys ``mkeys``."""
    if mkeys.shape[0] == 0 or B.ncols == 0:
        return 0
    return int(_plan(xp, A, B, mkeys)[3].sum())


def expand_work(xp, A, B) -> int:
    """Products the row-wise expansion of ``A @ B`` forms (before any mask): the cost the
    masked dot's :func:`dot_work` is weighed against."""
    if A.nvals == 0:
        return 0
    return int(xp.diff(B.csr.indptr.astype(_I64))[A._coords()[2]].sum())


def masked_dot(xp, A, B, sr, mkeys, max_products):
    """Sorted keys and values of ``A (+).(x) B`` at the mask keys ``mkeys`` (sorted, distinct)
    where the product has at least one term."""
    empty = (xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=sr.out_dtype))
    if mkeys.shape[0] == 0 or B.ncols == 0 or A.nvals == 0 or B.nvals == 0:
        return empty
    mi, mj, use_a, work, BT = _plan(xp, A, B, mkeys)
    cum = xp.zeros(work.shape[0] + 1, dtype=_I64)
    cum[1:] = xp.cumsum(work)
    total = int(cum[-1])
    if total == 0:
        return empty
    cuts = [0]
    nm = int(mkeys.shape[0])
    if total > max_products:
        targets = xp.arange(max_products, total, max_products, dtype=_I64)
        b = xp.searchsorted(cum, targets, side="right") - 1
        host = np.unique(np.asarray(b.get() if xp is not np else b))
        cuts += [int(c) for c in host if 0 < c < nm]
    cuts.append(nm)
    parts = []
    for m0, m1 in zip(cuts[:-1], cuts[1:]):
        if m1 > m0:
            parts.append(_block(xp, A, B, BT, sr, mkeys[m0:m1], mi[m0:m1], mj[m0:m1],
                                use_a[m0:m1], work[m0:m1]))
    parts = [p for p in parts if p[0].shape[0]]
    if not parts:
        return empty
    return xp.concatenate([p[0] for p in parts]), xp.concatenate([p[1] for p in parts])


def _block(xp, A, B, BT, sr, mkeys, mi, mj, use_a, work):
    total = int(work.sum())
    if total == 0:
        return xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=sr.out_dtype)
    owner = repeat_index(xp, work, total)
    off = xp.arange(total, dtype=_I64) - (xp.cumsum(work) - work)[owner]
    ua = use_a[owner]
    i, j = mi[owner], mj[owner]
    aptr = A.csr.indptr.astype(_I64)
    btptr = BT.indptr.astype(_I64)
    akeys, acols, avals = A._keys(), A._coords()[2], A._values()
    bkeys, bvals = B._keys(), B._values()
    btidx = BT.indices.astype(_I64)
    btvals = BT.values if BT.values is not None else xp.ones(BT.nnz, dtype=B.dtype)
    k = xp.empty(total, dtype=_I64)
    found = xp.empty(total, dtype=bool)
    pa = xp.empty(total, dtype=_I64)
    bv = xp.empty(total, dtype=B.dtype)
    sa = xp.flatnonzero(ua)            # walk row i of A, look (k, j) up in B
    if sa.shape[0]:
        p = aptr[i[sa]] + off[sa]
        kk = acols[p]
        f, pb = lookup(xp, kk * B.ncols + j[sa], bkeys)
        k[sa], found[sa], pa[sa], bv[sa] = kk, f, p, bvals[pb]
    sb = xp.flatnonzero(~ua)           # walk column j of B, look (i, k) up in A
    if sb.shape[0]:
        p = btptr[j[sb]] + off[sb]
        kk = btidx[p]
        f, q = lookup(xp, i[sb] * A.ncols + kk, akeys)
        k[sb], found[sb], pa[sb], bv[sb] = kk, f, q, btvals[p]
    keep = xp.flatnonzero(found)
    if keep.shape[0] == 0:
        return xp.zeros(0, dtype=_I64), xp.zeros(0, dtype=sr.out_dtype)
    owner, k, pa, bv, i = owner[keep], k[keep], pa[keep], bv[keep], i[keep]
    if sr.mul.is_index_op:
        prod = _kern.binary(sr.mul, avals[pa], bv, xp, i=i, j=k)
    else:
        prod = _kern.binary(sr.mul, avals[pa], bv, xp)
    starts = segment_starts(xp, owner)
    red = _kern.reduce_segments(sr.add, prod, starts, xp)
    return mkeys[owner[starts]], _kern.cast(red, sr.out_dtype, xp)
