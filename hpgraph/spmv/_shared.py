"""What the SpMV modules share: the accepted ``format=`` names, the per-matrix objects the GPU
path derives once and caches (format conversions, relabelings, workspaces), the dummy pointer
argument and the grid-size rule of the launches."""

from __future__ import annotations

import threading

from .. import backend

#: Accepted values of ``format=`` (the kernel layout on the GPU, see :mod:`hpgraph.spmv.gpu`;
#: the CPU always runs CSR).  ``"csr_vector:<G>"`` forces the vector kernel's group size G.
FORMATS = ("auto", "hyb", "ell", "coo", "csr", "csc", "csr_vector", "csr_scalar", "csr_lb", "csr_mp")
#: Formats that take the ``"+relabel"`` suffix (``"csr_mp+relabel"``, ``"csr_lb:4+relabel"``): the GPU
#: runs the kernel with the columns renumbered by descending count, for cache locality of ``x``
#: (:mod:`hpgraph.spmv.gpu`, "Column relabeling"; results are the same).
RELABEL_BASES = ("csr", "csc", "csr_lb", "csr_mp", "csr_vector", "csr_scalar")

BLOCK = 256

_lock = threading.RLock()
_DUMMY: dict = {}             # device id -> 1-word array used for unused pointer arguments


def _derived(A) -> dict:
    """What ``A`` keeps derived (:meth:`~hpgraph.formats.SparseMatrix.derived_items`)."""
    return A.derived_items()


def _cached(A, key, factory):
    """``factory()`` kept in ``A``'s own cache (:meth:`~hpgraph.formats.SparseMatrix.derived`)."""
    return A.derived(key, factory)


def _as_csr(A):
    if A.format == "csr":
        return A
    return _cached(A, "csr", lambda: A.asformat("csr"))


def _dummy():
    cp = backend.cupy()
    dev = cp.cuda.runtime.getDevice()
    d = _DUMMY.get(dev)
    if d is None:
        d = _DUMMY[dev] = cp.zeros(2, dtype=cp.uint64)
    return d


def _grid(nthreads: int, block: int = BLOCK, cap: int | None = None) -> int:
    g = max(1, -(-int(nthreads) // block))
    if cap is not None:
        g = min(g, cap)
    return g
