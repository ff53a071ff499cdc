"""The fixed set of kernels, shipped compiled.

A new machine's first ``hpgraph demo`` compiles about 90 small CuPy kernels (the graph build,
its summary, the demo's algorithms), 80-150 ms of NVRTC each, one after another: 10-14 s of its
wall time on an H200 host against 1.4-2.1 s with warm caches (benchmarks/README.md, "Cold
start").  Compiling them in parallel processes does not help there: 40 of them took 4.3 s in
one worker process and 12.3 s in 15 (the host's cores do not run NVRTC in parallel).  The
drop-in algorithms on sparse graphs run fixed vertex programs on the engine, whose modules
(:mod:`hpgraph.kernel_cache`) take 0.1-0.5 s each to compile on first use.

So these kernels are shipped compiled.  A manifest (``hpgraph/data/kernels-cupy<version>.json.gz``,
one per CuPy version) holds each kernel in first-use order: a CuPy kernel as the source and
options CuPy handed its compiler (CuPy's own include options and header text as placeholders:
they differ between installations), an hpgraph module as its source and options; and the
cubins built from them for the GPU architectures listed in it.
``benchmarks/record_kernels.py`` writes it on a GPU machine (:func:`record` around the
``hpgraph warmup`` workload and the same algorithms on a grid, then :func:`build_cubins`).
:func:`ensure` (the command line calls it before loading a graph on the GPU) files each cubin
where its cache looks: a CuPy kernel's by handing it to CuPy's module compiler in place of its
NVRTC call, so CuPy files it under the key it will look up itself (source, options,
architecture, NVRTC and CuPy versions), an hpgraph module's under
:mod:`hpgraph.kernel_cache`'s key; it checks that the driver loads one and leaves a marker in
CuPy's cache directory, so a later process costs a hash of the manifest file and a ``stat``.
Without a manifest for the installed CuPy, without cubins for the device's architecture, or
with ``hp.config["precompile"]`` off, nothing happens and the kernels compile on first use.

The CuPy compiler entry points used (``cupy.cuda.compiler._compile_module_with_cache`` and the
functions it calls) are private to CuPy, which is why a manifest is tied to the CuPy version
that recorded it.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import json
import os
import threading
import time
from pathlib import Path

__all__ = ["record", "build_cubins", "write_manifest", "manifest_path", "install", "ensure"]

#: prefix of a placeholder ``prefix + str(i)`` for the i-th option of CuPy's own environment
#: (its include directories and language standard)
_ENV = "\0cupy-env-option:"
#: format of a manifest; bumped when a field changes meaning
MANIFEST_FORMAT = 2
#: serialises the functions that patch CuPy's compiler module (:func:`install`,
#: :func:`build_cubins`); a CuPy kernel compiled in another thread meanwhile would meet the
#: patches, so :func:`ensure` runs before a command's GPU work starts
_patching = threading.Lock()


def _compiler():
    from cupy.cuda import compiler

    return compiler


@contextlib.contextmanager
def _patched(owner, **attrs):
    """``owner``'s attributes set to ``attrs`` while the block runs, then put back."""
    saved = {name: getattr(owner, name) for name in attrs}
    for name, value in attrs.items():
        setattr(owner, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(owner, name, value)


class _Probe(Exception):
    pass


def cupy_environment(arch: str) -> tuple[tuple, str | None]:
    """``(options, extra_source)`` that CuPy adds to every kernel it compiles here: its include
    directories and language standard, and its headers' text (part of its cache key)."""
    from cupy._core import core

    compiler = _compiler()
    seen: dict = {}

    def probe(source, options=(), **kw):
        seen["options"], seen["extra"] = tuple(options), kw.get("extra_source")
        raise _Probe

    with _patched(compiler, _compile_module_with_cache=probe), contextlib.suppress(_Probe):
        core.compile_with_cache("", arch=arch)
    return seen["options"], seen["extra"]


@contextlib.contextmanager
def record(arch: str):
    """Collect, while the block runs, every kernel CuPy compiles or loads and every module
    :mod:`hpgraph.kernel_cache` compiles (misses only: record with an empty hpgraph cache) on
    a GPU of compute capability ``arch`` (``"90"``); yields the list of entries, in first-use
    order, without repeats."""
    from . import kernel_cache

    compiler = _compiler()
    env_options, env_extra = cupy_environment(arch)
    entries: list = []
    seen: set = set()
    lock = threading.Lock()      # hpgraph's modules compile in threads

    def add(entry):
        key = json.dumps(entry, sort_keys=True)
        with lock:
            if key not in seen:
                seen.add(key)
                entries.append(entry)

    orig_cupy, orig_cubin = compiler._compile_module_with_cache, kernel_cache.cubin

    def cupy_compile(source, options=(), **kw):
        extra = kw.get("extra_source")
        add({"kind": "cupy", "source": source,
             "options": [_ENV + str(env_options.index(o)) if o in env_options else o
                         for o in options],
             "extra_source": "env" if extra == env_extra else extra,
             "backend": kw.get("backend", "nvrtc"),
             "cooperative": bool(kw.get("enable_cooperative_groups", False)),
             "name_expressions": (None if kw.get("name_expressions") is None
                                  else sorted(kw["name_expressions"])),
             "jitify": bool(kw.get("jitify", False))})
        return orig_cupy(source, options, **kw)

    def hpgraph_cubin(source, options, arch_name):
        add({"kind": "hpgraph", "source": source, "options": list(options)})
        return orig_cubin(source, options, arch_name)

    with _patched(compiler, _compile_module_with_cache=cupy_compile), \
            _patched(kernel_cache, cubin=hpgraph_cubin):
        yield entries


class _StoreOnly:
    """Stands in for ``cupy.cuda.function``: a module that loads nothing, so CuPy's compile
    path runs without a CUDA context."""

    class Module:
        mapping = None

        def load(self, cubin):
            pass

        def _set_mapping(self, mapping):
            self.mapping = mapping


@contextlib.contextmanager
def _cupy_compiler(arch_options, nvrtc):
    """CuPy's module compiler with its ``-arch`` option fixed (no device query), modules not
    loaded, and ``nvrtc(original, *args)`` in place of its NVRTC call."""
    compiler = _compiler()
    real = compiler._compile_using_nvrtc_no_warning
    with _patched(compiler, function=_StoreOnly,
                  _get_arch_for_options_for_nvrtc=lambda arch=None: tuple(arch_options),
                  _compile_using_nvrtc_no_warning=lambda *a, **kw: nvrtc(real, *a, **kw)):
        yield compiler


def _compile(compiler, entry, arch, env_options, env_extra) -> None:
    """CuPy's module compile of ``entry`` with this installation's environment put back."""
    options = tuple(env_options[int(o[len(_ENV):])] if o.startswith(_ENV) else o
                    for o in entry["options"])
    ne = entry["name_expressions"]
    compiler._compile_module_with_cache(
        entry["source"], options, arch=arch,
        extra_source=env_extra if entry["extra_source"] == "env" else entry["extra_source"],
        backend=entry["backend"], enable_cooperative_groups=entry["cooperative"],
        name_expressions=None if ne is None else tuple(ne), jitify=entry["jitify"])


def build_cubins(entries, arch: str) -> list:
    """NVRTC's cubin of every entry for compute capability ``arch`` (no GPU needed), None
    where it does not compile here or needs more than a cubin (named template instances, a
    separate link); nothing is written to the caches."""
    from . import kernel_cache

    env_options, env_extra = cupy_environment(arch)
    out: list = []
    got: list = []

    def capture(nvrtc, *args, **kw):
        result = nvrtc(*args, **kw)
        got.append(result)
        return result

    saved = os.environ.get("CUPY_CACHE_IN_MEMORY")
    os.environ["CUPY_CACHE_IN_MEMORY"] = "1"     # compile even where the disk cache has it
    try:
        with _patching, _cupy_compiler((f"-arch=sm_{arch}", "cubin"), capture) as compiler:
            for entry in entries:
                got.clear()
                try:
                    if entry["kind"] == "hpgraph":
                        out.append(kernel_cache.cubin(entry["source"], tuple(entry["options"]),
                                                      "sm_" + arch))
                        continue
                    _compile(compiler, entry, arch, env_options, env_extra)
                except Exception:  # left to compile on the user's machine
                    out.append(None)
                    continue
                simple = (len(got) == 1 and got[0][1] is None and "-rdc=true" not in
                          entry["options"] and entry["name_expressions"] is None)
                out.append(got[0][0] if simple else None)
    finally:
        if saved is None:
            os.environ.pop("CUPY_CACHE_IN_MEMORY", None)
        else:
            os.environ["CUPY_CACHE_IN_MEMORY"] = saved
    return out


def _cupy_version() -> str:
    import cupy

    return cupy.__version__


def manifest_path(cupy_version: str | None = None) -> Path:
    """The shipped manifest for ``cupy_version`` (default: the installed CuPy's)."""
    v = cupy_version or _cupy_version()
    return Path(__file__).parent / "data" / f"kernels-cupy{v}.json.gz"


def _env_size(entries) -> int:
    """How many options of CuPy's environment the recorded CuPy entries hold (placeholders)."""
    return max((int(o[len(_ENV):]) + 1 for e in entries if e["kind"] == "cupy"
                for o in e["options"] if o.startswith(_ENV)), default=0)


def write_manifest(entries, cubins: dict, path=None) -> Path:
    """Write ``entries`` (from :func:`record`) and ``cubins`` (``{arch: build_cubins(...)}``) as
    the installed CuPy's manifest (or to ``path``); the same input gives the same bytes."""
    from . import kernel_cache

    path = Path(path) if path is not None else manifest_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"format": MANIFEST_FORMAT, "cupy": _cupy_version(), "nvrtc": kernel_cache._nvrtc()[1],
           "cupy_env_size": _env_size(entries), "entries": list(entries),
           "cubins": {str(a): [None if c is None else base64.b64encode(c).decode()
                               for c in cs] for a, cs in cubins.items()}}
    path.write_bytes(gzip.compress(json.dumps(doc, sort_keys=True).encode(), mtime=0))
    return path


