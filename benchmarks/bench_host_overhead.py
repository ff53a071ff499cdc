"""Benchmark: where a warm ``hp.run`` spends its host time, phase by phase ([engine-2]).

A user program's run is host work before and after the GPU's: binding the program (checks,
``init``, the compiled-callback lookup), the run's setup (properties, bitmaps, the setup
kernel's launch), the superstep loop (launches, then the wait for the GPU in ``read_state``),
the hand-over of the results and the ``RunResult``.  On R-MAT 21 about 590 of ``BFSParents``'
1,011 us were host time on an H200 (session 28).  Each row times whole calls with
:func:`_harness.timed` (``warm_ms`` by CUDA events, ``wall_ms``, ``first_ms``), then runs the
same call ``--repeat`` times more with a ``perf_counter`` around each engine phase and reports
each phase's median in us (``phases_us``; ``host_us``: the synchronized wall less the wait in
``read_state``).  ``hp.bfs`` and ``hp.sssp`` are timed beside them.  Every result is checked
against SciPy (depths and a parent tree, distances and a predecessor tree); the run exits 1 on
a mismatch.  On the CPU the phases are ``bind`` and the CPU engine's ``execute``.

Usage::

    python benchmarks/bench_host_overhead.py [--scale 21] [--repeat 41] [--loop host|device]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "examples")]

#: (module, attribute, label) of the phases timed on the GPU; methods of ``_Run`` by name
GPU_PHASES = (("run", "bind", "bind"), ("gpu", "_acquire", "acquire"),
              ("_Run", "__init__", "run state"), ("_Run", "start", "start"),
              ("_Run", "_adopt", "start: adopt"), ("_Run", "loop", "loop"),
              ("_Run", "read_state", "loop: read_state"), ("_Run", "finish", "finish"),
              ("gpu", "_release", "release"), ("gpu", "execute", "execute"))
CPU_PHASES = (("run", "bind", "bind"), ("cpu", "execute", "execute"))


def _wrap(owner, name, label, samples):
    """Put a perf_counter around ``owner.name``; returns a function that undoes it."""
    f = getattr(owner, name)

    @functools.wraps(f)
    def timed_call(*a, **kw):
        t = time.perf_counter()
        try:
            return f(*a, **kw)
        finally:
            samples[label].append((time.perf_counter() - t) * 1e6)
    setattr(owner, name, timed_call)
    return lambda: setattr(owner, name, f)


def phases(fn, repeat, gpu):
    """``({phase: median us}, host us)`` over ``repeat`` synchronized calls of ``fn``."""
    from _harness import _sync

    from hpgraph.engine import cpu as cpu_mod
    from hpgraph.engine import gpu as gpu_mod
    from hpgraph.engine import run as run_mod

    owners = {"run": run_mod, "gpu": gpu_mod, "cpu": cpu_mod, "_Run": gpu_mod._Run}
    samples: dict = defaultdict(list)
    undo = [_wrap(owners[o], name, label, samples)
            for o, name, label in (GPU_PHASES if gpu else CPU_PHASES)]
    sync = _sync if gpu else (lambda: None)
    walls = []
    try:
        for _ in range(repeat):
            sync()
            t = time.perf_counter()
            fn()
            sync()
            walls.append((time.perf_counter() - t) * 1e6)
    finally:
        for u in reversed(undo):
            u()
    med = {k: statistics.median(v) for k, v in samples.items()}
    per_call = {k: len(v) / repeat for k, v in samples.items()}
    wall = statistics.median(walls)
    host = wall - sum(samples["loop: read_state"]) / repeat if gpu else wall
    return {"wall": wall, **med}, host, per_call


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=21, help="R-MAT scale (default 21)")
    ap.add_argument("--repeat", type=int, default=41)
    ap.add_argument("--loop", choices=("host", "device"), default="host",
                    help="the GPU engine's superstep loop (default host)")
    ap.add_argument("--out", default=None, help="JSON of the run")
    args = ap.parse_args(argv)
    if args.scale < 4 or args.repeat < 1:
        raise SystemExit(f"--scale: expected at least 4, --repeat at least 1; got "
                         f"{args.scale} and {args.repeat}")

    import scipy.sparse.csgraph as csg
    from _harness import Report, check_bfs, check_sssp, host, timed
    from bfs import BFSParents
    from sssp import SSSPNearFar

    import hpgraph as hp

    gpu = hp.has_gpu()
    rep = Report("bench_host_overhead", scale=args.scale, repeat=args.repeat, loop=args.loop)
    G = hp.rmat(args.scale, edge_factor=16, seed=1, directed=False, weights=(1, 64),
                backend="gpu" if gpu else "cpu")
    src = int(host(G.out_degree).argmax())
    A = G.to_host().to_scipy().tocsr()
    dist = csg.dijkstra(A, indices=src)
    hops = csg.shortest_path(A, indices=src, unweighted=True)
    name = f"R-MAT {args.scale}"
    loop = {"engine_loop": args.loop} if gpu else {}
    runs = (
        ("BFSParents", lambda: hp.run(BFSParents, G, source=src, **loop),
         lambda r: check_bfs(A, src, r.depth, r.parent, hops=hops)),
        ("SSSPNearFar", lambda: hp.run(SSSPNearFar, G, source=src, **loop),
         lambda r: check_sssp(A, src, r.dist, r.pred, ref=dist, rtol=1e-6)),
    )
    for label, fn, check in runs:
        timing, out = timed(fn, args.repeat, gpu=gpu)
        ph, host_us, per_call = phases(fn, args.repeat, gpu)
        rep.row(name, f"{label}, {args.loop if gpu else 'cpu'} loop", timing, check=check(out),
                phases_us=ph, host_us=host_us, phase_calls=per_call)
        print("      " + "  ".join(f"{k} {v:.1f}" for k, v in ph.items())
              + f"  | host {host_us:.1f} us", flush=True)
    for label, fn, check in (
            ("hp.bfs", lambda: hp.bfs(G, src),
             lambda r: check_bfs(A, src, r.depth, r.parent, hops=hops)),
            ("hp.sssp", lambda: hp.sssp(G, src),
             lambda r: check_sssp(A, src, r.distance, r.predecessor, ref=dist, rtol=1e-6))):
        timing, out = timed(fn, args.repeat, gpu=gpu)
        rep.row(name, label, timing, check=check(out))
    return rep.finish(args.out)


if __name__ == "__main__":
    sys.exit(main())
