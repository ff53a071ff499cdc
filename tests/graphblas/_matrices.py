"""Matrices and device-test helpers shared by the graphblas row-wise and select tests:
awkward matrices (empty rows first, inside and last; long rows; more rows than a chunk's
row-pointer slots), index and pattern variants, and ptxas builds of
generated sources (NVRTC to an sm_90 cubin: static shared memory and registers checked)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from hpgraph import graphblas as hgb


def _scipy(M):
    r, c, v = M.to_host().to_coo()
    return sp.csr_array((v, (r, c)), shape=M.shape)


def _mat(rng, nrows, ncols, density, empty_rows=()):
    S = sp.random(nrows, ncols, density=density, random_state=rng, format="csr",
                  data_rvs=lambda k: rng.integers(-5, 6, k).astype(np.float64))
    S = S.tolil()
    for r in empty_rows:
        S[r, :] = 0
    S = S.tocsr()
    S.eliminate_zeros()
    S = S.tocoo()
    return hgb.Matrix.from_coo(S.row, S.col, S.data, nrows=nrows, ncols=ncols)


def _int64_indexed(M):
    """The same matrix with int64 row pointers and column ids (as a shared int64 CSR gives)."""
    from hpgraph.formats import CSR

    c = M.csr
    return hgb.Matrix._new(CSR._new(c.indptr.astype(np.int64), c.indices.astype(np.int64),
                                    c.values, tuple(M.shape)), M.dtype)


def _pattern(M):
    from hpgraph.formats import CSR

    c = M.csr
    return hgb.Matrix._new(CSR._new(c.indptr, c.indices, None, tuple(M.shape)), np.dtype(np.bool_))


def _long_rows_matrix(rng, variant):
    """Rows of 0 to 1,100 entries, empty rows first, inside and last, with diagonal entries,
    in one of the variants."""
    lens = np.array([0, 0, 3, 600, 1, 0, 1100, 7, 40, 2, 0, 0])
    ncols = 1500
    rows = np.repeat(np.arange(lens.size), lens)
    cols = np.concatenate([np.sort(rng.choice(ncols, k, replace=False)) for k in lens])
    cols[np.flatnonzero(rows == 7)[:1]] = 7                          # a diagonal entry
    cols = np.concatenate([np.sort(cols[rows == r]) for r in range(lens.size)])
    vals = rng.integers(-3, 4, rows.size).astype(np.float64)
    if variant == "int32 values":
        vals = vals.astype(np.int32)
    elif variant == "bool values":
        vals = vals > 0
    A = hgb.Matrix.from_coo(rows, cols, vals, nrows=lens.size, ncols=ncols)
    if variant == "int64":
        A = _int64_indexed(A)
    elif variant == "pattern":
        A = _pattern(A)
    return A


def _runs_matrix(rng):
    """6,000 rows with entries in rows 0-3, 2,900-2,905 and 5,990 only: runs of ~2,900 empty
    rows, more than a 64-entry chunk's walk loops over (the chunk writes its non-empty rows'
    pointers and the tail kernel fills the runs)."""
    rows = np.repeat(np.concatenate([np.arange(4), np.arange(2900, 2906), [5990]]),
                     rng.integers(1, 30, 11))
    cols = np.concatenate([np.sort(rng.choice(50, k, replace=False))
                           for k in np.unique(rows, return_counts=True)[1]])
    vals = rng.integers(-3, 4, rows.size).astype(np.float64)
    return hgb.Matrix.from_coo(rows, cols, vals, nrows=6000, ncols=50)


def _sparse_rows_matrix(rng):
    """900 rows of which 14 hold entries (up to 40), so a chunk's rows outnumber its entries
    and the kernels read the row pointers from global memory, not from shared memory."""
    full = np.sort(rng.choice(900, 14, replace=False))
    lens = rng.integers(1, 41, full.size)
    rows = np.repeat(full, lens)
    cols = np.concatenate([np.sort(rng.choice(900, k, replace=False)) for k in lens])
    vals = rng.integers(-3, 4, rows.size).astype(np.float64)
    return hgb.Matrix.from_coo(rows, cols, vals, nrows=900, ncols=900)


_BUILT: dict = {}     # sources already built by ptxas in this process


def _also_ptxas(monkeypatch):
    """Every source the host renders (at the module's real chunk size) also goes through
    ptxas for sm_90 before it runs emulated: its static shared memory fits 48 KiB."""
    from hpgraph.graphblas import _kern

    emulated = _kern._kernel

    def built(src, name):
        if src not in _BUILT:
            _BUILT[src] = len(_cubin_or_skip(src))
        return emulated(src, name)

    monkeypatch.setattr(_kern, "_kernel", built)


def _cubin_or_skip(src):
    """The sm_90 cubin of ``src``: NVRTC and ptxas, so the static shared memory limit
    (48 KiB) and register use are checked, not only the C++."""
    from hpgraph import kernel_cache
    from hpgraph.exceptions import DeviceUnavailable

    try:
        return kernel_cache.cubin(src, ("-std=c++17",), "sm_90")
    except DeviceUnavailable as exc:
        pytest.skip(str(exc))
