"""Edge table files: Parquet and CSV through pyarrow, written atomically (see hpgraph.tables)."""

from __future__ import annotations

import os
import tempfile

import numpy as np

from ..exceptions import DomainMismatch, FileFormatError, GraphFileNotFound, InvalidGraph, InvalidValue
from ._frames import _pa, from_arrow, to_arrow


def read_parquet(path, source="source", destination="destination", weight=None, **kwargs):
    """Graph of a Parquet edge table (``pyarrow.parquet``; only the named columns are read).

    Keyword arguments are those of :func:`from_arrow`.

    Raises
    ------
    GraphFileNotFound
        No such file.
    FileFormatError
        Not a Parquet file, or a named column is missing (the message lists the columns).
    """
    _pa()
    import pyarrow.parquet as pq

    p = _existing(path)
    try:
        schema = pq.read_schema(p)
    except Exception as exc:
        raise FileFormatError(f"not a readable Parquet file ({type(exc).__name__}: {exc})", p) from None
    cols = [c for c in (source, destination, weight) if c is not None]
    missing = [c for c in cols if c not in schema.names]
    if missing:
        raise FileFormatError(f"no column {missing[0]!r} (columns: {schema.names}); pass source=, destination= "
                              "or weight= with the names the file has", p)
    try:
        table = pq.read_table(p, columns=cols)
    except Exception as exc:
        raise FileFormatError(f"cannot read the Parquet data ({type(exc).__name__}: {exc})", p) from None
    return from_arrow(table, source, destination, weight, **kwargs)


def write_parquet(G, path, source="source", destination="destination", weight="weight", *, labels=True,
                  compression="zstd"):
    """Write the edges of ``G`` as a Parquet table (layout of :func:`to_arrow`), atomically."""
    _pa()
    import pyarrow.parquet as pq

    table = to_arrow(G, source, destination, weight, labels=labels)
    _atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression=compression))


def read_csv(path, source=0, destination=1, weight=None, *, delimiter=",", header=None, comment="#",
             one_based=False, id_type=None, **kwargs):
    """Graph of a delimited edge list, parsed by ``pyarrow.csv`` (multi-threaded).

    Parameters
    ----------
    path : str or path-like
        gzip, bzip2, xz, zstd and lz4 files are decompressed (detected from their first bytes).
    source, destination, weight : int or str
        Column positions (0-based) or names (names need a header line); ``weight=None``: unweighted.
    delimiter : str, default ","
        One character (``"\\t"`` for TSV, ``" "`` for single-space separated files).
    header : bool or None
        Whether the first (non-comment) line names the columns.  None: yes when the columns are
        given by name, else when the used fields of the first line are not numbers but those
        of the second line are.
    comment : str or None, default "#"
        Leading lines starting with this character are skipped.
    one_based : bool, default False
        Integer ids start at 1 (subtracted); needs ``renumber=False``.
    id_type : {None, "string", "int64"}
        Read both endpoint columns as this type (None: as pyarrow infers them).
    **kwargs
        Those of :func:`from_arrow` (``directed``, ``renumber``, ``vertices``, ``duplicates``,
        ``backend``).

    Raises
    ------
    GraphFileNotFound, FileFormatError
        No such file; a malformed or truncated file, or a missing column (the message names the
        file and, where pyarrow says it, the row).
    """
    pa = _pa()
    import pyarrow.csv as pacsv

    p = _existing(path)
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise InvalidValue(f"read_csv: delimiter must be one character, got {delimiter!r}")
    if id_type not in (None, "string", "int64"):
        raise InvalidValue(f"read_csv: id_type must be None, 'string' or 'int64', got {id_type!r}")
    if one_based and kwargs.get("renumber", True):
        raise InvalidValue("read_csv: one_based=True needs renumber=False (labels keep the file's ids)")
    source_file = _open_text(pa, p)
    lines, skip = _peek(pa, source_file, p, comment)
    names_given = any(isinstance(c, str) for c in (source, destination, weight))
    if header is None:
        header = names_given or _looks_like_header(lines, delimiter, (source, destination, weight))
    if names_given and not header:
        raise InvalidValue("read_csv: columns given by name need header=True (or None)")
    ropts = pacsv.ReadOptions(skip_rows=skip, autogenerate_column_names=not header)
    popts = pacsv.ParseOptions(delimiter=delimiter)
    try:
        table = pacsv.read_csv(_reopen(pa, source_file), read_options=ropts, parse_options=popts)
    except Exception as exc:  # ArrowInvalid for bad rows, OSError / EOFError for a corrupt stream
        raise FileFormatError(f"cannot parse the edge list ({type(exc).__name__}: {exc})", p) from None
    names = table.column_names

    def col(c, what):
        if c is None:
            return None
        if isinstance(c, str):
            if c not in names:
                raise FileFormatError(f"no column {c!r} (columns: {names}); pass {what}= with a name the file "
                                      "has", p)
            return c
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < len(names):
            raise FileFormatError(f"{what}={c!r}: the file has {len(names)} columns (positions 0.."
                                  f"{len(names) - 1})", p)
        return names[c]

    s, d, w = col(source, "source"), col(destination, "destination"), col(weight, "weight")
    if id_type is not None:
        try:
            table = table.set_column(names.index(s), s, table.column(s).cast(id_type)) \
                .set_column(names.index(d), d, table.column(d).cast(id_type))
        except Exception as exc:
            raise FileFormatError(f"cannot read the ids as {id_type} ({exc})", p) from None
    if one_based:
        table = _shift_one_based(pa, table, (s, d), p)
    try:
        return from_arrow(table, s, d, w, **kwargs)
    except (InvalidGraph, DomainMismatch, InvalidValue) as exc:
        raise type(exc)(f"{p}: {exc}") from None


