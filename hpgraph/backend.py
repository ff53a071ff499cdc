"""The one place that picks NumPy or CuPy.

No other hpgraph module imports cupy at top level: they call :func:`cupy` (or
:func:`get_array_module`) here.  ``backend=`` arguments everywhere accept ``"auto"``,
``"cpu"``, ``"gpu"`` or ``None`` (= ``"auto"``); :func:`resolve` turns them into ``"cpu"``
or ``"gpu"``.  ``"auto"`` means the GPU when CuPy imports and a device is visible, else
the CPU; ``"auto"`` with device arrays as input means the GPU.

The environment variable ``HPGRAPH_BACKEND`` (``cpu``/``gpu``/``auto``) sets the default.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from .exceptions import CompileError, DeviceOutOfMemory, DeviceUnavailable, InvalidValue

_VALID = ("auto", "cpu", "gpu")


@functools.lru_cache(maxsize=1)
def _probe():
    """Return (cupy module or None, reason-why-not or None). Cached: probing costs ~100 ms."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising anything
        return None, f"cupy is not installed or failed to import ({type(exc).__name__}: {exc}); " \
                     "install hpgraph[cuda12] or hpgraph[cuda13]"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        msg = str(exc)
        if "driver" in msg.lower() and "insufficient" in msg.lower():
            why = f"no CUDA driver is installed, or it is too old for this CuPy build ({msg})"
        else:
            why = f"no CUDA device is usable ({type(exc).__name__}: {msg})"
        return None, why
    if n == 0:
        return None, "no CUDA device is visible (cudaGetDeviceCount returned 0)"
    return cupy, None


def has_gpu() -> bool:
    """True when CuPy imports and at least one CUDA device is usable."""
    return _probe()[0] is not None


def gpu_unavailable_reason() -> str | None:
    """Why the GPU backend cannot be used, or None when it can."""
    return _probe()[1]


def cupy():
    """Return the cupy module, or raise :class:`DeviceUnavailable` saying why it is unusable."""
    mod, why = _probe()
    if mod is None:
        raise DeviceUnavailable(f"backend='gpu' was requested but {why}")
    return mod


def is_device_array(a) -> bool:
    """True for CuPy arrays (and anything exposing ``__cuda_array_interface__``)."""
    return hasattr(a, "__cuda_array_interface__")


def resolve(backend=None, *arrays) -> str:
    """Turn a ``backend=`` argument into ``"cpu"`` or ``"gpu"``.

    Parameters
    ----------
    backend : {"auto", "cpu", "gpu", None}
        ``None`` reads ``HPGRAPH_BACKEND`` (default ``"auto"``).
    *arrays
        Inputs; with ``"auto"``, device arrays among them force ``"gpu"``.
    """
    if backend is None:
        backend = os.environ.get("HPGRAPH_BACKEND", "auto")
    if not isinstance(backend, str) or backend.lower() not in _VALID:
        raise InvalidValue(f"backend must be one of {_VALID}, got {backend!r}")
    backend = backend.lower()
    if backend == "cpu":
        return "cpu"
    if backend == "gpu":
        cupy()  # raises with the reason when unusable
        return "gpu"
    if any(is_device_array(a) for a in arrays if a is not None):
        return "gpu"
    return "gpu" if has_gpu() else "cpu"


def xp_for(backend: str):
    """numpy for ``"cpu"``, cupy for ``"gpu"``."""
    return cupy() if resolve(backend) == "gpu" else np


def get_array_module(*arrays):
    """cupy if any argument is a device array, else numpy (like ``cupy.get_array_module``)."""
    for a in arrays:
        if a is not None and is_device_array(a):
            return cupy()
    return np


def to_device(a, dtype=None):
    """Copy a host array to the device (no copy if it is already there)."""
    cp = cupy()
    return cp.asarray(a, dtype=dtype)


def to_host(a):
    """Copy a device array to the host; host arrays and scalars pass through unchanged."""
    if a is None:
        return None
    if is_device_array(a):
        return cupy().asnumpy(a)
    return a


def asarray(a, backend: str, dtype=None):
    """``a`` as an array on the side of ``backend`` (``"cpu"`` or ``"gpu"``)."""
    if resolve(backend) == "gpu":
        return to_device(a, dtype=dtype)
    a = to_host(a)
    return np.asarray(a, dtype=dtype)


_SM_COUNT: dict = {}


def num_sms() -> int:
    """Streaming multiprocessors of the current device (cached per device); grids are sized
    from it."""
    cp = cupy()
    dev = cp.cuda.runtime.getDevice()
    n = _SM_COUNT.get(dev)
    if n is None:
        n = _SM_COUNT[dev] = int(cp.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"])
    return n


def occupancy(kernel, block: int, shared_mem: int = 0) -> int:
    """Blocks of ``block`` threads of a compiled ``cupy.RawKernel`` that fit on one SM at once."""
    from cupy_backends.cuda.api import driver

    return int(driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block,
                                                                 shared_mem))


