"""Vertex programs: the HPGraph abstraction (PREPROCESS -> SPMV -> APPLY) in Python.

A vertex program is a class with per-vertex ``properties``, a ``gather`` callback (the value
sent along an edge from an active neighbour), a ``reduce`` monoid combining those values per
vertex into ``y``, and an ``update`` callback (APPLY) computing new properties from the old
ones and ``y``.  :func:`run` executes it in bulk-synchronous supersteps until no vertex is
active::

    import numpy as np, hpgraph as hp

    class SSSP(hp.VertexProgram):                 # the paper's Algorithm 1
        edges = "in"                              # gather over in-edges (rows of A^T)
        properties = {"dist": "float32"}
        reduce = "min"
        apply_to = "received"                     # update(v, +inf) leaves v unchanged
        def init(self, graph, source=0):
            dist = np.full(graph.num_vertices, np.inf, np.float32)
            dist[source] = 0
            return {"dist": dist}, [source]       # properties, initial active set
        def gather(src, edge, dst):
            return src.dist + edge
        def update(v, y):
            return min(v.dist, y)                 # changed vertices become active

    res = hp.run(SSSP, G, source=0)
    res.dist, res.supersteps, res.directions

The callbacks are compiled once per run by :mod:`hpgraph.compiler` into CUDA C (fused into the
SpMV and APPLY kernels, see :mod:`hpgraph.engine`) and into vectorised NumPy (the CPU path), so
both backends compute the same function.  See ``docs/INTERNALS.md`` ("engine") for the contract.
"""

from __future__ import annotations

import inspect
import keyword
import math
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import backend as _backend
from . import dtypes as _dt
from .exceptions import (
    DomainMismatch,
    HpgraphError,
    IndexOutOfBound,
    InvalidProgram,
    InvalidValue,
    UdfTypeError,
    UnsupportedSyntax,
)

__all__ = ["VertexProgram", "run", "RunResult", "SuperstepStats", "Seeded"]

EDGES = ("in", "out", "all")
APPLY_TO = ("all", "received")
GATHER_FROM = ("active", "all")
DIRECTIONS = ("auto", "push", "pull")

#: Default ``max_iterations`` for programs with a tolerance or a ``converged`` hook (iterative
#: numerical programs, like PageRank, whose exact fixed point may never be reached).
DEFAULT_MAX_ITERATIONS_NUMERIC = 1000


_RESERVED = {"self"}


@dataclass(frozen=True)
class Seeded:
    """An initial property value given as a rule, not an array: ``default`` on every vertex,
    ``at_active`` on the initial active vertices (``"id"``: the vertex's own id).

    What single-source programs start from (BFS: ``depth = Seeded(-1, 0)``,
    ``parent = Seeded(-1, "id")``).  The GPU engine writes it on the device, fused with the
    initial frontier, so the caller builds and uploads no array of ``n`` values.

    Parameters
    ----------
    default : scalar
        The value of every vertex not initially active.
    at_active : scalar or "id"
        The value of the initially active vertices; ``"id"`` (integer properties only) gives
        each its own vertex id.  With every vertex active (``active=None``) every vertex
        takes it.
    """

    default: Any
    at_active: Any

    def materialize(self, xp, n, dtype, active_ids):
        """The array this rule describes (``active_ids``: None = every vertex, else ids)."""
        a = xp.full(n, self.default, dtype=dtype)
        if active_ids is None:
            if isinstance(self.at_active, str):
                return xp.arange(n, dtype=dtype)
            a.fill(self.at_active)
            return a
        ids = xp.asarray(active_ids)
        if ids.shape[0]:
            if isinstance(self.at_active, str):
                a[ids] = ids.astype(dtype)
            else:
                a[ids] = self.at_active
        return a


