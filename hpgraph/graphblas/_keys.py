"""Sorted-key helpers shared by the operations (NumPy or CuPy, same code).

An object's entries are handled as one sorted, duplicate-free int64 *key* per entry (a
vector's index; ``row * ncols + col`` for a matrix) and a value array.  Set algebra on keys
(membership, union, intersection) is a sort or a binary search, which both backends do fast.
(Matrix operations with a plain output use :mod:`._rowwise`'s row-wise forms instead.)
"""

from __future__ import annotations

import numpy as np

from ..formats._base import stable_argsort

__all__ = ["member", "lookup", "union", "repeat_index", "segment_starts", "sort_by"]


def member(xp, keys, sorted_keys):
    """Bool array: ``keys[k]`` occurs in ``sorted_keys``."""
    if sorted_keys.shape[0] == 0 or keys.shape[0] == 0:
        return xp.zeros(keys.shape[0], dtype=bool)
    pos = xp.searchsorted(sorted_keys, keys)
    pos = xp.minimum(pos, sorted_keys.shape[0] - 1)
    return sorted_keys[pos] == keys


def lookup(xp, keys, sorted_keys):
    """(found, pos): ``sorted_keys[pos[k]] == keys[k]`` where ``found[k]``."""
    if sorted_keys.shape[0] == 0:
        z = xp.zeros(keys.shape[0], dtype=np.int64)
        return xp.zeros(keys.shape[0], dtype=bool), z
    pos = xp.searchsorted(sorted_keys, keys)
    pos = xp.minimum(pos, sorted_keys.shape[0] - 1)
    return sorted_keys[pos] == keys, pos


def union(xp, ka, kb):
    """Sorted union of two sorted duplicate-free key arrays, and for each union key its
    position in ``ka`` / ``kb`` (or -1)."""
    na = ka.shape[0]
    keys = xp.concatenate([ka, kb])
    src = stable_argsort(xp, keys)        # a key in both: its ka copy first, then its kb copy
    keys = keys[src]
    n = keys.shape[0]
    first = xp.ones(n, dtype=bool)
    if n > 1:
        first[1:] = keys[1:] != keys[:-1]
    slot = xp.cumsum(first) - 1           # union position of every merged entry
    m = int(slot[-1]) + 1 if n else 0
    pa = xp.full(m, -1, dtype=np.int64)
    pb = xp.full(m, -1, dtype=np.int64)
    from_a = src < na
    pa[slot[from_a]] = src[from_a]
    pb[slot[~from_a]] = src[~from_a] - na
    return keys[first], pa, pb


def repeat_index(xp, counts, total=None):
    """``repeat(arange(len(counts)), counts)`` (on the device without a host copy of ``counts``)."""
    counts = counts.astype(np.int64, copy=False)
    n = counts.shape[0]
    if total is None:
        total = int(counts.sum()) if n else 0
    if total == 0:
        return xp.zeros(0, dtype=np.int64)
    if xp is np:
        return np.repeat(np.arange(n, dtype=np.int64), counts)
    return _owners(xp, counts, total)


def _owners(xp, counts, total):
    """:func:`repeat_index`'s device form: at the first position of each non-empty segment
    the jump from the previous non-empty segment's id, and a prefix sum (a plain scatter to
    distinct positions; a bincount of every segment's end piled its atomics onto the ends of
    empty segments: 1.5 ms for a few thousand positions over 2.1M mostly empty segments on an
    H200)."""
    nz = xp.flatnonzero(counts)
    starts = (xp.cumsum(counts) - counts)[nz]
    jump = nz.astype(np.int64, copy=True)
    jump[1:] -= nz[:-1]
    marks = xp.zeros(total, dtype=np.int64)
    marks[starts] = jump
    return xp.cumsum(marks)


def segment_starts(xp, sorted_keys):
    """Positions where a new key starts in a sorted key array (duplicates grouped)."""
    n = sorted_keys.shape[0]
    if n == 0:
        return xp.zeros(0, dtype=np.int64)
    flag = xp.empty(n, dtype=bool)
    flag[0] = True
    flag[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return xp.flatnonzero(flag)


def sort_by(xp, keys):
    """Stable permutation sorting ``keys``."""
    return stable_argsort(xp, keys)
