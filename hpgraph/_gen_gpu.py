"""The R-MAT generator's device steps as four fused CuPy kernels.

Drawn with plain CuPy operations, one R-MAT level took five kernels (compare, xor, cast,
shift, or) and the removal of self-loops and repeated pairs about fifteen (mask compaction,
min / max, key arithmetic, unique).  CuPy compiles each on first use, about 80 ms of NVRTC
apiece on an H200: 1.9 s of a cold ``hpgraph demo``.  The kernels here do the same work with
the same results -- the same random numbers read in the same order, the same sorted distinct
pairs -- and the sort and the prefix sum are CuPy's precompiled ones.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["add_level", "distinct_pairs"]


@functools.lru_cache(maxsize=None)
def _kernels():
    from . import backend

    cp = backend.cupy()
    level = cp.ElementwiseKernel(
        "float32 r, float32 fa, float32 fab, float32 fabc, int32 level", "I u, I v",
        """
        const bool row = r >= fab;
        const bool col = ((r >= fa) != (r >= fabc)) != row;
        u |= ((I)row) << level;
        v |= ((I)col) << level;
        """, "hpgraph_rmat_level")
    keys = cp.ElementwiseKernel(
        "I u, I v, raw int64 perm, int64 n, bool directed", "int64 key",
        """
        const long long a = perm[u], b = perm[v];
        if (a == b) key = -1;
        else if (directed || a < b) key = a * n + b;
        else key = b * n + a;
        """, "hpgraph_rmat_keys")
    first = cp.ElementwiseKernel(
        "raw int64 s", "int64 flag",
        "flag = (s[i] >= 0 && (i == 0 || s[i] != s[i - 1])) ? 1 : 0;", "hpgraph_rmat_first")
    split = cp.ElementwiseKernel(
        "int64 s, int64 flag, int64 pos, int64 n", "raw I u, raw I v",
        "if (flag) { u[pos - 1] = (I)(s / n); v[pos - 1] = (I)(s % n); }", "hpgraph_rmat_split")
    return level, keys, first, split


def add_level(r, a: float, b: float, c: float, level: int, u, v) -> None:
    """Add R-MAT level ``level`` to the device arrays ``u``, ``v`` in place: quadrant by the
    uniform ``r`` (float32), row bit ``r >= a+b``, column bit ``(r >= a) ^ (r >= a+b) ^
    (r >= a+b+c)`` (the thresholds rounded to float32, as the host comparison does)."""
    _kernels()[0](r, np.float32(a), np.float32(a + b), np.float32(a + b + c), np.int32(level),
                  u, v)


def distinct_pairs(u, v, perm, n: int, directed: bool):
    """``(perm[u], perm[v])`` without self-loops and repeated pairs, sorted by ``(src, dst)``
    (undirected: as unordered pairs with ``src <= dst``), in ``u``'s dtype.  ``perm`` is an
    int64 permutation of ``range(n)``."""
    from . import backend

    cp = backend.cupy()
    _, keys, first, split = _kernels()
    if u.shape[0] == 0:
        return u, v
    s = cp.sort(keys(u, v, perm.astype(np.int64, copy=False), np.int64(n), bool(directed)))
    flag = cp.empty(s.shape[0], dtype=np.int64)
    first(s, flag)
    pos = cp.cumsum(flag)
    count = int(pos[-1])
    ou = cp.empty(count, dtype=u.dtype)
    ov = cp.empty(count, dtype=u.dtype)
    split(s, flag, pos, np.int64(n), ou, ov)
    return ou, ov
