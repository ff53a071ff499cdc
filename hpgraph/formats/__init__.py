"""Immutable sparse formats over numpy (host) or cupy (device) arrays.

COO is the hub (every format has ``from_coo`` / ``to_coo``); direct conversions exist where
they are cheaper (CSR <-> CSC, CSR -> ELL/HYB, HYB -> CSR).  ``asformat(name)`` converts
between any two.  :class:`Bitmask` is the packed vertex set used for active sets.

See ``docs/INTERNALS.md`` ("formats") for the contract.
"""

from ._base import SparseMatrix
from .bitmask import Bitmask
from .convert import from_any, from_scipy
from .coo import COO, DUPLICATE_POLICIES
from .csr import CSC, CSR
from .ell import ELL
from .hyb import HYB, hyb_width

__all__ = ["SparseMatrix", "COO", "CSR", "CSC", "ELL", "HYB", "Bitmask", "hyb_width", "from_any",
           "from_scipy", "DUPLICATE_POLICIES"]
