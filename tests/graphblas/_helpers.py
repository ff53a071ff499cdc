"""Random inputs and the python-graphblas (SuiteSparse) oracle for the graphblas tests.

Values are small integers or dyadic floats (every sum exact), with explicit zeros (so value
and structural masks differ), all-empty rows and columns, unsorted duplicate-free input, and
shapes from 0-by-0 to 17-by-11.  Each check calls :func:`compare`, which counts the
combination in ``COUNT`` (the conftest prints the total) and returns a mismatch string or None.
"""

from __future__ import annotations

import warnings

import numpy as np

import hpgraph as hp
from hpgraph import graphblas as hgb

gb = __import__("pytest").importorskip("graphblas")
warnings.filterwarnings("ignore", category=DeprecationWarning, module="graphblas")

COUNT = {"combinations": 0}


def _seed(*parts) -> int:
    """A seed from the test's parameters, the same in every process (``hash`` of a str is not)."""
    import zlib

    return zlib.crc32(repr(parts).encode())

DTYPES = ("bool", "int32", "int64", "float32", "float64")
SHAPES = ((0, 0), (0, 4), (4, 0), (1, 7), (6, 6), (17, 11))
MASKS = ("none", "V", "S", "~V", "~S")
SEMIRINGS = ("plus_times", "min_plus", "max_min", "any_pair", "lor_land", "plus_pair", "user")


def user_mul(x, y):
    """The user-defined multiply of the ``"user"`` semiring."""
    return x * 2 + y


_USER = {}


_BOOLMAP = {"plus": "lor", "times": "land", "min": "land", "max": "lor"}


def bool_name(name):
    """The SuiteSparse spelling of a built-in op on bool (hpgraph: plus = lor, min = land...;
    ``pair`` on bool stays bool in hpgraph, python-graphblas types it int64, so the
    reference for ``<add>_pair`` on bool is ``lor_pair``)."""
    if name.endswith("_pair"):
        return "lor_pair"
    return "_".join(_BOOLMAP.get(p, p) for p in name.split("_"))


def semirings(name, dtype=None):
    """(hpgraph semiring, python-graphblas semiring) for a name ("user": plus over user_mul)."""
    if name != "user":
        gname = bool_name(name) if dtype == "bool" else name
        return name, getattr(gb.semiring, gname)
    if not _USER:
        from graphblas.core import operator as gb_operator  # a lazy submodule: import it

        _USER["hp"] = hp.Semiring(add="plus", multiply=hp.BinaryOp(user_mul))
        _USER["gb"] = gb_operator.Semiring.register_anonymous(
            gb.monoid.plus, gb.binary.register_anonymous(user_mul))
    return _USER["hp"], _USER["gb"]


def rand_values(rng, n, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.6
    if dt.kind in "iu":
        return rng.integers(-3, 6, n).astype(dt)
    return (rng.integers(-8, 16, n) / 4.0).astype(dt)


def rand_matrix(rng, nrows, ncols, dtype="float64", density=0.3, empty_frac=0.3):
    """A host Matrix with empty rows / columns, explicit zeros, unsorted input."""
    live_r = np.flatnonzero(rng.random(nrows) >= empty_frac)
    live_c = np.flatnonzero(rng.random(ncols) >= empty_frac / 2)
    if len(live_r) == 0 or len(live_c) == 0:
        return hgb.Matrix.from_coo(np.zeros(0, int), np.zeros(0, int), np.zeros(0, dtype),
                                   nrows=nrows, ncols=ncols)
    nnz = int(density * nrows * ncols) + 1
    keys = np.unique(rng.choice(live_r, nnz) * ncols + rng.choice(live_c, nnz))
    rng.shuffle(keys)
    return hgb.Matrix.from_coo(keys // ncols, keys % ncols, rand_values(rng, len(keys), dtype),
                               nrows=nrows, ncols=ncols)


def rand_vector(rng, size, dtype="float64", density=0.5):
    idx = np.flatnonzero(rng.random(size) < density)
    rng.shuffle(idx)
    return hgb.Vector.from_coo(idx, rand_values(rng, len(idx), dtype), size=size)


def hp_mask(spec, M):
    if spec == "none":
        return None
    m = M.S if "S" in spec else M.V
    return ~m if spec.startswith("~") else m


def gb_mask(spec, GM):
    if spec == "none":
        return None
    m = GM.S if "S" in spec else GM.V
    return ~m if spec.startswith("~") else m


def dev(x, backend):
    """The object on the backend under test (None passes through)."""
    if x is None or backend == "cpu":
        return x
    return x.to_device()


def gb_run(expr, *, out=None, mask=None, accum=None, replace=False):
    """``out(mask, accum, replace) << expr`` in python-graphblas (new object without out)."""
    gacc = getattr(gb.binary, accum) if isinstance(accum, str) else accum
    if out is None:
        if isinstance(expr, (gb.Matrix, gb.Vector)):
            return expr.dup(mask=mask)
        return expr.new(mask=mask)
    C = out.to_graphblas().dup() if not isinstance(out, (gb.Matrix, gb.Vector)) else out.dup()
    C(mask=mask, accum=gacc, replace=replace and mask is not None) << expr
    return C


def compare(got, ref, what, any_values=False, cast_ref=False):
    """None when ``got`` (hpgraph) equals ``ref`` (python-graphblas): dtype, pattern, values.

    ``cast_ref``: compare with the reference cast to ``got``'s dtype (python-graphblas types
    ``<add>_pair`` int64 whatever the input; hpgraph keeps the input dtype).
    """
    COUNT["combinations"] += 1
    got = got.to_host()
    if isinstance(ref, gb.Matrix):
        exp = hgb.Matrix.from_graphblas(ref)
    else:
        exp = hgb.Vector.from_graphblas(ref)
    if cast_ref:
        exp = exp.astype(got.dtype)
    if got.dtype != exp.dtype:
        return f"{what}: dtype {got.dtype} != {exp.dtype}"
    if tuple(got.shape) != tuple(exp.shape):
        return f"{what}: shape {got.shape} != {exp.shape}"
    gk, ek = got._keys(), exp._keys()
    if not np.array_equal(gk, ek):
        return f"{what}: pattern differs ({len(gk)} vs {len(ek)} entries)"
    if any_values:
        return None
    gv, ev = got._values(), exp._values()
    same = (gv == ev) | (np.isnan(gv) & np.isnan(ev) if gv.dtype.kind == "f" else False)
    if not np.all(same):
        k = int(np.flatnonzero(~same)[0])
        return f"{what}: value at key {int(gk[k])}: {gv[k]!r} != {ev[k]!r}"
    return None