class VertexProgram:
    """Base class of vertex programs (subclass it; instances may carry parameters).

    Class attributes
    ----------------
    edges : {"in", "out", "all"}
        The paper's ``Edges_type``: which neighbours a vertex gathers from.  ``"in"``: over
        in-edges ``u -> v`` (rows of ``A^T``, the default); ``"out"``: over out-edges
        ``v -> u`` (rows of ``A``); ``"all"``: both (an edge ``u -> v`` is gathered once by
        ``v`` from ``u`` and once by ``u`` from ``v``; a self-loop twice).  In every case
        ``src`` is the neighbour that sends and ``dst`` the vertex that receives.
    properties : dict
        ``{name: dtype}`` or ``{name: (dtype, default)}``: the per-vertex arrays (structure of
        arrays).  ``default`` (0 if not given) fills a property that ``init`` does not set.
    reduce : str, hp.Monoid, or (function, identity)
        The monoid combining gathered values (``"min"``, ``"plus"``, ``hp.monoid.max``,
        ``(lambda a, b: ..., identity)``).  Required.
    y_dtype : dtype, optional
        The dtype of ``y`` (the reduction).  Default: the dtype of ``gather``'s result as
        compiled for the property and edge dtypes; the gathered value is cast to ``y_dtype``.
    edge_dtype : dtype, optional
        The dtype ``edge`` has in ``gather``.  Default: the graph's weight dtype, or ``int32``
        (value 1) on an unweighted graph.
    apply_to : {"all", "received"}
        ``"all"``: ``update`` runs on every vertex every superstep; a vertex that received
        nothing sees ``y`` equal to the monoid's identity.  ``"received"``: a promise that
        ``update(v, identity)`` leaves ``v`` unchanged, so the engine may skip vertices that
        received nothing (or only the identity) -- what makes tiny supersteps cheap.
    gather_from : {"active", "all"}
        ``"active"`` (default): only vertices active in this superstep send (the paper's
        x_bitmask).  ``"all"``: every vertex sends every superstep; activity then only decides
        termination (PageRank-style programs, where skipping converged vertices would drop
        their contribution).  Implies pull.
    max_iterations : int, optional
        The paper's ``Max_iteration``; :func:`run`'s argument overrides it.  Default: no limit
        (until no vertex is active), or ``DEFAULT_MAX_ITERATIONS_NUMERIC`` for programs with a
        ``tolerance`` or a ``converged`` hook.
    tolerance : float or dict, optional
        Makes "changed" inexact: property ``p`` of ``v`` counts as changed only when
        ``abs(new - old) > tol`` (a dict gives a tolerance per property; a float applies to
        every floating-point property).  New values are written either way.
    priority : str, optional
        Process vertices in the order of this (numeric) property: near-far buckets, as
        delta-stepping SSSP does.  A vertex that changed joins the next frontier only while its
        value is within the current threshold (``<= threshold`` for ``priority_order="min"``,
        ``>= threshold`` for ``"max"``); the others wait in a far set.  When the frontier
        empties, the threshold moves to the best waiting value ``+ priority_delta`` (``-`` for
        ``"max"``) and the waiting vertices within it form the next frontier (a waiting NaN
        value is taken when nothing else waits).  The initial active set runs first, as one
        superstep.  For programs whose result does not depend on the order of work (min/max
        relaxations such as SSSP or widest path) the result is the same as without a priority,
        with far fewer wasted updates.  Default: None (every changed vertex runs next).
    priority_order : {"min", "max"}
        Smaller values first (``"min"``, the default: distances) or larger first (``"max"``:
        widths, capacities).
    priority_delta : number, optional
        The bucket width (> 0; an integer >= 1 for an integer property).  Default: the rule
        ``hp.sssp`` uses, ``128 * mean |edge weight| / mean degree`` (edge weight 1 on an
        unweighted graph), rounded up to 1 for integer properties.
    witness : str, optional
        An integer property the engine writes: whenever ``update`` changes a vertex ``v`` that
        received a value, ``witness[v]`` becomes a sender ``u`` whose gathered value equals
        ``y[v]`` -- the neighbour that won the reduction (BFS parents, SSSP predecessors).
        Needs a selecting monoid (``min``, ``max`` or ``any``); ``update`` must not write the
        property itself.  Under ties either winner may be recorded (the GPU may pick another
        one than the CPU; both are winners).

    Methods to define
    -----------------
    gather(src, edge, dst) -> value
        Compiled.  ``src``/``dst`` are property views (``src.dist``), ``edge`` the weight.
    update(v, y) -> dict or value
        Compiled.  The new property values (a dict ``{name: value}`` naming a subset of the
        properties, or a bare value when there is one property).  A vertex whose properties
        changed is active in the next superstep.
    mask(v) -> bool, optional
        Compiled.  May ``v`` receive in this superstep?  Evaluated on the properties as they
        are at the superstep's start.  Where it is false, ``v`` receives nothing (``y`` is the
        identity, as if no sender were active): a pull superstep skips ``v``'s whole row and a
        push superstep skips the atomic (and the gather) into ``v``.  A pure optimisation
        hint for programs whose ``update`` ignores such vertices anyway -- BFS's
        ``def mask(v): return v.depth < 0`` makes pull supersteps skip visited vertices --,
        but the semantics are exact on both backends either way.
    init(self, graph, **params) -> props | (props, active)
        Plain Python (PREPROCESS), called once per run with the parameters given to
        :func:`run`.  ``props`` maps property names to arrays of length ``n`` (NumPy or CuPy;
        copied to the run's side), scalars, or :class:`Seeded` values (one value everywhere,
        another on the initial active vertices: no array is built); ``active`` is ``None``/``"all"`` (every vertex),
        a vertex id, a sequence/array of ids, a bool array, or an ``hp.Bitmask``.  The default
        sets every property to its default and every vertex active.  ``init`` may also store
        scalars on ``self`` for the callbacks (below).
    converged(self, stats) -> bool, optional
        Plain Python, called after every superstep with a :class:`SuperstepStats`; returning
        True stops the run (``converged=True``).

    ``gather``, ``update`` and ``mask`` may be written with or without a leading ``self``; with it,
    ``self.<name>`` reads a scalar attribute of the program instance (set in ``__init__`` or
    ``init``), compiled in as a constant.  Callbacks use hpgraph's callback subset: arithmetic,
    comparisons, ``and``/``or``/``not``, ``a if c else b``, ``min``/``max``/``abs``, ``math.*``,
    constants, property access (see :mod:`hpgraph.compiler`).
    """

    edges = "in"
    properties: dict = {}
    reduce = None
    y_dtype = None
    edge_dtype = None
    apply_to = "all"
    gather_from = "active"
    max_iterations = None
    tolerance = None
    priority = None
    priority_order = "min"
    priority_delta = None
    witness = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Check what is already decidable at class-creation time so mistakes point at the
        # class statement; completeness (reduce, gather, update present) is checked by run(),
        # because an abstract intermediate base class may legitimately lack them.
        _check_attributes(cls, complete=False)

    def init(self, graph, **params):
        """PREPROCESS: initial properties and active set (default: defaults, all active)."""
        if params:
            raise InvalidValue(f"{type(self).__name__} takes no run parameters (its init() is the "
                               f"default); got {', '.join(sorted(params))}")
        return None

    @classmethod
    def validate(cls):
        """Check the program's structure now (raises :class:`InvalidProgram` or
        :class:`UnsupportedSyntax`); returns the class."""
        _check_attributes(cls, complete=True)
        return cls


