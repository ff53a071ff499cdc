"""Synthetic graphs: R-MAT / Kronecker (Graph500), 2-D grids, Erdos-Renyi, paths, stars, cliques.

Every generator is vectorised (no Python loop over edges), seeded and reproducible: the same
``seed`` on the same backend gives the same graph. With ``backend="gpu"`` (or ``"auto"`` on a
machine with a usable GPU) the edges are drawn with ``cupy.random`` on the device; the GPU and
CPU graphs of one seed are not the same graph, but each is reproducible.

Each public generator returns a :class:`~hpgraph.graph.Graph` built with ``Graph.from_edges``.
The ``*_edges`` helpers behind them return an :class:`~hpgraph.io.EdgeList` instead, and
:func:`from_spec` / :func:`edges_from_spec` understand the short specs the command line takes
(``"rmat:20"``, ``"grid:1024x1024"``, ``"er:1000:5000"``, ...).

``weights`` (every generator):

* ``None`` -- unweighted (pattern) graph;
* ``(lo, hi)`` with integers -- uniform integers in ``[lo, hi]`` (both ends included; int32
  when they fit), like GAP's 1..255 Kronecker weights;
* ``(lo, hi)`` with a float -- uniform float32 in ``[lo, hi)``;
* ``"uniform"`` -- uniform float32 in ``[0, 1)``.

For undirected graphs each edge gets one weight, the same in both directions.
"""

from __future__ import annotations

import re

import numpy as np

from . import backend as _backend
from .exceptions import InvalidValue
from .io import EdgeList

__all__ = [
    "rmat",
    "grid_2d",
    "erdos_renyi",
    "path",
    "star",
    "complete",
    "from_spec",
    "edges_from_spec",
    "is_spec",
    "rmat_edges",
    "grid_2d_edges",
    "erdos_renyi_edges",
    "path_edges",
    "star_edges",
    "complete_edges",
    "SPEC_HELP",
    "rmat_chunks",
    "grid_2d_chunks",
]

_CHUNK = 1 << 22  # R-MAT edges drawn per batch (bounds temporary memory)


# ---------------------------------------------------------------------------------------------
# helpers


class _Rng:
    """One seeded stream over NumPy (``Generator``) or CuPy (``RandomState``)."""

    def __init__(self, xp, seed):
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise InvalidValue(f"seed must be an int or None, got {type(seed).__name__}")
        if seed is not None and int(seed) < 0:
            raise InvalidValue(f"seed must be non-negative, got {seed}")
        ss = np.random.SeedSequence(None if seed is None else int(seed))
        self.xp = xp
        self.gpu = xp is not np
        if self.gpu:
            self.g = xp.random.RandomState(int(ss.generate_state(1, np.uint64)[0]) & (2**63 - 1))
        else:
            self.g = np.random.default_rng(ss)

    def random(self, size, dtype=np.float32):
        if self.gpu:
            return self.g.random_sample(size, dtype=dtype)
        return self.g.random(size, dtype=dtype)

    def integers(self, lo, hi, size, dtype=np.int64):
        """Uniform integers in ``[lo, hi)``."""
        if self.gpu:
            return self.g.randint(lo, hi, size=size, dtype=dtype)
        return self.g.integers(lo, hi, size=size, dtype=dtype)

    def permutation(self, n):
        return self.g.permutation(n)


def _xp(backend):
    be = _backend.resolve(backend)
    return be, (np if be == "cpu" else _backend.cupy())


