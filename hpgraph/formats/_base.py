"""Shared base class of the sparse formats, and the vectorised array helpers they use.

Every helper here takes ``xp`` (numpy or cupy) and uses only functions both modules provide
with the same semantics, so one code path builds a matrix on the host or on the device.
Nothing here writes into an array it was given: results are always fresh arrays.
"""

from __future__ import annotations

import threading

import numpy as np

from .. import backend, dtypes
from ..exceptions import DomainMismatch, InvalidGraph, InvalidValue
from .._arrayops import all_true, any_true, bincount

#: format name -> class, filled by ``SparseMatrix.__init_subclass__``.
_REGISTRY: dict = {}

_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_INDEX_DTYPES = (_INT32, _INT64)


# ---------------------------------------------------------------------------------------
# Small helpers


def side_of(xp) -> str:
    """``"cpu"`` for numpy, ``"gpu"`` for cupy."""
    return "cpu" if xp is np else "gpu"


def freeze(a):
    """A read-only view of a host array; device arrays (no such flag) pass through.

    Formats are immutable: a read-only view makes an accidental in-place write fail loudly
    instead of silently corrupting every matrix derived from the same buffer.  A view is
    used so the caller's own array keeps its flags.
    """
    if isinstance(a, np.ndarray) and a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def array_module_of(owner: str, **arrays):
    """numpy or cupy for the given arrays; refuse a mix of host and device arrays.

    Lists and other array-likes follow the side of the real arrays among them.
    """
    dev = [name for name, a in arrays.items() if a is not None and backend.is_device_array(a)]
    if not dev:
        return np
    host = [name for name, a in arrays.items() if isinstance(a, np.ndarray)]
    if host:
        raise InvalidGraph(
            f"{owner}: {host[0]!r} is a host (numpy) array but {dev[0]!r} is a device (cupy) "
            "array; put all arrays on the same side first (hpgraph.backend.to_device / to_host)")
    return backend.cupy()


def parse_shape(shape, owner: str) -> tuple:
    """``shape`` as a tuple of two non-negative Python ints, or InvalidGraph."""
    try:
        nr, nc = shape
        nr_i, nc_i = int(nr), int(nc)
        if nr_i != nr or nc_i != nc:
            raise TypeError
    except (TypeError, ValueError):
        raise InvalidGraph(f"{owner}: shape must be a pair of non-negative integers, got {shape!r}") from None
    if nr_i < 0 or nc_i < 0:
        raise InvalidGraph(f"{owner}: shape must be a pair of non-negative integers, got {shape!r}")
    return nr_i, nc_i


_NON_NUMERIC_KINDS = "OUSVMm"


def safe_asarray(a, name: str, owner: str, xp, numeric: str = "values"):
    """``xp.asarray(a)``, refusing what no native code should see, with a typed error naming ``name``.

    Ragged nested lists and objects NumPy cannot turn into an array give :class:`InvalidGraph`;
    object, string, bytes, void and datetime arrays give :class:`InvalidGraph` (for ids) or
    :class:`DomainMismatch` (for ``numeric="values"``) *before* CuPy sees them (CuPy raises an
    untyped ``ValueError`` on such dtypes).
    """
    if xp is not np and backend.is_device_array(a):
        return xp.asarray(a)
    try:
        h = a if isinstance(a, np.ndarray) else np.asarray(a)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InvalidGraph(f"{owner}: {name} cannot be turned into an array ({exc})") from None
    if h.dtype.kind in _NON_NUMERIC_KINDS:
        if h.size:
            cls = DomainMismatch if numeric == "values" else InvalidGraph
            want = "numbers" if numeric == "values" else "integer vertex ids"
            raise cls(f"{owner}: {name} must hold {want}, got an array of dtype {h.dtype}")
        h = h.astype(np.float64)      # empty: what np.asarray([]) gives (CuPy takes no objects)
    return h if xp is np else xp.asarray(h)


def as_index_array(a, name: str, owner: str, xp, ndim: int = 1):
    """``a`` as an integer array of ``ndim`` dimensions on ``xp`` (no copy if it already is)."""
    a = safe_asarray(a, name, owner, xp, numeric="ids")
    if a.size == 0 and a.dtype.kind not in "iu":
        # np.asarray([]) is float64; an empty list is a valid (empty) index array.
        a = a.astype(_INT64)
    if a.dtype.kind not in "iu":
        raise InvalidGraph(f"{owner}: {name} must hold integers, got dtype {a.dtype}")
    if a.ndim != ndim:
        raise InvalidGraph(f"{owner}: {name} must be {ndim}-D, got an array of shape {tuple(a.shape)}")
    return a


