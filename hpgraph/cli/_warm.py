"""Kernel compilation in the background while a command loads its graph.

A command's first use of the GPU compiles its kernels: about 80 CuPy and hpgraph kernels for
``hpgraph demo`` (50-1,000 ms of NVRTC each), one after another in the order the graph build
and the algorithms need them.  While the main thread generates or reads the graph, one thread
builds a 64-vertex graph on the device through the same path and runs the command's
algorithms on it, last algorithm first, so the two threads compile different kernels (the
build's and the last algorithms' here, the generator's and the first algorithms' there); a
kernel one of them compiled is found by the other in CuPy's and hpgraph's caches.  Nothing it
computes is kept.  It is started once per process, only for the GPU, and its errors are
ignored (the main thread then compiles what it needs as it would have).  Commands wait for it
(:func:`wait`) before timing anything.
"""

from __future__ import annotations

import atexit
import threading

__all__ = ["start", "wait"]

_started: list = []
_threads: list = []


def _small_graph(cp):
    """An undirected 64-vertex graph (a ring with chords: degrees 2-4, one component)."""
    import numpy as np

    from ..io import EdgeList

    n = 64
    u = np.arange(n, dtype=np.int32)
    src = np.concatenate([u, u[::4]])
    dst = np.concatenate([(u + 1) % n, (u[::4] * 7 + 3) % n]).astype(np.int32)
    el = EdgeList(cp.asarray(src), cp.asarray(dst), None, n, False, source="warm-up")
    return el.to_graph(backend="gpu", duplicates="min")


def _run(algorithms, device) -> None:
    from .. import backend as _backend
    from . import _algorithms

    try:
        cp = _backend.cupy()
        with cp.cuda.Device(device):
            G = _small_graph(cp)
            for name in reversed(algorithms):
                alg = _algorithms.ALGORITHMS[name]
                if _algorithms.algorithm_function(name) is None:
                    continue
                _algorithms.run_algorithm(name, G, 0 if alg.source else None, "gpu")
            cp.cuda.Device().synchronize()
    except Exception:  # noqa: BLE001 -- a warm-up only: the real call compiles if this failed
        pass


def start(algorithms, backend: str) -> None:
    """Start the warm-up thread for ``algorithms`` (names of ``hpgraph run``'s table), once per
    process, when ``backend`` is ``"gpu"``."""
    from .. import backend as _backend

    if backend != "gpu" or _started or not _backend.has_gpu():
        return
    _started.append(True)
    device = _backend.cupy().cuda.runtime.getDevice()
    t = threading.Thread(target=_run, args=(tuple(algorithms), device), name="hpgraph-warmup",
                         daemon=True)
    t.start()
    _threads.append(t)
    atexit.register(wait)          # not left compiling inside CuPy while the interpreter exits


def wait(timeout: float = 120.0) -> None:
    """Wait (at most ``timeout`` seconds) for the warm-up thread: before timing anything."""
    for t in list(_threads):
        t.join(timeout)