def read_manifest(path: Path):
    """``(bytes, document)`` of the manifest at ``path``, or None where there is none usable
    for the installed CuPy (missing, damaged, another CuPy's or another format's)."""
    try:
        data = Path(path).read_bytes()
        doc = json.loads(gzip.decompress(data))
    except (OSError, ValueError, EOFError):
        return None
    if (not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT
            or doc.get("cupy") != _cupy_version()):
        return None
    return data, doc


def install(doc, arch: str) -> dict:
    """File the manifest's cubins for ``arch`` where CuPy and :mod:`hpgraph.kernel_cache` look
    them up (no GPU needed).  Returns ``{"stored": n, "cached": n, "missing": n, "failed":
    [why, ...]}``; ``missing`` counts entries without a cubin for ``arch`` and CuPy entries
    recorded with another number of CuPy's own options than this installation has (their
    keys would differ): they compile on first use."""
    from . import kernel_cache

    cubins = doc["cubins"].get(str(arch)) or [None] * len(doc["entries"])
    env_options, env_extra = cupy_environment(arch)
    same_env = len(env_options) == doc.get("cupy_env_size")
    counts: dict = {"stored": 0, "cached": 0, "missing": 0, "failed": []}
    current: list = [None]

    def shipped(nvrtc, *args, **kw):
        counts["stored"] += 1
        return current[0], None

    with _patching, _cupy_compiler((f"-arch=sm_{arch}", "cubin"), shipped) as compiler:
        for entry, cubin in zip(doc["entries"], cubins):
            if cubin is None or (entry["kind"] == "cupy" and not same_env):
                counts["missing"] += 1
                continue
            current[0] = base64.b64decode(cubin)
            try:
                if entry["kind"] == "hpgraph":
                    new = kernel_cache.install(entry["source"], tuple(entry["options"]),
                                               "sm_" + arch, current[0])
                    counts["stored" if new else "cached"] += 1
                    continue
                before = counts["stored"]
                _compile(compiler, entry, arch, env_options, env_extra)
                counts["cached"] += counts["stored"] == before
            except Exception as exc:  # that kernel compiles on first use
                counts["failed"].append(f"{type(exc).__name__}: {str(exc)[:200]}")
    return counts


