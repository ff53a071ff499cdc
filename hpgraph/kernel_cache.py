"""Compiled kernels on disk: generated CUDA modules as cubins, loaded without NVRTC.

CuPy keeps its own on-disk cache, but its lookup first runs NVRTC on an empty program to key
the cache by the compiler, which costs a new process the compiler's start-up (about 0.1-0.3 s)
even when every kernel is cached.  hpgraph's generated modules (the engine's program units)
go through this cache instead: the key is the SHA-256 of the source, the options, the GPU
architecture, the NVRTC version and the cache format; a hit loads the cubin straight into a
``cupy.RawModule``.  Misses compile to a cubin with NVRTC, several in parallel threads (NVRTC
releases the GIL), and are written atomically (temporary file, then rename), so concurrent
processes never read half a file.  The directory is ``hp.config["kernel_cache"]`` (default
``$XDG_CACHE_HOME/hpgraph/kernels``); where it cannot be written, a per-process temporary
directory stands in.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import threading
from pathlib import Path

from .exceptions import CompileError, DeviceUnavailable

__all__ = ["modules", "cache_dir", "cubin", "install", "Deferred", "wait"]

_lock = threading.Lock()
_fallback_dir: list = []


def cache_dir() -> Path:
    """The cache directory in use (created on first call)."""
    from ._config import config

    d = config["kernel_cache"]
    if d is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "hpgraph", "kernels")
    path = Path(d)
    try:
        path.mkdir(parents=True, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    with _lock:
        if not _fallback_dir:
            _fallback_dir.append(Path(tempfile.mkdtemp(prefix="hpgraph-kernels-")))
    return _fallback_dir[0]


@functools.lru_cache(maxsize=1)
def _nvrtc():
    try:
        from cupy_backends.cuda.libs import nvrtc

        return nvrtc, "%d.%d" % nvrtc.getVersion()
    except Exception as exc:  # no NVRTC library
        raise DeviceUnavailable(f"NVRTC is not available ({exc}); install cupy-cuda12x and "
                                "nvidia-cuda-nvrtc-cu12") from None


def cubin(source: str, options: tuple, arch: str) -> bytes:
    """``source`` compiled by NVRTC to a cubin for ``arch`` (``"sm_90"``); no GPU needed.

    Raises
    ------
    CompileError
        With the source and NVRTC's log attached.
    """
    nvrtc, _ = _nvrtc()
    prog = nvrtc.createProgram(source, "hpgraph.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, [f"--gpu-architecture={arch}", *options])
        except nvrtc.NVRTCError:
            raise CompileError("NVRTC failed to compile a generated hpgraph kernel",
                               source=source, log=nvrtc.getProgramLog(prog)) from None
        return nvrtc.getCUBIN(prog)
    finally:
        nvrtc.destroyProgram(prog)


#: Bumped when what a cached file holds changes meaning (the source itself is in the key).
CACHE_FORMAT = "1"


def _key(source: str, options: tuple, arch: str) -> str:
    text = "\0".join((source, *options, arch, _nvrtc()[1], CACHE_FORMAT))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _store(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _path(d: Path, source: str, options: tuple, arch: str) -> Path:
    """Where directory ``d`` holds the cubin of ``source`` with ``options`` for ``arch``."""
    return d / (_key(source, tuple(options), arch) + ".cubin")


def install(source: str, options: tuple, arch: str, data: bytes) -> bool:
    """File ``data``, a cubin of ``source`` compiled with ``options`` for ``arch`` elsewhere
    (:mod:`hpgraph.precompile`), where :func:`modules` looks it up; False when one is there."""
    path = _path(cache_dir(), source, options, arch)
    if path.exists():
        return False
    _store(path, data)
    return True


_loaded: dict = {}
_pool: list = []
#: cubin path -> the Future of its latest background compile: a second run state of the same
#: program (another graph, another thread) shares a running one instead of queueing another
_inflight: dict = {}


def _background():
    """The one worker thread that compiles deferred units (NVRTC releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    with _lock:
        if not _pool:
            _pool.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="hpgraph-nvrtc"))
    return _pool[0]


