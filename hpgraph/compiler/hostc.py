"""Run generated CUDA C *expressions* on the host with g++ (a testing aid, no GPU needed).

NVRTC proves that generated code compiles; this module proves what it computes.  It wraps
each C expression in an elementwise host loop, compiles the lot with the system C++ compiler
(``__device__`` and the CUDA intrinsics hpgraph emits are shimmed) and calls it through
ctypes on NumPy arrays, so tests can compare the C semantics with the NumPy path bit for bit.

Floating-point contraction is disabled (``-ffp-contract=off``), as hpgraph kernels must be
compiled with ``--fmad=false`` when results are to match NumPy exactly.

Example
-------
>>> from hpgraph.compiler import hostc
>>> f, = hostc.build("", [("int32", ["int32", "int32"], lambda a, b: f"({a} + {b})")])  # doctest: +SKIP
>>> f(np.arange(3), np.ones(3))                                                        # doctest: +SKIP
array([1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

from .. import dtypes as _dt

SHIM = r"""
#include <cmath>
#include <cstring>
#include <cstdint>
#define __device__
#define __host__
#define __forceinline__ inline
static inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline float __int_as_float(unsigned int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline double __longlong_as_double(long long x) { double f; std::memcpy(&f, &x, 8); return f; }
static inline double __longlong_as_double(unsigned long long x) { double f; std::memcpy(&f, &x, 8); return f; }
using std::isnan; using std::isinf; using std::isfinite;
"""


def compiler() -> str | None:
    """Path of the host C++ compiler (``$CXX``, g++ or clang++), or None."""
    for c in (os.environ.get("CXX"), "g++", "clang++", "c++"):
        if c and shutil.which(c):
            return shutil.which(c)
    return None


_LIBS: dict = {}


def _ctype(dt):
    dt = _dt.lookup_dtype(dt)
    return "bool" if dt.kind == "b" else _dt.c_type(dt)


def build(preamble: str, exprs, *, opt: str = "-O1", extra=()):
    """Compile elementwise host functions; return one Python callable per expression.

    Parameters
    ----------
    preamble : str
        C definitions the expressions need (``c_preamble`` of ops / compiled functions).
    exprs : list of (result dtype, [argument dtypes], builder)
        ``builder(*arg_c_names)`` returns the C expression over the argument names.
    opt : str
        Optimisation flag.

    Returns
    -------
    list of callables ``f(*arrays) -> numpy.ndarray`` (arrays are cast to the argument
    dtypes and broadcast).
    """
    cxx = compiler()
    if cxx is None:
        raise RuntimeError("no host C++ compiler (g++/clang++) found")
    parts = [SHIM, preamble]
    sigs = []
    for k, (rdt, adts, builder) in enumerate(exprs):
        rdt = _dt.lookup_dtype(rdt)
        adts = [_dt.lookup_dtype(a) for a in adts]
        names = [f"a{m}[e]" for m in range(len(adts))]
        params = "".join(f", const {_ctype(a)}* a{m}" for m, a in enumerate(adts))
        parts.append(f'extern "C" void hp_host_{k}(long long n{params}, {_ctype(rdt)}* out) {{\n'
                     f"    for (long long e = 0; e < n; ++e) out[e] = ({_ctype(rdt)})({builder(*names)});\n}}\n")
        sigs.append((rdt, adts))
    src = "\n".join(parts)
    flags = [opt, "-ffp-contract=off", "-fno-fast-math", *extra]
    key = hashlib.sha256((src + " ".join(flags) + cxx).encode()).hexdigest()[:20]
    lib = _LIBS.get(key)
    if lib is None:
        d = tempfile.mkdtemp(prefix="hpgraph_hostc_")
        cpp = os.path.join(d, "k.cpp")
        so = os.path.join(d, "k.so")
        with open(cpp, "w") as fh:
            fh.write(src)
        res = subprocess.run([cxx, "-std=c++17", "-shared", "-fPIC", *flags, cpp, "-o", so],
                             capture_output=True, text=True)
        if res.returncode != 0:
            numbered = "\n".join(f"{i + 1:5d} {ln}" for i, ln in enumerate(src.splitlines()))
            raise RuntimeError(f"host compile failed:\n{res.stderr[:4000]}\n{numbered[:20000]}")
        lib = ctypes.CDLL(so)
        _LIBS[key] = lib
    out = []
    for k, (rdt, adts) in enumerate(sigs):
        out.append(_make_caller(getattr(lib, f"hp_host_{k}"), rdt, adts))
    return out


def _make_caller(fn, rdt, adts):
    def call(*arrays):
        if len(arrays) != len(adts):
            raise TypeError(f"expected {len(adts)} arrays")
        arrs = np.broadcast_arrays(*[np.asarray(a) for a in arrays]) if arrays else []
        shape = arrs[0].shape if arrays else ()
        conv = []
        for a, dt in zip(arrs, adts):
            with np.errstate(all="ignore"):
                conv.append(np.ascontiguousarray(a.astype(dt) if dt.kind != "b" else a != 0))
        n = int(np.prod(shape)) if shape else 1
        res = np.empty(n, rdt)
        args = [ctypes.c_longlong(n)] + [c.ctypes.data_as(ctypes.c_void_p) for c in conv] + \
            [res.ctypes.data_as(ctypes.c_void_p)]
        fn(*args)
        return res.reshape(shape)
    return call