def cupy_cache_dir() -> Path:
    """CuPy's kernel cache directory: its cache's (chosen when CuPy was imported), else
    ``$CUPY_CACHE_DIR``, default ``~/.cupy/kernel_cache``."""
    with contextlib.suppress(Exception):
        return Path(_compiler()._kernel_cache_backend._cache_dir)
    return Path(os.environ.get("CUPY_CACHE_DIR")
                or os.path.join(os.path.expanduser("~"), ".cupy", "kernel_cache"))


#: what a driver says of a cubin it can never run (the marker is then written: the key holds
#: the driver's version); any other failure of the test load (out of memory, say) is retried
_REFUSALS = ("NO_BINARY_FOR_GPU", "INVALID_IMAGE", "UNSUPPORTED", "INVALID_SOURCE")


def _unusable(doc, arch: str) -> str | None:
    """Why the current device cannot run the manifest's cubins, or None: loads one."""
    from cupy.cuda import function

    first = next((c for c in doc["cubins"].get(str(arch), ()) if c is not None), None)
    if first is None:
        return None
    try:
        function.Module().load(base64.b64decode(first))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _set(name) -> bool:
    return os.environ.get(name, "0").strip() not in ("", "0")


#: (manifest, architecture, driver, CuPy's and hpgraph's cache directories) this process
#: has settled: filed, found filed, or nothing to file; the next call for them costs nothing
_done: set = set()


