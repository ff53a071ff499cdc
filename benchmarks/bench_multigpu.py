"""Benchmark: hpgraph.distributed (Dask + NCCL) on 1..N GPUs against plain single-GPU hpgraph.

For each worker count k in ``--workers`` (default 1..the GPUs of this machine; ``--cpu``: CPU
worker processes and the TCP collective, default 1..min(4, cores)), a Dask cluster of k
workers is started, R-MAT ``--scale`` (``hp.generators.rmat_chunks``: undirected, edge factor
16, seed 1, self-loops dropped; default 25 on the GPU, 16 with ``--cpu``) is partitioned over
it -- each worker builds its partition from the same chunks
(``DistributedGraph.from_chunks``; ``--split``: the graph built here is split and sent) -- and
PageRank (``hp.pagerank``'s default: L1 change < 1e-6) and BFS (source: the highest-degree
vertex) run ``--repeat`` times after a warm-up.  Reported per row:

* ``wall_ms``: the whole call as the client sees it (median; Dask submission, collective
  set-up, the superstep loop, gathering the result to the client);
* ``loop_ms``: the slowest rank's superstep loop (median), and ``per_iter_ms`` for PageRank;
* ``speedup``: the single-GPU (single-process) time over ``loop_ms`` (PageRank: per iteration);
* ``bytes_per_gpu``: the largest partition's CSR bytes + its global vectors, and
  ``sent_bytes``: what the busiest rank sent through the collective;
* ``exchange_share``: the busiest rank's share of its loop time spent in collectives (NCCL:
  CUDA events around each call, waiting for a slower peer included).

The baseline row (``workers = 0``) is the plain call on the same graph in this process
(:func:`benchmarks._harness.timed`: CUDA events on the GPU).  Every distributed result is
checked against it (PageRank within 1e-6 in L1, BFS depths equal); the script exits 1 on a
mismatch.  Partitioning time (the workers' builds, or the client's split + transfer + device
copy) is reported separately.

With ``--no-single`` (a graph that no single GPU holds: R-MAT 28) there is no baseline and
no speed-up; each result is checked instead inside one more job, rank by rank, with plain CuPy
(none of hpgraph's kernels): BFS as Graph500 validates it (every edge joins vertices at most
one level apart, none joins a reached vertex to an unreached one, every reached vertex but the
source has a neighbour one level up), PageRank by its sum (1 within 1e-9) and its fixed-point
residual (one power step, gathered with CuPy and summed with ``cupy.add.at``, moves it by less
than ``tol`` in L1, which bounds its L1 distance to the exact PageRank by about
``tol / (1 - damping)``); the checked run's result must also equal the timed one (BFS
exactly, PageRank within 1e-9 in L1: the SpMV's summation order may differ).

Usage::

    python benchmarks/bench_multigpu.py [--scale 25] [--workers 1,2] [--repeat 3] [--cpu]
        [--no-single] [--json out.json]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import _harness  # noqa: E402

import hpgraph as hp  # noqa: E402
from hpgraph import distributed as hpd  # noqa: E402
from hpgraph.distributed._job import run_job  # noqa: E402


#: the benchmark graph: R-MAT (hp.generators.rmat_chunks, seed 1), undirected, no self-loops
GRAPH = dict(directed=False, duplicates="min", self_loops="drop")


def _gpu_count() -> int:
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no CuPy / no driver: no GPU
        return 0


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _median_job(fn, repeat):
    """Warm-up call, then ``repeat`` calls: (medians of wall / loop seconds, last result)."""
    fn()
    walls, loops, out = [], [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
        loops.append(out[-1].seconds)
    return statistics.median(walls), statistics.median(loops), out


#: entries per CuPy gather in the checks (bounds their temporary memory)
_CHECK_CHUNK = 1 << 28


def _row_chunks(cp, indptr, lo_entry=0):
    """``(first entry, rows of the entries)`` of a CSR's entries, ``_CHECK_CHUNK`` at a time."""
    nnz = int(indptr[-1])
    for e0 in range(lo_entry, nnz, _CHECK_CHUNK):
        e = cp.arange(e0, min(nnz, e0 + _CHECK_CHUNK), dtype=indptr.dtype)
        yield e0, cp.searchsorted(indptr, e, side="right") - 1


