"""Benchmark: user-written vertex programs against hpgraph's drop-in algorithms ([engine-2]).

Rows (every result checked against SciPy; the run exits non-zero on a mismatch):

* SSSP: ``hp.sssp`` (predecessors included) against the README's program
  (``examples.sssp.SSSP``, Bellman-Ford with a frontier) and the same program with a priority
  and a witness declared (``SSSPNearFar``: near-far buckets and predecessors), on the device
  loop and on the host loop.
* The SSSP and BFS-depth programs relax (``hpgraph.engine.relax``: their pushes combine into
  the property by atomics, one kernel a push superstep); the rows "relaxation off" run them
  superstep for superstep as the CPU engine does (``hp.config["engine_relax"] = False``).
* BFS: ``hp.bfs`` (depths and parents; on the GPU also each of its paths, the single-launch
  kernel and the engine's ``BFSAny`` program, which ``bfs_gpu_path='auto'`` picks by degree)
  against ``examples.bfs.BFSParents`` (an ``any`` reduction with a witness: parents; its host
  loop fuses push and APPLY, and the row "push and APPLY apart" runs the same program without
  that) and ``BFSDepth`` (depths only).
* Per-superstep cost with a one-vertex frontier: ``BFSDepth`` on a path (one vertex per
  superstep), device loop against host loop.
* First use of a new program (a class whose gather and update hold a constant never
  compiled before, so hpgraph's kernel cache misses).  NVRTC 13 also keeps ptxas' output in
  the driver's compute cache (``~/.nv/ComputeCache``), which serves units whose code is the
  same as an earlier program's: run with ``CUDA_CACHE_DISABLE=1`` for a new program's whole
  cost (the row records the variable).

Graphs: R-MAT 21 (undirected, integer weights 1..64, source = the vertex of largest degree)
and the 2048 x 2048 grid (source 0); ``--quick`` uses R-MAT 12 and a 64 x 64 grid.  Times:
``warm_ms`` (CUDA events, median after a warm-up), ``wall_ms`` and ``first_ms``
(:mod:`_harness`).  One JSON per run (``--out``) with commit, device, driver and versions.

Usage::

    python benchmarks/bench_vertex_programs.py [--quick] [--repeat 7] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hpgraph as hp  # noqa: E402
from _harness import fresh_class, metadata, timed, write  # noqa: E402
from examples.bfs import BFSDepth, BFSParents  # noqa: E402
from examples.sssp import SSSP, SSSPNearFar  # noqa: E402

FAILED = []


def _host(a):
    return np.asarray(hp.backend.to_host(a))


def _check(ok, what):
    if not ok:
        FAILED.append(what)
        print(f"  MISMATCH: {what}", flush=True)


def _check_tree(A, dist, pred, source, what, hops=False):
    """Every reached vertex but the source has a predecessor along a tight edge."""
    v = np.flatnonzero(np.isfinite(dist) & (np.arange(dist.size) != source))
    u = pred[v]
    if (u < 0).any():
        return _check(False, f"{what}: {int((u < 0).sum())} reached vertices without predecessor")
    # the benchmark graphs' weights are >= 1, so a stored edge reads non-zero
    w = np.asarray(A[u, v]).ravel()
    step = np.ones_like(w) if hops else w
    _check(bool(np.all(w != 0)) and bool(np.all(dist[u] + step == dist[v])),
           f"{what}: predecessors are not a shortest-path tree")


def graphs(quick, scale=None, side=None):
    be = "gpu" if hp.has_gpu() else "cpu"
    scale0, side0 = (12, 64) if quick else (21, 2048)
    scale, side = scale or scale0, side or side0
    R = hp.rmat(scale, edge_factor=16, seed=1, directed=False, weights=(1, 64), backend=be)
    rs = int(_host(R.out_degree).argmax())
    Gr = hp.grid_2d(side, side, weights=(1, 64), seed=1, backend=be)
    return [(f"R-MAT {scale}", R, rs), (f"grid {side}x{side}", Gr, 0)]


def bench_graph(label, G, source, repeat, gpu, rows):
    import scipy.sparse.csgraph as csg

    A = G.to_host().to_scipy().tocsr()
    t0 = time.perf_counter()
    ref = csg.dijkstra(A, indices=source)
    hops = csg.dijkstra(A, indices=source, unweighted=True)
    print(f"[{label}] n={G.num_vertices:,} m={G.num_edges:,}; SciPy references "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    backend = "gpu" if gpu else "cpu"

    def row(name, fn, check, loop=None, **extra):
        cfg = {} if loop is None else {"engine_loop": loop}
        with hp.config.set(**cfg):
            r, out = timed(fn, repeat, gpu=gpu)
        r.update(graph=label, workload=name, loop=loop, **extra)
        if hasattr(out, "supersteps"):
            r["supersteps"] = out.supersteps
            r["loop_ms"] = out.time * 1e3
            r["loop_used"] = out.extra.get("loop", backend)
        check(out)
        rows.append(r)
        shown = name if loop is None else f"{name}, {r.get('loop_used', loop)} loop"
        print(f"  {shown:<52} warm {r['warm_ms']:9.3f} ms  wall {r['wall_ms']:9.3f}  first "
              f"{r['first_ms']:9.1f}" + (f"  supersteps {r.get('supersteps')}"
                                          if "supersteps" in r else ""), flush=True)

    def chk_sssp(what):
        def check(out):
            if isinstance(out, tuple):
                dist, pred = (_host(x) for x in out)
            else:
                dist, pred = _host(out.dist), _host(out.pred) if "pred" in out.properties else None
            _check(np.allclose(dist, ref, rtol=1e-6), f"{label} {what}: distances")
            if pred is not None:
                _check_tree(A, dist.astype(np.float64), pred, source, f"{label} {what}")
        return check

    def chk_bfs(what):
        def check(out):
            if isinstance(out, tuple):
                depth, parent = (_host(x) for x in out)
            else:
                depth = _host(out.depth)
                parent = _host(out.parent) if "parent" in out.properties else None
            d = np.where((depth < 0) | (depth == np.iinfo(np.int32).max), np.inf, depth)
            _check(np.array_equal(d, hops), f"{label} {what}: depths")
            if parent is not None:
                _check_tree(A, d, parent, source, f"{label} {what}", hops=True)
        return check

    row("hp.sssp (with predecessors)", lambda: hp.sssp(G, source, backend=backend),
        chk_sssp("hp.sssp"))
    loops = ("device", "host") if gpu else (None,)
    for loop in loops:
        row("user SSSP (README program)", lambda: hp.run(SSSP, G, backend=backend,
                                                          source=source),
            chk_sssp("README SSSP"), loop=loop)
        row("user SSSP + priority + witness", lambda: hp.run(SSSPNearFar, G, backend=backend,
                                                              source=source),
            chk_sssp("SSSPNearFar"), loop=loop)
        if gpu:                     # the A/B of the relaxation (hpgraph.engine.relax)
            row("user SSSP + priority + witness, relaxation off", lambda: _relax_off(
                lambda: hp.run(SSSPNearFar, G, backend=backend, source=source)),
                chk_sssp("SSSPNearFar relaxation off"), loop=loop)
    row("hp.bfs (depths and parents)", lambda: hp.bfs(G, source, backend=backend),
        chk_bfs("hp.bfs"))
    if gpu:                         # both GPU paths of hp.bfs (bfs_gpu_path='auto' picks one)
        for path in ("kernel", "engine"):
            with hp.config.set(bfs_gpu_path=path):
                row(f"hp.bfs, bfs_gpu_path='{path}'", lambda: hp.bfs(G, source, backend=backend),
                    chk_bfs(f"hp.bfs {path}"))
    for loop in loops:
        row("user BFS + witness (BFSParents)", lambda: hp.run(BFSParents, G, backend=backend,
                                                               source=source),
            chk_bfs("BFSParents"), loop=loop)
        if loop != "device":        # the device loop does not fuse: the A/B of the fused push
            row("user BFS + witness, push and APPLY apart", lambda: hp.run(
                BFSParentsApart, G, backend=backend, source=source),
                chk_bfs("BFSParentsApart"), loop=loop)
        row("user BFS depths (BFSDepth)", lambda: hp.run(BFSDepth, G, backend=backend,
                                                         source=source),
            chk_bfs("BFSDepth"), loop=loop)
        if gpu:
            row("user BFS depths, relaxation off", lambda: _relax_off(
                lambda: hp.run(BFSDepth, G, backend=backend, source=source)),
                chk_bfs("BFSDepth relaxation off"), loop=loop)


def _relax_off(fn):
    """``fn()`` with the relaxation off: every superstep as the CPU engine's."""
    with hp.config.set(engine_relax=False):
        return fn()


