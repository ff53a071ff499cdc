"""A/B of whole hpgraph trees (two revisions' packages) in fresh processes, alternating.

``ab_engine.py`` compares engine templates inside one process; a change of Python code (the
run loop, compile units, caches) needs a process per tree.  Across processes the same code
has measured 10-30% apart on one H100, so the trees alternate, round after round, on one
machine, and the table gives each row's median over the rounds and its range.  The device copy
of the repository has no ``.git``: export each revision beside the working tree first
(``scratch/`` travels with ``carry``)::

    mkdir -p scratch/trees/9949573 && git archive 9949573 hpgraph examples \\
        | tar -x -C scratch/trees/9949573

Workloads (run in the child process with the tree's ``hpgraph`` and ``examples`` first on
``sys.path``; the harness of this checkout times and checks them):

``rmat``
    warm rows on R-MAT 21 (``--quick``: 12): the user programs ``BFSParents``, ``BFSDepth``,
    ``SSSPNearFar`` and the README SSSP on the host and device loops, ``hp.bfs`` and
    ``hp.sssp``; each result checked against SciPy.  ``--withhold hp_block_loop,hp_push``
    makes the engine treat those deferred kernels as never compiled (a run as it was while
    they compiled in the background); ``--no-compile-wait`` times without waiting for
    background compiles after the first call (the harness before session 27).
``first-use``
    new programs (a unique constant in their source) asking for the device loop, and
    ``hp.bfs`` / ``hp.sssp`` on a 64 x 64 grid, in a process with an empty hpgraph kernel
    cache (CuPy's cache per tree, warmed by a first process; CUDA's cache off): first call,
    the wait for background compiles, second call, and the loop each took.

Usage::

    python benchmarks/ab_trees.py --trees old=scratch/trees/9949573,new=. --workload rmat
        [--rounds 4] [--repeat 7] [--quick] [--withhold NAMES] [--no-compile-wait]
        [--push-alpha A] [--budget SECONDS] [--out FILE]

``--budget`` starts no round after that many seconds (at least one runs), so a device call
with a hard time limit ends with a table; the JSON is written after every round
(``meta.rounds_done``).

Exits 1 when a child fails or a result does not match its oracle.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


# ---- the child: one workload in this process, with one tree's hpgraph -----------------------

def _child_rmat(args) -> dict:
    import scipy.sparse.csgraph as csg

    import hpgraph as hp
    from _harness import check_bfs, check_sssp, timed
    from bfs import BFSDepth, BFSParents
    from sssp import SSSP, SSSPNearFar

    if args.withhold:
        from hpgraph.engine import gpu_state

        held = set(args.withhold.split(","))
        ready = gpu_state._State.ready
        gpu_state._State.ready = lambda self, name: name not in held and ready(self, name)
    if args.no_compile_wait:
        from hpgraph import kernel_cache

        kernel_cache.wait = lambda: None
    gpu = hp.has_gpu()
    scale = 12 if args.quick else 21
    G = hp.rmat(scale, edge_factor=16, seed=1, directed=False, weights=(1, 64),
                backend="gpu" if gpu else "cpu")
    src = int(hp.backend.to_host(G.out_degree).argmax())
    A = G.to_host().to_scipy().tocsr()
    dist = csg.dijkstra(A, indices=src)
    hops = csg.dijkstra(A, indices=src, unweighted=True)
    rows = {}

    def row(name, fn, check):
        r, out = timed(fn, args.repeat, gpu=gpu)
        verdict = check(out)
        loop = getattr(out, "extra", {}).get("loop")
        if verdict == "ok" and gpu and name.endswith("device loop") and loop != "device":
            verdict = f"ran on the {loop} loop ({out.extra.get('loop_fallback')})"
        rows[name] = {"warm_ms": r["warm_ms"], "first_ms": r["first_ms"], "check": verdict,
                      "loop": loop}

    kw = {} if args.push_alpha is None else {"push_alpha": args.push_alpha}
    for loop in ("host", "device"):
        row(f"BFSParents, {loop} loop",
            lambda: hp.run(BFSParents, G, source=src, engine_loop=loop, **kw),
            lambda o: check_bfs(A, src, o.depth, o.parent, hops=hops))
        row(f"BFSDepth, {loop} loop",
            lambda: hp.run(BFSDepth, G, source=src, engine_loop=loop, **kw),
            lambda o: check_bfs(A, src, o.depth, hops=hops))
        row(f"SSSPNearFar, {loop} loop",
            lambda: hp.run(SSSPNearFar, G, source=src, engine_loop=loop, **kw),
            lambda o: check_sssp(A, src, o.dist, o.pred, ref=dist, rtol=1e-6))
        row(f"README SSSP, {loop} loop",
            lambda: hp.run(SSSP, G, source=src, engine_loop=loop, **kw),
            lambda o: check_sssp(A, src, o.dist, ref=dist, rtol=1e-6))
    # (depths, parents) and (distances, predecessors)
    row("hp.bfs", lambda: hp.bfs(G, src), lambda o: check_bfs(A, src, o[0], o[1], hops=hops))
    row("hp.sssp", lambda: hp.sssp(G, src),
        lambda o: check_sssp(A, src, o[0], o[1], ref=dist, rtol=1e-6))
    return rows


def _fresh(base, name, stamp):
    """A subclass of ``base`` whose generated source is new (a unique constant in gather)."""
    from _harness import fresh_class

    body = f"src.depth + 1 + 0 * {stamp}" if "BFS" in name else f"src.dist + edge + 0.0 * {stamp}"
    return fresh_class(base, f"    def gather(src, edge, dst):\n        return {body}\n",
                       f"ab-trees-{name}-{stamp}")


def _child_first_use(args) -> dict:
    import numpy as np

    import hpgraph as hp
    from bfs import BFSParents
    from hpgraph import kernel_cache
    from sssp import SSSPNearFar

    gpu = hp.has_gpu()
    sync = hp.backend.synchronize if gpu else (lambda: None)
    G = hp.generators.grid_2d(64, 64, backend="gpu" if gpu else "cpu")
    sync()

    def timed_ms(f):
        t = time.perf_counter()
        out = f()
        sync()
        return (time.perf_counter() - t) * 1e3, out

    # unweighted 64 x 64 grid from vertex 0: every depth and distance is row + column
    ids = np.arange(64 * 64)
    want = ids // 64 + ids % 64

    def check(values):
        got = hp.backend.to_host(values)
        return "ok" if np.array_equal(got.astype(np.int64), want) else "differs from row + column"

    rows = {}
    stamp = time.time_ns() % 1000003
    for name, base in (("BFSParents", BFSParents), ("SSSPNearFar", SSSPNearFar)):
        cls = _fresh(base, name, stamp)
        first, o1 = timed_ms(lambda: hp.run(cls, G, source=0, engine_loop="device"))
        wait, _ = timed_ms(kernel_cache.wait)
        second, o2 = timed_ms(lambda: hp.run(cls, G, source=0, engine_loop="device"))
        prop = "depth" if name == "BFSParents" else "dist"
        verdict = check(o1[prop])
        if verdict == "ok":
            verdict = check(o2[prop])
        if verdict == "ok" and gpu and o2.extra.get("loop") != "device":
            verdict = f"the call after the compiles ran on the {o2.extra.get('loop')} loop"
        rows[f"new {name}, device loop asked"] = {
            "first_ms": first, "wait_ms": wait, "second_ms": second,
            "loop": f"{o1.extra.get('loop')} then {o2.extra.get('loop')}", "check": verdict}
    for name, f in (("hp.bfs", lambda: hp.bfs(G, 0)), ("hp.sssp", lambda: hp.sssp(G, 0))):
        first, o1 = timed_ms(f)
        wait, _ = timed_ms(kernel_cache.wait)
        second, o2 = timed_ms(f)
        verdict = check(o1[0])
        rows[f"{name}, grid 64 x 64"] = {"first_ms": first, "wait_ms": wait,
                                         "second_ms": second,
                                         "check": verdict if verdict != "ok" else check(o2[0])}
    return rows


def child(args) -> int:
    tree = Path(args.child).resolve()
    sys.path[:0] = [str(tree), str(tree / "examples"), str(HERE)]
    import hpgraph

    if Path(hpgraph.__file__).resolve().parents[1] != tree:      # an install shadowing it
        raise SystemExit(f"imported {hpgraph.__file__}, not the tree {tree}")
    rows = (_child_rmat if args.workload == "rmat" else _child_first_use)(args)
    print("AB_TREES_JSON " + json.dumps(rows))
    return 0


# ---- the parent: alternate the trees -----------------------------------------------------------

def _run_child(tree, args, env):
    """``(rows, None)``, or ``(None, why)`` when the child gave no result."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree),
           "--workload", args.workload, "--repeat", str(args.repeat)]
    cmd += ["--quick"] if args.quick else []
    cmd += ["--withhold", args.withhold] if args.withhold else []
    cmd += ["--no-compile-wait"] if args.no_compile_wait else []
    cmd += ["--push-alpha", str(args.push_alpha)] if args.push_alpha is not None else []
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env,
                             timeout=args.child_timeout)
    except subprocess.TimeoutExpired:
        return None, f"no result within {args.child_timeout} s"
    for line in out.stdout.splitlines():
        if line.startswith("AB_TREES_JSON "):
            return json.loads(line[len("AB_TREES_JSON "):]), None
    return None, f"exit {out.returncode}: {out.stderr[-800:]}"