def wait() -> None:
    """Wait until every background compile started so far has ended (its cubin written or its
    error kept in its :class:`Deferred`): a run after this finds the deferred units compiled."""
    with _lock:
        pool = _pool[0] if _pool else None
    if pool is not None:
        pool.submit(lambda: None).result()    # one worker: this runs after the earlier ones


class Deferred:
    """A module compiled in the background (:func:`modules` with ``defer``).

    :meth:`ready` says whether the cubin is written; :meth:`module` loads it (in the calling
    thread, where the CUDA context is current), waiting for the compile if needed.  A failed
    compile raises its :class:`~hpgraph.exceptions.CompileError` from :meth:`module`.
    """

    def __init__(self, cp, future, path, cooperative=False):
        self._cp = cp
        self._future = future
        self._path = path
        self._coop = cooperative

    def ready(self) -> bool:
        return self._future.done()

    def module(self):
        self._future.result()
        return _load(self._cp, self._path, self._coop)


def _submit(path: Path, job):
    """The background compile writing ``path``: the one still running, else ``job`` queued
    (after a failed compile, a new attempt)."""
    pool = _background()
    with _lock:
        fut = _inflight.get(path)
        if fut is None or fut.done():
            fut = _inflight[path] = pool.submit(job)
    return fut


def _load(cp, path: Path, cooperative=False):
    dev = cp.cuda.runtime.getDevice()
    key = (dev, str(path), bool(cooperative))
    mod = _loaded.get(key)
    if mod is None:
        # cooperative: its kernels launch with cuLaunchCooperativeKernel (grid barriers)
        mod = _loaded[key] = cp.RawModule(path=str(path),
                                          enable_cooperative_groups=bool(cooperative))
    return mod


def modules(cp, source: str, option_sets, defer=(), cooperative=()) -> list:
    """One ``cupy.RawModule`` per tuple of ``option_sets``, for ``source`` on the current
    device (``cp``: the cupy module): loaded from the cache, the misses compiled first (in
    parallel threads).  A miss whose options are in ``defer`` is compiled in a background
    thread instead and comes back as a :class:`Deferred` (a hit is loaded as the others).
    Modules whose options are in ``cooperative`` launch their kernels cooperatively."""
    from concurrent.futures import ThreadPoolExecutor

    from ._config import config

    arch = "sm_" + cp.cuda.Device().compute_capability
    option_sets = [tuple(o) for o in option_sets]
    defer = {tuple(o) for o in defer}
    cooperative = {tuple(c) for c in cooperative}
    coop = [o in cooperative for o in option_sets]
    if config["dump_source"] is not None:
        from .cuda_source import save

        save(source, config["dump_source"])
    d = cache_dir()
    paths = [_path(d, source, o, arch) for o in option_sets]
    missing = [(o, p) for o, p in zip(option_sets, paths) if not p.exists()]
    now = [(o, p) for o, p in missing if o not in defer]
    if len(now) == 1:
        _store(now[0][1], cubin(source, now[0][0], arch))
    elif now:
        # each thread writes its own cubin (on the device a write took up to 30 ms)
        with ThreadPoolExecutor(max_workers=min(len(now), os.cpu_count() or 1)) as ex:
            list(ex.map(lambda op: _store(op[1], cubin(source, op[0], arch)), now))
    # the deferred compiles start once the others are done: concurrent NVRTC compiles slow
    # each other down (see engine.codegen.UNITS)
    late = {p: _submit(p, lambda o=o, p=p: _store(p, cubin(source, o, arch)))
            for o, p in missing if o in defer}
    return [Deferred(cp, late[p], p, c) if p in late else _load(cp, p, c)
            for p, c in zip(paths, coop)]