class BFSParentsApart(BFSParents):
    """``BFSParents`` without ``mask_excludes_active``: its push supersteps launch push and
    APPLY apart (the same program as before the fused push)."""

    mask_excludes_active = False


def bench_superstep(n, repeat, gpu, rows, blocks=(2,)):
    G = hp.generators.path(n, backend="gpu" if gpu else "cpu")
    runs = [("device", b) for b in blocks] + [("host", None)] if gpu else [(None, None)]
    for loop, b in runs:
        cfg = {} if loop is None else {"engine_loop": loop}
        if b is not None:
            cfg["engine_loop_blocks_per_sm"] = b
            from hpgraph.engine import gpu as _g

            _g.clear_cache()          # the loop's grid is sized when its kernel is compiled
        with hp.config.set(**cfg):
            r, out = timed(lambda: hp.run(BFSDepth, G, source=0), repeat, gpu=gpu)
        d = _host(out.depth)
        _check(np.array_equal(d, np.arange(n)), f"path {n} BFSDepth ({loop})")
        us = out.time * 1e6 / max(out.supersteps, 1)
        r.update(graph=f"path {n}", workload="BFSDepth per superstep", loop=loop,
                 supersteps=out.supersteps, us_per_superstep=us, blocks_per_sm=b,
                 loop_used=out.extra.get("loop"), loop_blocks=out.extra.get("loop_blocks"))
        rows.append(r)
        print(f"  path {n} BFSDepth {loop} (blocks/SM {b}, grid {out.extra.get('loop_blocks')}): "
              f"{out.supersteps} supersteps, {us:.2f} us each (warm {r['warm_ms']:.1f} ms)",
              flush=True)
    if gpu:
        from hpgraph.engine import gpu as _g

        _g.clear_cache()