def native_dtype(a, xp):
    """``a`` in native byte order (scipy can hand out big-endian arrays read from files)."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def as_values(v, name: str, owner: str, xp, shape: tuple):
    """``v`` as a value array of the given shape and a supported dtype, or None (pattern)."""
    if v is None:
        return None
    v = native_dtype(safe_asarray(v, name, owner, xp), xp)
    try:
        dtypes.lookup_dtype(v.dtype)
    except DomainMismatch as exc:
        raise DomainMismatch(f"{owner}: {name}: {exc}") from None
    if tuple(v.shape) != tuple(shape):
        raise InvalidGraph(f"{owner}: {name} must have shape {tuple(shape)} (one value per stored "
                           f"entry), got {tuple(v.shape)}")
    return xp.ascontiguousarray(v)


def check_index_dtype_arg(index_dtype, owner: str, sizes=()) -> np.dtype | None:
    """Validate an ``index_dtype=`` argument (int32/int64, and large enough for ``sizes``)."""
    if index_dtype is None:
        return None
    try:
        dt = np.dtype(index_dtype)
    except TypeError:
        dt = None
    if dt not in _INDEX_DTYPES:
        raise InvalidValue(f"{owner}: index_dtype must be int32 or int64, got {index_dtype!r}")
    if dt == _INT32 and dtypes.index_dtype(*sizes) == _INT64:
        raise InvalidValue(f"{owner}: index_dtype=int32 cannot index sizes {tuple(int(s) for s in sizes)}; "
                           "use int64")
    return dt


def choose_index_dtype(owner: str, requested, arrays, sizes) -> np.dtype:
    """The index dtype of a new matrix: ``requested`` (validated), else the rule of
    :func:`hpgraph.dtypes.index_dtype` (int32 unless the sizes need int64).

    The rule wins over the input arrays' dtype, so that kernels mostly see int32 (half the
    index traffic); arrays that already have the chosen dtype are used without a copy.
    ``arrays`` is accepted for symmetry with the callers and not otherwise consulted.
    """
    req = check_index_dtype_arg(requested, owner, sizes)
    if req is not None:
        return req
    return dtypes.index_dtype(*sizes)


def stable_argsort(xp, a):
    """Stable argsort on both backends (cupy's argsort is always stable and rejects ``kind``)."""
    if xp is np:
        return np.argsort(a, kind="stable")
    return xp.argsort(a)


def sort_perm(xp, major, minor, nmajor: int, nminor: int):
    """Permutation sorting entries by (major, minor), stable (duplicates keep their order)."""
    if int(nmajor) * int(nminor) < 2 ** 62:
        # One radix-friendly int64 key is much faster than two sorts.
        key = major.astype(_INT64) * int(nminor) + minor.astype(_INT64)
        return stable_argsort(xp, key)
    p = stable_argsort(xp, minor)
    return p[stable_argsort(xp, major[p])]


def is_sorted_pairs(xp, major, minor) -> bool:
    """True when entries are ordered by (major, minor) (ties allowed)."""
    if major.shape[0] <= 1:
        return True
    a0, a1 = major[:-1], major[1:]
    ok = (a1 > a0) | ((a1 == a0) & (minor[1:] >= minor[:-1]))
    return all_true(xp, ok)


def counts_to_indptr(xp, counts, idt):
    """``[0, cumsum(counts)]`` as ``idt``."""
    out = xp.zeros(counts.shape[0] + 1, dtype=idt)
    if counts.shape[0]:
        xp.cumsum(counts, dtype=idt, out=out[1:])       # in place: no temporary
    return out


def indptr_from_sorted(xp, major, nmajor: int, idt):
    """indptr of entries whose major ids are sorted (bincount + cumsum, no search)."""
    counts = bincount(xp, major, minlength=nmajor) if major.shape[0] else xp.zeros(nmajor, dtype=idt)
    return counts_to_indptr(xp, counts, idt)


def expand_indptr(xp, indptr, nnz: int, idt):
    """Major id of each stored entry (the inverse of :func:`indptr_from_sorted`).

    ``major[i]`` = number of r in 1..n-1 with ``indptr[r] <= i``: a bincount of the row
    starts and a cumsum.  Linear, and unlike ``repeat`` it needs no host copy of the counts.
    """
    if nnz == 0:
        return xp.zeros(0, dtype=idt)
    starts = indptr[1:-1]
    marks = bincount(xp, starts, minlength=nnz + 1)[:nnz] if starts.shape[0] else xp.zeros(nnz, dtype=idt)
    return xp.cumsum(marks, dtype=idt)


def rows_sorted(xp, indptr, indices) -> bool:
    """True when the minor indices of each major slice are non-decreasing."""
    nnz = indices.shape[0]
    if nnz <= 1:
        return True
    ok = indices[1:] >= indices[:-1]
    starts = indptr[1:-1]
    starts = starts[(starts > 0) & (starts < nnz)]
    if starts.shape[0]:
        ok[starts - 1] = True  # a new slice may start lower
    return all_true(xp, ok)


def first_bad(xp, bad) -> int:
    """Position of the first True in a bool array (caller knows there is one).

    flatnonzero rather than argmax: it is defined for bool arrays on both backends.
    """
    return int(xp.flatnonzero(bad)[0])


def check_weight_values(xp, w, label: str):
    """``w`` (1-D edge weights) in native byte order, after checking its dtype is supported and,
    for floats, that every value is finite; ``label`` names it in the errors (``"from_edges:
    weights"``).  A byte-swapped input comes back as a new array, otherwise ``w`` itself."""
    if not w.dtype.isnative:
        w = w.astype(w.dtype.newbyteorder("="))
    try:
        dtypes.lookup_dtype(w.dtype)
    except DomainMismatch as exc:
        raise DomainMismatch(f"{label}: {exc}") from None
    if w.dtype.kind == "f" and w.shape[0]:
        bad = ~xp.isfinite(w)
        if any_true(xp, bad):
            pos = first_bad(xp, bad)
            raise InvalidGraph(f"{label}[{pos}] = {float(w[pos])} is not finite; edge weights must "
                               "be finite numbers")
    return w


# ---------------------------------------------------------------------------------------
# The base class


_DERIVED_LOCK = threading.Lock()


class DerivedCache:
    """One cache per object for everything computed from it (see :meth:`derived`); the base
    of the sparse formats and of other matrix-like objects the kernels read (the column
    relabeling of :mod:`hpgraph.spmv.relabel`)."""

    def derived(self, name, make):
        """The object ``name`` derived from this matrix: ``make()`` on first use, then the kept
        value.

        One cache per matrix for everything computed from it -- format conversions (its CSR,
        HYB, ELL), the transpose, the device copy of a host matrix, the column relabeling and
        the kernels' index arrays -- kept as long as the matrix lives (a matrix never changes,
        so nothing goes stale).  :meth:`derived_items` lists it;
        :meth:`hpgraph.Graph.memory_usage` (``deep=True``) counts it; it is not pickled.
        """
        d = self.__dict__.get("_derived")
        if d is None:
            with _DERIVED_LOCK:
                d = self.__dict__.setdefault("_derived", {})
        v = d.get(name)
        if v is None:
            v = make()
            with _DERIVED_LOCK:   # two threads may both have made it: keep the first
                v = d.setdefault(name, v)
        return v

    def derived_items(self) -> dict:
        """``{name: object}`` of what :meth:`derived` keeps for this matrix (a copy)."""
        return dict(self.__dict__.get("_derived", {}))


class SparseMatrix(DerivedCache):
    """Base of the immutable sparse formats (COO, CSR, CSC, ELL, HYB).

    Attributes common to every format: ``format`` (class attribute), ``shape``, ``nrows``,
    ``ncols``, ``nnz`` (stored entries, duplicates included, ELL padding excluded),
    ``dtype`` (value dtype, or None for a pattern-only matrix), ``is_pattern``,
    ``index_dtype`` (int32 or int64, shared by all index arrays), ``xp`` (numpy or cupy)
    and ``on_device``.

    Arrays are set once, in the constructor, and never written again; host arrays are
    stored as read-only views.  Conversions return new matrices (or ``self`` where nothing
    changes).
    """

    format: str = ""

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_derived", None)      # caches stay with the process that made them
        xp = state.get("_xp")
        if xp is not None and not isinstance(xp, str):
            state["_xp"] = xp.__name__       # numpy / cupy, imported again when unpickled
        return state

    def __setstate__(self, state):
        xp = state.get("_xp")
        if isinstance(xp, str):
            import importlib

            state["_xp"] = importlib.import_module(xp)
        self.__dict__.update(state)

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.__dict__.get("format"):
            _REGISTRY[cls.format] = cls

    # -- attributes set by subclasses' _setup: _shape, _dtype, _index_dtype, _xp --------

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def nrows(self) -> int:
        return self._shape[0]

    @property
    def ncols(self) -> int:
        return self._shape[1]

    @property
    def nnz(self) -> int:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    @property
    def dtype(self):
        """Value dtype (``np.dtype``), or None for a pattern-only matrix."""
        return self._dtype

    @property
    def is_pattern(self) -> bool:
        """True when the matrix stores no values (every entry means 1 / True)."""
        return self._dtype is None

    @property
    def index_dtype(self) -> np.dtype:
        return self._index_dtype

    @property
    def xp(self):
        """numpy or cupy, the module owning this matrix's arrays."""
        return self._xp

    @property
    def on_device(self) -> bool:
        return self._xp is not np

    @property
    def side(self) -> str:
        """``"cpu"`` or ``"gpu"``."""
        return side_of(self._xp)

    # -- to be provided by subclasses ----------------------------------------------------

    def _map(self, index_fn, values_fn):
        """A new matrix of the same format with every index array passed through
        ``index_fn`` and the values (when present) through ``values_fn``."""
        raise NotImplementedError

    def _ones(self, dtype):
        """A value array of ones (zeros at padding) laid out like this matrix's values."""
        raise NotImplementedError

    def _with_values(self, values):
        """Same structure, new values (None = pattern)."""
        raise NotImplementedError

    def _check_cheap(self):
        raise NotImplementedError

    def _check_full(self):
        raise NotImplementedError

    def to_coo(self, index_dtype=None):  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    @classmethod
    def from_coo(cls, coo, **kw):  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    # -- conversions ---------------------------------------------------------------------

    def to_csr(self, index_dtype=None):
        """This matrix as CSR (through COO unless the format knows a cheaper way)."""
        return _REGISTRY["csr"].from_coo(self.to_coo(), index_dtype=index_dtype)

    def to_csc(self, index_dtype=None):
        """This matrix as CSC."""
        return _REGISTRY["csc"].from_coo(self.to_coo(), index_dtype=index_dtype)

    def to_ell(self, K=None, index_dtype=None):
        """This matrix as ELL (``K`` = width, default the longest row)."""
        return _REGISTRY["ell"].from_csr(self.to_csr(index_dtype=index_dtype), K=K)

    def to_hyb(self, K=None, index_dtype=None):
        """This matrix as HYB (``K`` default: :func:`hyb_width` of the row lengths)."""
        return _REGISTRY["hyb"].from_csr(self.to_csr(index_dtype=index_dtype), K=K)

    def asformat(self, name: str, **kw):
        """This matrix in format ``name`` (``"coo"|"csr"|"csc"|"ell"|"hyb"``).

        Keyword arguments go to the conversion: ``index_dtype=`` for all, ``K=`` for ELL/HYB.
        Returns ``self`` when nothing changes.
        """
        key = str(name).lower()
        if key not in _REGISTRY:
            raise InvalidValue(f"unknown sparse format {name!r}; expected one of {sorted(_REGISTRY)}")
        return getattr(self, "to_" + key)(**kw)

    def with_index_dtype(self, index_dtype):
        """Same matrix with index arrays cast to ``index_dtype`` (int32 or int64)."""
        dt = check_index_dtype_arg(index_dtype, type(self).__name__, self._index_sizes())
        if dt is None or dt == self._index_dtype:
            return self
        return self._map(lambda a: a.astype(dt), lambda v: v)

    def _index_sizes(self) -> tuple:
        return (self.nrows, self.ncols, self.nnz)

    def to_device(self):
        """A copy on the GPU (``self`` if already there)."""
        if self.on_device:
            return self
        return self._map(backend.to_device, backend.to_device)

    def to_host(self):
        """A copy on the host (``self`` if already there)."""
        if not self.on_device:
            return self
        return self._map(backend.to_host, backend.to_host)

    def astype(self, dtype):
        """Values cast to ``dtype``; a pattern-only matrix gets explicit ones."""
        dt = dtypes.lookup_dtype(dtype)
        if self.is_pattern:
            return self._with_values(self._ones(dt))
        if dt == self._dtype:
            return self
        return self._map(lambda a: a, lambda v: v.astype(dt))

    def pattern(self):
        """The same structure without values."""
        return self if self.is_pattern else self._with_values(None)

    def to_scipy(self, copy: bool = True):
        """A ``scipy.sparse`` array: ``coo_array``/``csr_array``/``csc_array``; ELL and HYB
        give ``csr_array``.  Device matrices are copied to the host first.

        Pattern-only matrices get float64 ones.  With ``copy=False`` host arrays are shared
        with this (immutable) matrix and are read-only.
        """
        return self.to_csr().to_scipy(copy=copy)

    def to_cupyx(self):
        """A ``cupyx.scipy.sparse`` matrix (COO/CSR/CSC; ELL and HYB give CSR) on the device.

        cuSPARSE stores only bool and floating values: integer values become float64 and a
        pattern-only matrix gets float64 ones.
        """
        return self.to_csr().to_cupyx()

    # -- validation ----------------------------------------------------------------------

    def check(self, full: bool = False):
        """Validate the matrix; raise :class:`InvalidGraph` naming the bad field.

        O(1) checks (array lengths, shapes, dtypes) always run; ``full=True`` adds the
        O(nnz) ones (indices in range, indptr monotone, sortedness).  Returns ``self``.
        """
        self._check_cheap()
        if full:
            self._check_full()
        return self

    def _expect_index(self, a, name: str, shape: tuple):
        """O(1) check of one index array."""
        owner = type(self).__name__
        if tuple(a.shape) != tuple(shape):
            raise InvalidGraph(f"{owner}: {name} must have shape {tuple(shape)}, got {tuple(a.shape)}")
        if np.dtype(a.dtype) != self._index_dtype:
            raise InvalidGraph(f"{owner}: {name} must have dtype {self._index_dtype} (the matrix's "
                               f"index dtype), got {a.dtype}")
        if backend.is_device_array(a) != self.on_device:
            raise InvalidGraph(f"{owner}: {name} is on the wrong side (host/device)")

    def _expect_values(self, v, shape: tuple):
        owner = type(self).__name__
        if v is None:
            if self._dtype is not None:
                raise InvalidGraph(f"{owner}: values is None but dtype is {self._dtype}")
            return
        if tuple(v.shape) != tuple(shape):
            raise InvalidGraph(f"{owner}: values must have shape {tuple(shape)}, got {tuple(v.shape)}")
        if np.dtype(v.dtype) != self._dtype:
            raise InvalidGraph(f"{owner}: values has dtype {v.dtype} but the matrix says {self._dtype}")

    def _expect_range(self, a, name: str, lo: int, hi: int, what: str):
        """O(n) check that lo <= a < hi."""
        if a.size == 0:
            return
        xp = self._xp
        bad = (a < lo) | (a >= hi)
        if any_true(xp, bad):
            flat = a.ravel()
            pos = first_bad(xp, bad.ravel())
            raise InvalidGraph(f"{type(self).__name__}: {name}[{pos}] = {int(flat[pos])} is out of range: "
                               f"{what} must lie in [{lo}, {hi})")

    # -- display -------------------------------------------------------------------------

    def _repr_extra(self) -> str:
        return ""

    def __repr__(self) -> str:
        dt = "pattern" if self.is_pattern else self._dtype.name
        return (f"{type(self).__name__}(shape={self.nrows}x{self.ncols}, nnz={self.nnz}, dtype={dt}, "
                f"index_dtype={self._index_dtype.name}{self._repr_extra()}, "
                f"on={'device' if self.on_device else 'host'})")


def scipy_values(m, xp):
    """Values to hand to scipy/cupyx: the stored ones, or float64 ones for a pattern."""
    if m.values is None:
        return xp.ones(m.nnz, dtype=np.float64)
    return m.values


def host_copy(a, copy: bool):
    """Host array for scipy: copied when asked, so the caller may modify it freely."""
    a = backend.to_host(a)
    return np.array(a, copy=True) if copy else a


def cupyx_sparse():
    """The ``cupyx.scipy.sparse`` module (imported lazily, after checking that a device exists)."""
    backend.cupy()  # raises DeviceUnavailable with the reason
    import importlib

    return importlib.import_module("cupyx.scipy.sparse")


def cupyx_values(m, xp):
    """cuSPARSE only takes bool and floating values; integers become float64."""
    v = scipy_values(m, xp)
    if v.dtype.kind in "iu":
        v = v.astype(np.float64)
    return v
