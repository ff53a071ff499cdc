"""networkx's degree-sequence tests (``is_graphical`` and friends) on hpgraph.is_graphical.

These take a sequence, not a graph.  The sequence is validated by networkx's own
``make_list_of_ints`` (its exceptions and its answers for non-integers), then
:func:`hpgraph.is_graphical` answers: the Erdős–Gallai inequalities for every ``k`` at once for
a simple graph (Havel–Hakimi's test accepts the same sequences, so both methods use it), the
parity and largest-degree conditions for multigraphs and pseudographs.
"""

from __future__ import annotations

import numpy as np

from ._registry import _nx, device, hp_algorithm, implements


def _ints(sequence):
    return np.asarray(_nx().utils.make_list_of_ints(sequence), dtype=np.int64)


def _graphical(d, kind):
    """:func:`hpgraph.is_graphical` of the validated int64 sequence ``d``."""
    return hp_algorithm("is_graphical")(d, kind, backend=device())


def _erdos_gallai(deg_sequence):
    """True when the sequence is the degree sequence of a simple graph (networkx's
    NetworkXError for a sequence that is not all integers)."""
    return _graphical(_ints(deg_sequence), "simple")


@implements("is_valid_degree_sequence_erdos_gallai", needs=("is_graphical",))
def is_valid_degree_sequence_erdos_gallai(deg_sequence):
    """True when ``deg_sequence`` is graphical (Erdős–Gallai, vectorised)."""
    return _erdos_gallai(deg_sequence)


@implements("is_valid_degree_sequence_havel_hakimi", needs=("is_graphical",))
def is_valid_degree_sequence_havel_hakimi(deg_sequence):
    """True when ``deg_sequence`` is graphical (same answer as Havel–Hakimi)."""
    return _erdos_gallai(deg_sequence)


@implements("is_graphical", needs=("is_graphical",))
def is_graphical(sequence, method="eg"):
    """True when ``sequence`` is the degree sequence of a simple graph."""
    if method not in ("eg", "hh"):
        raise _nx().NetworkXException("`method` must be 'eg' or 'hh'")
    return _erdos_gallai(list(sequence))


@implements("is_multigraphical", needs=("is_graphical",))
def is_multigraphical(sequence):
    """True when ``sequence`` is the degree sequence of a multigraph (no self-loops)."""
    try:
        d = _ints(sequence)
    except _nx().NetworkXError:
        return False
    return _graphical(d, "multi")


@implements("is_pseudographical", needs=("is_graphical",))
def is_pseudographical(sequence):
    """True when ``sequence`` is the degree sequence of a pseudograph (loops allowed)."""
    try:
        d = _ints(sequence)
    except _nx().NetworkXError:
        return False
    if d.shape[0] == 0:
        min(())  # networkx's min() of an empty sequence: ValueError
    return _graphical(d, "pseudo")