def bench_first_use(gpu, rows):
    """Program classes whose source is new to this process (a unique constant): the README
    SSSP (its block loop compiles in the background), ``SSSPNearFar``, and ``SSSPNearFar``
    asking for the device loop (whose module compiles in the background while that call runs
    on the host loop).  ``first_ms`` is the first ``hp.run`` (binding, code generation, NVRTC,
    module loads, run state, the run), ``background_ms`` the wait for the compiles it left
    running, ``second_ms`` the next run, ``compile_ms`` first minus second (what being new
    costs the first call)."""
    G = hp.generators.path(1000, backend="gpu" if gpu else "cpu")
    if gpu:
        # NVRTC's own start-up in a process (loading the library, its first compile) is paid
        # once, whatever the program: timed apart, with a trivial kernel
        from hpgraph import kernel_cache
        import cupy as cp

        t0 = time.perf_counter()
        kernel_cache.cubin('extern "C" __global__ void k() {}', ("-std=c++17",),
                           "sm_" + cp.cuda.Device().compute_capability)
        nvrtc_ms = (time.perf_counter() - t0) * 1e3
        rows.append({"graph": "-", "workload": "NVRTC start-up (a trivial kernel)",
                     "first_ms": nvrtc_ms})
        print(f"  NVRTC start-up in this process (a trivial kernel): {nvrtc_ms:.1f} ms", flush=True)

    def timed_run(cls, loop=None):
        t0 = time.perf_counter()
        out = hp.run(cls, G, source=0, engine_loop=loop)
        if gpu:
            import cupy as cp

            cp.cuda.get_current_stream().synchronize()
        return (time.perf_counter() - t0) * 1e3, out

    for base, loop in ((SSSP, None), (SSSPNearFar, None), (SSSPNearFar, "device")):
        stamp = time.time_ns() % 1000003
        Fresh = fresh_class(base, f"    bias = {stamp}.0\n"
                            "    def gather(self, src, edge, dst):\n"
                            "        return src.dist + edge + self.bias * 0\n"
                            "    def update(self, v, y):\n"
                            "        return {'dist': min(v.dist, y + self.bias * 0)}\n",
                            f"bench-{stamp}")
        first, out = timed_run(Fresh, loop)
        first_loop = out.extra.get("loop")
        _check(np.array_equal(_host(out.dist), np.arange(1000, dtype=np.float32)),
               f"fresh {base.__name__}")
        # modules the first call left compiling in the background (deferred units; the
        # device loop's, where the call asked for it and took the host loop meanwhile)
        from hpgraph import kernel_cache

        t0 = time.perf_counter()
        kernel_cache.wait()
        ready = (time.perf_counter() - t0) * 1e3
        second, out = timed_run(Fresh, loop)
        _check(np.array_equal(_host(out.dist), np.arange(1000, dtype=np.float32)),
               f"fresh {base.__name__}, second run")
        cache_off = os.environ.get("CUDA_CACHE_DISABLE", "0")
        what = base.__name__ + ("" if loop is None else f", engine_loop={loop!r}")
        rows.append({"graph": "path 1000", "workload": f"first use of a new program ({what})",
                     "first_ms": first, "first_loop": first_loop, "background_ms": ready,
                     "second_ms": second, "compile_ms": first - second,
                     "loop_used": out.extra.get("loop"), "CUDA_CACHE_DISABLE": cache_off})
        print(f"  first use of a new program ({what}, CUDA_CACHE_DISABLE={cache_off}): "
              f"{first:.1f} ms ({first_loop} loop), background compiles after it {ready:.1f} ms, "
              f"second run {second:.1f} ms ({out.extra.get('loop')} loop): new-program cost "
              f"{first - second:.1f} ms", flush=True)