# ---------------------------------------------------------------------------------------------
# Structural validation


@dataclass(frozen=True)
class PropertySpec:
    name: str
    dtype: np.dtype
    default: Any


def _class_of(program):
    return program if isinstance(program, type) else type(program)


def _prop_specs(cls) -> tuple:
    props = cls.__dict__.get("properties", getattr(cls, "properties", {}))
    if not isinstance(props, dict):
        raise InvalidProgram(f"{cls.__name__}.properties must be a dict {{name: dtype}}, "
                             f"got {type(props).__name__}")
    out = []
    for name, decl in props.items():
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) \
                or name.startswith("_"):
            raise InvalidProgram(f"{cls.__name__}.properties: property name {name!r} must be a "
                                 "Python identifier not starting with '_'")
        if isinstance(decl, tuple):
            if len(decl) != 2:
                raise InvalidProgram(f"{cls.__name__}.properties[{name!r}] must be a dtype or "
                                     f"(dtype, default), got {decl!r}")
            dt, default = decl
        else:
            dt, default = decl, 0
        try:
            dt = _dt.lookup_dtype(dt)
        except DomainMismatch as exc:
            raise InvalidProgram(f"{cls.__name__}.properties[{name!r}]: {exc}") from None
        try:
            default = np.array(default).astype(dt) if np.ndim(default) == 0 else None
        except (TypeError, ValueError):
            default = None
        if default is None:
            raise InvalidProgram(f"{cls.__name__}.properties[{name!r}]: default must be a scalar "
                                 f"convertible to {dt.name}")
        out.append(PropertySpec(name, dt, default[()]))
    return tuple(out)


def _callback(cls, name):
    """(function, takes_self) for callback ``name`` or (None, False)."""
    raw = inspect.getattr_static(cls, name, None)
    if raw is None:
        return None, False
    if isinstance(raw, staticmethod):
        fn = raw.__func__
        return fn, False
    if isinstance(raw, classmethod):
        raise InvalidProgram(f"{cls.__name__}.{name} must be a plain function, not a classmethod")
    if not inspect.isfunction(raw):
        raise InvalidProgram(f"{cls.__name__}.{name} must be a function, got {type(raw).__name__}")
    params = list(inspect.signature(raw).parameters)
    takes_self = bool(params) and params[0] == "self"
    return raw, takes_self


_ARITY = {"gather": ("src", "edge", "dst"), "update": ("v", "y"), "mask": ("v",)}


def _check_callback(cls, name, complete):
    fn, takes_self = _callback(cls, name)
    if fn is None:
        if complete:
            want = ", ".join(_ARITY[name])
            raise InvalidProgram(f"{cls.__name__} defines no {name}({want}); a vertex program "
                                 f"needs gather(src, edge, dst) and update(v, y)")
        return
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values()]
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty:
            raise InvalidProgram(f"{cls.__name__}.{name}: parameters must be plain positional "
                                 f"names without defaults, got {sig}")
    n = len(params) - (1 if takes_self else 0)
    if n != len(_ARITY[name]):
        want = ", ".join(_ARITY[name])
        raise InvalidProgram(f"{cls.__name__}.{name} must take ({want}) (optionally after self), "
                             f"got {name}{sig}")


def _check_attributes(cls, complete: bool):
    name = cls.__name__
    edges = getattr(cls, "edges", "in")
    if edges not in EDGES:
        raise InvalidProgram(f"{name}.edges must be one of {EDGES}, got {edges!r}")
    if getattr(cls, "apply_to", "all") not in APPLY_TO:
        raise InvalidProgram(f"{name}.apply_to must be one of {APPLY_TO}, got {cls.apply_to!r}")
    if getattr(cls, "gather_from", "active") not in GATHER_FROM:
        raise InvalidProgram(f"{name}.gather_from must be one of {GATHER_FROM}, "
                             f"got {cls.gather_from!r}")
    mi = getattr(cls, "max_iterations", None)
    if mi is not None and (not isinstance(mi, (int, np.integer)) or isinstance(mi, bool) or mi < 0):
        raise InvalidProgram(f"{name}.max_iterations must be a non-negative int or None, got {mi!r}")
    props = _prop_specs(cls)
    pnames = {p.name for p in props}
    tol = getattr(cls, "tolerance", None)
    if tol is not None:
        if isinstance(tol, dict):
            for k, v in tol.items():
                if k not in pnames:
                    raise InvalidProgram(f"{name}.tolerance names unknown property {k!r}; "
                                         f"properties are {sorted(pnames)}")
                _check_tol(name, v)
        else:
            _check_tol(name, tol)
    for attr in ("y_dtype", "edge_dtype"):
        v = getattr(cls, attr, None)
        if v is not None:
            try:
                _dt.lookup_dtype(v)
            except DomainMismatch as exc:
                raise InvalidProgram(f"{name}.{attr}: {exc}") from None
    _check_ordering(cls, name, props)
    if complete:
        if not props:
            raise InvalidProgram(f"{name}.properties is empty: declare at least one property, "
                                 "e.g. properties = {'dist': 'float32'}")
        if getattr(cls, "reduce", None) is None:
            raise InvalidProgram(f"{name} has no reduce: set reduce to a monoid name ('min', "
                                 "'plus', ...), an hp.Monoid, or a (function, identity) pair")
    for cb in ("gather", "update"):
        _check_callback(cls, cb, complete)
    _check_callback(cls, "mask", False)        # optional
    conv = inspect.getattr_static(cls, "converged", None)
    if conv is not None and not callable(conv) and not isinstance(conv, (staticmethod,
                                                                         classmethod)):
        raise InvalidProgram(f"{name}.converged must be a method converged(self, stats)")
    if complete:
        # syntax now (UnsupportedSyntax quoting the line), types later (they need the graph)
        from .engine import udf as _udf

        for cb in ("gather", "update", "mask"):
            fn, _ = _callback(cls, cb)
            if fn is not None:
                _udf.check_syntax(fn)


