"""The ``hp.monoid`` namespace: ``hp.monoid.min``, ``hp.monoid.min[np.float32]``.

Operators are created on first access (module ``__getattr__``); importing this module
builds nothing.  Registered user operators (``register_new``) appear here too.
"""

from ._core import lookup_monoid as _lookup, builtin_names as _names


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ..exceptions import HpgraphError

    try:
        op = _lookup(name)
    except HpgraphError:
        raise AttributeError(f"hpgraph.monoid has no operator {name!r}") from None
    return op


def __dir__():
    return _names("monoid")