def bench_sweep(repeat, gpu, rows, quick):
    """The direction constant and the bucket width for the user programs on R-MAT."""
    label, G, source = graphs(quick)[0]
    backend = "gpu" if gpu else "cpu"
    for alpha in (1.0, 2.0, 4.0, 16.0):
        for prog, extra in ((SSSPNearFar, {}), (SSSP, {}), (BFSParents, {})):
            with hp.config.set(push_alpha=alpha):
                r, out = timed(lambda: hp.run(prog, G, backend=backend, source=source),
                               repeat, gpu=gpu)
            r.update(graph=label, workload=f"sweep {prog.__name__}", push_alpha=alpha,
                     supersteps=out.supersteps, directions="".join("h" if d == "push" else "l" for d in out.directions))
            rows.append(r)
            print(f"  sweep {prog.__name__:<12} push_alpha {alpha:5.1f}: warm {r['warm_ms']:8.3f} ms,"
                  f" {out.supersteps} supersteps {r['directions']} (h push, l pull)", flush=True)
    base = hp.program.default_priority_delta(G)
    for f in (0.125, 0.5, 2.0, 8.0):
        prog = type("SSSPNearFarD", (SSSPNearFar,), {"priority_delta": base * f})
        r, out = timed(lambda: hp.run(prog, G, backend=backend, source=source), repeat, gpu=gpu)
        r.update(graph=label, workload="sweep SSSPNearFar delta", delta_factor=f,
                 supersteps=out.supersteps)
        rows.append(r)
        print(f"  sweep SSSPNearFar delta x{f}: warm {r['warm_ms']:8.3f} ms, {out.supersteps} "
              "supersteps", flush=True)


def bench_steps(rows, quick):
    """Per-superstep GPU times of the user programs (hp.config trace: the host loop one
    superstep at a time, CUDA events around each)."""
    for label, G, source in graphs(quick):
        for prog in (SSSPNearFar, SSSP, BFSParents, BFSDepth):
            with hp.config.set(trace=True):
                hp.run(prog, G, source=source)
                out = hp.run(prog, G, source=source)
            ms = out.extra.get("step_ms", [])
            rows.append({"graph": label, "workload": f"steps {prog.__name__}",
                         "step_ms": ms, "directions": out.directions, "active": out.active})
            head = ", ".join(f"{d[:2]}{a}:{t * 1e3:.0f}us" for d, a, t in
                             zip(out.directions[:12], out.active[:12], ms[:12]))
            print(f"  [{label}] {prog.__name__}: {len(ms)} steps, {sum(ms):.2f} ms: {head}",
                  flush=True)


