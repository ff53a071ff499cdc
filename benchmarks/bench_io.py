"""Benchmark: graph files in and out (``hp.read`` / ``hp.write``, ``hpgraph.tables``) against SciPy
and pyarrow on the same files ([io-packaging] goals, CPU).

One R-MAT graph (directed, Graph500 parameters, ``--scale``, integer weights 1..64) written once
as Matrix Market (``g.mtx``), as a tab-separated edge list (``g.el``) and as CSV
(``g.csv``). Rows (each checked: the graph read must equal the reference's CSR, a file written
must parse back to the same edges; a mismatch exits 1):

- ``mtx read``: ``hp.read("g.mtx")`` against ``scipy.io.mmread(...).tocsr()`` (goal <= 1.1x);
- ``edgelist read``: ``hp.read("g.el")`` and ``hpgraph.tables.read_csv("g.csv")`` against
  ``pyarrow.csv.read_csv`` + ``Graph.from_edges`` (goal <= 1.2x);
- ``edgelist write``: ``hp.write(G, "g.el")`` and ``tables.write_csv`` against
  ``pyarrow.csv.write_csv`` of the ready columns (goal <= 1.5x); ``hp.write(G, "g.mtx")``
  against ``scipy.io.mmwrite``.

Timings by the shared harness (``_harness.timed``, host clock: first call, then the median of
``--repeat`` calls). ``--paired N`` also times the ``.mtx`` read in N alternating pairs
(SciPy, then hpgraph, then the other way round) and prints the median of the per-pair ratios,
which a load that changes during the run moves less. Usage::

    PYTHONPATH=$PWD python3 benchmarks/bench_io.py [--scale 20] [--repeat 3] [--paired 9] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # noqa: E402

import hpgraph as hp  # noqa: E402

GOALS = {"mtx read": 1.1, "edgelist read": 1.2, "edgelist write": 1.5}


def _same(a, b) -> bool:
    """Equal matrices; a table read with ids as given ends at the largest id in the file, so a
    smaller ``a`` is compared after padding with the isolated vertices it cannot know of."""
    a, b = sp.csr_array(a), sp.csr_array(b)
    if a.shape[0] < b.shape[0] and b[a.shape[0]:].nnz == 0 and b[:, a.shape[1]:].nnz == 0:
        a = sp.csr_array((a.data, a.indices, np.concatenate(
            [a.indptr, np.full(b.shape[0] - a.shape[0], a.indptr[-1])])), shape=b.shape)
    return a.shape == b.shape and (a != b).nnz == 0


def _paired(n, ref_fn, fn) -> dict:
    """Median of the per-pair ratios ``fn / ref_fn`` over ``n`` pairs, the order alternating."""
    import statistics
    import time

    ref_s, s = [], []
    for k in range(n):
        for which in ((0, 1) if k % 2 == 0 else (1, 0)):
            t0 = time.perf_counter()
            out = (ref_fn if which == 0 else fn)()
            (ref_s if which == 0 else s).append(time.perf_counter() - t0)
            del out
    ratio = statistics.median(b / a for a, b in zip(ref_s, s))
    print(f"{'mtx read':15s} {'paired: median of ' + str(n) + ' per-pair ratios':45s} "
          f"{statistics.median(s):8.2f} s  {ratio:.2f}x  (reference {statistics.median(ref_s):.2f} s)",
          flush=True)
    return {"pairs": n, "ratio": ratio, "seconds": statistics.median(s), "reference_seconds": statistics.median(ref_s)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None, help="write the rows and metadata here")
    ap.add_argument("--dir", default=None, help="folder for the files (default: a temporary one)")
    ap.add_argument("--paired", type=int, default=0, help="alternating (SciPy, hpgraph) .mtx read pairs")
    args = ap.parse_args(argv)

    import pyarrow as pa
    import pyarrow.csv as pacsv

    from hpgraph import tables

    meta = _harness.metadata(benchmark="bench_io", scale=args.scale, repeat=args.repeat,
                             cpus=os.cpu_count(), loadavg_start=os.getloadavg(), pyarrow=pa.__version__)
    G = hp.rmat(args.scale, seed=1, directed=True, weights=(1, 64), backend="cpu")
    ref = G.to_scipy()
    coo = ref.tocoo()
    src, dst, w = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
    n = G.num_vertices
    folder = Path(args.dir or tempfile.mkdtemp(prefix="hpgraph-bench-io-"))
    folder.mkdir(parents=True, exist_ok=True)
    mtx, el, csv = folder / "g.mtx", folder / "g.el", folder / "g.csv"
    hp.write(G, mtx)
    hp.write(G, el)
    tables.write_csv(G, csv, labels=False)
    arrow_cols = pa.table({"source": src, "destination": dst, "weight": w})
    space = pacsv.WriteOptions(include_header=False, delimiter="\t")  # hp.write's edge lists are tab-separated

    with open(el, "rb") as f:  # hp.write's '#' header lines: pyarrow skips them by count
        header_lines = sum(1 for _ in iter(lambda: f.readline().startswith(b"#") or None, None))

    def arrow_read_build():
        t = pacsv.read_csv(el, read_options=pacsv.ReadOptions(column_names=["s", "d", "w"],
                                                              skip_rows=header_lines),
                           parse_options=pacsv.ParseOptions(delimiter="\t"),
                           convert_options=pacsv.ConvertOptions(column_types={"s": pa.int64(), "d": pa.int64()}))
        return hp.Graph.from_edges(t["s"].to_numpy(), t["d"].to_numpy(), t["w"].to_numpy(),
                                   num_vertices=n, directed=True, backend="cpu")

    rows, failed = [], []

    def row(group, name, fn, check, baseline=None):
        r, out = _harness.timed(fn, args.repeat, gpu=False)
        ok = bool(check(out))
        r.update(group=group, name=name, ok=ok)
        if baseline is not None:
            r["ratio"] = r["warm_ms"] / baseline["warm_ms"]
            r["goal"] = GOALS.get(group)
            r["met"] = r["goal"] is None or r["ratio"] <= r["goal"]
        rows.append(r)
        if not ok:
            failed.append(name)
        ratio = f"  {r['ratio']:.2f}x" if "ratio" in r else ""
        print(f"{group:15s} {name:45s} {r['warm_ms'] / 1e3:8.2f} s{ratio}  {'ok' if ok else 'MISMATCH'}",
              flush=True)
        return r

    b = row("mtx read", "scipy.io.mmread + tocsr", lambda: scipy.io.mmread(mtx).tocsr(),
            lambda A: _same(A, ref))
    row("mtx read", "hp.read(g.mtx)", lambda: hp.read(mtx, backend="cpu"), lambda H: _same(H.to_scipy(), ref), b)
    if args.paired:
        meta["mtx_read_paired"] = _paired(args.paired, lambda: scipy.io.mmread(mtx).tocsr(),
                                          lambda: hp.read(mtx, backend="cpu"))
    b = row("edgelist read", "pyarrow.csv.read_csv + Graph.from_edges", arrow_read_build,
            lambda H: _same(H.to_scipy(), ref))
    row("edgelist read", "hp.read(g.el)", lambda: hp.read(el, backend="cpu"), lambda H: _same(H.to_scipy(), ref), b)
    row("edgelist read", "tables.read_csv(g.csv, renumber=False)",
        lambda: tables.read_csv(csv, "source", "destination", "weight", renumber=False, backend="cpu"),
        lambda H: _same(H.to_scipy(), ref), b)

    out_el, out_csv, out_mtx = folder / "w.el", folder / "w.csv", folder / "w.mtx"

    def parses_back(path):
        return lambda _: _same(hp.read(path, backend="cpu").to_scipy(), ref)

    b = row("edgelist write", "pyarrow.csv.write_csv (ready columns)",
            lambda: pacsv.write_csv(arrow_cols, out_el, write_options=space), parses_back(out_el))
    row("edgelist write", "hp.write(G, w.el)", lambda: hp.write(G, out_el), parses_back(out_el), b)
    row("edgelist write", "tables.write_csv(G, w.csv)", lambda: tables.write_csv(G, out_csv, labels=False),
        lambda _: _same(tables.read_csv(out_csv, "source", "destination", "weight", renumber=False,
                                                backend="cpu").to_scipy(), ref), b)
    b = row("mtx write", "scipy.io.mmwrite", lambda: scipy.io.mmwrite(out_mtx, ref), parses_back(out_mtx))
    row("mtx write", "hp.write(G, w.mtx)", lambda: hp.write(G, out_mtx), parses_back(out_mtx), b)

    meta.update(vertices=n, edges=int(ref.nnz), loadavg_end=os.getloadavg(),
                sizes_mb={p.name: round(p.stat().st_size / 2**20, 1) for p in (mtx, el, csv)})
    if args.json:
        _harness.write(args.json, {"meta": meta, "rows": rows})
    if failed:
        print(f"MISMATCH in {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