def _check_bfs_rank(part, coll, sources, push_alpha):
    """One rank: the distributed BFS again, then Graph500's checks of its rows (plain CuPy or
    NumPy);
    returns the violation count (summed over the ranks)."""
    from hpgraph.distributed.algorithms import _bfs_kernel

    cp = part.xp      # CuPy on a GPU rank, NumPy on a CPU one

    depth, levels, _ = _bfs_kernel(part, coll, sources, push_alpha)
    full = coll.allgather(depth, part.counts)
    A = part.matrix
    bad = 0
    has_parent = cp.zeros(part.hi - part.lo, dtype=cp.bool_)
    for e0, rows in _row_chunks(cp, A.indptr):
        du = full[A.indices[e0:e0 + rows.shape[0]]]
        dv = depth[rows]
        bad += int(((du < 0) != (dv < 0)).sum())                      # reached -- unreached
        bad += int(((du >= 0) & (cp.abs(du - dv) > 1)).sum())          # levels apart
        has_parent[rows[(dv > 0) & (du == dv - 1)]] = True
    bad += int(((depth > 0) & ~has_parent).sum())
    is_source = cp.zeros(part.hi - part.lo, dtype=cp.bool_)          # depth 0 = the sources
    mine = [s - part.lo for s in sources if part.lo <= s < part.hi]
    if mine:
        is_source[cp.asarray(mine)] = True
    bad += int(((depth == 0) != is_source).sum())
    return (coll.allreduce(np.int64(bad), "sum"), _host(depth)), levels, 0


def _check_pagerank_rank(part, coll, tol):
    """One rank: the distributed PageRank again, then its sum and one power step's L1 change,
    computed with plain CuPy; returns ``[|sum - 1|, residual]``."""
    from hpgraph.distributed.algorithms import _pagerank_kernel

    cp = part.xp

    x, iters, _ = _pagerank_kernel(part, coll, 0.85, tol, 100, False, "float64")
    A = part.matrix
    outdeg = coll.allreduce(cp.bincount(A.indices, minlength=part.n).astype(cp.float64), "sum")
    S = cp.where(outdeg > 0, 1.0 / cp.where(outdeg > 0, outdeg, 1.0), 0.0)
    full = coll.allgather(x, part.counts)
    dangling = float(full[outdeg == 0].sum())
    w = full * S
    y = cp.zeros(part.hi - part.lo, dtype=cp.float64)
    for e0, rows in _row_chunks(cp, A.indptr):
        cp.add.at(y, rows, w[A.indices[e0:e0 + rows.shape[0]]])
    n = part.n
    step = 0.85 * (y + dangling / n) + 0.15 / n
    pair = cp.asarray([float(x.sum()), float(cp.abs(step - x).sum())])
    total, resid = (float(v) for v in _host(coll.allreduce(pair, "sum")))
    return (np.array([abs(total - 1.0), resid]), _host(x)), iters, 0


def _top_vertex(part, coll):
    """One rank: ``(degree, vertex)`` of its highest-degree row."""
    d = part.xp.diff(part.matrix.indptr)
    v = int(d.argmax())
    return (int(d[v]), part.lo + v), 1, 0


def _share(info, pick=max):
    """The busiest (``pick=min``: the least busy) rank's share of the loop time spent in
    collectives (last call)."""
    if not info.exchange_seconds or info.seconds <= 0:
        return 0.0
    return pick(info.exchange_seconds) / info.seconds


