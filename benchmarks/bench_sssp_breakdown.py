"""Where the time of hp.sssp / hp.bfs goes on the GPU: whole call vs engine setup vs loop.

Runs the Bellman-Ford and BFS vertex programs through ``hp.run`` on R-MAT 21 (undirected,
weights 1..64) and the 2048 x 2048 grid (weights 1..64), and prints, per case: median wall
time of the whole call (host clock, device synchronised), the device span of the call (CUDA
events on the caller's stream, which waits for the engine's stream), ``RunResult.setup_time``
(host time until the first superstep is launched), ``.time`` (the superstep loop, device work
of the setup included), supersteps, push/pull counts and host syncs.  Every row with a result is
checked against SciPy (``_harness.check_bfs`` / ``check_sssp``: depths and parents one level
up, distances and tight predecessors); timing probes (partial runs) say ``n/a``.  Exits 1 on a
mismatch or a failed case.

Also, for BFS: the program variants (``min`` over packed keys without a mask -- the previous
GPU program --, ``any`` without a mask, ``any`` + ``mask``: what ``hp.bfs`` runs), a sweep of
the direction constant ``push_alpha``, a first call on a fresh graph object (no kept run
state) against warm calls, and a cProfile of one warm ``hp.bfs`` call (host overheads).

``--ab``: only an A/B of ``hpgraph.engine.gpu.FAST_SETUP`` (issue #6: the per-call setup):
``hp.bfs`` and ``hp.sssp`` on R-MAT 21 and ``hp.bfs`` on the grid, plus the zero-superstep
BFS program call (the fixed cost), each timed with the knob off and on in one process
(run states cleared at each switch, then two warm-up calls), CUDA-event spans and host walls, medians
of ``--repeat`` (>= 7), interleaved off/on rounds; results compared equal (depths and
distances exactly, parents valid).

Usage: python benchmarks/bench_sssp_breakdown.py [--out DIR] [--repeat 5] [--quick] [--ab]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import pstats
import statistics
import sys
import time
import traceback

from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hpgraph as hp  # noqa: E402
from _harness import check_sssp, metadata  # noqa: E402
from _harness import check_bfs as harness_check_bfs  # noqa: E402
from hpgraph.algorithms._bfs import _BFS_ANY, _BFSKeys  # noqa: E402
from hpgraph.algorithms._sssp import _bellman_ford_class  # noqa: E402

#: per graph object: (SciPy CSR, BFS hops, Dijkstra distances) from the source
_ORACLE = {}


def timed(fn, repeat=5):
    """(median wall ms, median device-span ms, last result) after warm-up calls."""
    walls, spans, res = _samples(fn, repeat)
    return statistics.median(walls), statistics.median(spans), res


def row(graph, program, ms, span, r=None, **extra):
    out = dict(graph=graph, program=program, wall_ms=ms, span_ms=span)
    if r is not None:
        out.update(setup_ms=r.setup_time * 1e3, loop_ms=r.time * 1e3, supersteps=r.supersteps,
                   push=r.directions.count("push"), pull=r.directions.count("pull"),
                   syncs=r.syncs, max_active=max(r.active) if r.active else 0,
                   dirs=_dirs(r.directions))
    out.update(extra)
    return out


def _dirs(directions):
    d = "".join("P" if x == "push" else "L" for x in directions)
    return d if len(d) <= 24 else f"{d[:16]}...({len(d)})"


def bfs_variants():
    any32 = _BFS_ANY[np.dtype(np.int32)]

    class BFSAnyNoMask(any32):
        mask = None

    return {"min keys, no mask (previous)": _BFSKeys, "any, no mask": BFSAnyNoMask,
            "any + mask (hp.bfs)": any32}


def bfs_kwargs(cp, prog, n, src):
    if prog is _BFSKeys:
        key = cp.full(n, -1, dtype=np.int64)
        key[src] = src
        par = cp.full(n, -1, dtype=np.int64)
        par[src] = src
        return dict(key=key, vid=cp.arange(n, dtype=np.int64), parent=par,
                    active=np.array([src]))
    depth = cp.full(n, -1, dtype=np.int32)
    depth[src] = 0
    par = cp.full(n, -1, dtype=np.int32)
    par[src] = src
    return dict(depth=depth, parent=par, vid=cp.arange(n, dtype=np.int32),
                active=np.array([src]))


def oracle(G, src):
    """SciPy's matrix, unweighted and weighted distances from ``src`` (cached per graph)."""
    import scipy.sparse.csgraph as csg

    key = (id(G), src)
    if key not in _ORACLE:
        A = G.to_host().to_scipy().tocsr()
        A.sort_indices()
        _ORACLE[key] = (A, csg.shortest_path(A, indices=src, unweighted=True),
                        csg.dijkstra(A, indices=src))
    return _ORACLE[key]


