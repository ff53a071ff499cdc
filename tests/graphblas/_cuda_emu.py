"""Run hpgraph's generated graphblas CUDA kernels on the host (no GPU): the kernel source is
compiled with g++ against ``_cuda_emu.h`` (CUDA keywords, ``threadIdx`` / ``blockIdx``,
``__syncthreads``, atomics, warp intrinsics; a source without ``__syncthreads`` or warp
intrinsics runs its threads one after another) and launched through a generated C wrapper
that takes the arguments as ``cuLaunchKernel`` does (an array of pointers to each argument).

:func:`emulate` replaces :func:`hpgraph.graphblas._kern._kernel` (the one place where the
graphblas device code gets a compiled kernel), so the device path's host code runs with
NumPy arrays in place of CuPy ones.  Grids are capped at :data:`MAX_BLOCKS` blocks: every
kernel tested here is a grid-stride loop, so fewer blocks cover the same work.
"""

from __future__ import annotations

import ctypes
import hashlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HEADER = Path(__file__).with_name("_cuda_emu.h")
MAX_BLOCKS = 3
_CACHE: dict = {}
_DIR = Path(tempfile.mkdtemp(prefix="hp_cuda_emu_"))
#: g++ flags of every emulated kernel; a precompiled header must be built with the same ones
_FLAGS = ["-std=c++20", "-O0", "-fPIC", "-pthread", "-w"]
_PCH: list = []

_SIG = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
                  r'(\w+)\s*\((.*?)\)\s*\{', re.S)


def available() -> bool:
    return shutil.which("g++") is not None


def _params(text):
    out = []
    for p in text.split(","):
        p = " ".join(p.replace("__restrict__", " ").split())
        m = re.match(r"(.*?)(\w+)$", p)
        out.append(m.group(1).strip())
    return out


def _header() -> Path:
    """The emulation header, precompiled once per process: parsing its standard headers is
    ~85% of compiling one kernel source (0.6 of 0.7 s), the compiled header cuts that to
    ~0.1 s.  g++ takes ``X.h.gch`` beside ``X.h`` when the flags match and falls back to the
    header's text otherwise, so a failed precompile only costs time."""
    if not _PCH:
        copy = _DIR / HEADER.name
        shutil.copyfile(HEADER, copy)
        subprocess.run(["g++", *_FLAGS, "-x", "c++-header", "-o", f"{copy}.gch", str(copy)],
                       capture_output=True)
        _PCH.append(copy)
    return _PCH[0]


def _library(src: str):
    key = hashlib.sha1(src.encode()).hexdigest()[:16]
    lib = _CACHE.get(key)
    if lib is not None:
        return lib
    wrappers = []
    threads = "__syncthreads" in src or "_sync(" in src or "__syncwarp" in src
    run = "hp_emu_run" if threads else "hp_emu_run_seq"
    for name, params in _SIG.findall(src):
        types = _params(params)
        call = ", ".join(f"*({t}*)args[{k}]" for k, t in enumerate(types))
        wrappers.append(f'extern "C" void hp_emu_{name}(unsigned g, unsigned b, void** args) '
                        f'{{ {run}(g, b, [&]() {{ {name}({call}); }}); }}')
    code = f'#include "{_header()}"\n{src}\n' + "\n".join(wrappers) + "\n"
    cpp = _DIR / f"{key}.cpp"
    so = _DIR / f"{key}.so"
    cpp.write_text(code)
    r = subprocess.run(["g++", *_FLAGS, "-shared", "-o", str(so), str(cpp)],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"g++ failed on the emulated kernel source:\n{r.stderr[:4000]}")
    lib = _CACHE[key] = ctypes.CDLL(str(so))
    return lib


_SCALARS = {np.dtype(np.int64): ctypes.c_int64, np.dtype(np.uint64): ctypes.c_uint64,
            np.dtype(np.int32): ctypes.c_int32, np.dtype(np.uint32): ctypes.c_uint32,
            np.dtype(np.float64): ctypes.c_double, np.dtype(np.float32): ctypes.c_float}