def _profile_lines(algo, info):
    """The ranks' step profiles (JobInfo.profiles) as printable lines."""
    profs = [p for p in info.profiles if p]
    if not profs:
        return []
    if algo == "pagerank":
        return [f"  rank {r} ms/iteration: " + ", ".join(f"{k} {v:.3f}" for k, v in p.items())
                for r, p in enumerate(profs)]
    out = []
    for lvl in range(len(profs[0])):
        rows = [p[lvl] for p in profs]
        out.append(f"  level {lvl} {rows[0]['direction']:4} found {rows[0]['found']:>11,}: step ms "
                   + "/".join(f"{q['step']:.3f}" for q in rows) + ", exchange "
                   + "/".join(f"{q['exchange']:.3f}" for q in rows) + ", merge "
                   + "/".join(f"{q['merge']:.3f}" for q in rows))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true", help="CPU workers and the TCP collective")
    ap.add_argument("--scale", type=int, default=None, help="R-MAT scale (default 25; 16 with --cpu)")
    ap.add_argument("--workers", default=None, help="worker counts, e.g. 1,2,4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-single", action="store_true",
                    help="no single-GPU baseline (a graph no one GPU holds): results checked "
                         "by properties, rank by rank")
    ap.add_argument("--split", action="store_true",
                    help="build the graph here and send each worker its slice (default: every "
                         "worker builds its partition from the R-MAT chunks itself)")
    args = ap.parse_args(argv)
    side = "cpu" if args.cpu else "gpu"
    if side == "gpu" and _gpu_count() == 0:
        print("no GPU on this machine; use --cpu", file=sys.stderr)
        return 2
    scale = args.scale if args.scale is not None else (16 if args.cpu else 25)
    top = _gpu_count() if side == "gpu" else min(4, os.cpu_count() or 1)
    counts = [int(c) for c in args.workers.split(",")] if args.workers else list(range(1, top + 1))
    gpu = side == "gpu"

    t0 = time.perf_counter()
    make = functools.partial(hp.generators.rmat_chunks, scale, edge_factor=16, seed=1, backend=side)
    rows, Gh, src = [], None, None
    pr_ref = depth_ref = None
    base_pr_iter = base_bfs = None
    if not args.no_single:
        chunks = make()
        G = hp.Graph.from_edges(chunks, num_vertices=chunks.num_vertices, **GRAPH)
        del chunks
        build_s = time.perf_counter() - t0
        src = int(_host(G.out_degree).argmax())
        print(f"R-MAT {scale}: {G.num_vertices:,} vertices, {G.num_edges:,} entries "
              f"(built in {build_s:.1f} s on the {side}); BFS source {src}", flush=True)

        # single-GPU / single-process baseline, in this process
        pr_row, (pr_ref, pr_info) = _harness.timed(
            lambda: hp.pagerank(G, return_info=True, backend=side), args.repeat, gpu=gpu)
        bfs_row, bfs_res = _harness.timed(lambda: hp.bfs(G, src, backend=side), args.repeat, gpu=gpu)
        pr_ref, depth_ref = _host(pr_ref), _host(bfs_res.depth)
        base_pr_iter = pr_row["warm_ms"] / pr_info.iterations
        base_bfs = bfs_row["warm_ms"]
        rows = [dict(algo="pagerank", workers=0, warm_ms=pr_row["warm_ms"], wall_ms=pr_row["wall_ms"],
                     first_ms=pr_row["first_ms"], iterations=pr_info.iterations,
                     per_iter_ms=base_pr_iter),
                dict(algo="bfs", workers=0, warm_ms=bfs_row["warm_ms"], wall_ms=bfs_row["wall_ms"],
                     first_ms=bfs_row["first_ms"])]
        print(f"single {side}: pagerank {pr_row['warm_ms']:.1f} ms ({pr_info.iterations} it, "
              f"{base_pr_iter:.2f} ms/it), bfs {bfs_row['warm_ms']:.2f} ms", flush=True)
        Gh = (G.to_host() if gpu else G) if args.split else None
        if gpu:
            del G, bfs_res  # the baseline's device copy is not needed any more
            import cupy

            cupy.get_default_memory_pool().free_all_blocks()

    mismatches = []
    for k in counts:
        t0 = time.perf_counter()
        with hpd.Cluster(n_workers=k, backend=side) as cluster:
            start_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            if args.split:
                dg = hpd.DistributedGraph(cluster, Gh)
            else:
                dg = hpd.DistributedGraph.from_chunks(cluster, make, **GRAPH)
            part_s = time.perf_counter() - t1
            per_gpu = int(dg.partition_bytes.max())
            if src is None:     # no baseline graph here: the highest-degree vertex, from the ranks
                tops, _ = run_job(dg, _top_vertex, {})
                src = int(max(tops)[1])
                print(f"R-MAT {scale}: {dg.num_vertices:,} vertices over {k} workers "
                      f"(partitioned in {part_s:.1f} s); BFS source {src}", flush=True)

            wall, loop, (rank, info) = _median_job(
                lambda: hpd.pagerank(dg, return_info=True), args.repeat)
            if pr_ref is not None:
                err = float(np.abs(rank - pr_ref).sum())
                ok = err < 1e-6 and info.iterations == pr_info.iterations
                check = dict(l1_vs_single=err)
            else:
                vals, _ = run_job(dg, _check_pagerank_rank, dict(tol=1e-6))
                sum_err, resid = (float(v) for v in vals[0][0])
                # the checked run must be the timed one (summation order aside)
                rerun = float(np.abs(np.concatenate([v[1] for v in vals]) - rank).sum())
                ok = sum_err < 1e-9 and resid < 1e-6 and rerun < 1e-9
                check = dict(sum_err=sum_err, residual=resid, l1_vs_checked_run=rerun)
            if not ok:
                mismatches.append(f"pagerank k={k}: {check}, {info.iterations} iterations")
            it_ms = loop * 1e3 / info.iterations
            rows.append(dict(algo="pagerank", workers=k, wall_ms=wall * 1e3, loop_ms=loop * 1e3,
                             per_iter_ms=it_ms, iterations=info.iterations,
                             speedup=base_pr_iter / it_ms if base_pr_iter else None,
                             bytes_per_gpu=per_gpu + info.vector_bytes,
                             sent_bytes=max(info.bytes_sent), setup_ms=info.setup_seconds * 1e3,
                             exchange_share=_share(info), exchange_share_min=_share(info, min),
                             profiles=list(info.profiles), start_s=start_s, partition_s=part_s,
                             ok=ok, **check))
            print("\n".join([f"pagerank, {k} worker(s):"] + _profile_lines("pagerank", info)),
                  flush=True)

            wall, loop, (depth, info) = _median_job(
                lambda: hpd.bfs(dg, src, return_info=True), args.repeat)
            if depth_ref is not None:
                bad = int((depth != depth_ref).sum())
                check = dict(depths_differing=bad)
            else:
                vals, _ = run_job(dg, _check_bfs_rank, dict(
                    sources=[src], push_alpha=hp.config["distributed_bfs_push_alpha"]))
                rerun = int((np.concatenate([v[1] for v in vals]) != depth).sum())
                bad = int(vals[0][0]) + rerun          # the checked run must be the timed one
                check = dict(graph500_violations=int(vals[0][0]), differs_from_checked_run=rerun,
                             reached=int((depth >= 0).sum()))
            ok = bad == 0
            if not ok:
                mismatches.append(f"bfs k={k}: {check}")
            rows.append(dict(algo="bfs", workers=k, wall_ms=wall * 1e3, loop_ms=loop * 1e3,
                             levels=info.iterations,
                             speedup=base_bfs / (loop * 1e3) if base_bfs else None, **check,
                             bytes_per_gpu=per_gpu + info.vector_bytes,
                             sent_bytes=max(info.bytes_sent), setup_ms=info.setup_seconds * 1e3,
                             exchange_share=_share(info),
                             exchange_share_min=_share(info, min), profiles=list(info.profiles),
                             ok=ok))
            print("\n".join([f"bfs, {k} worker(s):"] + _profile_lines("bfs", info)), flush=True)
            dg.release()
        print(f"{k} worker(s): cluster {start_s:.1f} s, partitioning {part_s:.1f} s", flush=True)

    hdr = f"{'algo':9} {'workers':>7} {'loop ms':>9} {'wall ms':>9} {'ms/iter':>8} {'speed-up':>8} " \
          f"{'bytes/GPU':>13} {'sent':>13} {'exchange':>8} ok"
    print(hdr)
    for r in rows:
        loop = r.get("loop_ms", r.get("warm_ms"))
        print(f"{r['algo']:9} {r['workers'] or 'single':>7} {loop:9.2f} {r['wall_ms']:9.2f} "
              f"{r.get('per_iter_ms', float('nan')):8.2f} {r.get('speedup') or float('nan'):8.2f} "
              f"{r.get('bytes_per_gpu', 0):13,} {r.get('sent_bytes', 0):13,} "
              f"{r.get('exchange_share', 0.0):8.1%} {r.get('ok', '')}")
    if args.json:
        _harness.write(args.json, {"meta": _harness.metadata(bench="multigpu", side=side,
                                                              scale=scale, workers=counts),
                                   "rows": rows, "mismatches": mismatches})
    if mismatches:
        print("MISMATCH: " + "; ".join(mismatches), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
