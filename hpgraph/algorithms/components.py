"""Connected components (weak components of a directed graph): FastSV on semiring SpMV.

FastSV (Zhang, Azad and Hu, 2020; the LAGraph formulation) keeps a parent vector ``f``
(initially every vertex its own parent) and its grandparent ``gp = f[f]``.  One iteration:

1. ``mngp[u] = min(mngp[u], min over neighbours v of gp[v])`` -- one ``min_second`` SpMV over
   ``A`` (and one over ``A^T`` for a directed graph: weak connectivity ignores direction), with
   ``accum=min``;
2. stochastic hooking ``f[f[u]] = min(f[f[u]], mngp[u])`` -- a scatter-min;
3. aggressive hooking ``f = min(f, mngp)`` and shortcutting ``f = min(f, gp)``;
4. pointer jumping ``gp = f[f]``;

until ``gp`` stops changing.  Labels only decrease and the smallest vertex id of a component is
always its own parent, so every vertex ends pointing at its component's smallest id; labels are
then numbered in the order of those ids, exactly like
``scipy.sparse.csgraph.connected_components``.
"""

from __future__ import annotations

import numpy as np

from . import _scipy_cpu
from ._common import finish, prepare, vertex_id_dtype

__all__ = ["connected_components"]


def connected_components(G, *, backend=None, to=None):
    """Connected components of an undirected graph, weak components of a directed one.

    Parameters
    ----------
    G : hpgraph.Graph (or scipy/cupyx sparse matrix, networkx graph)
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}
        Where ``labels`` lives (default: the side of the input graph).

    Returns
    -------
    (int, array of int32)
        ``n_components`` and ``labels``: component of each vertex, numbered 0, 1, ... in the
        order of each component's smallest vertex id (as scipy's ``connected_components``).
    """
    G, side, on_dev = prepare(G, backend)
    if side == "cpu" and _scipy_cpu.usable(G):     # SciPy's, numbered the same way
        n_components, labels = _scipy_cpu.components_scipy(G)
        return n_components, finish(labels, on_dev, to)
    f = fastsv_parents(G, side)
    n_components, labels = number_by_root(G.xp, f)
    return n_components, finish(labels, on_dev, to)


def fastsv_parents(G, side):
    """Converged FastSV parent vector: ``f[v]`` = smallest vertex id of v's component."""
    from .. import ops
    from ..spmv import spmv

    xp = G.xp
    n = int(G.num_vertices)
    idt = vertex_id_dtype(n)
    f = xp.arange(n, dtype=idt)
    if n == 0:
        return f
    mats = [G.A] if not G.directed else [G.A, G.AT]
    sr = ops.lookup_semiring("min_second", idt)
    mn = ops.lookup_binary("min", idt)
    gp = f.copy()
    mngp = f.copy()
    while True:
        for M in mats:
            mngp = spmv(M, gp, sr, out=mngp, accum=mn, backend=side)
        f = _scatter_min(xp, f, f, mngp)               # stochastic hooking (into a copy)
        f = xp.minimum(f, mngp)                        # aggressive hooking
        f = xp.minimum(f, gp)                          # shortcutting
        gp_new = f[f]                                  # pointer jumping
        if bool((gp_new == gp).all()):
            break
        gp = gp_new
    # converged: every tree is a star; one more jump makes f exact even if it were not
    return f[f]


def _scatter_min(xp, target, index, values):
    """``target[index[k]] = min(target[index[k]], values[k])`` for all k (new array)."""
    out = target.copy()
    if xp is np:
        np.minimum.at(out, index, values)
        return out
    import cupyx

    cupyx.scatter_min(out, index, values)
    return out


def number_by_root(xp, f):
    """(count, labels int32) numbering the roots ``f[v] == v`` in increasing order."""
    n = int(f.shape[0])
    is_root = f == xp.arange(n, dtype=f.dtype)
    rank = xp.cumsum(is_root, dtype=np.int64) - 1
    labels = rank[f].astype(np.int32)
    count = int(rank[-1]) + 1 if n else 0
    return count, labels
