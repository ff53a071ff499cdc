"""Bitmask: one bit per vertex in uint32 words (the paper's x_bitmask / active_bitmask).

Vertex i is bit ``i % 32`` of word ``i // 32``; bits past ``n`` are always 0, so counts and
complements never see phantom vertices.  Immutable: every operation returns a new Bitmask.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import backend, dtypes
from ..exceptions import DimensionMismatch, IndexOutOfBound, InvalidValue
from ._base import freeze
from .._arrayops import all_true, any_true

_U32 = np.dtype(np.uint32)
_ALL = np.uint32(0xFFFFFFFF)
# popcount of every byte value: count() is a table lookup per byte, on either backend.
_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _nwords(n: int) -> int:
    return (n + 31) // 32


def _xp_of(like):
    """numpy or cupy from a module, an array, a Bitmask or a sparse matrix (None: numpy)."""
    if like is None or like is np:
        return np
    if getattr(like, "__name__", None) == "cupy":
        return backend.cupy()
    xp = getattr(like, "xp", None)
    if xp is not None:
        return xp
    return backend.get_array_module(like)


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or int(n) < 0:
        raise InvalidValue(f"Bitmask: n must be a non-negative integer, got {n!r}")
    return int(n)


def _tail_mask(n: int):
    """Valid bits of the last word (all ones when n is a multiple of 32)."""
    r = n % 32
    return _ALL if r == 0 else np.uint32((1 << r) - 1)


class Bitmask:
    """A set of vertices ``{0..n-1}`` packed into uint32 words.

    Parameters
    ----------
    words : array of uint32, length ceil(n / 32)
        numpy or cupy; bits past ``n`` must be 0.
    n : int
        Number of vertices.
    """

    __slots__ = ("_words", "_n", "_xp")
    __hash__ = None  # mutable-looking value semantics via __eq__; not hashable

    def __init__(self, words, n):
        n = _check_n(n)
        xp = backend.get_array_module(words)
        words = xp.asarray(words)
        if words.dtype != _U32:
            raise InvalidValue(f"Bitmask: words must be uint32, got dtype {words.dtype}")
        if words.ndim != 1 or words.shape[0] != _nwords(n):
            raise InvalidValue(f"Bitmask: words must be 1-D of length ceil(n/32) = {_nwords(n)} for n={n}, "
                               f"got shape {tuple(words.shape)}")
        if n % 32 and int(words[-1]) & ~int(_tail_mask(n)) & 0xFFFFFFFF:
            raise InvalidValue(f"Bitmask: bits past n={n} must be 0 (last word is {int(words[-1]):#010x})")
        self._set(xp, xp.ascontiguousarray(words), n)

    def _set(self, xp, words, n):
        self._xp = xp
        self._words = freeze(words)
        self._n = n

    @classmethod
    def _new(cls, xp, words, n):
        obj = cls.__new__(cls)
        obj._set(xp, words, n)
        return obj

    # -- constructors --------------------------------------------------------------------

    @classmethod
    def zeros(cls, n, like=None):
        """No vertex set.  ``like``: numpy/cupy module or an array/Bitmask/matrix of that side."""
        n = _check_n(n)
        xp = _xp_of(like)
        return cls._new(xp, xp.zeros(_nwords(n), dtype=_U32), n)

    @classmethod
    def ones(cls, n, like=None):
        """Every vertex set."""
        n = _check_n(n)
        xp = _xp_of(like)
        words = xp.full(_nwords(n), _ALL, dtype=_U32)
        if n % 32:
            words[-1] = _tail_mask(n)
        return cls._new(xp, words, n)

    @classmethod
    def from_bool(cls, b):
        """From a 1-D bool array (numpy or cupy) of length n; nonzero means set."""
        xp = backend.get_array_module(b)
        b = xp.asarray(b)
        if b.ndim != 1:
            raise InvalidValue(f"Bitmask.from_bool: expected a 1-D array, got shape {tuple(b.shape)}")
        if b.dtype != np.bool_:
            b = b != 0
        return cls._new(xp, _pack(xp, b), int(b.shape[0]))

    @classmethod
    def from_indices(cls, idx, n, like=None):
        """Set exactly the vertices in ``idx`` (duplicates allowed) out of ``n``.

        The result lives on the side of ``idx`` when it is an array, else of ``like``.
        """
        n = _check_n(n)
        xp = backend.get_array_module(idx) if backend.is_device_array(idx) else _xp_of(like)
        idx = xp.asarray(idx)
        if idx.size == 0:
            return cls.zeros(n, like=xp)
        if idx.dtype.kind not in "iu":
            raise InvalidValue(f"Bitmask.from_indices: idx must hold integers, got dtype {idx.dtype}")
        idx = idx.ravel()
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            raise IndexOutOfBound(f"Bitmask.from_indices: vertex {bad} is out of range [0, {n})")
        b = xp.zeros(n, dtype=bool)
        b[idx] = True
        return cls._new(xp, _pack(xp, b), n)

    # -- attributes ----------------------------------------------------------------------

    @property
    def words(self):
        """The uint32 words (read-only on the host)."""
        return self._words

    @property
    def n(self) -> int:
        return self._n

    @property
    def nwords(self) -> int:
        return _nwords(self._n)

    @property
    def xp(self):
        return self._xp

    @property
    def on_device(self) -> bool:
        return self._xp is not np

    def __len__(self) -> int:
        return self._n

    # -- queries -------------------------------------------------------------------------

    def to_bool(self):
        """1-D bool array of length n."""
        xp = self._xp
        if self._n == 0:
            return xp.zeros(0, dtype=bool)
        bits = xp.unpackbits(self._words.view(xp.uint8), bitorder="little")
        return bits[: self._n].astype(bool)

    def to_indices(self):
        """Sorted ids of the set vertices (index dtype of n)."""
        return self._xp.flatnonzero(self.to_bool()).astype(dtypes.index_dtype(self._n))

    def count(self) -> int:
        """Number of set vertices."""
        xp = self._xp
        if self._n == 0:
            return 0
        table = xp.asarray(_POPCOUNT8)
        # signed indices: fancy indexing with them is defined on every backend
        return int(table[self._words.view(xp.uint8).astype(np.int32)].sum(dtype=np.int64))

    def any(self) -> bool:
        return any_true(self._xp, self._words) if self._n else False

    def test(self, i):
        """Whether vertex ``i`` is set: a bool for a scalar, a bool array for an array."""
        xp = self._xp
        if isinstance(i, numbers.Integral) and not isinstance(i, bool):
            i = int(i)
            if not 0 <= i < self._n:
                raise IndexOutOfBound(f"Bitmask.test: vertex {i} is out of range [0, {self._n})")
            return bool((int(self._words[i >> 5]) >> (i & 31)) & 1)
        idx = xp.asarray(i)
        if idx.dtype.kind not in "iu":
            raise InvalidValue(f"Bitmask.test: expected integer ids, got dtype {idx.dtype}")
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= self._n):
            raise IndexOutOfBound(f"Bitmask.test: ids must lie in [0, {self._n})")
        idx = idx.astype(np.int64)
        w = self._words[idx >> 5]
        return ((w >> (idx & 31).astype(_U32)) & np.uint32(1)).astype(bool)

    # -- new Bitmasks --------------------------------------------------------------------

    def set(self, idx):
        """A copy with the vertices in ``idx`` set."""
        return self | Bitmask.from_indices(self._coerce_idx(idx), self._n, like=self._xp)

    def clear(self, idx):
        """A copy with the vertices in ``idx`` cleared."""
        return self.andnot(Bitmask.from_indices(self._coerce_idx(idx), self._n, like=self._xp))

    def _coerce_idx(self, idx):
        if isinstance(idx, numbers.Integral):
            idx = [int(idx)]
        return self._xp.asarray(idx)

    def _other(self, other, op):
        if not isinstance(other, Bitmask):
            return None
        if other._n != self._n:
            raise DimensionMismatch(f"Bitmask {op}: sizes differ, n={self._n} and n={other._n}")
        if other.on_device != self.on_device:
            raise InvalidValue(f"Bitmask {op}: one operand is on the device and the other on the host")
        return other

    def __and__(self, other):
        o = self._other(other, "&")
        if o is None:
            return NotImplemented
        return Bitmask._new(self._xp, self._words & o._words, self._n)

    def __or__(self, other):
        o = self._other(other, "|")
        if o is None:
            return NotImplemented
        return Bitmask._new(self._xp, self._words | o._words, self._n)

    def __xor__(self, other):
        o = self._other(other, "^")
        if o is None:
            return NotImplemented
        return Bitmask._new(self._xp, self._words ^ o._words, self._n)

    def andnot(self, other):
        """Vertices set here and not in ``other``."""
        o = self._other(other, "andnot")
        if o is None:
            raise InvalidValue(f"Bitmask.andnot: expected a Bitmask, got {type(other).__name__}")
        return Bitmask._new(self._xp, self._words & ~o._words, self._n)

    def __invert__(self):
        """Complement within ``{0..n-1}`` (bits past n stay 0)."""
        words = ~self._words
        if self._n % 32:
            words[-1] &= _tail_mask(self._n)
        return Bitmask._new(self._xp, words, self._n)

    def __eq__(self, other):
        if not isinstance(other, Bitmask):
            return NotImplemented
        if other._n != self._n or other.on_device != self.on_device:
            return False
        return all_true(self._xp, self._words == other._words) if self._n else True

    # -- sides ---------------------------------------------------------------------------

    def to_device(self):
        if self.on_device:
            return self
        return Bitmask._new(backend.cupy(), backend.to_device(self._words), self._n)

    def to_host(self):
        if not self.on_device:
            return self
        return Bitmask._new(np, backend.to_host(self._words), self._n)

    def __repr__(self) -> str:
        return f"Bitmask(n={self._n}, count={self.count()}, on={'device' if self.on_device else 'host'})"


def _pack(xp, b):
    """Pack a bool array into little-endian uint32 words (bit i % 32 of word i // 32)."""
    n = int(b.shape[0])
    nw = _nwords(n)
    if n == 0:
        return xp.zeros(0, dtype=_U32)  # packbits of an empty array keeps its dtype (bool)
    if nw * 32 != n:
        padded = xp.zeros(nw * 32, dtype=bool)
        padded[:n] = b
        b = padded
    packed = xp.packbits(b, bitorder="little")  # uint8, 4 per word, least significant byte first
    return xp.ascontiguousarray(packed).view(np.dtype("<u4")).astype(_U32, copy=False)