# Per-class results of the structural checks, reused while the class's attributes are
# unchanged: ``bind`` runs on every ``run`` call, and the checks (``inspect.signature`` of
# every callback, dtype lookups) cost ~0.1 ms -- a fifth of a small GPU run.
_SIG_ATTRS = ("edges", "properties", "reduce", "y_dtype", "edge_dtype", "apply_to",
              "gather_from", "max_iterations", "tolerance", "priority", "priority_order",
              "priority_delta", "witness", "gather", "update", "mask", "converged", "init")
_CHECKED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_CHECKED_LOCK = threading.Lock()


def _class_signature(cls):
    """A hashable snapshot of what the checks read (None when something is unhashable)."""
    vals = []
    for a in _SIG_ATTRS:
        v = getattr(cls, a, None)
        if isinstance(v, dict):
            v = ("<dict>", tuple(v.items()))
        vals.append(v)
    sig = tuple(vals)
    try:
        hash(sig)
    except TypeError:
        return None
    return sig


@dataclass(frozen=True)
class _CheckedClass:
    signature: tuple
    specs: tuple
    monoid: Any
    callbacks: dict          # name -> (function, takes_self) or (None, False)
    init_params: tuple       # (accepts **kw, names init accepts)


def _checked(cls) -> _CheckedClass:
    """Validate ``cls`` completely (cached per class while its attributes are unchanged)."""
    sig = _class_signature(cls)
    with _CHECKED_LOCK:
        hit = _CHECKED.get(cls)
    if hit is not None and sig is not None and hit.signature == sig:
        return hit
    _check_attributes(cls, complete=True)
    init = inspect.signature(cls.init)
    params = list(init.parameters.values())
    accepts_kw = any(q.kind == q.VAR_KEYWORD for q in params)
    monoid = _resolve_monoid(cls)
    _check_witness_monoid(cls, monoid)
    out = _CheckedClass(sig, _prop_specs(cls), monoid,
                        {cb: _callback(cls, cb) for cb in ("gather", "update", "mask")},
                        (accepts_kw, tuple(q.name for q in params)))
    if sig is not None:
        with _CHECKED_LOCK:
            _CHECKED[cls] = out
    return out


PRIORITY_ORDERS = ("min", "max")
#: Monoids that select one of their operands, so a winner exists (``witness``).
SELECTING = ("min", "max", "any")


def _check_ordering(cls, name, props):
    """``priority`` / ``priority_order`` / ``priority_delta`` / ``witness`` (what needs no graph)."""
    by_name = {p.name: p for p in props}
    prio = getattr(cls, "priority", None)
    if prio is not None:
        if not isinstance(prio, str) or prio not in by_name:
            raise InvalidProgram(f"{name}.priority must name one of its properties "
                                 f"{sorted(by_name)}, got {prio!r}")
        if by_name[prio].dtype.kind not in "iuf":
            raise InvalidProgram(f"{name}.priority: property {prio!r} has dtype "
                                 f"{by_name[prio].dtype.name}, which cannot be ordered by "
                                 "buckets; expected an integer or floating-point property")
        if getattr(cls, "gather_from", "active") == "all":
            raise InvalidProgram(f"{name}.priority needs gather_from='active' (with "
                                 "gather_from='all' every vertex sends every superstep, so "
                                 "there is nothing to order)")
    order = getattr(cls, "priority_order", "min")
    if order not in PRIORITY_ORDERS:
        raise InvalidProgram(f"{name}.priority_order must be one of {PRIORITY_ORDERS}, "
                             f"got {order!r}")
    delta = getattr(cls, "priority_delta", None)
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, (int, float, np.integer, np.floating)) \
                or not (delta > 0) or math.isinf(float(delta)):
            raise InvalidProgram(f"{name}.priority_delta must be a finite number > 0 or None, "
                                 f"got {delta!r}")
        if prio is not None and by_name[prio].dtype.kind in "iu" and float(delta) != int(delta):
            raise InvalidProgram(f"{name}.priority_delta must be a whole number for the integer "
                                 f"property {prio!r}, got {delta!r}")
    wit = getattr(cls, "witness", None)
    if wit is not None:
        if not isinstance(wit, str) or wit not in by_name:
            raise InvalidProgram(f"{name}.witness must name one of its properties "
                                 f"{sorted(by_name)}, got {wit!r}")
        if by_name[wit].dtype.kind not in "iu":
            raise InvalidProgram(f"{name}.witness: property {wit!r} has dtype "
                                 f"{by_name[wit].dtype.name}; a witness holds vertex ids, "
                                 "expected an integer property (e.g. 'int32' or 'int64')")


def _check_witness_monoid(cls, monoid):
    """A witness needs a selecting monoid: one whose result is one of its operands."""
    wit = getattr(cls, "witness", None)
    if wit is None:
        return
    parent = getattr(monoid, "parent", monoid)
    builtin = getattr(parent, "is_builtin", False)
    if not builtin or getattr(monoid, "name", None) not in SELECTING:
        raise InvalidProgram(f"{cls.__name__}.witness = {wit!r} needs a selecting reduce "
                             f"(one of {SELECTING}: the winner is the sender whose value the "
                             f"reduction kept); reduce is {getattr(monoid, 'name', monoid)!r}")


