"""What every benchmark here shares: run metadata and the three timings of a row.

A row reports ``warm_ms`` (median of CUDA events around the call after a warm-up; host
perf_counter on the CPU), ``wall_ms`` (median host wall time of the same calls, a device
synchronize included) and ``first_ms`` (the very first call: compilation, caches).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def metadata(**extra) -> dict:
    """Commit, device, driver and versions of this run."""
    import numpy
    import scipy

    import hpgraph as hp

    meta = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "host": platform.node(),
            "python": sys.version.split()[0], "numpy": numpy.__version__,
            "scipy": scipy.__version__, "hpgraph": hp.__version__, "commit": None,
            "dirty": None, "device": None, "driver": None, "cuda_runtime": None, "cupy": None}
    try:
        # the device tool's copy of the tree may carry a stale .git: the caller can name the commit
        meta["commit"] = os.environ.get("HPGRAPH_BENCH_COMMIT") or subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, text=True, capture_output=True,
            check=True).stdout.strip()
        meta["dirty"] = bool(subprocess.run(["git", "status", "--porcelain", "--", "hpgraph"],
                                            cwd=ROOT, text=True, capture_output=True).stdout)
    except (OSError, subprocess.CalledProcessError):
        pass
    if hp.has_gpu():
        import cupy as cp

        props = cp.cuda.runtime.getDeviceProperties(0)
        meta.update(device=props["name"].decode(), cupy=cp.__version__,
                    driver=cp.cuda.runtime.driverGetVersion(),
                    cuda_runtime=cp.cuda.runtime.runtimeGetVersion())
        try:
            meta["driver"] = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                text=True, capture_output=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            pass
    meta.update(extra)
    return meta


def timed(fn, repeat, gpu=True, keep=True):
    """``(row, last result)``: ``first_ms``, ``warm_ms`` (median), ``wall_ms`` (median),
    ``min_ms`` and every sample, for ``repeat`` calls after the first.

    ``keep=False``: the previous call's result is dropped before the next call, so two
    results are never held at once (products that fill most of the device's memory).
    """
    sync = _sync if gpu else (lambda: None)
    sync()
    t0 = time.perf_counter()
    out = fn()
    sync()
    first = (time.perf_counter() - t0) * 1e3
    if gpu:
        # warm means compiled: modules the first call left compiling in the background (the
        # engine's device loop and deferred units) are waited for, so every timed call runs
        # the same kernels
        from hpgraph import kernel_cache

        kernel_cache.wait()
    warm, wall = [], []
    for _ in range(repeat):
        if not keep:
            out = None
        if gpu:
            import cupy as cp

            a, b = cp.cuda.Event(), cp.cuda.Event()
            t0 = time.perf_counter()
            a.record()
            out = fn()
            b.record()
            b.synchronize()
            wall.append((time.perf_counter() - t0) * 1e3)
            warm.append(cp.cuda.get_elapsed_time(a, b))
        else:
            t0 = time.perf_counter()
            out = fn()
            wall.append((time.perf_counter() - t0) * 1e3)
            warm.append(wall[-1])
    row = {"first_ms": first, "warm_ms": statistics.median(warm),
           "wall_ms": statistics.median(wall), "min_ms": min(warm), "samples_ms": warm}
    return row, out


def fresh_class(base, body: str, label: str):
    """A subclass of vertex program ``base`` whose class body is the source ``body`` (lines
    indented 4 spaces): with a constant unique to the call in it, its generated CUDA is new to
    the process and the kernel caches (first-use rows).  The source is registered under a
    file name of its own (``label``), so the engine can read the callbacks back."""
    import linecache

    src = "class Fresh(Base):\n" + body
    fname = f"<fresh-{label}>"
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    ns: dict = {}
    exec(compile(src, fname, "exec"), {"Base": base}, ns)  # noqa: S102
    return ns["Fresh"]


def _sync():
    import cupy as cp

    cp.cuda.get_current_stream().synchronize()


def write(path, obj):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1, default=str))


# ---------------------------------------------------------------------------------------------
# rows, checks and the run's one JSON


class Report:
    """The rows of one benchmark run: each with its timings, preprocessing and check.

    ``row()`` records one measured thing; ``finish()`` prints the table, writes
    ``{"meta": metadata(...), "rows": [...]}`` to ``--json`` and returns the exit status: 1
    when any row's check is not ``"ok"`` (a mismatch, or no check at all), else 0.
    """

    def __init__(self, benchmark: str, **extra):
        self.meta = metadata(benchmark=benchmark, argv=sys.argv[1:], **extra)
        self.rows = []

    def row(self, graph, label, timing=None, *, check, prep_ms=None, **extra) -> dict:
        """Record a row.  ``timing``: :func:`timed`'s row (or None for a check-only row);
        ``check``: ``"ok"`` or a message saying what differs; ``prep_ms``: preprocessing
        timed apart (orientation, relabelling, transposes), added to ``warm_ms`` in
        ``total_ms``."""
        r = {"graph": graph, "label": label, **(timing or {}), "prep_ms": prep_ms, **extra,
             "check": check}
        if timing is not None:
            r["total_ms"] = r["warm_ms"] + (prep_ms or 0.0)
        self.rows.append(r)
        t = ""
        if timing is not None:
            t = (f"warm {r['warm_ms']:9.3f}  wall {r['wall_ms']:9.3f}  first {r['first_ms']:9.1f}"
                 + (f"  prep {prep_ms:8.1f}" if prep_ms is not None else ""))
        print(f"  {graph:14s} {label:46s} {t}  {check}", flush=True)
        return r

    @property
    def failed(self):
        return [r for r in self.rows if r.get("check") != "ok"]

    def finish(self, path=None) -> int:
        """Write the JSON (when ``path``), print the failures; the exit status."""
        out = {"meta": self.meta, "rows": self.rows}
        if path:
            write(path, out)
            print(f"[json] {path}")
        for r in self.failed:
            print(f"FAILED: {r['graph']} {r['label']}: {r['check']}", flush=True)
        print(f"{len(self.rows)} rows, {len(self.failed)} failed", flush=True)
        return 1 if self.failed else 0


def timed_once(fn, gpu=True):
    """``(ms, result)`` of one call, synchronized (preprocessing steps)."""
    sync = _sync if gpu else (lambda: None)
    sync()
    t0 = time.perf_counter()
    out = fn()
    sync()
    return (time.perf_counter() - t0) * 1e3, out


def host(a):
    """A NumPy array of ``a`` (a CuPy array is copied to the host)."""
    import numpy as np

    if hasattr(a, "get") and not isinstance(a, np.ndarray):
        return a.get()
    return np.asarray(a)


def check_equal(got, ref, what) -> str:
    """``"ok"`` when ``got`` equals ``ref`` exactly (scalars or arrays), else a message."""
    import numpy as np

    got, ref = host(got), host(ref)
    if got.shape != ref.shape:
        return f"MISMATCH {what}: shape {got.shape} vs {ref.shape}"
    bad = np.flatnonzero(np.asarray(got != ref).ravel())
    if bad.size:
        i = int(bad[0])
        return (f"MISMATCH {what}: {bad.size} differ, first at {i}: {got.ravel()[i]} vs "
                f"{ref.ravel()[i]}")
    return "ok"


def _edge_weights(A, u, v):
    """Weight of the stored entry ``A[u, v]`` for every pair (NaN where none); ``A`` a
    SciPy CSR with sorted indices (the minimum over repeated entries)."""
    import numpy as np

    n = A.shape[1]
    rows = np.repeat(np.arange(A.shape[0], dtype=np.int64), np.diff(A.indptr))
    keys = rows * n + A.indices.astype(np.int64)
    data = A.data
    if not A.has_canonical_format:                # repeats or unsorted rows: sort
        order = np.lexsort((data, keys))          # by key, then weight: first = minimum
        keys, data = keys[order], data[order]
    q = u.astype(np.int64) * n + v.astype(np.int64)
    pos = np.searchsorted(keys, q)
    found = (pos < keys.size) & (keys[np.minimum(pos, keys.size - 1)] == q)
    return np.where(found, data[np.minimum(pos, keys.size - 1)], np.nan)


def check_bfs(A, source, depth, parent=None, hops=None) -> str:
    """Depths against SciPy's unweighted shortest paths (``hops``, computed when None) and,
    with ``parent``, every reached vertex but the source has a parent that is an in-neighbour
    one level up (``A`` a SciPy CSR, ``A[u, v]`` the edge ``u -> v``)."""
    import numpy as np
    import scipy.sparse.csgraph as csg

    if hops is None:
        hops = csg.shortest_path(A, indices=source, unweighted=True)
    d = host(depth).astype(np.float64)
    d[(d < 0) | (d >= np.iinfo(np.int32).max)] = np.inf
    msg = check_equal(d, hops, "depth")
    if msg != "ok" or parent is None:
        return msg
    return _check_tree(A, d, host(parent), source, hop=True)


def check_sssp(A, source, dist, pred=None, ref=None, rtol=1e-9) -> str:
    """Distances against SciPy's Dijkstra (``ref``, computed when None) and, with ``pred``,
    every reached vertex but the source has a predecessor along a tight edge
    (``dist[p] + w(p, v) == dist[v]``)."""
    import numpy as np
    import scipy.sparse.csgraph as csg

    if ref is None:
        ref = csg.dijkstra(A, indices=source)
    d = host(dist).astype(np.float64)
    if d.shape != ref.shape or not np.array_equal(np.isinf(d), np.isinf(ref)):
        return "MISMATCH dist: reached sets differ"
    fin = np.isfinite(ref)
    if not np.allclose(d[fin], ref[fin], rtol=rtol, atol=0):
        i = int(np.flatnonzero(~np.isclose(d[fin], ref[fin], rtol=rtol, atol=0))[0])
        return f"MISMATCH dist at reached vertex #{i}: {d[fin][i]} vs {ref[fin][i]}"
    if pred is None:
        return "ok"
    return _check_tree(A, d, host(pred), source, hop=False, rtol=rtol)


def _check_tree(A, d, pred, source, hop, rtol=1e-9) -> str:
    import numpy as np

    v = np.flatnonzero(np.isfinite(d) & (np.arange(d.size) != source))
    p = pred[v].astype(np.int64)
    if ((p < 0) | (p >= d.size)).any():
        return f"MISMATCH tree: {int(((p < 0) | (p >= d.size)).sum())} reached vertices without " \
               f"a valid parent/predecessor"
    w = _edge_weights(A, p, v)
    if np.isnan(w).any():
        return f"MISMATCH tree: {int(np.isnan(w).sum())} parent/predecessor links are not edges"
    step = np.ones_like(w) if hop else w
    ok = np.isclose(d[p] + step, d[v], rtol=rtol, atol=0)
    if not ok.all():
        i = int(v[np.flatnonzero(~ok)[0]])
        return f"MISMATCH tree: vertex {i}: d[pred]={d[pred[i]]} + step != d={d[i]}"
    return "ok"