def check_bfs(G, src, res):
    """Depths against SciPy and every parent an in-neighbour one level up (``res``: a result
    with ``depth`` / ``parent``, or a ``(depth, parent)`` pair; ``depth`` None: parents only,
    against SciPy's depths)."""
    A, hops, _ = oracle(G, src)
    depth, parent = (res.depth, res.parent) if hasattr(res, "parent") else res
    if depth is None:
        depth = np.where(np.isinf(hops), -1, hops).astype(np.int64)
    return harness_check_bfs(A, src, depth, parent, hops=hops)


def check_dist(G, src, dist, pred=None):
    """Distances (and predecessors) against SciPy's Dijkstra."""
    A, _, ref = oracle(G, src)
    return check_sssp(A, src, dist, pred, ref=ref, rtol=1e-6)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="R-MAT 16 and a 256 x 256 grid")
    ap.add_argument("--skip-sssp", action="store_true", help="BFS only")
    ap.add_argument("--ab", action="store_true", help="A/B of engine.gpu.FAST_SETUP only")
    args = ap.parse_args()
    if args.ab:
        return ab(args)
    cp = hp.backend.cupy()
    scale, side = (16, 256) if args.quick else (21, 2048)
    graphs = {
        f"rmat{scale}": lambda: hp.generators.rmat(scale, seed=1, weights=(1, 64), backend="gpu"),
        f"grid{side}": lambda: hp.generators.grid_2d(side, side, weights=(1, 64), seed=1,
                                                      backend="gpu"),
    }
    rows = []
    notes = {}

    def attempt(label, fn):
        try:
            fn()
        except Exception:  # one failing case must not lose the others' numbers
            traceback.print_exc()
            rows.append(dict(graph=label, program="FAILED", error=traceback.format_exc(-1)))

    for gname, make in graphs.items():
        G = make()
        n = G.num_vertices
        src = int(cp.argmax(G.out_degree)) if gname.startswith("rmat") else 0
        rm = gname.startswith("rmat")

        # -- BFS program variants and the direction constant ---------------------------------
        def variants():
            for label, prog in bfs_variants().items():
                kw = bfs_kwargs(cp, prog, n, src)
                ms, span, r = timed(lambda: hp.run(prog, G, backend="gpu", **kw), args.repeat)
                depth = r.depth if "depth" in r.properties else None
                rows.append(row(gname, f"BFS program: {label}", ms, span, r,
                                check=check_bfs(G, src, (depth, r.parent))))
        attempt(gname, variants)

        def sweep():
            for alpha in (1.0, 2.0, 4.0, 8.0, 16.0, 64.0):
                ms, span, res = timed(lambda: _bfs_alpha(G, src, alpha), args.repeat)
                prog = _BFS_ANY[np.dtype(np.int32)]
                kw = bfs_kwargs(cp, prog, n, src)
                r = hp.run(prog, G, backend="gpu", push_alpha=alpha, **kw)
                rows.append(row(gname, f"hp.bfs push_alpha={alpha:g}", ms, span, r,
                                check=check_bfs(G, src, res)))
        attempt(gname, sweep)

        if rm:
            def probe():
                # supersteps 1..k of the hp.bfs program: the device span's growth with k is
                # the cost of superstep k (k = 0: setup, one read, result hand-back)
                prog = _BFS_ANY[np.dtype(np.int32)]
                kw = bfs_kwargs(cp, prog, n, src)
                for k in range(0, 8):
                    ms, span, r = timed(lambda: hp.run(prog, G, backend="gpu", max_iterations=k,
                                                       **kw), args.repeat)
                    rows.append(row(gname, f"BFS program, max_iterations={k}", ms, span, r,
                                    last_active=r.active[-1] if r.active else 0,
                                    last_edges=r.frontier_edges[-1] if r.active else 0,
                                    check="n/a (timing probe: a partial run)"))
            attempt(gname, probe)

        # -- hp.bfs: the headline, and its first call on a fresh graph object ---------------
        def headline():
            G2 = make()           # a new graph: no kept run state, kernels already compiled
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            hp.bfs(G2, src, backend="gpu")
            cp.cuda.Device().synchronize()
            first = (time.perf_counter() - t) * 1e3
            del G2
            gc.collect()
            ms, span, res = timed(lambda: hp.bfs(G, src, backend="gpu"), args.repeat)
            rows.append(row(gname, "hp.bfs", ms, span, first_call_ms=first,
                            check=check_bfs(G, src, res)))
            ms, span, res = timed(lambda: _bfs_alpha(G, src, None), args.repeat)
            rows.append(row(gname, "bfs_engine (hp.bfs minus argument handling)", ms, span,
                            check=check_bfs(G, src, res)))

            def wrapper_arrays():   # what bfs_engine builds before hp.run
                d = cp.full(n, -1, dtype=np.int32)
                p = cp.full(n, -1, dtype=np.int32)
                d[src] = 0
                p[src] = src
                return d, p
            ms, span, _ = timed(wrapper_arrays, args.repeat)
            rows.append(row(gname, "bfs_engine's initial arrays alone", ms, span,
                            check="n/a (timing probe: no result)"))
        attempt(gname, headline)

        if rm:
            def profile():
                for _ in range(3):
                    hp.bfs(G, src, backend="gpu")
                cp.cuda.Device().synchronize()
                pr = cProfile.Profile()
                pr.enable()
                for _ in range(20):
                    hp.bfs(G, src, backend="gpu")
                cp.cuda.Device().synchronize()
                pr.disable()
                s = io.StringIO()
                pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
                notes[f"{gname} hp.bfs cProfile (20 calls, by tottime)"] = s.getvalue()
                print(s.getvalue())
            attempt(gname, profile)

        if args.skip_sssp:
            continue

        # -- SSSP -------------------------------------------------------------------------
        def sssp():
            for dt in (np.float32, np.float64):
                prog = _bellman_ford_class(np.dtype(dt))
                dist0 = cp.full(n, np.inf, dtype=dt)
                dist0[src] = 0

                def call():
                    return hp.run(prog, G, backend="gpu", max_iterations=n, dist0=dist0,
                                  active=np.array([src]))
                ms, span, r = timed(call, args.repeat)
                rows.append(row(gname, f"BellmanFord[{np.dtype(dt).name}]", ms, span, r,
                                check=check_dist(G, src, r.dist)))
            ms, span, res = timed(lambda: hp.sssp(G, src, predecessors=False, backend="gpu"),
                                  args.repeat)
            rows.append(row(gname, "hp.sssp (no predecessors)", ms, span,
                            check=check_dist(G, src, res.distance)))
            ms, span, res = timed(lambda: hp.sssp(G, src, backend="gpu"), args.repeat)
            rows.append(row(gname, "hp.sssp (with predecessors)", ms, span,
                            check=check_dist(G, src, res.distance, res.predecessor)))
        attempt(gname, sssp)

    cols = ["graph", "program", "wall_ms", "span_ms", "first_call_ms", "setup_ms", "loop_ms",
            "supersteps", "push", "pull", "syncs", "max_active", "last_active", "last_edges",
            "dirs", "check"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r.get(c), float)
                                       else str(r.get(c, "")) for c in cols) + " |")
    print("\n".join(lines))
    if args.out:
        with open(f"{args.out}/sssp_breakdown.json", "w") as f:
            json.dump({"meta": metadata(benchmark="bench_sssp_breakdown", argv=sys.argv[1:]),
                       "rows": rows, "notes": notes}, f, indent=1)
        with open(f"{args.out}/sssp_breakdown.md", "w") as f:
            f.write("\n".join(lines) + "\n")
            for k, v in notes.items():
                f.write(f"\n## {k}\n\n```\n{v}\n```\n")
    bad = [r for r in rows if r.get("program") == "FAILED"
           or not str(r.get("check", "ok")).startswith(("ok", "n/a"))]
    for r in bad:
        print(f"FAILED: {r.get('graph')} {r.get('program')}: {r.get('check') or r.get('error')}")
    return 1 if bad else 0


