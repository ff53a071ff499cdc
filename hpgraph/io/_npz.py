"""hpgraph's own ``.npz`` edge archive, read without pickle and without trusting array headers.

Each member's ``.npy`` header is parsed first (``numpy.lib.format``, a literal parser with a
size cap); object dtypes are refused, and the declared shape must match the bytes the member
holds before anything is allocated, so a lying header or a decompression bomb gives a
:class:`~hpgraph.exceptions.FileFormatError` instead of an allocation failure.
"""

from __future__ import annotations

import io as _io
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .._memory import check_host_bytes
from ..exceptions import FileFormatError
from ._common import EdgeList

_REQUIRED = ("src", "dst", "num_vertices", "directed")


def _parse_npz(data: bytes, p: Path, *, weighted, directed) -> EdgeList:
    try:
        zf = zipfile.ZipFile(_io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError) as exc:
        if data[:6] == b"\x93NUMPY":
            raise FileFormatError("holds a single array (.npy), not an .npz archive of edges", p) from None
        raise FileFormatError(f"not a NumPy .npz archive ({type(exc).__name__}: {exc})", p) from None
    with zf:
        members = {}
        for info in zf.infolist():
            name = info.filename
            if name.endswith(".npy"):
                members[name[:-4]] = info
        missing = [k for k in _REQUIRED if k not in members]
        if missing:
            raise FileFormatError(f"not an hpgraph edge archive: missing array(s) {', '.join(missing)} "
                                  f"(found {', '.join(sorted(members)) or 'none'}); write it with "
                                  "hpgraph.io.write", p)
        src = _member(zf, members["src"], p)
        dst = _member(zf, members["dst"], p)
        w = _member(zf, members["weights"], p) if "weights" in members else None
        n_arr = _member(zf, members["num_vertices"], p)
        d_arr = _member(zf, members["directed"], p)
    if n_arr.shape != () or n_arr.dtype.kind not in "iu":
        raise FileFormatError(f"num_vertices must be one integer, got an array of shape {n_arr.shape} and "
                              f"dtype {n_arr.dtype}", p)
    if d_arr.shape != () or d_arr.dtype.kind not in "biu":
        raise FileFormatError(f"directed must be one boolean, got an array of shape {d_arr.shape} and "
                              f"dtype {d_arr.dtype}", p)
    n = int(n_arr)
    d = bool(d_arr)
    if src.ndim != 1 or dst.shape != src.shape or (w is not None and w.shape != src.shape):
        raise FileFormatError(f"src, dst and weights must be 1-D of one length; got shapes {src.shape}, "
                              f"{dst.shape}, {None if w is None else w.shape}", p)
    if src.dtype.kind not in "iu" or dst.dtype.kind not in "iu":
        raise FileFormatError(f"src and dst must hold integers, got {src.dtype} and {dst.dtype}", p)
    if w is not None and w.dtype.kind not in "biuf":
        raise FileFormatError(f"weights must be numbers, got dtype {w.dtype}", p)
    if n < 0:
        raise FileFormatError(f"num_vertices is negative ({n})", p)
    if src.size:
        bad = (src < 0) | (dst < 0) | (src >= n) | (dst >= n)
        if bad.any():
            k = int(np.argmax(bad))
            raise FileFormatError(f"edge {k} ({int(src[k])}, {int(dst[k])}) has an id outside "
                                  f"[0, {n - 1}]", p)
    return EdgeList(src, dst, w, n, d, source=str(p))


def _member(zf, info, p) -> np.ndarray:
    """One ``.npy`` member, checked before its data is read."""
    name = info.filename
    fmt = np.lib.format
    try:
        with zf.open(info) as f:
            version = fmt.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = fmt.read_array_header_1_0(f)
            elif version in ((2, 0), (3, 0)):
                shape, fortran, dtype = fmt.read_array_header_2_0(f)
            else:
                raise ValueError(f"unsupported .npy version {version}")
            if dtype.hasobject:
                raise FileFormatError(f"{name} holds Python objects (dtype {dtype}); hpgraph archives hold "
                                      "numbers only and are never unpickled", p)
            count = 1
            for s in shape:
                count *= int(s)
            nbytes = count * dtype.itemsize
            header_len = f.tell()
            if nbytes != info.file_size - header_len:
                raise FileFormatError(f"{name}: the header declares shape {shape} of {dtype} "
                                      f"({nbytes} bytes) but the member holds {info.file_size - header_len} "
                                      "bytes", p)
            check_host_bytes(nbytes, f"reading {name} of shape {shape} from {p}")
            raw = f.read(nbytes)
    except FileFormatError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError,
            SyntaxError, TypeError, KeyError, OverflowError) as exc:
        raise FileFormatError(f"corrupt archive member {name} ({type(exc).__name__}: {exc})", p) from None
    if len(raw) != nbytes:
        raise FileFormatError(f"{name} is truncated: {len(raw)} of {nbytes} bytes", p)
    arr = np.frombuffer(raw, dtype=dtype, count=count)
    return arr.reshape(shape, order="F" if fortran else "C").copy()