def _check_tol(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not v >= 0 or math.isinf(float(v)):
        raise InvalidProgram(f"{name}.tolerance must be a finite number >= 0 (or a dict of them), "
                             f"got {v!r}")


def _resolve_monoid(cls):
    """The untyped monoid of ``cls.reduce`` (clear errors for everything else)."""
    from .ops import Monoid, lookup_monoid

    red = cls.reduce
    if isinstance(red, tuple):
        if len(red) != 2 or not callable(red[0]):
            raise InvalidProgram(f"{cls.__name__}.reduce as a tuple must be (function, identity), "
                                 f"got {red!r}")
        fn, ident = red
        try:
            return Monoid(fn, ident, name=getattr(fn, "__name__", "reduce").replace("<lambda>",
                                                                                   "reduce"))
        except (UnsupportedSyntax, UdfTypeError):
            raise
        except HpgraphError as exc:
            raise InvalidProgram(f"{cls.__name__}.reduce: {exc}") from None
    if callable(red) and not isinstance(red, (str, Monoid)) and not hasattr(red, "c_add") \
            and not hasattr(red, "binaryop"):
        raise InvalidProgram(f"{cls.__name__}.reduce is a bare function; give its identity too: "
                             f"reduce = (func, identity)")
    try:
        return lookup_monoid(red)
    except HpgraphError as exc:
        raise InvalidProgram(f"{cls.__name__}.reduce: {exc}") from None


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class SuperstepStats:
    """What a ``converged(self, stats)`` hook sees after each superstep.

    Attributes
    ----------
    superstep : int
        0-based index of the superstep just finished.
    active : int
        Vertices that were active (sent) in it.
    changed : int
        Vertices whose properties changed (active in the next superstep).
    direction : str
        ``"push"`` or ``"pull"``.
    properties : dict
        The properties after the superstep (read-only; NumPy or CuPy).
    previous : dict
        The properties before it.
    """

    superstep: int
    active: int
    changed: int
    direction: str
    properties: dict
    previous: dict


@dataclass
class RunResult:
    """The outcome of :func:`run`.

    Attributes
    ----------
    properties : dict
        ``{name: array}`` final properties (NumPy on the CPU, CuPy on the GPU); also readable
        as ``result.<name>`` and ``result[name]``.
    supersteps : int
        Supersteps executed (each with at least one active vertex).
    active : list of int
        Active vertices at the start of each superstep.
    directions : list of str
        ``"push"`` or ``"pull"`` for each superstep.
    frontier_edges : list of int
        Edges the frontier would push along (the direction heuristic's input) per superstep.
    converged : bool
        False when the run stopped at ``max_iterations`` with vertices still active.
    time : float
        Wall seconds of the superstep loop (PREPROCESS and compilation excluded).
    setup_time : float
        Wall seconds of PREPROCESS (init, compilation, buffer allocation, transfers).  On the
        GPU: host time until the first superstep is launched (device-side setup work overlaps
        and counts in ``time``).
    backend : str
        ``"cpu"`` or ``"gpu"``.
    syncs : int
        Host synchronisations in the loop (GPU: one small counter read per batch).
    """

    properties: dict
    supersteps: int
    active: list
    directions: list
    frontier_edges: list
    converged: bool
    time: float
    setup_time: float = 0.0
    backend: str = "cpu"
    syncs: int = 0
    extra: dict = field(default_factory=dict)

    def __getitem__(self, name):
        return self.properties[name]

    def __getattr__(self, name):
        props = self.__dict__.get("properties")
        if props is not None and name in props:
            return props[name]
        raise AttributeError(f"RunResult has no attribute or property {name!r}")

    def to_host(self) -> "RunResult":
        """A copy with NumPy property arrays."""
        import copy

        r = copy.copy(self)
        r.properties = {k: _backend.to_host(v) for k, v in self.properties.items()}
        return r

    def __repr__(self):
        props = ", ".join(f"{k}: {getattr(v, 'dtype', '?')}[{len(v)}]"
                          for k, v in self.properties.items())
        return (f"RunResult({props}; supersteps={self.supersteps}, converged={self.converged}, "
                f"backend={self.backend!r}, time={self.time * 1e3:.3f} ms)")


# ---------------------------------------------------------------------------------------------
# The bound program: a program checked and typed against one graph.


@dataclass
class BoundProgram:
    """A program checked against a graph: everything the engines need (internal)."""

    name: str
    instance: Any
    edges: str
    props: tuple                # PropertySpec
    monoid: Any                 # TypedMonoid at y_dtype
    y_dtype: np.dtype
    edge_dtype: np.dtype
    weighted: bool
    apply_to: str
    gather_from: str
    tolerances: dict            # name -> float (only properties with an inexact test)
    max_iterations: int | None
    converged_hook: Any         # bound method or None
    kernels: Any                # engine.udf.CompiledCallbacks
    init_props: dict            # name -> host or device array (length n), a NumPy scalar
                                # of the property's dtype (every vertex; engines fill on
                                # their side -- no host array of n values), or a Seeded
                                # with both values cast to the dtype
    init_active: Any            # None (every vertex) or sorted distinct int64 vertex ids
                                # (NumPy, or CuPy when init gave a device bool array/Bitmask)
    code_key: tuple = ()        # hashable: equal keys give the same generated GPU code
    outputs: tuple | None = None  # properties the caller reads (None: all); engines return
                                  # only these and need not copy the others out
    priority: str | None = None   # property ordering the frontier (near-far), or None
    priority_order: str = "min"   # "min": smaller values first; "max": larger first
    priority_delta: Any = None    # bucket width, a NumPy scalar of the property's dtype
    witness: str | None = None    # integer property the engines write with the winner
    superstep_cap: int | None = None  # with no max_iterations: more supersteps than this
                                      # raise SuperstepLimitExceeded (set by run())

    def active_bool(self, n):
        """The initial active set as a host bool array (the CPU engine's form)."""
        from . import backend as _be

        if self.init_active is None:
            return np.ones(n, dtype=bool)
        b = np.zeros(n, dtype=bool)
        b[np.asarray(_be.to_host(self.init_active))] = True
        return b


def _init_outputs(prog, cls, graph, params, specs, n, init_params=None):
    if init_params is None or getattr(prog.init, "__func__", None) is not cls.init:
        sig = inspect.signature(prog.init)
        accepts_kw = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
        names = tuple(sig.parameters)
    else:  # the class's init, signature known (unbound there: drop self)
        accepts_kw, names = init_params[0], init_params[1][1:]
    if not accepts_kw:
        unknown = [k for k in params if k not in names]
        if unknown:
            known = list(names[1:])
            raise InvalidValue(f"run() got parameter(s) {', '.join(map(repr, unknown))} that "
                               f"{cls.__name__}.init does not accept (it accepts: "
                               f"{', '.join(known) or 'nothing'})")
    out = prog.init(graph, **params)
    if out is None:
        props, active = {}, None
    elif isinstance(out, tuple):
        if len(out) != 2:
            raise InvalidProgram(f"{cls.__name__}.init must return props or (props, active), "
                                 f"got a tuple of {len(out)}")
        props, active = out
        props = {} if props is None else props
    else:
        props, active = out, None
    if not isinstance(props, dict):
        raise InvalidProgram(f"{cls.__name__}.init must return a dict of properties (or "
                             f"(dict, active)), got {type(props).__name__}")
    names = {p.name for p in specs}
    for k in props:
        if k not in names:
            raise InvalidProgram(f"{cls.__name__}.init set unknown property {k!r}; declared: "
                                 f"{sorted(names)}")
    arrays = {}
    for p in specs:
        # scalars stay scalars (cast exactly as np.full would): the engine fills its own
        # buffer on its side -- a host array of n values would be uploaded on every GPU run
        if p.name not in props or props[p.name] is None:
            arrays[p.name] = np.full(1, p.default, dtype=p.dtype)[0]
            continue
        v = props[p.name]
        if isinstance(v, Seeded):
            arrays[p.name] = _checked_seed(cls, p, v, n)
            continue
        if np.ndim(v) == 0 and not _backend.is_device_array(v):
            arrays[p.name] = np.full(1, v, dtype=p.dtype)[0]
            continue
        if tuple(getattr(v, "shape", (len(v),))) != (n,):
            raise InvalidProgram(f"{cls.__name__}.init: property {p.name!r} has shape "
                                 f"{getattr(v, 'shape', None)}, expected ({n},)")
        arrays[p.name] = v  # converted (and copied) by the engine; never written in place
    return arrays, _active_ids(active, n, cls)


def _checked_seed(cls, spec, v, n):
    """``v`` with both values cast as ``np.full`` would (``"id"``: integer properties whose
    dtype holds every vertex id)."""
    where = f"{cls.__name__}.init: property {spec.name!r}"
    try:
        default = np.full(1, v.default, dtype=spec.dtype)[0]
    except (TypeError, ValueError):
        raise InvalidProgram(f"{where}: Seeded default {v.default!r} is not a scalar "
                             f"convertible to {spec.dtype.name}") from None
    if isinstance(v.at_active, str):
        if v.at_active != "id":
            raise InvalidProgram(f"{where}: Seeded at_active must be a scalar or 'id', got "
                                 f"{v.at_active!r}")
        if spec.dtype.kind not in "iu" or (n and np.iinfo(spec.dtype).max < n - 1):
            raise InvalidProgram(f"{where}: Seeded(..., 'id') needs an integer dtype holding "
                                 f"vertex ids up to {n - 1}, got {spec.dtype.name}")
        return Seeded(default, "id")
    try:
        seed = np.full(1, v.at_active, dtype=spec.dtype)[0]
    except (TypeError, ValueError):
        raise InvalidProgram(f"{where}: Seeded at_active {v.at_active!r} is not a scalar "
                             f"convertible to {spec.dtype.name}") from None
    return Seeded(default, seed)


def _active_ids(active, n, cls):
    """None (every vertex) or sorted distinct int64 ids; device bool arrays / Bitmasks stay
    on the device (one flatnonzero there instead of a host round trip of n bools)."""
    if active is None or (isinstance(active, str) and active == "all"):
        return None
    if hasattr(active, "to_bool") and hasattr(active, "words"):  # Bitmask
        if len(active) != n:
            raise InvalidProgram(f"{cls.__name__}.init: active Bitmask has {len(active)} "
                                 f"vertices, expected {n}")
        return active.to_indices().astype(np.int64)
    if _backend.is_device_array(active) and active.dtype == bool:
        if active.shape != (n,):
            raise InvalidProgram(f"{cls.__name__}.init: active bool array has shape "
                                 f"{active.shape}, expected ({n},)")
        return _backend.cupy().flatnonzero(active).astype(np.int64)
    a = _backend.to_host(active)
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        a = np.array([a])
    a = np.asarray(a)
    if a.dtype == bool:
        if a.shape != (n,):
            raise InvalidProgram(f"{cls.__name__}.init: active bool array has shape {a.shape}, "
                                 f"expected ({n},)")
        return np.flatnonzero(a).astype(np.int64)
    if a.size and a.dtype.kind not in "iu":
        raise InvalidProgram(f"{cls.__name__}.init: active must be vertex ids, a bool array, a "
                             f"Bitmask, None or 'all'; got dtype {a.dtype}")
    a = a.reshape(-1).astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= n):
        bad = a[(a < 0) | (a >= n)][0]
        raise IndexOutOfBound(f"{cls.__name__}.init: active vertex {bad} is outside [0, {n})")
    if a.size > 1:
        a = np.unique(a)
    return a


