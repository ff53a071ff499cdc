"""The rest of ``scipy.sparse.csgraph``: SciPy's CPU implementation, with CuPy in -> CuPy out.

These routines have no hpgraph engine implementation yet (depth-first search, spanning trees,
reorderings, flows, matchings, the Laplacian and the dense/masked conversions), or SciPy's
compiled CPU code is the fastest honest choice for them.  Each function has SciPy's exact
signature and results; CuPy arguments (dense arrays or ``cupyx.scipy.sparse`` matrices) are
copied to the host, SciPy runs, and arrays / sparse matrices in the result are copied back to
the device (so CuPy in -> CuPy out, but the work is done on the CPU).

The SciPy functions are looked up in SciPy's private modules (``scipy.sparse.csgraph._tools``
and so on), not through ``scipy.sparse.csgraph``, so that the test plugin
(:mod:`hpgraph.csgraph.testing`) can put hpgraph's functions into ``scipy.sparse.csgraph``
without making these wrappers call themselves.
"""

from __future__ import annotations

import functools

from ..algorithms._scipy_cpu import SCIPY_MODULES, scipy_function

__all__ = ["wrap", "SCIPY_MODULES", "scipy_function"]


def _is_cupy(x) -> bool:
    return type(x).__module__.split(".", 1)[0] in ("cupy", "cupyx")


def _to_host(x):
    if not _is_cupy(x):
        return x
    mod = type(x).__module__
    if mod.startswith("cupyx.scipy.sparse"):
        return x.get()
    return x.get()


def _to_device(x):
    import numpy as np
    import scipy.sparse as sp

    if isinstance(x, tuple):
        return tuple(_to_device(v) for v in x)
    if isinstance(x, np.ma.MaskedArray):
        return x  # CuPy has no masked arrays: stays on the host
    if isinstance(x, np.ndarray):
        import cupy

        return cupy.asarray(x)
    if sp.issparse(x):
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(x.tocsr())
    if hasattr(x, "flow") and hasattr(x, "flow_value"):  # MaximumFlowResult
        try:
            x.flow = _to_device(x.flow)
        except AttributeError:  # pragma: no cover - a read-only result class
            pass
        return x
    return x


def wrap(name):
    """``name`` with SciPy's signature, running SciPy; CuPy inputs give CuPy outputs."""
    f = scipy_function(name)

    @functools.wraps(f)
    def run(*args, **kwargs):
        on_device = any(map(_is_cupy, args)) or any(map(_is_cupy, kwargs.values()))
        if not on_device:
            return f(*args, **kwargs)
        out = f(*map(_to_host, args), **{k: _to_host(v) for k, v in kwargs.items()})
        return _to_device(out)

    run.__module__ = "hpgraph.csgraph"
    run.__doc__ = (f"SciPy's ``scipy.sparse.csgraph.{name}`` (CPU); CuPy input is copied to "
                   f"the host and the result back to the device.\n\n" + (f.__doc__ or ""))
    return run
