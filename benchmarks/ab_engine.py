"""In-process A/B of the engine's CUDA templates: several versions in one process, alternating.

Across processes the same code measured 10-30% apart on one H100 (session 25: ``hp.bfs`` 0.33
against 0.44 ms in two processes of the same session), so two benchmark runs cannot judge a
small kernel change.  Here every variant runs in one process, round after round: a variant is
the working tree's Python with the engine templates (``hpgraph/engine/templates``) read from
a directory of its own, switched by pointing ``hpgraph.engine.codegen._TEMPLATE_DIR`` at it
and dropping the joined template and every kept run state (so each round compiles or loads
that variant's kernels afresh: the first call of a round is a warm-up, not timed).  Only
template changes compare this way: the kernels' parameter lists must match the working
tree's launches.

The device copy of the repository has no ``.git``: export a revision's templates beside the
working tree first (``scratch/`` travels with ``carry``)::

    mkdir -p scratch/ab/d212aac && git archive d212aac hpgraph/engine/templates \\
        | tar -x -C scratch/ab/d212aac --strip-components=3

Rows: ``SSSPNearFar`` (priority and predecessors), ``BFSDepth`` and ``BFSParents`` of
``examples/`` on the device and host loops, on R-MAT 21 and the 2048 x 2048 grid (the graphs of
``bench_vertex_programs.py``; ``--quick``: R-MAT 12 and 64 x 64), each result checked against
SciPy (distances, depths, predecessor and parent trees); per variant the median of the
rounds' CUDA-event medians and their range.  One JSON (``--out``) with the harness's
metadata; exits 1 on a mismatch.

Usage::

    python benchmarks/ab_engine.py --variants base=scratch/ab/d212aac,new=hpgraph/engine/templates
        [--graphs rmat,grid] [--rounds 3] [--repeat 11] [--quick] [--out FILE]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import hpgraph as hp  # noqa: E402
from _harness import check_bfs, check_sssp, metadata, timed, write  # noqa: E402
from bench_vertex_programs import graphs  # noqa: E402
from examples.bfs import BFSDepth, BFSParents  # noqa: E402
from examples.sssp import SSSPNearFar  # noqa: E402

PROGRAMS = {"SSSPNearFar": SSSPNearFar, "BFSDepth": BFSDepth, "BFSParents": BFSParents}


def use(directory: Path) -> None:
    """Make the engine read its templates from ``directory`` from the next compile on."""
    from hpgraph.engine import codegen, gpu_state

    codegen._TEMPLATE_DIR = directory
    codegen._engine_template.cache_clear()
    gpu_state.clear_cache()


def parse_variants(text: str) -> dict:
    out = {}
    for part in text.split(","):
        label, sep, path = part.partition("=")
        d = (ROOT / path).resolve() if sep else None
        if not sep or not label or not (d / "engine.cu").is_file():
            raise SystemExit(f"--variants: expected label=DIR with DIR/engine.cu, got {part!r}")
        out[label] = d
    return out


def check(name, A, source, out, refs) -> str:
    if name == "SSSPNearFar":
        return check_sssp(A, source, out.dist, out.pred, ref=refs["dist"], rtol=1e-6)
    parent = out.parent if "parent" in out.properties else None
    return check_bfs(A, source, out.depth, parent, hops=refs["hops"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", required=True, help="label=DIR,... (DIR: engine templates)")
    ap.add_argument("--graphs", default="rmat,grid", help="comma list of: rmat,grid,path")
    ap.add_argument("--programs", default=",".join(PROGRAMS), help="comma list of programs")
    ap.add_argument("--loops", default="device,host", help="engine_loop values")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import scipy.sparse.csgraph as csg

    variants = parse_variants(args.variants)
    gpu = hp.has_gpu()
    loops = args.loops.split(",") if gpu else ["cpu"]
    names = args.programs.split(",")
    want = set(args.graphs.split(","))
    rows, failed = [], []
    specs = list(graphs(args.quick)) if want - {"path"} else []
    if "path" in want:              # the per-superstep cost: one vertex a superstep
        n = 1000 if args.quick else 100_000
        specs.append((f"path {n}", hp.generators.path(n, backend="gpu" if hp.has_gpu()
                                                        else "cpu"), 0))
    for label, G, source in specs:
        if label.split()[0].lower().replace("-", "") not in want:
            continue
        A = G.to_host().to_scipy().tocsr()
        refs = {"dist": csg.dijkstra(A, indices=source),
                "hops": csg.dijkstra(A, indices=source, unweighted=True)}
        times: dict = {}
        for _ in range(args.rounds):
            for var, directory in variants.items():
                use(directory)
                for name in names:
                    for loop in loops:
                        cfg = {} if loop == "cpu" else {"engine_loop": loop}
                        with hp.config.set(**cfg):
                            r, out = timed(lambda: hp.run(PROGRAMS[name], G, source=source),
                                           args.repeat, gpu=gpu)
                        verdict = check(name, A, source, out, refs)
                        if verdict != "ok":
                            failed.append(f"{label} {name} {loop} {var}: {verdict}")
                        times.setdefault((name, loop), {}).setdefault(var, []).append(
                            r["warm_ms"])
        for (name, loop), per in times.items():
            row = {"graph": label, "program": name, "loop": loop}
            shown = []
            for var, ms in per.items():
                row[var] = {"warm_ms": statistics.median(ms), "min_ms": min(ms),
                            "max_ms": max(ms), "rounds_ms": ms}
                shown.append(f"{var} {statistics.median(ms):9.3f} [{min(ms):.3f}-{max(ms):.3f}]")
            rows.append(row)
            print(f"{label:16} {name:12} {loop:6} " + "  ".join(shown), flush=True)
    use(ROOT / "hpgraph" / "engine" / "templates")
    if args.out:
        write(args.out, {"meta": metadata(bench="ab_engine", variants={
            k: str(v) for k, v in variants.items()}, rounds=args.rounds, repeat=args.repeat),
            "rows": rows, "failed": failed})
    for f in failed:
        print(f"MISMATCH: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
