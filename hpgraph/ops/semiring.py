"""The ``hp.semiring`` namespace: ``hp.semiring.min_plus``, ``hp.semiring.min_plus[np.float32]``.

Operators are created on first access (module ``__getattr__``); importing this module
builds nothing.  Registered user operators (``register_new``) appear here too.
"""

from ._core import namespace_hooks as _hooks

__getattr__, __dir__ = _hooks("semiring")
