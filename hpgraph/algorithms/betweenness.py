"""Betweenness centrality (Brandes), unweighted, on semiring SpMV; matches networkx.

The sources (all vertices, or ``k`` sampled exactly as networkx samples them) go in batches of
``b``: every per-source vector becomes an ``n x b`` block, one column per source, and one level
of all ``b`` searches is one sparse-dense product (SciPy on the CPU, cuSPARSE through cupyx on
the GPU):

* **forward** -- a BFS level by level counting shortest paths: ``T = A^T @ F``, with ``F`` the
  path counts ``sigma`` on each column's frontier and 0 elsewhere, gives the paths arriving at
  every vertex; the unvisited entries with ``T > 0`` form the next level and take
  ``sigma = T``;
* **backward** -- dependencies level by level, deepest first: ``T = A @ C`` with
  ``C = (1 + delta) / sigma`` on level ``d`` (0 elsewhere), and ``delta = sigma * T`` on level
  ``d - 1``;

On the GPU, when ``n x 64`` float64 fit ``betweenness_gpu_batch_entries``, the sweeps of 64
sources run instead in :mod:`._betweenness_gpu` (one bit of a word per source; only the
shortest-path DAG's (edge, source) pairs move numbers), and the products remain for larger
graphs and for searches of thousands of levels.  On the CPU, deep searches (road graphs:
hundreds of levels) run on the shortest-path DAG of :mod:`._brandes` instead.

Either way, ``bc += delta`` off the source (networkx's ``_accumulate_basic``/``_accumulate_endpoints``)
and networkx's rescaling (``_rescale``, including the per-vertex scales of ``k`` sampling when
endpoints are excluded).  With ``weight`` (Dijkstra-based Brandes) the sweeps run on the
shortest-path DAG of each source instead (:mod:`._brandes`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._config import config
from ..exceptions import InvalidValue
from . import _scipy_cpu
from ._betweenness_gpu import WIDTH, accumulate
from ._common import finish, prepare
from .._arrayops import bincount

__all__ = ["betweenness_centrality"]



def betweenness_centrality(G, k=None, seed=None, *, normalized=True, endpoints=False, weight=None,
                           backend=None, to=None):
    """Shortest-path betweenness centrality of every vertex (as ``networkx.betweenness_centrality``).

    Parameters
    ----------
    G : hpgraph.Graph (or scipy/cupyx sparse matrix, networkx graph)
        Paths follow edge directions on a directed graph.
    k : int, optional
        Use ``k`` sampled source vertices instead of all of them (an estimate).  The sample is
        ``seed.sample(list(range(n)), k)``, what networkx draws for a graph whose nodes are
        ``0..n-1`` in order, so the same ``seed`` gives the same result as networkx.
    seed : None, int, random.Random (or what networkx's ``py_random_state`` accepts)
        Randomness of the sampling (None: Python's global ``random`` state).
    normalized : bool, default True
        Divide by the number of (source, target) pairs, networkx's way.
    endpoints : bool, default False
        Count the path endpoints too.
    weight : None, True or str
        ``None``: hop-count shortest paths.  Anything else (networkx's attribute name, e.g.
        ``"weight"``): path lengths are sums of the stored edge weights, which must be
        positive; repeated edges count once with their smallest weight; an unweighted ``G``
        has weights 1 (networkx's default for a missing attribute).
    backend : {None, "auto", "cpu", "gpu"}
    to : {None, "numpy", "cupy"}

    Returns
    -------
    array of float64
        ``bc[v]`` for every vertex (networkx returns the same numbers in a dict).

    Raises
    ------
    InvalidValue
        ``k`` not an integer in ``[1, n]``; a zero or negative weight with ``weight``.
    """
    G, side, on_dev = prepare(G, backend)
    n = int(G.num_vertices)
    xp = G.xp
    sources = sample_sources(n, k, seed)
    k = None if sources is None else len(sources)
    if weight is not None and G.weighted:
        from ._brandes import dag_brandes

        bc, _, _ = dag_brandes(G, np.arange(n, dtype=np.int64) if sources is None else
                               np.asarray(sources, dtype=np.int64), weighted=True, side=side,
                               endpoints=endpoints)
        bc = _rescale(xp, bc, n, normalized=normalized, directed=G.directed,
                      endpoints=endpoints, sampled=sources)
        return finish(bc, on_dev, to)
    if sources is None:
        sources = range(n)
    if side == "cpu" and n and _deep(G, sources):
        from ._brandes import dag_brandes

        bc, _, _ = dag_brandes(G, np.asarray(sources, dtype=np.int64), weighted=False,
                               side=side, endpoints=endpoints)
        bc = _rescale(xp, bc, n, normalized=normalized, directed=G.directed,
                      endpoints=endpoints, sampled=None if k is None else sources)
        return finish(bc, on_dev, to)
    A, AT = _unique_pattern(G)
    ops = []                                  # the products' operands, made when first needed

    def products(batch, bc):
        if not ops:
            ops.extend(_pattern_operands(A, AT, xp))
        return _accumulate_batch(ops[0], ops[1], n, xp, batch, bc, endpoints)

    bc = xp.zeros(n, dtype=np.float64)
    entries = config[f"betweenness_{side}_batch_entries"]
    if side == "gpu" and n * WIDTH <= entries:     # 64 sources a sweep, a bit per source
        for i in range(0, len(sources), WIDTH):
            batch = sources[i:i + WIDTH]
            if accumulate(A, AT, batch, bc, endpoints) is None:   # thousands of levels
                bc = products(batch, bc)
    else:
        width = max(1, entries // max(n, 1))
        for i in range(0, len(sources), width):
            bc = products(sources[i:i + width], bc)
    bc = _rescale(xp, bc, n, normalized=normalized, directed=G.directed, endpoints=endpoints,
                  sampled=None if k is None else sources)
    return finish(bc, on_dev, to)


#: On the CPU, searches deeper than this many levels (the first source's, by SciPy's BFS) run
#: on the shortest-path DAG (:mod:`._brandes`: SciPy's BFS per source, work per level in
#: proportion to the level) instead of the products, whose every level costs all ``n x b``
#: entries.  16 sources, 2 cores: NY roads (415 levels) 52.6 s -> 3.3 s (networkx 26 s);
#: soc-Slashdot (a dozen levels) 0.39 s by products against 3.5 s on the DAG.
CPU_DAG_LEVELS = 64


def _deep(G, sources) -> bool:
    """Whether the first source's BFS on ``G`` (host) has more than :data:`CPU_DAG_LEVELS`
    levels (False where SciPy cannot take ``G``)."""
    if not _scipy_cpu.usable(G):
        return False
    depth, _ = _scipy_cpu.bfs_scipy(G, np.asarray([sources[0]], dtype=np.int64), np.int64)
    return int(depth.max()) > CPU_DAG_LEVELS


def sample_sources(n, k, seed):
    """The sources networkx draws for ``k`` on a graph of nodes ``0..n-1`` (None: all of them;
    also for ``k == n``, where networkx does not sample)."""
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise InvalidValue(f"k must be an integer number of sources or None, got {k!r}")
        k = int(k)
        if not 1 <= k <= n:
            raise InvalidValue(f"k must lie in [1, {n}] (the number of vertices), got {k}")
        if k == n:  # networkx: the same result, without sampling
            k = None
    if k is None:
        return None
    # random.sample reads only len() and items of the population: a range draws exactly what
    # networkx's list of nodes draws, without building an n-element list
    return _py_random_state(seed).sample(range(n), k)


def _py_random_state(seed):
    """``random.Random`` for ``seed`` the way networkx's ``py_random_state`` decorator makes it."""
    import random

    if seed is None or seed is random:
        return random._inst
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return random.Random(int(seed))
    try:
        from networkx.utils import create_py_random_state
    except ImportError:
        raise InvalidValue(f"seed must be None, an int or a random.Random, got {type(seed).__name__}") from None
    try:
        return create_py_random_state(seed)
    except ValueError as exc:
        raise InvalidValue(f"seed: {exc}") from None


def _unique_pattern(G):
    """(A, A^T) for counting paths: the graph's own matrices, or deduplicated copies when the
    graph stores repeated edges (``duplicates="keep"``), which would count paths twice."""
    from ..formats import CSR

    A = G.A
    xp = G.xp
    if A.nnz > 1:
        ind, ptr = A.indices, A.indptr
        same = ind[1:] == ind[:-1]
        starts = ptr[1:-1]
        starts = starts[(starts > 0) & (starts < A.nnz)]
        if starts.shape[0]:
            same[starts - 1] = False
        if bool(same.any()):
            keep = xp.concatenate([xp.ones(1, dtype=bool), ~same])
            rows = A.row_ids()[keep]
            n = A.nrows
            counts = bincount(xp, rows, minlength=n)
            indptr = xp.zeros(n + 1, dtype=ptr.dtype)
            indptr[1:] = xp.cumsum(counts)
            U = CSR._new(indptr, xp.ascontiguousarray(ind[keep]), None, A.shape)
            return U, (U.transpose() if G.directed else U)
    return A, G.AT


def _pattern_operands(A, AT, xp):
    """scipy (host) or cupyx (device) float64 CSR matrices of the patterns of ``A`` and
    ``A^T`` (every stored entry 1.0), for the sparse-dense products of the sweeps."""
    def conv(M):
        data = xp.ones(M.nnz, dtype=np.float64)
        if xp is np:
            import scipy.sparse as sp

            return sp.csr_matrix((data, M.indices, M.indptr), shape=M.shape)
        import cupyx.scipy.sparse as cs

        return cs.csr_matrix((data, M.indices, M.indptr), shape=M.shape)

    Ap = conv(A)
    return Ap, (Ap if AT is A else conv(AT))


def _accumulate_batch(Ap, ATp, n, xp, sources, bc, endpoints):
    """Brandes for a batch of sources at once: column ``j`` of every ``n x b`` block belongs
    to ``sources[j]``; a BFS level (forward) or a dependency level (backward) of the whole
    batch is one sparse-dense product."""
    b = len(sources)
    cols = xp.arange(b)
    src = xp.asarray(np.asarray(sources, dtype=np.int64))
    sigma = xp.zeros((n, b), dtype=np.float64)
    sigma[src, cols] = 1.0
    depth = xp.full((n, b), -1, dtype=np.int32)
    depth[src, cols] = 0
    front = sigma.copy()
    d = 0
    while True:  # forward: count shortest paths level by level
        t = ATp @ front
        new = (t > 0) & (depth < 0)
        if not bool(new.any()):
            break
        d += 1
        sigma = xp.where(new, t, sigma)
        depth[new] = d
        front = xp.where(new, t, 0.0)
    delta = xp.zeros((n, b), dtype=np.float64)
    safe = xp.where(sigma > 0, sigma, 1.0)
    for lvl in range(d, 0, -1):  # backward: dependencies, deepest level first
        coeff = xp.where(depth == lvl, (1.0 + delta) / safe, 0.0)
        t = Ap @ coeff
        delta = xp.where(depth == lvl - 1, sigma * t, delta)
    reached = depth >= 0
    if endpoints:
        reached[src, cols] = False
        bc = bc + xp.where(reached, delta + 1.0, 0.0).sum(axis=1)
        counts = reached.sum(axis=0).astype(np.float64)       # reached, source excluded
        add = xp.zeros(n, dtype=np.float64)
        add += bincount(xp, src, weights=counts, minlength=n)
        return bc + add
    delta[src, cols] = 0.0
    return bc + delta.sum(axis=1)


def _rescale(xp, bc, n, *, normalized, directed, endpoints, sampled):
    """networkx's ``_rescale`` (3.6), vectorised."""
    k = None if sampled is None else len(sampled)
    N = n if endpoints else n - 1
    if N < 2:
        return bc
    K_source = N if k is None else k
    if k is None or endpoints:
        if normalized:
            scale = 1 / (K_source * (N - 1))
        else:
            correction = 1 if directed else 2
            scale = N / (K_source * correction)
        return bc * scale if scale != 1 else bc
    if normalized:
        scale_source = 1 / ((K_source - 1) * (N - 1)) if K_source > 1 else math.nan
        scale_nonsource = 1 / (K_source * (N - 1))
    else:
        correction = 1 if directed else 2
        scale_source = N / ((K_source - 1) * correction) if K_source > 1 else math.nan
        scale_nonsource = N / (K_source * correction)
    scale = xp.full(n, scale_nonsource, dtype=np.float64)
    scale[xp.asarray(np.asarray(sampled, dtype=np.int64))] = scale_source
    return bc * scale