def _check_int(name, value, minimum=0, maximum=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidValue(f"{name} must be an integer, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        hi = "" if maximum is None else f" and <= {maximum}"
        raise InvalidValue(f"{name} must be >= {minimum}{hi}, got {value}")
    return int(value)


def _weights(rng: _Rng, m: int, weights):
    """Draw ``m`` weights following the ``weights`` spec (see the module docstring)."""
    if weights is None:
        return None
    xp = rng.xp
    if isinstance(weights, str):
        if weights == "uniform":
            return rng.random(m, dtype=np.float32)
        raise InvalidValue(f"weights must be None, 'uniform' or a (lo, hi) pair, got {weights!r}")
    try:
        lo, hi = weights
    except (TypeError, ValueError):
        raise InvalidValue(f"weights must be None, 'uniform' or a (lo, hi) pair, got {weights!r}") from None
    ints = all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (lo, hi))
    if ints:
        if hi < lo:
            raise InvalidValue(f"weights=(lo, hi) needs lo <= hi, got {weights!r}")
        dt = np.int32 if (np.iinfo(np.int32).min <= lo and hi < np.iinfo(np.int32).max) else np.int64
        return rng.integers(int(lo), int(hi) + 1, m, dtype=dt)
    try:
        lo, hi = float(lo), float(hi)
    except (TypeError, ValueError):
        raise InvalidValue(f"weights=(lo, hi) must hold numbers, got {weights!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi < lo:
        raise InvalidValue(f"weights=(lo, hi) needs finite lo <= hi, got {weights!r}")
    w = rng.random(m, dtype=np.float32)
    return (w * xp.float32(hi - lo) + xp.float32(lo)).astype(np.float32)


def _dedupe(xp, u, v, n, directed, *, drop_loops=True, dedupe=True):
    """Drop self-loops and repeated edges (undirected: as unordered pairs, returned with u <= v)."""
    if drop_loops:
        keep = u != v
        u, v = u[keep], v[keep]
    if not directed:
        u, v = xp.minimum(u, v), xp.maximum(u, v)
    if dedupe and u.shape[0]:
        key = _unique(xp, u.astype(np.int64) * np.int64(n) + v.astype(np.int64))
        u, v = (key // n).astype(u.dtype), (key % n).astype(v.dtype)
    return u, v


def _unique(xp, x):
    """Sorted distinct values (sort + neighbour test; faster than ``np.unique`` on NumPy 2.4)."""
    if x.shape[0] == 0:
        return x
    s = xp.sort(x)
    keep = xp.empty(s.shape[0], dtype=bool)
    keep[0] = True
    xp.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def _graph(el: EdgeList, be: str, duplicates="min"):
    return el.to_graph(backend=be, duplicates=duplicates)


def _ids(xp, n, m=0, who="generator"):
    """An index dtype for ``n`` vertices (int32 below 2**31 - 1); refuses (HostOutOfMemory) sizes
    whose graph (``n + 1`` row pointers, ``m`` edges) cannot fit in host memory."""
    from ._memory import check_host_bytes
    from .dtypes import index_dtype

    idt = index_dtype(n)
    check_host_bytes((n + 1) * 8 + 2 * m * np.dtype(idt).itemsize,
                     f"{who}: a graph of {n:,} vertices and {m:,} edges")
    return idt


# ---------------------------------------------------------------------------------------------
# R-MAT


def rmat_edges(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, seed=None, directed=False,
               weights=None, backend=None, remove_self_loops=True, remove_duplicates=True) -> EdgeList:
    """R-MAT edges as an :class:`~hpgraph.io.EdgeList` (see :func:`rmat`)."""
    scale = _check_int("scale", scale, 0, 40)
    edge_factor = _check_int("edge_factor", edge_factor, 0)
    for name, x in (("a", a), ("b", b), ("c", c)):
        if not (isinstance(x, (int, float, np.floating, np.integer)) and 0.0 <= float(x) <= 1.0):
            raise InvalidValue(f"R-MAT probability {name} must be in [0, 1], got {x!r}")
    a, b, c = float(a), float(b), float(c)
    if a + b + c > 1.0 + 1e-12:
        raise InvalidValue(f"R-MAT probabilities need a + b + c <= 1 (d = 1 - a - b - c), got "
                           f"a + b + c = {a + b + c:g}")
    be, xp = _xp(backend)
    rng = _Rng(xp, seed)
    n = 1 << scale
    m = edge_factor * n
    idt = _ids(xp, n, m, "rmat")
    us, vs = [], []
    for start in range(0, m, _CHUNK):
        k = min(_CHUNK, m - start)
        u, v = _rmat_bits(rng, k, scale, a, b, c, idt)
        us.append(u)
        vs.append(v)
    u = (xp.concatenate(us) if len(us) > 1 else us[0]) if us else xp.zeros(0, idt)
    v = (xp.concatenate(vs) if len(vs) > 1 else vs[0]) if vs else xp.zeros(0, idt)
    perm = rng.permutation(n)  # scramble ids so degree does not follow id order
    if rng.gpu and remove_self_loops and remove_duplicates:
        from ._gen_gpu import distinct_pairs

        u, v = distinct_pairs(u, v, perm, n, directed)       # the same pairs, fewer kernels
    else:
        perm = perm.astype(idt)
        u, v = perm[u], perm[v]
        u, v = _dedupe(xp, u, v, n, directed, drop_loops=remove_self_loops,
                       dedupe=remove_duplicates)
    w = _weights(rng, int(u.shape[0]), weights)
    return EdgeList(u, v, w, n, bool(directed), source=f"rmat:{scale}:{edge_factor}")


def _rmat_bits(rng: _Rng, k: int, scale: int, a: float, b: float, c: float, idt):
    """Draw ``k`` R-MAT (row, col) pairs: per bit level, one quadrant choice for every edge.

    Quadrants by a uniform r: [0, a) top-left, [a, a+b) top-right (column bit), [a+b, a+b+c)
    bottom-left (row bit), [a+b+c, 1) bottom-right (both). So row bit = r >= a+b and
    column bit = (r >= a) xor (r >= a+b) xor (r >= a+b+c).
    """
    xp = rng.xp
    u = xp.zeros(k, dtype=idt)
    v = xp.zeros(k, dtype=idt)
    if rng.gpu:
        from ._gen_gpu import add_level

        for level in range(scale):
            add_level(rng.random(k, dtype=np.float32), a, b, c, level, u, v)
        return u, v
    # CPU: 32-bit integer thresholds and in-place boolean work (about 2x faster than floats)
    ta, tab, tabc = (int(round(x * 2.0**32)) for x in (a, a + b, a + b + c))
    row = np.empty(k, dtype=bool)
    col = np.empty(k, dtype=bool)
    tmp = np.empty(k, dtype=bool)
    for level in range(scale):
        r = rng.g.integers(0, 2**32, k, dtype=np.uint32)
        np.greater_equal(r, tab, out=row)
        np.greater_equal(r, ta, out=col)
        np.greater_equal(r, tabc, out=tmp)
        col ^= tmp
        col ^= row
        u |= np.left_shift(row, level, dtype=idt)
        v |= np.left_shift(col, level, dtype=idt)
    return u, v


def rmat(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, seed=None, directed=False, weights=None,
         backend=None, remove_self_loops=True, remove_duplicates=True):
    """An R-MAT (Kronecker) graph with Graph500 parameters.

    ``edge_factor * 2**scale`` edges are drawn; each picks one quadrant of the adjacency matrix
    per bit level with probabilities ``a, b, c, d = 1 - a - b - c`` (vectorised: all edges draw
    one level at once). Vertex ids are then scrambled by a seeded permutation.

    Parameters
    ----------
    scale : int
        ``2**scale`` vertices (0 <= scale <= 40).
    edge_factor : int, default 16
        Edges drawn per vertex (before removing loops and duplicates).
    a, b, c : float
        Quadrant probabilities (Graph500: 0.57, 0.19, 0.19; d = 0.05).
    seed : int, optional
        Seed; the same seed gives the same graph on the same backend.
    directed : bool, default False
        False symmetrizes: each drawn pair becomes an undirected edge.
    weights : None, "uniform" or (lo, hi)
        Edge weights (see the module docstring).
    backend : {"auto", "cpu", "gpu", None}
        Generate (with ``cupy.random`` on the GPU) and store the graph there.
    remove_self_loops, remove_duplicates : bool, default True
        Drop ``u == v`` edges and repeated (unordered, when undirected) pairs.
        ``remove_duplicates=False`` stores every drawn edge (``duplicates="keep"``).

    Returns
    -------
    Graph

    Examples
    --------
    >>> G = rmat(10, seed=1, backend="cpu")                  # doctest: +SKIP
    >>> G.num_vertices
    1024
    """
    el = rmat_edges(scale, edge_factor, a, b, c, seed, directed, weights, backend,
                    remove_self_loops, remove_duplicates)
    # remove_duplicates=False keeps the multi-edges in the graph too
    return _graph(el, _backend.resolve(backend), duplicates="min" if remove_duplicates else "keep")


# ---------------------------------------------------------------------------------------------
# grid


def grid_2d_edges(rows, cols, weights=None, seed=None, backend=None) -> EdgeList:
    """Edges of a ``rows x cols`` 4-neighbour lattice (see :func:`grid_2d`)."""
    rows = _check_int("rows", rows, 1)
    cols = _check_int("cols", cols, 1)
    be, xp = _xp(backend)
    n = rows * cols
    idt = _ids(xp, n, 2 * n, "grid_2d")
    ids = xp.arange(n, dtype=idt)
    r = ids // cols
    c = ids % cols
    h = ids[c < cols - 1]            # (r, c) - (r, c + 1)
    vt = ids[r < rows - 1]           # (r, c) - (r + 1, c)
    u = xp.concatenate([h, vt])
    v = xp.concatenate([h + 1, vt + cols])
    rng = _Rng(xp, seed)
    w = _weights(rng, int(u.shape[0]), weights)
    return EdgeList(u, v, w, n, False, source=f"grid:{rows}x{cols}")


def grid_2d(rows, cols, weights=None, seed=None, backend=None):
    """A 2-D grid: undirected 4-neighbour lattice, road-like (diameter ``rows + cols - 2``).

    Vertex ``r * cols + c`` is joined to its right and lower neighbours (and so, undirected, to
    all four). ``rows * (cols - 1) + (rows - 1) * cols`` undirected edges.

    Parameters
    ----------
    rows, cols : int
        Grid size (>= 1 each).
    weights : None, "uniform" or (lo, hi)
        Edge weights; ``seed`` makes them reproducible.
    seed : int, optional
    backend : {"auto", "cpu", "gpu", None}

    Returns
    -------
    Graph
    """
    el = grid_2d_edges(rows, cols, weights, seed, backend)
    return _graph(el, _backend.resolve(backend))


# ---------------------------------------------------------------------------------------------
# Erdos-Renyi


def erdos_renyi_edges(n, m=None, p=None, seed=None, directed=False, weights=None,
                      backend=None) -> EdgeList:
    """Edges of a uniform random graph G(n, m) or G(n, p) (see :func:`erdos_renyi`)."""
    n = _check_int("n", n, 1)
    _ids(np, n, 0, "erdos_renyi")  # refuse an n that cannot fit before counting its pairs
    if (m is None) == (p is None):
        raise InvalidValue("give exactly one of m (number of edges) or p (edge probability)")
    max_pairs = n * (n - 1) if directed else n * (n - 1) // 2
    be, xp = _xp(backend)
    rng = _Rng(xp, seed)
    if p is not None:
        if not isinstance(p, (int, float, np.floating, np.integer)) or not 0.0 <= float(p) <= 1.0:
            raise InvalidValue(f"p must be a probability in [0, 1], got {p!r}")
        # G(n, p) = G(n, M) with M ~ Binomial(pairs, p); drawn on the host from the same seed.
        m = int(np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0]).binomial(max_pairs, float(p)))
    else:
        m = _check_int("m", m, 0)
        if m > max_pairs:
            kind = "directed" if directed else "undirected"
            raise InvalidValue(f"m = {m} exceeds the {max_pairs} possible {kind} edges without "
                               f"self-loops on n = {n} vertices")
    idt = _ids(xp, n, m, "erdos_renyi")
    if m == 0:
        u = v = xp.zeros(0, dtype=idt)
    elif m > max_pairs // 2:
        # dense: enumerate every pair and keep a random m of them
        u, v = _all_pairs(xp, n, directed, idt)
        pick = rng.permutation(int(u.shape[0]))[:m]
        u, v = u[pick], v[pick]
        order = xp.argsort(u.astype(np.int64) * n + v)
        u, v = u[order], v[order]
    else:
        keys = xp.zeros(0, dtype=np.int64)
        while int(keys.shape[0]) < m:
            need = m - int(keys.shape[0])
            k = int(need * 1.2) + 64
            uu = rng.integers(0, n, k, dtype=np.int64)
            vv = rng.integers(0, n, k, dtype=np.int64)
            ok = uu != vv
            uu, vv = uu[ok], vv[ok]
            if not directed:
                uu, vv = xp.minimum(uu, vv), xp.maximum(uu, vv)
            keys = _unique(xp, xp.concatenate([keys, uu * n + vv]))
        if int(keys.shape[0]) > m:  # a uniform m-subset of the distinct pairs drawn
            keys = xp.sort(keys[rng.permutation(int(keys.shape[0]))[:m]])
        u, v = (keys // n).astype(idt), (keys % n).astype(idt)
    w = _weights(rng, int(u.shape[0]), weights)
    return EdgeList(u, v, w, n, bool(directed), source=f"er:{n}:{m}")


def erdos_renyi(n, m=None, p=None, seed=None, directed=False, weights=None, backend=None):
    """A uniform random graph: G(n, m) (exactly ``m`` edges) or G(n, p) (each pair with prob. ``p``).

    No self-loops, no repeated edges. Give exactly one of ``m`` and ``p``.

    Parameters
    ----------
    n : int
        Vertices (>= 1).
    m : int, optional
        Number of edges (undirected edges when ``directed=False``).
    p : float, optional
        Edge probability.
    seed : int, optional
    directed : bool, default False
    weights : None, "uniform" or (lo, hi)
    backend : {"auto", "cpu", "gpu", None}

    Returns
    -------
    Graph
    """
    el = erdos_renyi_edges(n, m, p, seed, directed, weights, backend)
    return _graph(el, _backend.resolve(backend))


def _all_pairs(xp, n, directed, idt):
    i = xp.repeat(xp.arange(n, dtype=idt), n)
    j = xp.tile(xp.arange(n, dtype=idt), n)
    keep = (i != j) if directed else (i < j)
    return i[keep], j[keep]


# ---------------------------------------------------------------------------------------------
# small graphs


def path_edges(n, directed=False, weights=None, seed=None, backend=None) -> EdgeList:
    """Edges of :func:`path`."""
    n = _check_int("n", n, 1)
    be, xp = _xp(backend)
    idt = _ids(xp, n)
    u = xp.arange(n - 1, dtype=idt)
    w = _weights(_Rng(xp, seed), n - 1, weights)
    return EdgeList(u, u + 1, w, n, bool(directed), source=f"path:{n}")


def path(n, directed=False, weights=None, seed=None, backend=None):
    """The path on the vertices ``0, 1, ..., n-1`` (directed: ``i -> i+1``); ``n - 1`` edges."""
    return _graph(path_edges(n, directed, weights, seed, backend), _backend.resolve(backend))


def star_edges(n, directed=False, weights=None, seed=None, backend=None) -> EdgeList:
    """Edges of :func:`star`."""
    n = _check_int("n", n, 1)
    be, xp = _xp(backend)
    idt = _ids(xp, n)
    v = xp.arange(1, n, dtype=idt)
    w = _weights(_Rng(xp, seed), n - 1, weights)
    return EdgeList(xp.zeros(n - 1, dtype=idt), v, w, n, bool(directed), source=f"star:{n}")


def star(n, directed=False, weights=None, seed=None, backend=None):
    """A star on ``n`` vertices: centre 0 joined to the ``n - 1`` leaves (directed: ``0 -> leaf``).

    Note: ``n`` counts all vertices (networkx's ``star_graph(n)`` has ``n + 1``).
    """
    return _graph(star_edges(n, directed, weights, seed, backend), _backend.resolve(backend))


def complete_edges(n, directed=False, weights=None, seed=None, backend=None) -> EdgeList:
    """Edges of :func:`complete`."""
    n = _check_int("n", n, 1, 1 << 16)
    be, xp = _xp(backend)
    u, v = _all_pairs(xp, n, directed, _ids(xp, n))
    w = _weights(_Rng(xp, seed), int(u.shape[0]), weights)
    return EdgeList(u, v, w, n, bool(directed), source=f"complete:{n}")


def complete(n, directed=False, weights=None, seed=None, backend=None):
    """The complete graph on ``n`` vertices without self-loops (directed: both arcs of each pair)."""
    return _graph(complete_edges(n, directed, weights, seed, backend), _backend.resolve(backend))


# ---------------------------------------------------------------------------------------------
# specs ("rmat:20", "grid:1024x1024", ...)

SPEC_HELP = ("rmat:SCALE[:EDGE_FACTOR] (also kron:), grid:ROWSxCOLS (or grid:N), "
             "er:N:M (or er:N:P with a probability like 0.01), path:N, star:N, complete:N")

_SPEC_RE = re.compile(r"^(rmat|kron|grid|er|path|star|complete):", re.IGNORECASE)


def is_spec(text) -> bool:
    """True when ``text`` looks like a generator spec (``"rmat:16"``, ``"grid:10x10"``, ...)."""
    return isinstance(text, str) and bool(_SPEC_RE.match(text.strip()))


def _spec_int(spec, part, what):
    try:
        v = int(part)
    except ValueError:
        raise InvalidValue(f"bad generator spec {spec!r}: {what} must be an integer, got {part!r}; "
                           f"expected {SPEC_HELP}") from None
    return v


def edges_from_spec(spec: str, *, seed=None, directed=None, weights=None, backend=None) -> EdgeList:
    """An :class:`~hpgraph.io.EdgeList` from a short spec (see :data:`SPEC_HELP`).

    ``directed=None`` uses each generator's default (undirected). Raises
    :class:`~hpgraph.exceptions.InvalidValue` for an unknown or malformed spec.
    """
    if not isinstance(spec, str) or not is_spec(spec):
        raise InvalidValue(f"unknown generator spec {spec!r}: expected {SPEC_HELP}")
    kind, *parts = spec.strip().split(":")
    kind = kind.lower()
    d = bool(directed) if directed is not None else False

    def nparts(lo, hi):
        if not lo <= len(parts) <= hi or any(not p for p in parts):
            raise InvalidValue(f"bad generator spec {spec!r}: expected {SPEC_HELP}")

    if kind in ("rmat", "kron"):
        nparts(1, 2)
        scale = _spec_int(spec, parts[0], "SCALE")
        ef = _spec_int(spec, parts[1], "EDGE_FACTOR") if len(parts) > 1 else 16
        return rmat_edges(scale, ef, seed=seed, directed=d, weights=weights, backend=backend)
    if kind == "grid":
        nparts(1, 1)
        dims = parts[0].lower().split("x")
        if len(dims) == 1:
            dims = dims * 2
        if len(dims) != 2:
            raise InvalidValue(f"bad generator spec {spec!r}: expected grid:ROWSxCOLS")
        r, c = (_spec_int(spec, x, "the grid size") for x in dims)
        if directed:
            raise InvalidValue("grid graphs are undirected")
        return grid_2d_edges(r, c, weights=weights, seed=seed, backend=backend)
    if kind == "er":
        nparts(2, 2)
        n = _spec_int(spec, parts[0], "N")
        if any(ch in parts[1] for ch in ".eE"):
            try:
                p = float(parts[1])
            except ValueError:
                raise InvalidValue(f"bad generator spec {spec!r}: P must be a number") from None
            return erdos_renyi_edges(n, p=p, seed=seed, directed=d, weights=weights, backend=backend)
        m = _spec_int(spec, parts[1], "M")
        return erdos_renyi_edges(n, m=m, seed=seed, directed=d, weights=weights, backend=backend)
    nparts(1, 1)
    n = _spec_int(spec, parts[0], "N")
    fn = {"path": path_edges, "star": star_edges, "complete": complete_edges}[kind]
    return fn(n, directed=d, weights=weights, seed=seed, backend=backend)


def from_spec(spec: str, *, seed=None, directed=None, weights=None, backend=None):
    """A :class:`~hpgraph.graph.Graph` from a short spec such as ``"rmat:16"`` or ``"grid:64x64"``."""
    el = edges_from_spec(spec, seed=seed, directed=directed, weights=weights, backend=backend)
    return _graph(el, _backend.resolve(backend))


# chunked generation for the streaming build (Graph.from_edges(chunks))
from ._gen_chunks import grid_2d_chunks, rmat_chunks  # noqa: E402
