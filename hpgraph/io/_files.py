"""Paths, format detection and reading (decompressing) a file's bytes."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import secrets
import sys
import zlib
from pathlib import Path

from ..exceptions import FileFormatError, GraphFileNotFound, InvalidValue
from ._common import _COMPRESSION_SUFFIXES, _FORMAT_ALIASES, EXTENSIONS, FORMATS

@contextlib.contextmanager
def atomic_output(p: Path):
    """Yield a temporary path beside ``p`` to write the whole file to; on success it is renamed
    to ``p`` (``os.replace``, atomic on one file system), on any error it is removed.  So an
    interrupted write never leaves a partial file under the final name (an existing file keeps
    its old content).  The temporary file gets the permissions a plain ``open`` would."""
    if p.is_dir():
        raise FileFormatError("is a directory; give a file name to write to", p)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise GraphFileNotFound(f"{p}: cannot write, the directory {str(parent)!r} does not exist", p)
    tmp = parent / f".{p.name}.{secrets.token_hex(6)}.tmp"
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield str(tmp)
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _known_extensions() -> str:
    exts = sorted(EXTENSIONS)
    return ", ".join(exts) + " (each optionally followed by .gz, .bz2 or .xz)"


def _format_for(p: Path, format, for_write=False) -> str:
    if format is not None:
        key = str(format).lower().lstrip(".")
        if key not in _FORMAT_ALIASES:
            raise InvalidValue(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
        return _FORMAT_ALIASES[key]
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION_SUFFIXES:
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    if ext not in EXTENSIONS:
        what = f"extension {ext!r}" if ext else "no extension"
        verb = "write" if for_write else "read"
        raise FileFormatError(f"cannot tell the graph format from the file name ({what}); known "
                              f"extensions: {_known_extensions()}. Pass format= "
                              f"({', '.join(FORMATS)}; --format on the command line) to {verb} it "
                              "anyway", p)
    return EXTENSIONS[ext]


def _check_path(path) -> Path:
    try:
        p = Path(os.fspath(path))
    except TypeError:
        raise InvalidValue(f"path must be a str or os.PathLike, got {type(path).__name__}") from None
    if not p.exists():
        parent = p.parent if str(p.parent) else Path(".")
        hint = "" if parent.is_dir() else f" (the directory {str(parent)!r} does not exist either)"
        raise GraphFileNotFound(f"{p}: no such file{hint}", p)
    if p.is_dir():
        raise FileFormatError("is a directory, not a graph file", p)
    return p


def _read_bytes(p: Path, report) -> bytes:
    """The file's content, decompressed when it starts with a gzip/bzip2/xz magic number."""
    try:
        f = open(p, "rb")
    except PermissionError:
        raise FileFormatError("cannot be read (permission denied)", p) from None
    except OSError as exc:
        raise FileFormatError(f"cannot be opened ({exc.strerror or exc})", p) from None
    with f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(6)
        f.seek(0)
        if head[:2] == b"\x1f\x8b":
            kind, stream = "gzip", gzip.GzipFile(fileobj=f, mode="rb")
        elif head[:3] == b"BZh":
            kind, stream = "bzip2", bz2.BZ2File(f, mode="rb")
        elif head[:6] == b"\xfd7zXZ\x00":
            kind, stream = "xz", lzma.LZMAFile(f, mode="rb")
        else:
            kind, stream = None, f
        chunks = []
        try:
            while True:
                chunk = stream.read(1 << 22)
                if not chunk:
                    break
                chunks.append(chunk)
                if size:
                    report("read", min(1.0, f.tell() / size))
        except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
            raise FileFormatError(f"corrupt or truncated {kind or ''} data ({exc})".replace("  ", " "),
                                  p) from None
        report("read", 1.0)
    return b"".join(chunks)


class _Progress:
    """Progress reporting: nothing, a callable ``(stage, fraction)``, or a bar on stderr."""

    def __init__(self, progress, name):
        self._cb = None
        self._bar = None
        self._last = -1
        self._name = name
        if callable(progress):
            self._cb = progress
        elif progress:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=1000, desc=f"reading {name}", unit="‰", leave=False,
                                 file=sys.stderr, bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}")
            except Exception:  # tqdm missing: a plain percentage
                self._bar = None
                self._plain = True
            else:
                self._plain = False
        self._enabled = bool(progress)

    @property
    def enabled(self) -> bool:
        """Whether anything is reported (a callable or a bar)."""
        return self._enabled

    def __call__(self, stage, fraction):
        if self._cb is not None:
            self._cb(stage, float(fraction))
        elif self._bar is not None:
            k = int(fraction * 1000)
            if k > self._last:
                self._bar.update(k - max(self._last, 0))
                self._last = k
        elif self._enabled and getattr(self, "_plain", False):
            k = int(fraction * 100)
            if k // 10 > self._last // 10 or k == 100 and self._last != 100:
                print(f"\rreading {self._name}: {k:3d}%", end="", file=sys.stderr, flush=True)
                self._last = k

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._enabled and getattr(self, "_plain", False) and self._last >= 0:
            print(file=sys.stderr, flush=True)
            self._last = -1


def _make_progress(progress, name) -> _Progress:
    return _Progress(progress, name)