def _table(args, trees, results):
    """``({row: {label: median, min, max}}, printable lines)`` over the rounds done."""
    key = "warm_ms" if args.workload == "rmat" else "first_ms"
    names = list(dict.fromkeys(n for runs in results.values() for rows in runs for n in rows))
    table: dict = {}
    lines = []
    for name in names:
        cells = []
        for label in trees:
            vals = [rows[name][key] for rows in results[label] if name in rows]
            if not vals:
                cells.append(f"{label} (no result)")
                continue
            table.setdefault(name, {})[label] = {"median": statistics.median(vals),
                                                 "min": min(vals), "max": max(vals)}
            extra = ""
            if args.workload == "first-use":
                waits = [rows[name]["wait_ms"] for rows in results[label] if name in rows]
                extra = f" +wait {statistics.median(waits):.0f}"
            cells.append(f"{label} {statistics.median(vals):9.3f} [{min(vals):.3f}-{max(vals):.3f}]"
                         + extra)
        lines.append(f"  {name:34} " + "  ".join(cells))
    return table, lines


def _write(args, trees, results, failed, done):
    """The run's JSON so far (``rounds_done`` of ``rounds``)."""
    # the metadata names this checkout's hpgraph; the parent need not have it on its path
    for p in (str(ROOT), str(HERE)):
        if p not in sys.path:
            sys.path.insert(0, p)
    from _harness import metadata, write

    write(args.out, {"meta": metadata(bench="ab_trees", workload=args.workload,
                                      rounds=args.rounds, rounds_done=done, repeat=args.repeat,
                                      budget=args.budget, quick=args.quick,
                                      withhold=args.withhold,
                                      no_compile_wait=args.no_compile_wait,
                                      push_alpha=args.push_alpha,
                                      trees={k: str(v) for k, v in trees.items()}),
                     "rows": results, "table": _table(args, trees, results)[0],
                     "failed": failed})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", help="label=DIR,... (DIR holds hpgraph/ and examples/)")
    ap.add_argument("--workload", choices=("rmat", "first-use"), default="rmat")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--withhold", default="", help="kernel names the engine treats as "
                    "still compiling (rmat)")
    ap.add_argument("--no-compile-wait", action="store_true")
    ap.add_argument("--push-alpha", type=float, default=None,
                    help="hp.run(push_alpha=) of the user programs (rmat; default: the engine's)")
    ap.add_argument("--child-timeout", type=float, default=1800.0,
                    help="seconds a child process may take (default 1800)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds after which no new round starts (at least one round runs; "
                         "the JSON is written after every round)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args)
    if not args.trees:
        ap.error("--trees is required")
    trees = {}
    for part in args.trees.split(","):
        label, sep, path = part.partition("=")
        d = (ROOT / path).resolve() if sep else None
        if not sep or not label or not path or not (d / "hpgraph" / "__init__.py").is_file():
            raise SystemExit(f"--trees: expected label=DIR (DIR relative to the repository "
                             f"root, holding hpgraph/), got {part!r}")
        if label in trees:
            raise SystemExit(f"--trees: label {label!r} given twice")
        trees[label] = d
    if args.budget is not None and not args.budget > 0:
        raise SystemExit(f"--budget: expected a positive number of seconds, got {args.budget}")
    if args.rounds < 1 or args.repeat < 1:
        raise SystemExit(f"--rounds and --repeat: expected at least 1, got {args.rounds} and "
                         f"{args.repeat}")
    if args.workload != "rmat" and (args.withhold or args.no_compile_wait
                                    or args.push_alpha is not None):
        raise SystemExit("--withhold, --no-compile-wait and --push-alpha apply to --workload "
                         "rmat only")
    known = ("hp_block_loop", "hp_push", "hp_push_fused", "hp_witness", "hp_loop")
    bad = [k for k in args.withhold.split(",") if k and k not in known]
    if bad:
        raise SystemExit(f"--withhold: expected names among {known}, got {bad}")
    # the children's engine settings are the defaults (no HPGRAPH_* overrides from here: an
    # HPGRAPH_KERNEL_CACHE would share one kernel cache between the trees)
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("HPGRAPH_")}
    base_env.update(CUDA_CACHE_DISABLE="1", PYTHONDONTWRITEBYTECODE="1")
    work = Path(tempfile.mkdtemp(prefix="ab-trees-"))
    results: dict = {label: [] for label in trees}
    failed: list = []
    warm = int(args.workload == "first-use")     # first-use: a round that only warms CuPy
    t0 = time.perf_counter()
    done = 0
    for r in range(args.rounds + warm):
        if args.budget is not None and done >= 1 and time.perf_counter() - t0 > args.budget:
            print(f"--budget: {args.budget:g} s spent; {done} of {args.rounds} rounds done",
                  flush=True)
            break
        for label, d in trees.items():
            env = dict(base_env, CUPY_CACHE_DIR=str(work / f"cupy-{label}"))
            # rmat: one warm kernel cache per tree; first-use: an empty one per process (the
            # first process of each tree only warms CuPy's cache and is not counted)
            cache = work / (f"hp-{label}" if args.workload == "rmat" else f"hp-{label}-{r}")
            env["XDG_CACHE_HOME"] = str(cache)
            rows, why = _run_child(d, args, env)
            if rows is None:
                failed.append(f"{label} round {r}: the child failed: {why}")
                print(f"round {r} {label}: FAILED ({why[:200]})", flush=True)
                continue
            if r < warm:
                continue
            results[label].append(rows)
            for name, row in rows.items():
                if row.get("check") != "ok":
                    failed.append(f"{label} round {r}: {name}: {row.get('check')}")
            print(f"round {r} {label}: " + ", ".join(
                f"{n} {row.get('warm_ms', row.get('first_ms')):.3f}" for n, row in rows.items()),
                flush=True)
        done = max(0, r + 1 - warm)
        if args.out:        # after every round: a call stopped by its time limit keeps these
            _write(args, trees, results, failed, done)
    table, lines = _table(args, trees, results)
    print(f"\n{'warm_ms' if args.workload == 'rmat' else 'first_ms'}: median over {done} "
          "rounds [range]")
    for line in lines:
        print(line)
    for f in failed:
        print("MISMATCH", f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