def bind(program, graph, params, max_iterations=None, outputs=None) -> BoundProgram:
    """Validate ``program`` against ``graph``, run its init, compile its callbacks (internal)."""
    from .engine import udf as _udf

    cls = _class_of(program)
    if not issubclass(cls, VertexProgram):
        raise InvalidProgram(f"run() expects a VertexProgram subclass or instance, got "
                             f"{cls.__name__}")
    chk = _checked(cls)
    prog = program() if isinstance(program, type) else program
    specs = chk.specs
    n = int(graph.num_vertices)
    monoid_untyped = chk.monoid

    props0, active0 = _init_outputs(prog, cls, graph, params, specs, n, chk.init_params)

    weighted = bool(getattr(graph, "weighted", False))
    if cls.edge_dtype is not None:
        edge_dt = _dt.lookup_dtype(cls.edge_dtype)
    elif weighted and graph.dtype is not None:
        edge_dt = _dt.lookup_dtype(graph.dtype)
    else:
        edge_dt = np.dtype(np.int32)

    gather_fn, gather_self = chk.callbacks["gather"]
    update_fn, update_self = chk.callbacks["update"]
    mask_fn, mask_self = chk.callbacks["mask"]
    kernels = _udf.compile_callbacks(
        cls.__name__, prog, specs, edge_dt,
        gather_fn, gather_self, update_fn, update_self,
        y_dtype=None if cls.y_dtype is None else _dt.lookup_dtype(cls.y_dtype),
        monoid=monoid_untyped, mask_fn=mask_fn, mask_self=mask_self)

    tol = cls.tolerance
    tolerances = {}
    if tol is not None:
        if isinstance(tol, dict):
            tolerances = {k: float(v) for k, v in tol.items()}
        else:
            tolerances = {p.name: float(tol) for p in specs if p.dtype.kind == "f"}
    conv = getattr(prog, "converged", None)
    conv = conv if callable(conv) else None
    if max_iterations is None:
        max_iterations = cls.max_iterations
    if max_iterations is None and (tolerances or conv is not None):
        max_iterations = DEFAULT_MAX_ITERATIONS_NUMERIC
    if max_iterations is not None:
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) \
                or max_iterations < 0:
            raise InvalidValue(f"max_iterations must be a non-negative int or None, got "
                               f"{max_iterations!r}")
        max_iterations = int(max_iterations)
    priority, delta, witness = _bind_ordering(cls, specs, kernels, graph, n)
    code_key = (cls.__name__, kernels.key, cls.edges, weighted, cls.apply_to, cls.gather_from,
                tuple(sorted(tolerances.items())), priority, cls.priority_order, witness)
    if outputs is not None:
        if isinstance(outputs, str):
            outputs = (outputs,)
        outputs = tuple(outputs)
        names = [p.name for p in specs]
        bad = [k for k in outputs if k not in names]
        if bad:
            raise InvalidValue(f"outputs names unknown property {bad[0]!r}; {cls.__name__} "
                               f"declares {names}")
        outputs = tuple(k for k in names if k in outputs)
    return BoundProgram(
        name=cls.__name__, instance=prog, edges=cls.edges, props=specs, monoid=kernels.monoid,
        y_dtype=kernels.y_dtype, edge_dtype=edge_dt, weighted=weighted, apply_to=cls.apply_to,
        gather_from=cls.gather_from, tolerances=tolerances, max_iterations=max_iterations,
        converged_hook=conv, kernels=kernels, init_props=props0, init_active=active0,
        code_key=code_key, outputs=outputs, priority=priority,
        priority_order=cls.priority_order, priority_delta=delta, witness=witness)


