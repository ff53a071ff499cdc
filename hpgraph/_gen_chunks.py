"""R-MAT and grid edges generated in chunks, on the device or the host, for the streaming build.

The objects here are callables: each call returns a fresh iterator over the same chunks
(chunk ``i`` is drawn from its own seed), which is what :meth:`hpgraph.Graph.from_edges` needs
to count and then scatter the edges without ever holding the whole edge list::

    G = hp.Graph.from_edges(hp.generators.rmat_chunks(26, seed=1, backend="gpu"),
                            directed=False, self_loops="drop", duplicates="min")

Self-loops and repeated pairs are left in the chunks; the build's ``self_loops`` and
``duplicates`` policies remove them.  The graphs are not the same as :func:`rmat`'s for one
seed (that one draws all edges from one stream), but each is reproducible.
"""

from __future__ import annotations

import numpy as np

from .exceptions import InvalidValue

#: Edges per chunk by default.
CHUNK = 1 << 24


def _chunk_seed(seed, i: int) -> int:
    ss = np.random.SeedSequence([0 if seed is None else int(seed), int(i)])
    return int(ss.generate_state(1, np.uint64)[0]) & (2**62 - 1)


class RmatChunks:
    """R-MAT edges in chunks (see :func:`rmat_chunks`); calling it iterates the chunks."""

    def __init__(self, scale, edge_factor, a, b, c, seed, weights, backend, chunk_size):
        from .generators import _check_int, _xp

        self.scale = _check_int("scale", scale, 0, 40)
        self.edge_factor = _check_int("edge_factor", edge_factor, 0)
        self.chunk_size = _check_int("chunk_size", chunk_size, 1)
        for name, x in (("a", a), ("b", b), ("c", c)):
            if not (isinstance(x, (int, float, np.floating, np.integer)) and 0.0 <= float(x) <= 1.0):
                raise InvalidValue(f"R-MAT probability {name} must be in [0, 1], got {x!r}")
        if float(a) + float(b) + float(c) > 1.0 + 1e-12:
            raise InvalidValue("R-MAT probabilities need a + b + c <= 1")
        self.a, self.b, self.c = float(a), float(b), float(c)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise InvalidValue(f"seed must be a non-negative int or None, got {seed!r}")
        self.seed = seed
        self.weights = weights
        self.side, self.xp = _xp(backend)
        self.num_vertices = 1 << self.scale
        self.num_edges = self.edge_factor * self.num_vertices
        self._perm = None

    def _permutation(self):
        from .dtypes import index_dtype
        from .generators import _Rng

        if self._perm is None:
            rng = _Rng(self.xp, _chunk_seed(self.seed, 2**32 - 1))
            self._perm = rng.permutation(self.num_vertices).astype(index_dtype(self.num_vertices))
        return self._perm

    def chunk(self, i: int):
        """``(src, dst, weights or None)`` of chunk ``i``."""
        from .dtypes import index_dtype
        from .generators import _rmat_bits, _Rng, _weights

        start = i * self.chunk_size
        k = min(self.chunk_size, self.num_edges - start)
        rng = _Rng(self.xp, _chunk_seed(self.seed, i))
        u, v = _rmat_bits(rng, k, self.scale, self.a, self.b, self.c, index_dtype(self.num_vertices))
        perm = self._permutation()
        u, v = perm[u], perm[v]
        w = _weights(rng, k, self.weights)
        return u, v, w

    @property
    def num_chunks(self) -> int:
        return -(-self.num_edges // self.chunk_size)

    def __call__(self):
        return (self.chunk(i) for i in range(self.num_chunks))


def rmat_chunks(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, seed=None, weights=None, backend=None,
                chunk_size=CHUNK) -> RmatChunks:
    """R-MAT (Graph500) edges drawn chunk by chunk, for ``Graph.from_edges(chunks)``.

    Parameters are those of :func:`hpgraph.generators.rmat`; ``chunk_size`` edges are drawn
    per chunk (on the device with ``backend="gpu"``).  The result is a callable; each call
    iterates ``edge_factor * 2**scale`` edges in ``num_chunks`` chunks of ``(src, dst,
    weights)``, the same every time.  Ids are scrambled by one seeded permutation.
    """
    return RmatChunks(scale, edge_factor, a, b, c, seed, weights, backend, chunk_size)


class GridChunks:
    """Edges of a ``rows x cols`` 4-neighbour lattice in chunks of vertices (see
    :func:`grid_2d_chunks`)."""

    def __init__(self, rows, cols, weights, seed, backend, chunk_size):
        from .generators import _check_int, _xp

        self.rows = _check_int("rows", rows, 1)
        self.cols = _check_int("cols", cols, 1)
        self.chunk_size = _check_int("chunk_size", chunk_size, 1)
        self.weights, self.seed = weights, seed
        self.side, self.xp = _xp(backend)
        self.num_vertices = self.rows * self.cols

    def chunk(self, i: int):
        """Edges of vertices ``[i * chunk_size, (i + 1) * chunk_size)`` to their right and
        lower neighbours."""
        from .dtypes import index_dtype
        from .generators import _Rng, _weights

        xp, n, cols = self.xp, self.num_vertices, self.cols
        idt = index_dtype(n)
        ids = xp.arange(i * self.chunk_size, min(n, (i + 1) * self.chunk_size), dtype=idt)
        h = ids[ids % cols < cols - 1]
        vt = ids[ids // cols < self.rows - 1]
        u = xp.concatenate([h, vt])
        v = xp.concatenate([h + 1, vt + cols])
        w = _weights(_Rng(xp, _chunk_seed(self.seed, i)), int(u.shape[0]), self.weights)
        return u, v, w

    @property
    def num_chunks(self) -> int:
        return -(-self.num_vertices // self.chunk_size)

    def __call__(self):
        return (self.chunk(i) for i in range(self.num_chunks))


def grid_2d_chunks(rows, cols, weights=None, seed=None, backend=None, chunk_size=CHUNK) -> GridChunks:
    """The edges of :func:`hpgraph.generators.grid_2d` (each undirected edge once), in chunks
    of ``chunk_size`` vertices; a callable for ``Graph.from_edges(chunks, directed=False)``."""
    return GridChunks(rows, cols, weights, seed, backend, chunk_size)
