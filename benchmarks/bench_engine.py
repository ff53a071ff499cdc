"""Benchmark: the vertex-program engine on the GPU (per-superstep overhead and SSSP).

Measured (``hp.run`` on device graphs; the loop time ``RunResult.time`` excludes PREPROCESS --
init, compilation, buffer allocation --, which is reported separately as ``setup``):

1. **Per-superstep overhead** where the frontier is tiny and the host loop would dominate:
   a 100,000-vertex path (100,000 supersteps of one active vertex) and the 2048 x 2048 grid
   (4,095 BFS levels, frontier <= 2,048 vertices), with the examples' ``BFSDepth`` and
   ``SSSP`` programs.  ``us/superstep`` = loop time / supersteps.  For scale, a plain CuPy
   level-synchronous BFS on the grid (one cupyx SpMV + one host check per level).
2. **SSSP on R-MAT scale 21** (Graph500 parameters, undirected, integer weights 1..64, GPU
   generator, seed 1) from the vertex of largest degree (in the giant component), against a plain
   warp-per-row CSR Bellman-Ford written in CuPy (``RawKernel`` in this file): every row every
   iteration, in-place relaxation, one changed-flag read per iteration.  Also the engine with
   ``direction="pull"`` and ``"push"`` forced and with other ``push_alpha`` values (the
   direction threshold's measurement).

Each engine row: ``warm_ms`` / ``wall_ms`` / ``first_ms`` of the whole ``hp.run`` call
(:mod:`_harness`), and the loop and setup time of the median run (by loop time) after the first
call (which compiles).  Every row is checked against SciPy (``csgraph.shortest_path``:
unweighted for BFS depths, Dijkstra for SSSP distances); the run exits 1 on a mismatch or an
error.
Raw numbers go to ``<out>/engine.json``; a markdown table to ``<out>/engine.md`` and, with
``--md PATH`` (default ``benchmarks/results/engine.md`` when writable), there too.

Usage::

    python benchmarks/bench_engine.py [--out DIR] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import hpgraph as hp  # noqa: E402
from examples.bfs import BFSDepth  # noqa: E402
from examples.sssp import SSSP  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from _baselines import BF_SOURCE, cupy_bfs  # noqa: E402
from _harness import check_equal, metadata, timed  # noqa: E402


def _engine_row(label, graph_name, prog, G, repeat, ref, field, **kw):
    """One engine row: harness timings of the whole call, the median run's loop/setup split,
    and ``check``: ``field`` of the result against ``ref`` (SciPy's distances; unreachable
    vertices inf there, the program's int32 max or inf here)."""
    t, _ = timed(lambda: hp.run(prog, G, backend="gpu", **kw), repeat)
    rs = [hp.run(prog, G, backend="gpu", **kw) for _ in range(repeat)]
    times = [r.time for r in rs]
    r = rs[int(np.argsort(times)[len(times) // 2])]
    dirs = r.directions
    got = hp.backend.to_host(getattr(r, field)).astype(np.float64)
    got[got >= np.iinfo(np.int32).max] = np.inf
    return {
        "graph": graph_name, "program": label, **t, "supersteps": r.supersteps,
        "loop_ms": r.time * 1e3, "setup_ms": r.setup_time * 1e3,
        "us_per_superstep": r.time * 1e6 / max(r.supersteps, 1), "syncs": r.syncs,
        "push_steps": dirs.count("push"), "pull_steps": dirs.count("pull"),
        "cuda_graphs": r.extra.get("graphs", []), "kw": {k: str(v) for k, v in kw.items()},
        "check": check_equal(got, ref, f"{label} {field}"),
    }, r


def _scipy_dist(G, source, weighted):
    import scipy.sparse.csgraph as csg

    A = G.to_host().to_scipy().tocsr()
    return csg.shortest_path(A, indices=source, unweighted=not weighted)


def cupy_bfs_grid(G, source=0):
    """Plain CuPy level-synchronous BFS (``_baselines.cupy_bfs``), timed: (s, levels, depth)."""
    import cupy as cp

    AT = G.AT.to_cupyx().astype(cp.float32)
    cp.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    depth = cupy_bfs(AT, source)
    cp.cuda.get_current_stream().synchronize()
    return time.perf_counter() - t0, int(depth.max()) + 1, depth


def bellman_ford_baseline(G, source, repeat):
    import cupy as cp

    k = cp.RawKernel(BF_SOURCE, "bf_pull")
    AT = G.AT  # undirected: A itself
    ip = AT.indptr.astype(cp.int32)
    ix = AT.indices.astype(cp.int32)
    w = AT.values.astype(cp.float32)
    n = G.num_vertices
    sm = cp.cuda.Device().attributes["MultiProcessorCount"]
    grid = (min(sm * 32, (n * 32 + 255) // 256),)

    def once():
        dist = cp.full(n, cp.inf, cp.float32)
        dist[source] = 0
        changed = cp.zeros(1, cp.int32)
        it = 0
        cp.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        while True:
            changed.fill(0)
            k(grid, (256,), (ip, ix, w, dist, np.int32(n), changed))
            it += 1
            if int(changed.get()[0]) == 0:
                break
        cp.cuda.get_current_stream().synchronize()
        return time.perf_counter() - t0, it, dist

    once()
    runs = [once() for _ in range(repeat)]
    runs.sort(key=lambda r: r[0])
    return runs[len(runs) // 2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="directory for engine.json / engine.md")
    ap.add_argument("--md", default=str(ROOT / "benchmarks" / "results" / "engine.md"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    ap.add_argument("--scale", type=int, default=21)
    args = ap.parse_args(argv)
    import cupy as cp

    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"]
    dev = dev.decode() if isinstance(dev, bytes) else dev
    res = {"meta": metadata(benchmark="bench_engine", argv=sys.argv[1:]), "device": dev,
           "cupy": cp.__version__, "python": platform.python_version(),
           "rows": [], "errors": [], "rmat": {}, "baselines": {}}

    def save():
        if out:
            (out / "engine.json").write_text(json.dumps(res, indent=2, default=str))

    path_n = 10_000 if args.quick else 100_000
    side = 256 if args.quick else 2048
    scale = 14 if args.quick else args.scale

    # ---- 1. per-superstep overhead ------------------------------------------------------
    try:
        P = hp.Graph.from_edges(np.arange(path_n - 1), np.arange(1, path_n),
                                np.ones(path_n - 1, np.float32), num_vertices=path_n,
                                directed=False).to_device()
        ref = np.arange(path_n, dtype=np.float64)
        for label, prog, field in (("BFSDepth", BFSDepth, "depth"), ("SSSP", SSSP, "dist")):
            row, r = _engine_row(label, f"path {path_n:,}", prog, P, args.repeat, ref, field,
                                 source=0)
            res["rows"].append(row)
            print(row, flush=True)
            save()
    except Exception:
        res["errors"].append(traceback.format_exc())
        print(res["errors"][-1], flush=True)
    try:
        Gg = hp.generators.grid_2d(side, side, backend="gpu")
        ref = _scipy_dist(Gg, 0, weighted=False)
        for label, prog, field in (("BFSDepth", BFSDepth, "depth"), ("SSSP", SSSP, "dist")):
            row, r = _engine_row(label, f"grid {side}x{side}", prog, Gg, args.repeat, ref, field,
                                 source=0)
            res["rows"].append(row)
            print(row, flush=True)
            save()
        t, levels, depth = cupy_bfs_grid(Gg)
        d = hp.backend.to_host(depth).astype(np.float64)
        d[d < 0] = np.inf
        ok = check_equal(d, ref, "plain CuPy BFS depth") == "ok"
        res["baselines"]["cupy_bfs_grid"] = {"ms": t * 1e3, "levels": levels,
                                             "us_per_level": t * 1e6 / levels, "agrees": ok}
        print(res["baselines"], flush=True)
        save()
    except Exception:
        res["errors"].append(traceback.format_exc())
        print(res["errors"][-1], flush=True)

    # ---- 2. SSSP on R-MAT ----------------------------------------------------------------
    try:
        t0 = time.perf_counter()
        R = hp.generators.rmat(scale, 16, seed=1, directed=False, weights=(1, 64), backend="gpu")
        cp.cuda.get_current_stream().synchronize()
        res["rmat"] = {"scale": scale, "vertices": R.num_vertices, "edges": R.num_edges,
                       "generate_s": time.perf_counter() - t0,
                       "hyb_K": int(R.hyb("AT").K), "hyb_coo_share": float(R.hyb("AT").coo_share)}
        print(res["rmat"], flush=True)
        src = int(hp.backend.to_host(R.out_degree).argmax())  # in the giant component
        res["rmat"]["source"] = src
        bt, iters, bdist = bellman_ford_baseline(R, src, args.repeat)
        ref = _scipy_dist(R, src, weighted=True)
        res["baselines"]["bellman_ford_csr"] = {
            "ms": bt * 1e3, "iterations": iters,
            "check": check_equal(hp.backend.to_host(bdist).astype(np.float64), ref, "dist")}
        print(res["baselines"], flush=True)
        save()
        for label, kw in (("SSSP auto", {}), ("SSSP pull", {"direction": "pull"}),
                          ("SSSP push", {"direction": "push"}),
                          ("SSSP auto alpha=1", {"push_alpha": 1.0}),
                          ("SSSP auto alpha=16", {"push_alpha": 16.0})):
            row, r = _engine_row(label, f"rmat {scale}", SSSP, R, args.repeat, ref, "dist",
                                 source=src, **kw)
            row["speedup_vs_bf"] = bt * 1e3 / row["loop_ms"]
            res["rows"].append(row)
            print(row, flush=True)
            save()
    except Exception:
        res["errors"].append(traceback.format_exc())
        print(res["errors"][-1], flush=True)

    md = render(res)
    print(md)
    if out:
        (out / "engine.md").write_text(md)
    try:
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.md).write_text(md)
    except OSError:
        pass
    save()
    bad = [f"{r['graph']} {r['program']}: {r['check']}" for r in res["rows"] if r["check"] != "ok"]
    bad += [f"baseline {k}: {v['check']}" for k, v in res["baselines"].items()
            if v.get("check", "ok") != "ok"]
    for b in bad + [e.strip().splitlines()[-1] for e in res["errors"]]:
        print(f"FAILED: {b}")
    return 1 if bad or res["errors"] else 0


def render(res) -> str:
    lines = [f"# Vertex-program engine (GPU): {res['device']}", "",
             "Generated by `benchmarks/bench_engine.py`; loop time = `RunResult.time` "
             "(median of runs after a warm-up; PREPROCESS/compilation in `setup`).", "",
             "| graph | program | supersteps | loop ms | us/superstep | setup ms | push/pull steps "
             "| host syncs | vs Bellman-Ford |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|"]
    for r in res["rows"]:
        vs = f"{r['speedup_vs_bf']:.2f}x" if "speedup_vs_bf" in r else ""
        if r.get("check") != "ok":
            vs += f" ({r.get('check')})"
        lines.append(f"| {r['graph']} | {r['program']} | {r['supersteps']:,} | {r['loop_ms']:.2f} "
                     f"| {r['us_per_superstep']:.1f} | {r['setup_ms']:.0f} | "
                     f"{r['push_steps']}/{r['pull_steps']} | {r['syncs']} | {vs} |")
    b = res.get("baselines", {})
    lines.append("")
    if "cupy_bfs_grid" in b:
        c = b["cupy_bfs_grid"]
        lines.append(f"Plain CuPy BFS on the grid: {c['ms']:.1f} ms for {c['levels']} levels "
                     f"({c['us_per_level']:.0f} us/level; same depths: {c['agrees']}).")
    if "bellman_ford_csr" in b:
        c = b["bellman_ford_csr"]
        rm = res.get("rmat", {})
        lines.append(f"Plain warp-per-row CSR Bellman-Ford (CuPy RawKernel) on R-MAT scale "
                     f"{rm.get('scale')} ({rm.get('vertices', 0):,} vertices, "
                     f"{rm.get('edges', 0):,} stored edges, HYB K={rm.get('hyb_K')}, COO share "
                     f"{rm.get('hyb_coo_share', 0):.2f}): {c['ms']:.1f} ms, {c['iterations']} "
                     "iterations.")
    if res.get("errors"):
        lines += ["", "Errors:", "```", *[e.strip() for e in res["errors"]], "```"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