def capture_graph(stream, launch):
    """A CUDA graph of the work ``launch()`` queues on ``stream`` (captured, then uploaded), or
    None where capture is not supported (the caller keeps launching directly)."""
    try:
        stream.begin_capture()
        try:
            launch()
        finally:
            g = stream.end_capture()
        g.upload(stream)
    except Exception:  # noqa: BLE001 -- capture unsupported here: plain launches keep working
        return None
    return g


def synchronize() -> None:
    """Wait for the current device's work to finish (no-op without a GPU)."""
    if has_gpu():
        cupy().cuda.get_current_stream().synchronize()


# ---------------------------------------------------------------------------------------
# Compilation.  CuPy's RawModule needs a device; NVRTC alone compiles to PTX without one,
# which is how CI checks every generated kernel.


def compile_ptx(source: str, name: str = "hpgraph.cu", options=(), arch: str = "compute_90") -> str:
    """Compile CUDA C source to PTX with NVRTC, without needing a GPU.

    Raises
    ------
    CompileError
        With the source and NVRTC's log attached.
    DeviceUnavailable
        If NVRTC itself cannot be loaded (install ``nvidia-cuda-nvrtc-cu12``).
    """
    try:
        from cupy_backends.cuda.libs import nvrtc
    except Exception as exc:
        raise DeviceUnavailable(f"NVRTC is not available ({exc}); install cupy-cuda12x and "
                                "nvidia-cuda-nvrtc-cu12") from None
    opts = [f"--gpu-architecture={arch}", "-std=c++17", *options]
    try:
        prog = nvrtc.createProgram(source, name, [], [])
    except Exception as exc:
        raise DeviceUnavailable(f"NVRTC could not be loaded ({exc}); install nvidia-cuda-nvrtc-cu12") from None
    try:
        nvrtc.compileProgram(prog, opts)
    except nvrtc.NVRTCError:
        log = nvrtc.getProgramLog(prog)
        nvrtc.destroyProgram(prog)
        raise CompileError(f"NVRTC failed to compile {name}", source=source, log=log, name=name) from None
    ptx = nvrtc.getPTX(prog)
    nvrtc.destroyProgram(prog)
    return ptx.decode() if isinstance(ptx, bytes) else ptx


@functools.lru_cache(maxsize=None)
def raw_module(source: str, options: tuple = ("-std=c++17",), name_expressions: tuple | None = None,
               cooperative: bool = False):
    """A cached ``cupy.RawModule`` for ``source``; compile failures become :class:`CompileError`.

    CuPy keeps its own on-disk cache, so a new process does not recompile an identical source.
    With ``hp.config["dump_source"]`` set to a directory, the source is also saved there
    (:func:`hpgraph.cuda_source.save`).
    ``cooperative``: its kernels are launched with ``cuLaunchCooperativeKernel`` (every block
    resident at once, or the launch fails), which grid-wide barriers need.
    """
    cp = cupy()
    from ._config import config

    if config["dump_source"] is not None:
        from .cuda_source import save

        save(source, config["dump_source"])
    try:
        mod = cp.RawModule(code=source, options=options,
                           name_expressions=list(name_expressions) if name_expressions else None,
                           enable_cooperative_groups=cooperative)
        mod.compile()
    except cp.cuda.compiler.CompileException as exc:
        raise CompileError("NVRTC failed to compile a generated hpgraph kernel", source=source,
                           log=str(exc)) from None
    return mod


def raw_modules(source: str, option_sets, defer=(), cooperative=()) -> list:
    """One compiled module of ``source`` per tuple of ``option_sets`` (the engine's program
    units), through hpgraph's on-disk cubin cache (:mod:`hpgraph.kernel_cache`): a known
    source loads without NVRTC; new ones compile in parallel threads, those whose options are
    in ``defer`` in the background (a :class:`hpgraph.kernel_cache.Deferred` in the list);
    those in ``cooperative`` launch their kernels with ``cuLaunchCooperativeKernel``."""
    from .kernel_cache import modules

    return modules(cupy(), source, option_sets, defer, cooperative)


def device_free_bytes() -> int:
    """Bytes a new device allocation can use: free device memory plus the CuPy memory pool's
    cached (unused) blocks, which the pool hands out before asking the driver."""
    cp = cupy()
    free, _ = cp.cuda.runtime.memGetInfo()
    return int(free) + int(cp.get_default_memory_pool().free_bytes())


def out_of_memory_guard(what: str):
    """Context manager turning CuPy's OutOfMemoryError into :class:`DeviceOutOfMemory`."""
    return _OOMGuard(what)


class _OOMGuard:
    def __init__(self, what):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None or not has_gpu():
            return False
        cp = cupy()
        if issubclass(exc_type, cp.cuda.memory.OutOfMemoryError):
            free, total = cp.cuda.runtime.memGetInfo()
            raise DeviceOutOfMemory(
                f"GPU out of memory while {self.what} ({exc}); device has {free / 2**30:.2f} GiB free "
                f"of {total / 2**30:.2f} GiB. Free cached blocks with "
                "cupy.get_default_memory_pool().free_all_blocks(), use a smaller graph, or backend='cpu'."
            ) from None
        return False
