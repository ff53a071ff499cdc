"""Benchmark: tables in and out (hpgraph.tables) against pandas / pyarrow on the same data.

One R-MAT graph (directed, Graph500 parameters, ``--scale``, integer weights 1..64) as an edge
table, with integer ids and with string ids (the decimal ids as text), timed as

- CSV read: ``pyarrow.csv.read_csv`` alone, ``read_csv`` + ``Graph.from_edges`` (the goal's
  reference), ``hpgraph.tables.read_csv`` with ``renumber=False`` and with ``renumber=True``;
- tables: ``from_pandas`` / ``from_arrow`` with integer and with string ids, against
  ``pandas.factorize`` + ``Graph.from_edges`` (what a user would write by hand);
- Parquet and CSV writes: ``write_parquet`` / ``write_csv`` against ``pyarrow.parquet.write_table``
  / ``pyarrow.csv.write_csv`` of the same columns, and ``read_parquet`` against
  ``pyarrow.parquet.read_table`` + ``from_edges``.

Each entry is the median of ``--repeat`` runs (one warm-up run is not timed; a CPU benchmark:
host clock).  Every graph read or built is checked against the source edge table (edges in
original ids, labels decoded), and the written files are read back by pyarrow and checked the
same way; the run exits 1 on a mismatch.  Results go to
``benchmarks/results/tables.md`` (and ``.json``).  Usage::

    PYTHONPATH=$PWD python3 benchmarks/bench_tables.py [--scale 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hpgraph as hp  # noqa: E402
from _harness import metadata  # noqa: E402
from hpgraph import tables  # noqa: E402

FAILED = []


def edge_set(G, as_str=False):
    """The sorted (source, destination, weight) rows of ``G``, in original ids (its
    ``node_labels`` when renumbered), ids as text with ``as_str``."""
    coo = G.A.to_coo()
    r, c = np.asarray(coo.row, np.int64), np.asarray(coo.col, np.int64)
    lab = getattr(G, "node_labels", None)
    if lab is not None:
        r, c = lab.values[r], lab.values[c]
    r, c = (np.asarray(r).astype(np.int64), np.asarray(c).astype(np.int64))
    w = np.asarray(coo.values, np.float64)
    order = np.lexsort((w, c, r))
    return r[order], c[order], w[order]


def check(what, got, want):
    """Record a mismatch of two edge sets."""
    same = all(np.array_equal(a, b) for a, b in zip(got, want))
    if not same:
        FAILED.append(what)
        print(f"MISMATCH {what}: the edges differ from the source table's", flush=True)
    return same


def timed(fn, repeat, want=None, what=""):
    """Median seconds of ``repeat`` calls after a warm-up call; with ``want`` (an
    :func:`edge_set`), the warm-up call's graph is checked against it."""
    out = fn()  # warm-up
    if want is not None:
        check(what, edge_set(out), want)
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "tables"))
    args = ap.parse_args()

    G = hp.rmat(args.scale, seed=1, directed=True, weights=(1, 64), backend="cpu")
    coo = G.A.to_coo()
    src, dst = np.asarray(coo.row, np.int64), np.asarray(coo.col, np.int64)
    w = np.asarray(coo.values)
    m = src.shape[0]
    rows = []
    order = np.lexsort((w.astype(np.float64), dst, src))
    want = (src[order], dst[order], w.astype(np.float64)[order])

    def add(group, what, seconds, ref=None):
        rows.append({"group": group, "what": what, "seconds": seconds, "ref": ref})
        ratio = "" if ref is None else f"  ({seconds / ref:.2f}x the reference)"
        print(f"{group:12s} {what:55s} {seconds:8.3f} s{ratio}", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "edges.csv")
        pacsv.write_csv(pa.table({"s": src, "d": dst, "w": w}), csv,
                        write_options=pacsv.WriteOptions(include_header=False))
        ropts = pacsv.ReadOptions(autogenerate_column_names=True)
        add("csv read", "pyarrow.csv.read_csv", timed(lambda: pacsv.read_csv(csv, read_options=ropts), args.repeat))

        def reference():
            t = pacsv.read_csv(csv, read_options=ropts)
            return hp.Graph.from_edges(t.column(0).to_numpy(), t.column(1).to_numpy(), t.column(2).to_numpy(),
                                       backend="cpu")

        ref = timed(reference, args.repeat)
        add("csv read", "pyarrow.csv.read_csv + Graph.from_edges (reference)", ref)
        add("csv read", "tables.read_csv(renumber=False)",
            timed(lambda: tables.read_csv(csv, 0, 1, 2, renumber=False, backend="cpu"), args.repeat,
                  want, "read_csv(renumber=False)"), ref)
        add("csv read", "tables.read_csv (renumber=True: labels)",
            timed(lambda: tables.read_csv(csv, 0, 1, 2, backend="cpu"), args.repeat, want,
                  "read_csv"), ref)

        for kind in ("int", "str"):
            s, d = (src, dst) if kind == "int" else (src.astype(str), dst.astype(str))
            df = pd.DataFrame({"source": s, "destination": d, "w": w})
            table = pa.Table.from_pandas(df, preserve_index=False)

            def by_hand(df=df):
                codes, uniques = pd.factorize(pd.concat([df.source, df.destination], ignore_index=True), sort=True)
                return hp.Graph.from_edges(codes[:m], codes[m:], df.w.to_numpy(), num_vertices=len(uniques),
                                           backend="cpu")

            ref = timed(by_hand, args.repeat)
            add(f"{kind} ids", "pandas.factorize + Graph.from_edges (reference)", ref)
            add(f"{kind} ids", "hp.from_pandas", timed(lambda df=df: hp.from_pandas(df, weight="w", backend="cpu"),
                                                       args.repeat, want, f"from_pandas {kind}"), ref)
            add(f"{kind} ids", "hp.from_arrow",
                timed(lambda t=table: hp.from_arrow(t, weight="w", backend="cpu"), args.repeat,
                      want, f"from_arrow {kind}"), ref)

        plain = pa.table({"source": src, "destination": dst, "weight": w})
        pqf, pqf2 = os.path.join(tmp, "a.parquet"), os.path.join(tmp, "b.parquet")
        ref = timed(lambda: pq.write_table(plain, pqf2, compression="zstd"), args.repeat)
        add("write", "pyarrow.parquet.write_table (reference)", ref)
        add("write", "hp.write_parquet", timed(lambda: hp.write_parquet(G, pqf), args.repeat), ref)
        t = pq.read_table(pqf)
        check("write_parquet (read back by pyarrow)", edge_set(hp.Graph.from_edges(
            t.column(0).to_numpy(), t.column(1).to_numpy(), t.column(2).to_numpy(),
            num_vertices=G.num_vertices, backend="cpu")), want)
        out_csv, out_csv2 = os.path.join(tmp, "a.csv"), os.path.join(tmp, "b.csv")
        ref = timed(lambda: pacsv.write_csv(plain, out_csv2), args.repeat)
        add("write", "pyarrow.csv.write_csv (reference)", ref)
        add("write", "tables.write_csv", timed(lambda: tables.write_csv(G, out_csv), args.repeat), ref)
        t = pacsv.read_csv(out_csv)
        check("write_csv (read back by pyarrow)", edge_set(hp.Graph.from_edges(
            t.column(0).to_numpy(), t.column(1).to_numpy(), t.column(2).to_numpy(),
            num_vertices=G.num_vertices, backend="cpu")), want)

        def pq_reference():
            t = pq.read_table(pqf)
            return hp.Graph.from_edges(t.column(0).to_numpy(), t.column(1).to_numpy(), t.column(2).to_numpy(),
                                       backend="cpu")

        ref = timed(pq_reference, args.repeat)
        add("parquet read", "pyarrow.parquet.read_table + Graph.from_edges (reference)", ref)
        add("parquet read", "hp.read_parquet(renumber=False)",
            timed(lambda: hp.read_parquet(pqf, weight="weight", renumber=False, backend="cpu"),
                  args.repeat, want, "read_parquet(renumber=False)"), ref)
        add("parquet read", "hp.read_parquet (labels)",
            timed(lambda: hp.read_parquet(pqf, weight="weight", backend="cpu"), args.repeat,
                  want, "read_parquet"), ref)

    meta = {**metadata(benchmark="bench_tables", argv=sys.argv[1:]), "failed": FAILED,
            "scale": args.scale, "edges": m, "vertices": G.num_vertices, "repeat": args.repeat,
            "cpus": os.cpu_count(), "python": platform.python_version(), "pandas": pd.__version__,
            "pyarrow": pa.__version__, "numpy": np.__version__}
    Path(args.out + ".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    lines = [f"# tables in and out (R-MAT {args.scale} directed: {G.num_vertices:,} vertices, {m:,} edges, "
             f"{os.cpu_count()} CPUs, median of {args.repeat})", "",
             f"Python {meta['python']}, pandas {meta['pandas']}, pyarrow {meta['pyarrow']}, numpy {meta['numpy']}. "
             "Ratio: time / the reference of the same group.", "",
             "| group | what | seconds | ratio |", "|---|---|---:|---:|"]
    for r in rows:
        ratio = "" if r["ref"] is None else f"{r['seconds'] / r['ref']:.2f}"
        lines.append(f"| {r['group']} | {r['what']} | {r['seconds']:.3f} | {ratio} |")
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    for f in FAILED:
        print(f"FAILED: {f}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
