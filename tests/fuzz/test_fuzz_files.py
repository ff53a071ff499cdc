"""Fuzz the readers with mutated graph files of every format, parsed in a worker process.

Seeds are valid files written by :func:`hpgraph.io.write` (plus hand-written Matrix Market
``array`` / ``skew-symmetric`` files); Hypothesis truncates them, flips and inserts bytes,
swaps tokens for garbage (huge, negative, NaN, non-numeric, control bytes), rewrites
headers so they lie, and compresses the result (sometimes truncating or corrupting the
compressed stream).  Each file is read by ``tests/fuzz/_file_worker.py``: a crash or hang of
that process fails the test with the file's bytes; an untyped error fails it too.
"""

from __future__ import annotations

import bz2
import gzip
import itertools
import lzma
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import hpgraph as hp

from tests.fuzz._harness import FileWorker, check_file, fuzz_settings

GARBAGE = [b"", b"-1", b"0", b"1", b"2", b"9223372036854775807", b"9223372036854775808",
           b"-9223372036854775809", b"99999999999999999999999", b"1000000000000", b"4611686018427387904",
           b"1e400", b"-1e400", b"nan", b"inf", b"-inf", b"0x1F", b"1.5", b"-0", b"+3", b"1_000",
           b"\x00", b"\xff\xfe", b"\r", b"\r\n", b"\n", b"%", b"#", b"c", b"p", b"a", b"p sp 3 3",
           b",", b"  ", b"\t", b"\x0b", b"\x0c", b"%%MatrixMarket matrix coordinate real general",
           b"%%MatrixMarket matrix array integer skew-symmetric", b"\xe2\x80\x8b", b"\xc3\xa9",
           b"pattern", b"symmetric", b"hermitian", b"array", b"complex", b"1,2", b"u", b"d",
           b"# Undirected graph", b"# hpgraph: num_vertices=1000000000000", b"1e5", b"3.0"]

EXTS = [".mtx", ".el", ".csv", ".gr", ".lg", ".npz"]


def _graphs():
    rng = np.random.default_rng(7)
    out = []
    n = 6
    src = rng.integers(0, n, 10)
    dst = rng.integers(0, n, 10)
    out.append(hp.Graph.from_edges(src, dst, rng.integers(-3, 9, 10), num_vertices=n + 1, backend="cpu"))
    out.append(hp.Graph.from_edges(src, dst, rng.random(10), num_vertices=n, directed=False, backend="cpu"))
    out.append(hp.Graph.from_edges(src, dst, num_vertices=n, backend="cpu"))
    out.append(hp.Graph.from_edges([], [], num_vertices=3, backend="cpu"))
    out.append(hp.Graph.from_edges([0, 1, 1], [0, 1, 2], [0.0, 2.5, 0.0], backend="cpu"))
    return out


def _seeds(tmp):
    seeds = {ext: [] for ext in EXTS}
    for k, G in enumerate(_graphs()):
        for ext in EXTS:
            if ext == ".lg" and G.weighted:
                G2 = hp.Graph(G.to_scipy().astype(bool), directed=G.directed)
                G2 = hp.Graph.from_edges(*G2.to_scipy().nonzero(), num_vertices=G.num_vertices,
                                         directed=G.directed, backend="cpu")
            else:
                G2 = G
            p = tmp / f"seed{k}{ext}"
            hp.write(G2, p)
            seeds[ext].append(p.read_bytes())
    seeds[".mtx"] += [
        b"%%MatrixMarket matrix array real general\n3 3\n1\n0\n0\n2\n0\n-1\n0\n0\n4.5\n",
        b"%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n0\n0\n5\n7\n",
        b"%%MatrixMarket matrix array real skew-symmetric\n3 3\n1.5\n0\n-2\n",
        b"%%MatrixMarket matrix coordinate integer skew-symmetric\n4 4 2\n2 1 3\n4 3 -1\n",
        b"%%MatrixMarket matrix coordinate real hermitian\n3 3 2\n2 1 1\n3 3 2\n",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n% comment\n\n4 4 3\n2 1\n3 1\n4 4\n",
    ]
    seeds[".el"] += [b"# Undirected graph\n0 1\n1 2 \r\n2 0\n", b"0\t1\t2.5\n1\t2\t-1\n% c\n"]
    seeds[".gr"] += [b"c road\np sp 3 2\na 1 2 5\na 2 3 7\n"]
    return seeds