def ab(args):
    """Time the cases with FAST_SETUP off and on (see the module docstring)."""
    from hpgraph.engine import gpu

    cp = hp.backend.cupy()
    scale, side = (16, 256) if args.quick else (21, 2048)
    repeat = max(7, args.repeat)
    R = hp.generators.rmat(scale, seed=1, weights=(1, 64), backend="gpu")
    Gr = hp.generators.grid_2d(side, side, weights=(1, 64), seed=1, backend="gpu")
    src = int(cp.argmax(R.out_degree))
    prog = _BFS_ANY[np.dtype(np.int32)]
    kw0 = bfs_kwargs(cp, prog, R.num_vertices, src)
    cases = {
        f"rmat{scale} hp.bfs": (lambda: hp.bfs(R, src, backend="gpu"), "bfs", R, src),
        f"rmat{scale} hp.sssp (no pred)": (
            lambda: hp.sssp(R, src, predecessors=False, backend="gpu"), "sssp", R, src),
        f"rmat{scale} hp.sssp": (lambda: hp.sssp(R, src, backend="gpu"), "sssp", R, src),
        f"rmat{scale} BFS program, max_iterations=0": (
            lambda: hp.run(prog, R, backend="gpu", max_iterations=0, **kw0), None, R, src),
        f"grid{side} hp.bfs": (lambda: hp.bfs(Gr, 0, backend="gpu"), "bfs", Gr, 0),
    }
    rows = []
    for label, (fn, kind, G, s0) in cases.items():
        samples = {False: ([], []), True: ([], [])}
        results = {}
        per = max(3, -(-repeat // 3))
        for _ in range(3):              # interleaved rounds: drift hits both sides alike
            for mode in (False, True):
                gpu.FAST_SETUP = mode
                gpu.clear_cache()
                walls, spans, res = _samples(fn, per)
                samples[mode][0].extend(walls)
                samples[mode][1].extend(spans)
                results[mode] = res
        gpu.FAST_SETUP = True
        check = _ab_check(kind, G, s0, results[False], results[True])
        med = {m: (statistics.median(samples[m][0]), statistics.median(samples[m][1]))
               for m in (False, True)}
        rows.append(dict(case=label, off_wall=med[False][0], off_span=med[False][1],
                         on_wall=med[True][0], on_span=med[True][1],
                         speedup=med[False][1] / med[True][1], check=check))
        print(rows[-1], flush=True)
    cols = ["case", "off_wall", "off_span", "on_wall", "on_span", "speedup", "check"]
    lines = [f"FAST_SETUP A/B ({cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; ms; "
             f"medians of {3 * max(3, -(-repeat // 3))} calls per side: 3 interleaved rounds, "
             f"each after a cache clear and two warm-up calls)", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c])
                                       for c in cols) + " |")
    print("\n".join(lines))
    if args.out:
        with open(f"{args.out}/fast_setup_ab.md", "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(f"{args.out}/fast_setup_ab.json", "w") as f:
            json.dump({"meta": metadata(benchmark="bench_sssp_breakdown --ab",
                                        argv=sys.argv[1:]), "rows": rows}, f, indent=1)
    return 0 if all(r["check"] == "ok" for r in rows) else 1


def _samples(fn, k):
    """(walls ms, device spans ms, last result) of ``k`` calls after two warm-up calls (the
    second call on a run state captures its CUDA graphs)."""
    cp = hp.backend.cupy()
    fn()
    fn()
    cp.cuda.Device().synchronize()
    walls, spans, res = [], [], None
    for _ in range(k):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        t = time.perf_counter()
        e0.record()
        res = fn()
        e1.record()
        e1.synchronize()
        walls.append((time.perf_counter() - t) * 1e3)
        spans.append(cp.cuda.get_elapsed_time(e0, e1))
    return walls, spans, res


def _ab_check(kind, G, src, off, on):
    """Both setups' results: equal depths (and valid parents) / equal distances."""
    if kind == "bfs":
        if not bool((off.depth == on.depth).all()):
            return "DEPTH DIFFERS"
        for r in (off, on):
            c = check_bfs(G, src, r)
            if c != "ok":
                return c
        return "ok"
    if kind == "sssp":
        for r in (off, on):
            c = check_dist(G, src, r.distance, r.predecessor)
            if c != "ok":
                return c
        return "ok"
    a, b = off.properties, on.properties
    return "ok" if all(bool((a[k] == b[k]).all()) for k in b) else "PROPS DIFFER"


def _bfs_alpha(G, src, alpha):
    from hpgraph.algorithms._bfs import bfs_engine
    from hpgraph.algorithms._common import check_sources

    return bfs_engine(G, check_sources(G, src), side="gpu", push_alpha=alpha)


if __name__ == "__main__":
    sys.exit(main())