class _Kernel:
    def __init__(self, lib, name, max_blocks=MAX_BLOCKS):
        self.fn = getattr(lib, f"hp_emu_{name}")
        self.fn.argtypes = [ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p)]
        self.name = name
        self.max_blocks = max_blocks

    def __call__(self, grid, block, args, shared_mem=0):
        keep = []
        ptrs = (ctypes.c_void_p * len(args))()
        for k, a in enumerate(args):
            if isinstance(a, np.ndarray):
                assert a.flags.c_contiguous, f"{self.name}: argument {k} is not contiguous"
                cell = ctypes.c_void_p(a.ctypes.data if a.size else 0)
            else:
                a = np.asarray(a)
                cell = _SCALARS[a.dtype](a.item())
            keep.append(cell)
            ptrs[k] = ctypes.cast(ctypes.pointer(cell), ctypes.c_void_p)
        g = int(grid[0]) if self.max_blocks is None else min(int(grid[0]), self.max_blocks)
        self.fn(g, int(block[0]), ptrs)


def kernel(src: str, name: str, max_blocks=MAX_BLOCKS):
    """The emulated kernel ``name`` of ``src`` (grids capped at ``max_blocks``; None: the whole
    grid, for kernels that are not grid-stride loops)."""
    return _Kernel(_library(src), name, max_blocks)


class Module:
    """A stand-in for the ``cupy.RawModule`` of ``src``: its kernels emulated, whole grids."""

    def __init__(self, src):
        self.src = src

    def get_function(self, name):
        return kernel(self.src, name, max_blocks=None)


def emulate(monkeypatch):
    """Route the graphblas device code's kernels through the emulator for one test."""
    from hpgraph.graphblas import _kern

    monkeypatch.setattr(_kern, "_kernel", kernel)


# ------------------------------------------------------------------------------------------
# CuPy stand-in for the device drivers of hpgraph.algorithms (label propagation, k-core):
# NumPy arrays with the few CuPy methods they call, streams that do nothing (an emulated kernel
# has finished when its launch returns).


class _Ptr:
    def __init__(self, a):
        self.ptr = a.__array_interface__["data"][0]


class DevArray(np.ndarray):
    """A NumPy array with ``.get``, ``.set`` and ``.data.ptr``; an element is a 0-d array."""

    @property
    def data(self):
        return _Ptr(self)

    def get(self, stream=None):
        return np.array(self)

    def set(self, a, stream=None):
        self[...] = a

    def __getitem__(self, key):
        r = super().__getitem__(key)
        return r if isinstance(r, np.ndarray) else np.asarray(r).view(DevArray)


class _Stream:
    def __init__(self, non_blocking=False):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def record(self):
        return None

    def wait_event(self, event):
        pass


class FakeCupy:
    """NumPy in CuPy's place: arrays are :class:`DevArray`; ``empty`` is filled with garbage."""

    int64, uint64 = np.int64, np.uint64

    class cuda:
        Stream = _Stream

        @staticmethod
        def get_current_stream():
            return _Stream()

    @staticmethod
    def _dev(a):
        return np.ascontiguousarray(a).view(DevArray)

    def asarray(self, a, dtype=None):
        return self._dev(np.array(a, dtype=dtype))

    def empty(self, n, dtype):
        return self._dev(np.full(n, 0x5A, dtype=dtype))

    def zeros(self, n, dtype):
        return self._dev(np.zeros(n, dtype=dtype))

    def full(self, n, value, dtype):
        return self._dev(np.full(n, value, dtype=dtype))

    def arange(self, n, dtype=None):
        return self._dev(np.arange(n, dtype=dtype))

    def flatnonzero(self, a):
        return self._dev(np.flatnonzero(a))


def emulate_device_driver(monkeypatch, num_sms=1):
    """Route a device driver's ``backend.cupy`` / ``raw_module`` through the stand-in and the
    emulator (whole grids), with ``num_sms`` SMs and no CUDA-graph capture."""
    from hpgraph import backend

    fake = FakeCupy()
    monkeypatch.setattr(backend, "cupy", lambda: fake)
    monkeypatch.setattr(backend, "raw_module", lambda src, options=(): Module(src))
    monkeypatch.setattr(backend, "num_sms", lambda: num_sms)
    monkeypatch.setattr(backend, "capture_graph", lambda stream, body: None)
    return fake