def default_priority_delta(graph) -> float:
    """The bucket width of near-far ordering when a program gives none: ``128 * mean |edge
    weight| / mean degree`` (Davidson et al.'s rule with the factor ``hp.sssp`` measured best;
    weight 1 on an unweighted graph)."""
    n = int(graph.num_vertices)
    m = int(graph.A.nnz)
    if n == 0 or m == 0:
        return 1.0
    mean_w = 1.0
    if getattr(graph, "weighted", False) and getattr(graph.A, "values", None) is not None:
        xp = _backend.get_array_module(graph.A.values)
        vals = graph.A.values
        mean_w = float(xp.abs(vals[xp.isfinite(vals)]).astype(xp.float64).mean()) \
            if vals.size else 1.0
        if not math.isfinite(mean_w) or mean_w <= 0:
            mean_w = 1.0
    return 128.0 * mean_w / (m / n)


def _bind_ordering(cls, specs, kernels, graph, n):
    """(priority, delta as a scalar of the priority's dtype, witness) checked against the
    compiled callbacks and the graph."""
    by_name = {p.name: p for p in specs}
    wit = cls.witness
    if wit is not None:
        if wit in kernels.update_outputs:
            raise InvalidProgram(f"{cls.__name__}.update writes {wit!r}, its witness property; "
                                 "the engine writes the witness (the winning sender) itself: "
                                 "drop it from update's result")
        dt = by_name[wit].dtype
        if n and np.iinfo(dt).max < n - 1:
            raise InvalidProgram(f"{cls.__name__}.witness: property {wit!r} ({dt.name}) cannot "
                                 f"hold vertex ids up to {n - 1}; declare it int64")
    prio = cls.priority
    if prio is None:
        return None, None, wit
    dt = by_name[prio].dtype
    delta = cls.priority_delta
    if delta is None:
        delta = default_priority_delta(graph)
    if dt.kind in "iu":
        delta = max(1, int(math.ceil(float(delta))))
        delta = min(delta, int(np.iinfo(dt).max))
    return prio, np.array(delta).astype(dt)[()], wit