def ensure(manifest=None) -> dict | None:
    """File the shipped cubins for the current GPU in the kernel caches unless this was done
    before: a marker in CuPy's cache directory for this manifest's bytes, CuPy, NVRTC, the
    driver, the architecture, CuPy's options and both cache directories (a hash of the
    manifest file and a ``stat``; nothing the second time in a process).  Returns the
    report (:func:`install`'s counts, ``seconds``, ``error``), or None when there was nothing
    to do: the marker is there, no usable manifest for the installed CuPy, no cubins for this
    architecture, ``hp.config["precompile"]`` is False, CuPy compiles with debug information
    or caches in memory only (``CUPY_CUDA_COMPILE_WITH_DEBUG``, ``CUPY_CACHE_IN_MEMORY``), or
    hpgraph's cache directory is a per-process temporary one.  Needs a GPU (its compute
    capability names the architecture); patches CuPy's compiler module while it files the
    kernels, so call it before other threads compile."""
    from . import kernel_cache
    from ._config import config

    if (not config["precompile"] or _set("CUPY_CUDA_COMPILE_WITH_DEBUG")
            or _set("CUPY_CACHE_IN_MEMORY") or kernel_cache.cache_dir() in
            kernel_cache._fallback_dir):
        return None
    import cupy

    path = Path(manifest) if manifest is not None else manifest_path()
    compiler = _compiler()
    arch = compiler._get_arch()
    d = cupy_cache_dir()
    settled = (str(path), arch, cupy.cuda.runtime.driverGetVersion(), str(d),
               str(kernel_cache.cache_dir()))
    if settled in _done:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        _done.add(settled)
        return None
    arch_options = tuple(compiler._get_arch_for_options_for_nvrtc(arch))
    env_options, _ = cupy_environment(arch)
    key = "\0".join((hashlib.sha256(data).hexdigest(), *map(str, settled), *arch_options,
                     *env_options, "%d.%d" % compiler._get_nvrtc_version(), _cupy_version()))
    marker = d / f"hpgraph-precompiled-{hashlib.sha256(key.encode()).hexdigest()[:24]}"
    found = None if marker.exists() else read_manifest(path)
    if (found is None or not any(found[1]["cubins"].get(str(arch), ()))
            or arch_options != (f"-arch=sm_{arch}", "cubin")):
        _done.add(settled)
        return None
    doc = found[1]
    t0 = time.perf_counter()
    report: dict = {"stored": 0, "cached": 0, "missing": 0, "failed": [],
                    "error": _unusable(doc, arch)}
    if report["error"] is None:
        try:
            report.update(install(doc, arch))
        except Exception as exc:  # a CuPy whose compiler differs from the recording one's
            report["error"] = f"{type(exc).__name__}: {exc}"
    report["seconds"] = time.perf_counter() - t0
    transient = report["error"] is not None and report["error"].startswith(
        "CUDADriverError") and not any(r in report["error"] for r in _REFUSALS)
    if not transient:
        # after a refusal or an incompatible CuPy too: the kernels then compile on first
        # use, as without this, and a later process does not try again
        with contextlib.suppress(OSError):
            d.mkdir(parents=True, exist_ok=True)
            marker.write_text(json.dumps(report))
        _done.add(settled)
    return report
