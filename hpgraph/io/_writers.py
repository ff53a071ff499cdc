"""Writers: each returns the uncompressed bytes of one format."""

from __future__ import annotations

import io as _io
import re
from pathlib import Path

import numpy as np

from ..exceptions import InvalidValue
from . import _arrow
from ._common import _COMPRESSION_SUFFIXES, _NPZ_TAG, _NPZ_VERSION, EdgeList

# ---------------------------------------------------------------------------------------------
# writers (each returns the uncompressed bytes)


def _fmt_rows(cols, sep, base=0) -> bytes:
    """Fast text rows: ``cols`` are 1-D host arrays joined by ``sep``; ``base`` is added to the
    first two (id) columns. Integers print as ``%d``, floats as their shortest round-trip repr."""
    m = int(cols[0].shape[0])
    if m == 0:
        return b""
    specs = []
    values = []
    for k, a in enumerate(cols):
        a = np.asarray(a)
        if a.dtype.kind in "iub":
            a = a.astype(np.int64)
            if base and k < 2:
                a = a + base
            specs.append("%d")
        else:
            a = a.astype(np.float64)
            specs.append("%r")
        values.append(a.tolist())
    row = sep.join(specs) + "\n"
    out = []
    step = 1 << 18
    for i in range(0, m, step):
        chunk = [v[i:i + step] for v in values]
        flat = [x for tup in zip(*chunk) for x in tup]
        out.append((row * len(chunk[0])) % tuple(flat))
    return "".join(out).encode()


def _edgelist_parts(el: EdgeList, p: Path, comment):
    """``(header bytes, columns, separator)`` of an edge-list file."""
    suffixes = [s.lower() for s in p.suffixes if s.lower() not in _COMPRESSION_SUFFIXES]
    sep = "," if suffixes and suffixes[-1] == ".csv" else "\t"
    head = []
    if el.directed:
        head.append("# Directed graph")
    else:
        head.append("# Undirected graph (each unordered pair of nodes is saved once)")
    if comment:
        head += ["# " + c for c in str(comment).splitlines()]
    head.append(f"# Nodes: {el.num_vertices} Edges: {el.num_edges}")
    head.append(f"# hpgraph: num_vertices={el.num_vertices}")
    head.append("# " + sep.join(["FromNodeId", "ToNodeId"] + (["Weight"] if el.weights is not None else [])))
    src, dst, w = _host(el.src), _host(el.dst), _host(el.weights)
    cols = [src, dst] + ([w] if w is not None else [])
    return ("\n".join(head) + "\n").encode(), cols, sep


def _write_edgelist(el: EdgeList, p: Path, comment) -> bytes:
    head, cols, sep = _edgelist_parts(el, p, comment)
    body = _arrow.write_int_rows(cols, sep)
    return head + (body if body is not None else _fmt_rows(cols, sep))


def edgelist_writer(el: EdgeList, p: Path, comment):
    """A function writing the edge-list file to a path (header, then the rows by pyarrow's CSV
    writer): the same bytes as :func:`_write_edgelist` without holding them in memory.  None
    where pyarrow does not write these columns (see :func:`._arrow.int_rows_table`)."""
    head, cols, sep = _edgelist_parts(el, p, comment)
    table = _arrow.int_rows_table(cols)
    if table is None:
        return None
    return lambda out: _arrow.write_rows(table, sep, out, head)


def _write_mtx(el: EdgeList, p: Path, comment) -> bytes:
    import scipy.io
    import scipy.sparse as sp

    src, dst, w = _host(el.src), _host(el.dst), _host(el.weights)
    n = el.num_vertices
    if el.directed:
        r, c = src, dst
        symmetry = "general"
    else:  # lower triangle, as the format wants
        r, c = np.maximum(src, dst), np.minimum(src, dst)
        symmetry = "symmetric"
    if w is None:
        fld = "pattern"
        vals = np.ones(r.shape[0], dtype=np.float64)
    elif np.asarray(w).dtype.kind in "iub":
        fld = "integer"
        vals = np.asarray(w, dtype=np.int64)
    else:
        fld = "real"
        vals = np.asarray(w, dtype=np.float64)
    A = sp.coo_array((vals, (np.asarray(r, np.int64), np.asarray(c, np.int64))), shape=(n, n))
    buf = _io.BytesIO()
    text = "written by hpgraph" + (f"\n{comment}" if comment else "")
    scipy.io.mmwrite(buf, A, comment=text, field=fld, symmetry=symmetry)
    return buf.getvalue()


def _write_dimacs(el: EdgeList, p: Path, comment) -> bytes:
    src, dst, w = _host(el.src), _host(el.dst), _host(el.weights)
    if not el.directed:  # DIMACS has only arcs: write both directions (a self-loop once)
        loop = src == dst
        src, dst = np.concatenate([src, dst[~loop]]), np.concatenate([dst, src[~loop]])
        if w is not None:
            w = np.concatenate([w, w[~loop]])
    if w is None:
        w = np.ones(src.shape[0], dtype=np.int64)
    head = ["c written by hpgraph"]
    if comment:
        head += ["c " + c for c in str(comment).splitlines()]
    head.append(f"p sp {el.num_vertices} {src.shape[0]}")
    rows = _fmt_rows([src, dst, w], " ", base=1)
    if rows:
        rows = b"a " + rows[:-1].replace(b"\n", b"\na ") + b"\n"
    return ("\n".join(head) + "\n").encode() + rows


def _write_lg(el: EdgeList, p: Path, comment) -> bytes:
    if el.weights is not None:
        raise InvalidValue("the LG format cannot hold edge weights; write .mtx, .el or .npz, or "
                           "drop the weights first")
    src, dst = _host(el.src), _host(el.dst)
    name = re.sub(r"[,\s]+", "_", Path(p.stem).stem or "graph")
    head = f"{el.num_vertices},{src.shape[0]},{'d' if el.directed else 'u'},{name}\n"
    return head.encode() + _fmt_rows([src, dst], ",", base=1)


def _write_npz(el: EdgeList, p: Path, comment) -> bytes:
    arrays = dict(src=_host(el.src), dst=_host(el.dst), num_vertices=np.int64(el.num_vertices),
                  directed=np.bool_(el.directed), format=np.str_(_NPZ_TAG), version=np.int64(_NPZ_VERSION))
    if el.weights is not None:
        arrays["weights"] = _host(el.weights)
    buf = _io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def _host(a):
    if a is None:
        return None
    from .. import backend as _backend

    return np.asarray(_backend.to_host(a))


_WRITERS = {
    "mtx": _write_mtx,
    "edgelist": _write_edgelist,
    "dimacs": _write_dimacs,
    "lg": _write_lg,
    "npz": _write_npz,
}
