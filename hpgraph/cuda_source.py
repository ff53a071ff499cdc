"""The one way hpgraph writes CUDA source: ``string.Template`` holes (``$NAME`` / ``${NAME}``)
filled strictly, and the generated source optionally saved for debugging.

Every generator (the engine's program modules, the semiring SpMV kernels, the algorithms'
kernels) renders its source here, and :func:`hpgraph.backend.raw_module` compiles it; with
``hp.config.set(dump_source="DIR")`` (or ``HPGRAPH_DUMP_SOURCE=DIR``) every compiled module is
also written to ``DIR/<hash>.cu``, as CuPy's ``CUPY_CACHE_SAVE_CUDA_SOURCE`` does for its own.
A :class:`~hpgraph.exceptions.CompileError` carries the source too (``exc.dump()``).
"""

from __future__ import annotations

import functools
import hashlib
import string
from pathlib import Path

__all__ = ["load", "render", "save", "GROUP_SCAN", "table_slots"]

#: Device code shared by the kernels where a group of ``G`` threads (a warp, ``G == 32``, or a
#: whole block) deals a concatenation of lists over its threads (the triangle kernel, the hash
#: masked product): ``gsync<G>()`` and the group's inclusive prefix sum ``gscan<G>``.
GROUP_SCAN = r"""
template <int G> __device__ __forceinline__ void gsync()
{
    if (G == 32) __syncwarp(); else __syncthreads();
}

// Inclusive prefix sum of x over the group's threads; *total = the group's sum.  wsum: G / 32
// shared words (unused for a warp).  The caller syncs before the next call reuses wsum.
template <int G> __device__ __forceinline__ long long gscan(long long x, long long* wsum,
                                                            int tid, long long* total)
{
    const int lane = tid & 31;
    for (int off = 1; off < 32; off <<= 1) {
        long long y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x += y;
    }
    if (G == 32) {
        *total = __shfl_sync(0xffffffffu, x, 31);
        return x;
    }
    const int wid = tid >> 5;
    if (lane == 31) wsum[wid] = x;
    __syncthreads();
    if (wid == 0) {
        long long t = lane < G / 32 ? wsum[lane] : 0;
        for (int off = 1; off < 32; off <<= 1) {
            long long y = __shfl_up_sync(0xffffffffu, t, off);
            if (lane >= off) t += y;
        }
        if (lane < G / 32) wsum[lane] = t;
    }
    __syncthreads();
    if (wid > 0) x += wsum[wid - 1];
    *total = wsum[G / 32 - 1];
    return x;
}
"""


def table_slots(cap: int, spread: int) -> int:
    """Slots of a shared-memory hash table for pieces of up to ``cap`` keys at most ``1 /
    spread`` full: the kernels' own rule for one piece (a power of two, at least 32 and at
    least ``spread * cap``), which sizes their static tables (the triangle kernel, the hash
    masked product)."""
    slots = 32
    while slots < spread * cap:
        slots <<= 1
    return slots


@functools.lru_cache(maxsize=None)
def load(path: str) -> string.Template:
    """The template in file ``path`` (cached)."""
    return string.Template(Path(path).read_text())


def render(template, mapping=None, /, **slots) -> str:
    """``template`` (a ``string.Template`` or its text) with every hole filled from ``mapping``
    and ``slots`` (slots win); a hole without a value raises ``KeyError`` naming it (never a
    half-filled kernel)."""
    if isinstance(template, str):
        template = string.Template(template)
    values = dict(mapping or {})
    values.update(slots)
    return template.substitute({k: str(v) for k, v in values.items()})


def save(source: str, directory) -> Path:
    """Write ``source`` to ``directory/<sha1 of the source>.cu`` (created if needed)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / (hashlib.sha1(source.encode()).hexdigest()[:16] + ".cu")
    if not path.exists():
        path.write_text(source)
    return path