def write_csv(G, path, source="source", destination="destination", weight="weight", *, labels=True,
              header=True, delimiter=","):
    """Write the edges of ``G`` as CSV through ``pyarrow.csv`` (atomically; ``.gz`` etc. compressed)."""
    pa = _pa()
    import pyarrow.csv as pacsv

    table = to_arrow(G, source, destination, weight, labels=labels)
    opts = pacsv.WriteOptions(include_header=bool(header), delimiter=delimiter)
    codec = _codec_of(str(path))

    def write(tmp):
        if codec is None:
            pacsv.write_csv(table, tmp, write_options=opts)
        else:
            with pa.CompressedOutputStream(tmp, codec) as out:
                pacsv.write_csv(table, out, write_options=opts)

    _atomic_write(path, write)


def _existing(path):
    p = os.fspath(path)
    if not os.path.exists(p):
        raise GraphFileNotFound(f"{p}: no such file", p)
    if os.path.isdir(p):
        raise FileFormatError("is a directory, not a file", p)
    return p


def _codec_of(path):
    for ext, codec in ((".gz", "gzip"), (".bz2", "bz2"), (".zst", "zstd"), (".lz4", "lz4")):
        if path.endswith(ext):
            return codec
    return None


def _open_text(pa, path):
    """What pyarrow.csv reads: the path, or the decompressed bytes of a gzip / bzip2 / xz file.

    Compression is detected from the first bytes.  gzip, bzip2 and xz are decompressed by
    Python's modules, which raise on a truncated stream (pyarrow's gzip reader returns the
    rows it got); zstd and lz4 go through pyarrow, which does raise.
    """
    import bz2
    import gzip
    import lzma

    with open(path, "rb") as f:
        magic = f.read(6)
    codecs = ((b"\x1f\x8b", gzip.decompress), (b"BZh", bz2.decompress), (b"\xfd7zXZ\x00", lzma.decompress))
    for sig, decompress in codecs:
        if magic.startswith(sig):
            with open(path, "rb") as f:
                raw = f.read()
            try:
                return pa.py_buffer(decompress(raw))
            except (EOFError, OSError, ValueError, lzma.LZMAError) as exc:
                raise FileFormatError(f"truncated or corrupt compressed file ({type(exc).__name__}: {exc})",
                                      path) from None
    if magic.startswith(b"\x28\xb5\x2f\xfd"):
        return ("zstd", path)
    if magic.startswith(b"\x04\x22\x4d\x18"):
        return ("lz4", path)
    return path


def _reopen(pa, source):
    if isinstance(source, tuple):
        return pa.input_stream(source[1], compression=source[0])
    if isinstance(source, str):
        return source
    return pa.BufferReader(source)


def _peek(pa, source, path, comment, nbytes=1 << 16):
    """First two data lines (as str) and the number of leading comment lines."""
    try:
        with _reopen(pa, source) if not isinstance(source, str) else open(source, "rb") as f:
            head = f.read(nbytes)
    except Exception as exc:
        raise FileFormatError(f"cannot read the file ({type(exc).__name__}: {exc})", path) from None
    if isinstance(head, memoryview) or hasattr(head, "to_pybytes"):
        head = bytes(head)
    text = head.decode("utf-8", errors="replace").splitlines()
    skip, data = 0, []
    for line in text:
        if not data and comment and line.startswith(comment):
            skip += 1
            continue
        data.append(line)
        if len(data) == 2:
            break
    return data, skip


def _looks_like_header(lines, delimiter, cols):
    if len(lines) < 2:
        return False
    pos = [c for c in cols if isinstance(c, int) and not isinstance(c, bool)]

    def numeric(line):
        fields = line.split(delimiter)
        try:
            for c in pos:
                float(fields[c])
        except (IndexError, ValueError):
            return False
        return True

    return not numeric(lines[0]) and numeric(lines[1])


def _shift_one_based(pa, table, cols, path):
    import pyarrow.compute as pc

    for c in cols:
        arr = table.column(c)
        if not pa.types.is_integer(arr.type):
            raise FileFormatError(f"one_based=True needs integer ids, column {c!r} has type {arr.type}", path)
        if len(arr) and pc.min(arr).as_py() < 1:
            i = int(np.flatnonzero(pc.less(arr, 1).to_numpy(zero_copy_only=False))[0])
            raise FileFormatError(f"one_based=True but column {c!r} has id {arr[i].as_py()} at row {i} (ids must "
                                  "be >= 1)", path)
        table = table.set_column(table.column_names.index(c), c, pc.subtract(arr, 1))
    return table


def _atomic_write(path, write):
    """Run ``write(tmp_path)`` on a temporary file beside ``path``, then rename it to ``path``."""
    p = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(folder):
        raise GraphFileNotFound(f"{p}: cannot write, the directory {folder!r} does not exist", p)
    fd, tmp = tempfile.mkstemp(prefix=".hpgraph-", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
