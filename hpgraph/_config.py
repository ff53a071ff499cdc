"""``hp.config``: hpgraph's one configuration object (validated keys, context manager).

Modelled on python-graphblas's ``gb.config``::

    import hpgraph as hp

    hp.config["engine_loop"]                 # read a key
    hp.config.set(engine_loop="host")        # set keys (validated; unknown keys are errors)
    with hp.config.set(max_supersteps=100):  # ... or only inside a block
        hp.run(Prog, G)
    hp.config.reset()                        # every key back to its start value
    print(hp.config)                         # every key, its value and what it does

Every key may also be given in the environment as ``HPGRAPH_<KEY>`` (upper case), read when
hpgraph's config is first imported.  Values are process-wide (not per thread).  The keys, their
checks and their documentation are in :mod:`hpgraph._config_keys` (the table of docs/api.md is
generated from them); each is read where it is used, at call time.
"""

from __future__ import annotations

import difflib
import os
import threading

from ._config_keys import KEYS as _KEYS
from .exceptions import InvalidValue

__all__ = ["config", "Config"]


class _Restore:
    """What :meth:`Config.set` returns: restores the previous values when used in ``with``."""

    def __init__(self, cfg, previous):
        self._cfg = cfg
        self._previous = previous

    def __enter__(self):
        return self._cfg

    def __exit__(self, *exc):
        with self._cfg._lock:
            self._cfg._values.update(self._previous)
        return False


class Config:
    """Validated, documented settings (see the module docstring)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._values = {k: spec.default for k, spec in _KEYS.items()}
        for k, spec in _KEYS.items():
            raw = os.environ.get("HPGRAPH_" + k.upper())
            if raw is not None:
                try:
                    self._values[k] = spec.check(spec.parse(raw))
                except (ValueError, InvalidValue) as exc:
                    raise InvalidValue(f"environment variable HPGRAPH_{k.upper()}={raw!r}: "
                                       f"{exc}") from None
        self._start = dict(self._values)

    @staticmethod
    def _spec(key):
        spec = _KEYS.get(key)
        if spec is None:
            near = difflib.get_close_matches(str(key), list(_KEYS), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise InvalidValue(f"hp.config has no key {key!r}{hint} (keys: {sorted(_KEYS)})")
        return spec

    def __getitem__(self, key):
        # hot paths read keys per call: one dict look-up, the typed error only on a miss
        try:
            return self._values[key]
        except (KeyError, TypeError):
            self._spec(key)
            raise

    def get(self, key):
        """The value of ``key``."""
        return self[key]

    def __setitem__(self, key, value):
        self.set(**{key: value})

    def set(self, **values) -> _Restore:
        """Set keys (all validated before any changes); usable as ``with hp.config.set(...)``
        to restore the previous values at the block's end."""
        new = {k: self._spec(k).check(v) for k, v in values.items()}
        with self._lock:
            previous = {k: self._values[k] for k in new}
            self._values.update(new)
        return _Restore(self, previous)

    def reset(self):
        """Every key back to its start value: its default, or its ``HPGRAPH_<KEY>`` environment
        variable where one was given."""
        with self._lock:
            self._values = dict(self._start)

    def keys(self):
        return list(_KEYS)

    def describe(self, key) -> str:
        """What ``key`` does."""
        return self._spec(key).doc

    def default(self, key):
        """The default value of ``key`` (before any ``HPGRAPH_<KEY>`` environment variable)."""
        return self._spec(key).default

    def __repr__(self):
        lines = ["hpgraph config:"]
        for k, spec in _KEYS.items():
            lines.append(f"  {k} = {self._values[k]!r}  (default {spec.default!r})")
        return "\n".join(lines)


config = Config()