@st.composite
def mutated_file(draw, seeds):
    ext = draw(st.sampled_from(EXTS))
    data = bytearray(draw(st.sampled_from(seeds[ext])))
    n_ops = draw(st.integers(0, 4))
    for _ in range(n_ops):
        op = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "token", "token", "token",
                                   "dupline", "random"]))
        size = len(data)
        if op == "truncate":
            data = data[:draw(st.integers(0, size))]
        elif op == "flip" and size:
            data[draw(st.integers(0, size - 1))] = draw(st.integers(0, 255))
        elif op == "insert":
            pos = draw(st.integers(0, size))
            data[pos:pos] = draw(st.one_of(st.sampled_from(GARBAGE), st.binary(max_size=8)))
        elif op == "delete" and size:
            pos = draw(st.integers(0, size - 1))
            del data[pos:pos + draw(st.integers(1, 16))]
        elif op == "token":
            toks = list(re.finditer(rb"[^\s,]+", bytes(data)))
            if toks:
                k = draw(st.one_of(st.integers(0, min(12, len(toks) - 1)), st.integers(0, len(toks) - 1)))
                m = toks[k]
                data[m.start():m.end()] = draw(st.sampled_from(GARBAGE))
        elif op == "dupline":
            lines = bytes(data).split(b"\n")
            k = draw(st.integers(0, len(lines) - 1))
            lines.insert(k, lines[k] * draw(st.integers(1, 3)))
            data = bytearray(b"\n".join(lines))
        elif op == "random":
            data = bytearray(draw(st.binary(max_size=200)))
    data = bytes(data)
    comp = draw(st.sampled_from(["", "", "", ".gz", ".bz2", ".xz"]))
    if comp:
        data = {".gz": lambda d: gzip.compress(d, mtime=0), ".bz2": bz2.compress, ".xz": lzma.compress}[comp](data)
        cut = draw(st.sampled_from(["none", "none", "truncate", "flip"]))
        if cut == "truncate" and len(data) > 1:
            data = data[:draw(st.integers(1, len(data) - 1))]
        elif cut == "flip" and data:
            b = bytearray(data)
            b[draw(st.integers(0, len(b) - 1))] ^= draw(st.integers(1, 255))
            data = bytes(b)
    kwargs = draw(st.fixed_dictionaries({}, optional={
        "directed": st.sampled_from([None, True, False]),
        "weighted": st.sampled_from([None, True, False]),
        "relabel": st.booleans(),
        "duplicates": st.sampled_from(["min", "sum", "keep", "first"]),
    }))
    return ext + comp, data, kwargs


@pytest.fixture(scope="module")
def file_env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzzfiles")
    worker = FileWorker()
    yield tmp, _seeds(tmp), worker
    worker.close()


_counter = itertools.count()


def test_fuzz_mutated_files(file_env):
    tmp, seeds, worker = file_env

    @fuzz_settings(1500)
    @given(mutated_file(seeds))
    def run(case):
        name, data, kwargs = case
        p = tmp / f"case{next(_counter) % 64}{name}"
        p.write_bytes(data)
        check_file(worker, f"read({p.name}, {kwargs})", p, data, **kwargs)

    run()


def test_seeds_are_read(file_env):
    """Every unmutated seed parses (so the mutations start from valid files)."""
    tmp, seeds, worker = file_env
    for ext, items in seeds.items():
        for k, data in enumerate(items):
            p = tmp / f"valid{k}{ext}"
            p.write_bytes(data)
            res = check_file(worker, p.name, p, data)
            assert res["kind"] == "ok", (p.name, data, res)
