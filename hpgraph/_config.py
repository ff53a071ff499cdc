"""``hp.config``: hpgraph's one configuration object (validated keys, context manager).

Modelled on python-graphblas's ``gb.config``::

    import hpgraph as hp

    hp.config["engine_loop"]                 # read a key
    hp.config.set(engine_loop="host")        # set keys (validated; unknown keys are errors)
    with hp.config.set(max_supersteps=100):  # ... or only inside a block
        hp.run(Prog, G)
    hp.config.reset()                        # every key back to its default
    print(hp.config)                         # every key, its value and what it does

Every key may also be given in the environment as ``HPGRAPH_<KEY>`` (upper case), read when
hpgraph's config is first imported.  Values are process-wide (not per thread).
"""

from __future__ import annotations

import difflib
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable

from .exceptions import InvalidValue

__all__ = ["config", "Config"]


@dataclass(frozen=True)
class _Key:
    name: str
    default: Any
    check: Callable[[Any], Any]     # returns the normalised value or raises InvalidValue
    doc: str
    parse: Callable[[str], Any] = str


def _choice(name, choices):
    def check(v):
        if v not in choices:
            raise InvalidValue(f"hp.config[{name!r}] must be one of {choices}, got {v!r}")
        return v
    return check


def _int_or_none(name, lo):
    def check(v):
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InvalidValue(f"hp.config[{name!r}] must be None or an int >= {lo}, got {v!r}")
        return int(v)
    return check


def _int(name, lo):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InvalidValue(f"hp.config[{name!r}] must be an int >= {lo}, got {v!r}")
        return int(v)
    return check


def _positive(name):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0 \
                or v == float("inf"):
            raise InvalidValue(f"hp.config[{name!r}] must be a finite number > 0, got {v!r}")
        return float(v)
    return check


def _bool(name):
    def check(v):
        if not isinstance(v, bool):
            raise InvalidValue(f"hp.config[{name!r}] must be True or False, got {v!r}")
        return v
    return check


def _path_or_none(name):
    def check(v):
        if v is None:
            return None
        if not isinstance(v, (str, os.PathLike)) or not str(v):
            raise InvalidValue(f"hp.config[{name!r}] must be None or a directory path, got {v!r}")
        return str(v)
    return check


def _parse_bool(s):
    return s.strip().lower() in ("1", "true", "yes", "on")


def _parse_opt_int(s):
    return None if s.strip().lower() in ("", "none") else int(s)


_KEYS = {k.name: k for k in (
    _Key("engine_loop", "auto", _choice("engine_loop", ("auto", "device", "host")),
         "GPU superstep loop of hp.run: 'device' runs every superstep inside one cooperative "
         "kernel launch (grid barriers between phases, the host reads the state once at the "
         "end; programs with a converged() hook cannot); 'host' launches a fixed kernel "
         "sequence per superstep, replayed blind in CUDA-graph batches with one host read per "
         "batch; 'auto' takes the host loop, which measured as fast or faster on every graph "
         "tried (benchmarks/README.md, [engine-2]).  Where the device refuses a cooperative "
         "launch the device loop falls back to the host loop (RunResult.extra['loop'])."),
    _Key("engine_loop_blocks_per_sm", 0, _int("engine_loop_blocks_per_sm", 0),
         "Blocks per SM of the device loop's cooperative grid (capped by occupancy): more "
         "blocks hide latency in heavy supersteps, fewer make each grid barrier cheaper.  0: "
         "by the graph's mean degree, 1 at or below 8 (long thin graphs: many cheap "
         "supersteps), 4 above.", int),
    _Key("engine_small_frontier", 256, _int("engine_small_frontier", 0),
         "GPU host loop of hp.run: supersteps whose frontier has at most this many push edges "
         "run in the block loop (one thread block, __syncthreads between phases, up to 1024 "
         "supersteps per launch) when the program pushes and applies to the receivers without "
         "a priority: long thin graphs (grids, roads) spend most supersteps there.  0: never.",
         int),
    _Key("max_supersteps", None, _int_or_none("max_supersteps", 1),
         "Safety cap on supersteps of hp.run for programs without max_iterations: reaching it "
         "raises SuperstepLimitExceeded instead of looping forever.  None: 10 * n + 1000.",
         _parse_opt_int),
    _Key("push_alpha", 4.0, _positive("push_alpha"),
         "Direction rule of hp.run: push while frontier_edges * push_alpha < pull_edges + n "
         "(the relative cost of an atomic push edge against a streamed pull edge).", float),
    _Key("dump_source", None, _path_or_none("dump_source"),
         "A directory: every generated CUDA module is saved there as <hash>.cu when it is "
         "compiled (CuPy's CUPY_CACHE_SAVE_CUDA_SOURCE for hpgraph's own kernels); None: not "
         "saved.", lambda s: None if s.strip().lower() in ("", "none") else s),
    _Key("triangle_kernel", "hash", _choice("triangle_kernel", ("hash", "merge")),
         "GPU method of triangle_count/triangles: 'hash' puts each vertex's out-list in a "
         "shared-memory hash table (a warp or a block per vertex) and looks up the wedges "
         "through it; 'merge' intersects the two sorted out-lists of every edge, a thread (or "
         "a warp for long lists) per edge.  Both count on the degree-oriented graph; the "
         "benchmark (benchmarks/bench_triangles.py) compares them."),
    _Key("kernel_cache", None, _path_or_none("kernel_cache"),
         "Directory of hpgraph's compiled-kernel cache (cubins keyed by source, options, GPU "
         "architecture and NVRTC version): a program compiled once loads from there "
         "in a new process without calling NVRTC.  None: $XDG_CACHE_HOME/hpgraph/kernels "
         "(~/.cache/hpgraph/kernels).", lambda s: None if s.strip().lower() in ("", "none") else s),
    _Key("trace", False, _bool("trace"),
         "Log every hp.run's supersteps (direction, frontier size and representation, "
         "frontier edges; on the GPU each superstep's time by CUDA events, the host loop then "
         "running one superstep at a time) to the 'hpgraph.engine' logger at INFO level.",
         _parse_bool),
)}


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

    @staticmethod
    def _spec(key):
        spec = _KEYS.get(key)
        if spec is None:
            near = difflib.get_close_matches(str(key), list(_KEYS), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise InvalidValue(f"hp.config has no key {key!r}{hint} (keys: {sorted(_KEYS)})")
        return spec

    def __getitem__(self, key):
        self._spec(key)
        return self._values[key]

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
        """Every key back to its default."""
        with self._lock:
            self._values = {k: spec.default for k, spec in _KEYS.items()}

    def keys(self):
        return list(_KEYS)

    def describe(self, key) -> str:
        """What ``key`` does."""
        return self._spec(key).doc

    def __repr__(self):
        lines = ["hpgraph config:"]
        for k, spec in _KEYS.items():
            lines.append(f"  {k} = {self._values[k]!r}  (default {spec.default!r})")
        return "\n".join(lines)


config = Config()
