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


def _sync():
    import cupy as cp

    cp.cuda.get_current_stream().synchronize()


def write(path, obj):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1, default=str))
