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

__all__ = ["load", "render", "save"]


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
