"""networkx's degree-sequence tests (``is_graphical`` and friends), vectorised in NumPy.

These take a sequence, not a graph.  The Erdős–Gallai inequalities are checked for every ``k``
at once from the sorted sequence's prefix sums and the counts of degrees ``>= k`` (one sort, one
``searchsorted``), instead of networkx's loop over runs of equal degrees; Havel–Hakimi's test
gives the same answer by the Havel–Hakimi / Erdős–Gallai equivalence, so both methods run the
vectorised check.  Integer validation is networkx's own ``make_list_of_ints``.
"""

from __future__ import annotations

import numpy as np

from ._registry import _nx, implements


def _ints(sequence):
    return np.asarray(_nx().utils.make_list_of_ints(sequence), dtype=np.int64)


def _erdos_gallai(deg_sequence):
    """True when the sequence is the degree sequence of a simple graph (networkx's
    NetworkXError for a sequence that is not all integers)."""
    d = _ints(deg_sequence)
    p = d.shape[0]
    if p == 0:
        return True
    if np.any(d < 0) or np.any(d >= p):
        return False
    d = np.sort(d[d > 0])[::-1]
    n = int(d.shape[0])
    if n == 0:
        return True
    total = int(d.sum())
    if total % 2 or total > n * (n - 1):
        return False
    csum = np.concatenate([[0], np.cumsum(d)])
    k = np.arange(1, n + 1, dtype=np.int64)
    asc = d[::-1]
    ge = n - np.searchsorted(asc, k, side="left")          # how many degrees are >= k
    split = np.maximum(k, ge)
    rhs = k * (k - 1) + k * np.maximum(ge - k, 0) + (total - csum[split])
    return bool(np.all(csum[1:] <= rhs))


@implements("is_valid_degree_sequence_erdos_gallai")
def is_valid_degree_sequence_erdos_gallai(deg_sequence):
    """True when ``deg_sequence`` is graphical (Erdős–Gallai, vectorised)."""
    return _erdos_gallai(deg_sequence)


@implements("is_valid_degree_sequence_havel_hakimi")
def is_valid_degree_sequence_havel_hakimi(deg_sequence):
    """True when ``deg_sequence`` is graphical (same answer as Havel–Hakimi)."""
    return _erdos_gallai(deg_sequence)


@implements("is_graphical")
def is_graphical(sequence, method="eg"):
    """True when ``sequence`` is the degree sequence of a simple graph."""
    if method not in ("eg", "hh"):
        raise _nx().NetworkXException("`method` must be 'eg' or 'hh'")
    return _erdos_gallai(list(sequence))


@implements("is_multigraphical")
def is_multigraphical(sequence):
    """True when ``sequence`` is the degree sequence of a multigraph (no self-loops)."""
    try:
        d = _ints(sequence)
    except _nx().NetworkXError:
        return False
    if np.any(d < 0):
        return False
    total = int(d.sum())
    return not (total % 2 or total < 2 * (int(d.max()) if d.shape[0] else 0))


@implements("is_pseudographical")
def is_pseudographical(sequence):
    """True when ``sequence`` is the degree sequence of a pseudograph (loops allowed)."""
    try:
        d = _ints(sequence)
    except _nx().NetworkXError:
        return False
    if d.shape[0] == 0:
        min(())  # networkx's min() of an empty sequence: ValueError
    return int(d.sum()) % 2 == 0 and int(d.min()) >= 0
