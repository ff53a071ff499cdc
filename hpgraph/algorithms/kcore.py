"""k-core decomposition: the core number of every vertex, like ``networkx.core_number``.

Parallel peeling (as in Gunrock's k-core): with ``k`` the current level, remove at once every
remaining vertex of degree ``<= k`` (its core number is ``k``), lower the degrees of its
remaining neighbours, and repeat; when no remaining vertex has degree ``<= k``, ``k`` jumps to
the smallest remaining degree.  A round lowers the remaining vertices' degrees by the removed
vertices' edges (a push: ``deg -= A removed`` over the remaining rows).  On the CPU the push is
a gather of the removed vertices' CSR rows and a ``bincount`` of their neighbours, so a round
costs the removed vertices' edges and the whole run ``O(m)``.  On the
GPU every round runs on the device (:mod:`hpgraph.algorithms._kcore_gpu`: a selection pass, a
warp-balanced push with atomic subtractions whose last block raises ``k``),
replayed as CUDA graphs, with one host read per batch of rounds.

Graph semantics:

* Undirected: the simple graph -- self-loops and repeated entries are ignored.  (networkx
  raises ``NetworkXNotImplemented`` on self-loops; dropping them gives the core numbers of the
  graph without them, which is what networkx's message asks the user to compute.)
* Directed: as networkx, a vertex's degree is in-degree + out-degree and its neighbours are
  its predecessors and successors; a mutual pair ``u <-> v`` counts twice.  Self-loops and
  repeated entries are ignored here too.
"""

from __future__ import annotations

import numpy as np

from ._common import finish, prepare
from ._triangles import simple_matrix
from ._vec import expand_rows

__all__ = ["k_core"]


def k_core(G, *, backend=None, to=None):
    """Core number of every vertex (the largest k such that the vertex is in the k-core).

    Parameters
    ----------
    G : Graph, scipy/cupyx sparse matrix or networkx graph
        Undirected or directed (see the module docstring); self-loops and repeated entries are
        ignored.
    backend : {"auto", "cpu", "gpu", None}
    to : {None, "numpy", "cupy"}
        Where the result goes (default: the input's side).

    Returns
    -------
    array of int32, length n

    Examples
    --------
    >>> import hpgraph as hp
    >>> hp.k_core(hp.generators.complete(4, backend="cpu"), backend="cpu")
    array([3, 3, 3, 3], dtype=int32)
    """
    from .. import ops
    from .. import spmv as _spmv

    G, side, on_dev = prepare(G, backend)
    xp = G.xp
    n = G.num_vertices
    core = xp.zeros(n, dtype=np.int32)
    if n == 0:
        return finish(core, on_dev, to)
    S = simple_matrix(G)
    if S.is_pattern:
        deg = S.row_lengths().astype(np.int32)
    else:  # directed: values are multiplicities
        sr = ops.lookup_semiring("plus_times[int32]")
        deg = _spmv.spmv(S, xp.ones(n, dtype=np.int32), sr, backend=side)
    if side == "gpu":
        from ._kcore_gpu import core_numbers

        return finish(core_numbers(S, deg.astype(np.int32, copy=False)), on_dev, to)
    alive = np.ones(n, dtype=bool)
    big = np.iinfo(np.int32).max
    k = 0
    while True:
        m = int(np.where(alive, deg, big).min())
        if m == big:
            break
        k = max(k, m)
        removed = alive & (deg <= k)
        core[removed] = k
        alive &= ~removed
        # the removed vertices' rows only (the CPU's push): O(their edges) per round
        pos = expand_rows(np, S.indptr, np.flatnonzero(removed))
        tgt = S.indices[pos]
        w = None if S.values is None else S.values[pos].astype(np.float64)
        dec = np.bincount(tgt, weights=w, minlength=n)
        deg = np.where(alive, deg - dec.astype(np.int32), deg)
    return finish(core, on_dev, to)