def bench_cold_process(rows):
    """A known program in a new Python process: import, graph, first hp.run (CuPy's on-disk
    kernel cache holds the module compiled by an earlier process)."""
    import subprocess

    import compileall

    # an installed package has its bytecode compiled at install time (the device sets
    # PYTHONDONTWRITEBYTECODE, so without this every new process would compile hpgraph's source)
    compileall.compile_dir(str(ROOT / "hpgraph"), quiet=1)
    compileall.compile_dir(str(ROOT / "examples"), quiet=1)
    code = ("import time, sys; sys.path.insert(0, %r); t0 = time.perf_counter(); "
            "import hpgraph as hp; from examples.sssp import SSSPNearFar; "
            "from examples.bfs import BFSDepth; "
            "G = hp.generators.path(1000, backend='auto'); "
            "warm = sys.argv[1] == '1'; r = hp.run(BFSDepth, G, source=0) if warm else None; "
            "hp.backend.synchronize(); t1 = time.perf_counter(); "
            "r = hp.run(SSSPNearFar, G, source=0); hp.backend.synchronize(); "
            "t2 = time.perf_counter(); r = hp.run(SSSPNearFar, G, source=0); "
            "hp.backend.synchronize(); t3 = time.perf_counter(); "
            "print((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3)" % str(ROOT))
    for warm in (0, 1):
        what = ("after another program ran on the graph (the program's own cost)" if warm else
                "first hp.run of the process (imports, graph preprocessing, kernel loads)")
        for i in range(3):
            out = subprocess.run([sys.executable, "-c", code, str(warm)], capture_output=True,
                                 text=True)
            if out.returncode != 0:
                _check(False, f"cold process: {out.stderr[-300:]}")
                return
            setup, first, second = (float(x) for x in out.stdout.split())
            rows.append({"graph": "path 1000", "workload": "new process, known program",
                         "variant": what, "process": i, "setup_ms": setup,
                         "first_run_ms": first, "second_run_ms": second,
                         "cost_ms": first - second})
            print(f"  new process {i}, {what}: setup {setup:.1f} ms, first hp.run {first:.1f} ms,"
                  f" second {second:.1f} ms: cost {first - second:.1f} ms", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", default=None, help="JSON file for the results")
    ap.add_argument("--skip", default="", help="comma list of: graphs,superstep,first,cold")
    ap.add_argument("--sweep", action="store_true", help="push_alpha / delta sweep on R-MAT")
    ap.add_argument("--steps", action="store_true", help="per-superstep GPU times (trace)")
    ap.add_argument("--graphs", default="rmat,grid", help="comma list of: rmat,grid")
    ap.add_argument("--scale", type=int, default=None,
                    help="R-MAT scale of the graph rows (default 21; --quick 12)")
    ap.add_argument("--side", type=int, default=None,
                    help="side of the grid of the graph rows (default 2048; --quick 64)")
    ap.add_argument("--blocks", default="2", help="device-loop blocks per SM to sweep on the path")
    ap.add_argument("--loop-blocks", type=int, default=None,
                    help="hp.config engine_loop_blocks_per_sm for the graph rows")
    args = ap.parse_args(argv)
    gpu = hp.has_gpu()
    skip = set(args.skip.split(","))
    rows = []
    if "first" not in skip:
        bench_first_use(gpu, rows)
    if "cold" not in skip:
        bench_cold_process(rows)
    if "superstep" not in skip:
        bench_superstep(2000 if args.quick else 100_000, args.repeat, gpu, rows,
                        tuple(int(b) for b in args.blocks.split(",")))
    if args.loop_blocks is not None:
        hp.config.set(engine_loop_blocks_per_sm=args.loop_blocks)
    if "graphs" not in skip:
        want = set(args.graphs.split(","))
        for label, G, s in graphs(args.quick, args.scale, args.side):
            if label.split()[0].lower().replace("-", "") in want:
                bench_graph(label, G, s, args.repeat, gpu, rows)
    if args.sweep:
        bench_sweep(args.repeat, gpu, rows, args.quick)
    if args.steps and gpu:
        bench_steps(rows, args.quick)
    res = {"meta": metadata(bench="bench_vertex_programs", quick=args.quick,
                            repeat=args.repeat, scale=args.scale, side=args.side),
           "rows": rows, "failed": FAILED}
    if args.out:
        write(args.out, res)
    if FAILED:
        print(f"{len(FAILED)} result mismatches", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
