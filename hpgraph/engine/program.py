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
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..exceptions import (
    DomainMismatch,
    HpgraphError,
    InvalidProgram,
    InvalidValue,
    UdfTypeError,
    UnsupportedSyntax,
)
from .results import RunResult, SuperstepStats

__all__ = ["VertexProgram", "Seeded", "RunResult", "SuperstepStats", "PropertySpec"]


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

    Attributes
    ----------
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
    mask_excludes_active : bool
        Declares that ``mask(v)`` is False for every active vertex (a vertex that changed
        never receives again, as BFS's ``depth < 0``).  With an ``any`` reduce applied to the
        receivers, one gather side and no priority, the GPU then runs a push superstep as one
        launch: the first sender to reach a receiver runs its update at once.  The CPU engine
        checks the declaration every superstep and raises ``InvalidProgram`` where it does not
        hold.  Default: False.

    Methods
    -------
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
    mask_excludes_active = False

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
    props = cls.__dict__.get("properties", cls.properties)
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
    edges = cls.edges
    if edges not in EDGES:
        raise InvalidProgram(f"{name}.edges must be one of {EDGES}, got {edges!r}")
    if cls.apply_to not in APPLY_TO:
        raise InvalidProgram(f"{name}.apply_to must be one of {APPLY_TO}, got {cls.apply_to!r}")
    if cls.gather_from not in GATHER_FROM:
        raise InvalidProgram(f"{name}.gather_from must be one of {GATHER_FROM}, "
                             f"got {cls.gather_from!r}")
    mi = cls.max_iterations
    if mi is not None and (not isinstance(mi, (int, np.integer)) or isinstance(mi, bool) or mi < 0):
        raise InvalidProgram(f"{name}.max_iterations must be a non-negative int or None, got {mi!r}")
    props = _prop_specs(cls)
    pnames = {p.name for p in props}
    tol = cls.tolerance
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
        v = getattr(cls, attr)
        if v is not None:
            try:
                _dt.lookup_dtype(v)
            except DomainMismatch as exc:
                raise InvalidProgram(f"{name}.{attr}: {exc}") from None
    _check_ordering(cls, name, props)
    if not isinstance(cls.mask_excludes_active, (bool, np.bool_)):
        raise InvalidProgram(f"{name}.mask_excludes_active must be True or False, got "
                             f"{cls.mask_excludes_active!r}")
    if cls.mask_excludes_active and "mask" in vars(cls) and "mask_excludes_active" not in vars(cls):
        raise InvalidProgram(f"{name} defines its own mask and inherits mask_excludes_active=True: "
                             "set mask_excludes_active in the class too (True only if the new "
                             "mask is false on every active vertex)")
    if complete and cls.mask_excludes_active and _callback(cls, "mask")[0] is None:
        raise InvalidProgram(f"{name}.mask_excludes_active is True but {name} defines no mask")
    if complete:
        if not props:
            raise InvalidProgram(f"{name}.properties is empty: declare at least one property, "
                                 "e.g. properties = {'dist': 'float32'}")
        if cls.reduce is None:
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
        from . import udf as _udf

        for cb in ("gather", "update", "mask"):
            fn, _ = _callback(cls, cb)
            if fn is not None:
                _udf.check_syntax(fn)


# Per-class results of the structural checks, reused while the class's attributes are
# unchanged: ``bind`` runs on every ``run`` call, and the checks (``inspect.signature`` of
# every callback, dtype lookups) cost ~0.1 ms -- a fifth of a small GPU run.
_SIG_ATTRS = ("edges", "properties", "reduce", "y_dtype", "edge_dtype", "apply_to",
              "gather_from", "max_iterations", "tolerance", "priority", "priority_order",
              "priority_delta", "witness", "mask_excludes_active", "gather", "update", "mask",
              "converged", "init")
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
    prio = cls.priority
    if prio is not None:
        if not isinstance(prio, str) or prio not in by_name:
            raise InvalidProgram(f"{name}.priority must name one of its properties "
                                 f"{sorted(by_name)}, got {prio!r}")
        if by_name[prio].dtype.kind not in "iuf":
            raise InvalidProgram(f"{name}.priority: property {prio!r} has dtype "
                                 f"{by_name[prio].dtype.name}, which cannot be ordered by "
                                 "buckets; expected an integer or floating-point property")
        if cls.gather_from == "all":
            raise InvalidProgram(f"{name}.priority needs gather_from='active' (with "
                                 "gather_from='all' every vertex sends every superstep, so "
                                 "there is nothing to order)")
    order = cls.priority_order
    if order not in PRIORITY_ORDERS:
        raise InvalidProgram(f"{name}.priority_order must be one of {PRIORITY_ORDERS}, "
                             f"got {order!r}")
    delta = cls.priority_delta
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, (int, float, np.integer, np.floating)) \
                or not (delta > 0) or math.isinf(float(delta)):
            raise InvalidProgram(f"{name}.priority_delta must be a finite number > 0 or None, "
                                 f"got {delta!r}")
        if prio is not None and by_name[prio].dtype.kind in "iu" and float(delta) != int(delta):
            raise InvalidProgram(f"{name}.priority_delta must be a whole number for the integer "
                                 f"property {prio!r}, got {delta!r}")
    wit = cls.witness
    if wit is not None:
        if not isinstance(wit, str) or wit not in by_name:
            raise InvalidProgram(f"{name}.witness must name one of its properties "
                                 f"{sorted(by_name)}, got {wit!r}")
        if by_name[wit].dtype.kind not in "iu":
            raise InvalidProgram(f"{name}.witness: property {wit!r} has dtype "
                                 f"{by_name[wit].dtype.name}; a witness holds vertex ids, "
                                 "expected an integer property (e.g. 'int32' or 'int64')")


def _check_witness_monoid(cls, monoid):
    """A witness needs a selecting monoid: one whose result is one of its operands.
    ``monoid``: the untyped :class:`~hpgraph.ops.Monoid` that :func:`_resolve_monoid` gave."""
    wit = cls.witness
    if wit is None:
        return
    if not monoid.is_builtin or monoid.name not in SELECTING:
        raise InvalidProgram(f"{cls.__name__}.witness = {wit!r} needs a selecting reduce "
                             f"(one of {SELECTING}: the winner is the sender whose value the "
                             f"reduction kept); reduce is {monoid.name!r}")


def _check_tol(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or not v >= 0 or math.isinf(float(v)):
        raise InvalidProgram(f"{name}.tolerance must be a finite number >= 0 (or a dict of them), "
                             f"got {v!r}")


def _resolve_monoid(cls):
    """The untyped monoid of ``cls.reduce`` (clear errors for everything else)."""
    from ..ops import BinaryOp, Monoid, TypedBinaryOp, TypedMonoid, lookup_monoid

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
    # hpgraph's operators (a typed binary op is callable too) go to lookup_monoid
    if callable(red) and not isinstance(red, (str, Monoid, TypedMonoid, BinaryOp, TypedBinaryOp)):
        raise InvalidProgram(f"{cls.__name__}.reduce is a bare function; give its identity too: "
                             f"reduce = (func, identity)")
    try:
        mon = lookup_monoid(red)
    except HpgraphError as exc:
        raise InvalidProgram(f"{cls.__name__}.reduce: {exc}") from None
    # a typed monoid (hp.monoid.min["float32"]) names its operator; the program's dtypes type it
    if isinstance(mon, Monoid):
        return mon
    if mon.parent is None:
        raise InvalidProgram(f"{cls.__name__}.reduce: {mon!r} has no untyped monoid; give the "
                             "monoid itself (for example hp.monoid.min)")
    return mon.parent