# ---------------------------------------------------------------------------------------------
# run


def run(program, graph, *, backend=None, direction="auto", max_iterations=None,
        push_alpha=None, outputs=None, **params) -> RunResult:
    """Run a vertex program on a graph until no vertex is active (or ``max_iterations``).

    Parameters
    ----------
    program : VertexProgram subclass or instance
    graph : hp.Graph
        Any side; the run happens on ``backend``'s side (the graph is copied if needed).
    backend : {"auto", "cpu", "gpu", None}
        ``None``/``"auto"``: the GPU when usable (or when the graph lives there), else the CPU.
    direction : {"auto", "push", "pull"}
        Per-superstep choice of traversal.  ``"pull"``: every vertex scans its gather-side
        edges (rows of the pull matrix), inactive senders skipped through the x_bitmask;
        ``"push"``: active vertices scatter along their edges with atomic reduction (needs a
        monoid with an atomic form).  ``"auto"`` pushes while the frontier's edge count is
        small (``frontier_edges * push_alpha < pull_edges + n``).  All give the same result
        (floating-point sums may round differently on the GPU, where atomics reorder them).
    max_iterations : int, optional
        Overrides the program's ``max_iterations``.
    push_alpha : float, optional
        The direction heuristic's constant (default ``hp.config["push_alpha"]``).
    outputs : sequence of str, optional
        The properties the caller will read (default: all).  Only these are returned; the GPU
        engine neither copies nor hands over the others (saves a copy of ``n`` values per
        property and call).
    **params
        Passed to the program's ``init``.

    Returns
    -------
    RunResult
        Properties (NumPy or CuPy arrays, on the run's side) and statistics.

    Raises
    ------
    InvalidProgram, UnsupportedSyntax, UdfTypeError
        A malformed program (missing reduce, unknown property, bad callback syntax or types).
    InvalidValue
        Bad ``direction``/``max_iterations``/parameters; ``direction="push"`` with a monoid
        that has no atomic form or with ``gather_from="all"``.
    SuperstepLimitExceeded
        A program without ``max_iterations`` still had active vertices after
        ``hp.config["max_supersteps"]`` supersteps (default ``10 * n + 1000``).
    """
    if direction not in DIRECTIONS:
        raise InvalidValue(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    from ._config import config

    if push_alpha is None:
        push_alpha = config["push_alpha"]
    if not isinstance(push_alpha, (int, float)) or not push_alpha > 0:
        raise InvalidValue(f"push_alpha must be a positive number, got {push_alpha!r}")
    side = _backend.resolve(backend, _graph_probe_array(graph))
    t0 = time.perf_counter()
    g = graph.to_device() if side == "gpu" else graph.to_host()
    bp = bind(program, g, params, max_iterations, outputs)
    if bp.max_iterations is None:
        cap = config["max_supersteps"]
        bp.superstep_cap = 10 * int(g.num_vertices) + 1000 if cap is None else cap
    if direction == "push":
        if bp.monoid.atomic is None:
            raise InvalidValue(f"direction='push' needs a monoid with an atomic form; "
                               f"{bp.monoid!r} has none (8/16-bit or bool dtype): use 'pull' "
                               "or 'auto'")
        if bp.gather_from == "all":
            raise InvalidValue(f"{bp.name}.gather_from='all' sends from every vertex every "
                               "superstep, which is a pull; direction='push' is not available")
    if side == "gpu":
        from .engine import gpu as _eng
    else:
        from .engine import cpu as _eng
    res = _eng.execute(bp, g, direction=direction, push_alpha=float(push_alpha), t_start=t0)
    if config["trace"]:
        _trace(bp, res)
    return res


def _trace(bp, res):
    """Log a run's supersteps (``hp.config["trace"]``) to the "hpgraph.engine" logger."""
    import logging

    log = logging.getLogger("hpgraph.engine")
    loop = res.extra.get("loop", "host") if res.backend == "gpu" else "cpu"
    log.info("run %s on %s (%s loop): %d supersteps, %.3f ms loop, %.3f ms setup%s", bp.name,
             res.backend, loop, res.supersteps, res.time * 1e3, res.setup_time * 1e3,
             f", fallback: {res.extra['loop_fallback']}" if "loop_fallback" in res.extra else "")
    for i, (a, d, e) in enumerate(zip(res.active, res.directions, res.frontier_edges)):
        log.info("  superstep %d: %s, frontier %d vertices (%s), %d frontier edges", i, d, a,
                 "queue" if d == "push" else "bitmap", e)


def _graph_probe_array(graph):
    """An array of ``graph`` that says which side it lives on (for backend="auto")."""
    try:
        return graph.A.indptr
    except Exception:
        return None
