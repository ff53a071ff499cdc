"""A vertex program checked and typed against one graph (:func:`bind`): the engines' input.

``bind`` validates the program class (cached per class), runs its ``init`` (PREPROCESS),
compiles its callbacks for the graph's dtypes (:mod:`.udf`) and resolves the ordering
features (``priority``, ``witness``) into a :class:`BoundProgram`.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import backend as _backend
from .. import dtypes as _dt
from .._config import config
from ..exceptions import IndexOutOfBound, InvalidProgram, InvalidValue
from . import udf as _udf
from .common import matrix_names
from .program import (
    DEFAULT_MAX_ITERATIONS_NUMERIC,
    Seeded,
    VertexProgram,
    _checked,
    _class_of,
)

__all__ = ["BoundProgram", "bind", "default_priority_delta"]

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
    mask_excludes_active: bool = False  # declared: mask(v) is False for every active vertex
    superstep_cap: int | None = None  # with no max_iterations: more supersteps than this
                                      # raise SuperstepLimitExceeded (set by run())
    relax: str | None = None          # the property the program relaxes (engine.relax), or
                                      # None: its pushes may then apply as they push

    def active_bool(self, n):
        """The initial active set as a host bool array (the CPU engine's form)."""
        from .. import backend as _be

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
            try:
                arrays[p.name] = np.full(1, v, dtype=p.dtype)[0]
            except (TypeError, ValueError, OverflowError):
                raise InvalidProgram(f"{cls.__name__}.init: property {p.name!r} value {v!r} "
                                     f"is not a scalar convertible to {p.dtype.name}") from None
            continue
        if tuple(getattr(v, "shape", (len(v),))) != (n,):
            raise InvalidProgram(f"{cls.__name__}.init: property {p.name!r} has shape "
                                 f"{getattr(v, 'shape', None)}, expected ({n},)")
        arrays[p.name] = v  # converted (and copied) by the engine; never written in place
    return arrays, _active_ids(active, n, cls)


#: _checked_seed's results for the rules programs give on every call (``Seeded(-1, 0)``):
#: keyed by the values, their types (``1`` and ``1.0`` cast alike but may not raise alike) and
#: the signs of floats (``0.0 == -0.0``); only plain scalars (a tuple or a complex number
#: holding ``-0.0`` equals one holding ``0.0``, so they are cast afresh each call)
_SEEDS: dict = {}
_SEED_TYPES = (bool, int, str, np.bool_, np.integer)


def _seed_key(x):
    if isinstance(x, (float, np.floating)):
        return (type(x), x, math.copysign(1.0, x))
    if isinstance(x, _SEED_TYPES):
        return (type(x), x)
    raise TypeError("not cached")


def _checked_seed(cls, spec, v, n):
    """``v`` with both values cast as ``np.full`` would (``"id"``: integer properties whose
    dtype holds every vertex id)."""
    try:
        key = (spec.dtype, n, _seed_key(v.default), _seed_key(v.at_active))
        hit = _SEEDS.get(key)
    except TypeError:               # not a plain scalar: cast below (or refused) each call
        key = hit = None
    if hit is not None:
        return hit
    out = _cast_seed(cls, spec, v, n)
    if key is not None:
        if len(_SEEDS) > 256:
            _SEEDS.clear()
        _SEEDS[key] = out
    return out


def _cast_seed(cls, spec, v, n):
    where = f"{cls.__name__}.init: property {spec.name!r}"
    try:
        default = np.full(1, v.default, dtype=spec.dtype)[0]
    except (TypeError, ValueError, OverflowError):
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
    except (TypeError, ValueError, OverflowError):
        raise InvalidProgram(f"{where}: Seeded at_active {v.at_active!r} is not a scalar "
                             f"convertible to {spec.dtype.name}") from None
    return Seeded(default, seed)


def _active_ids(active, n, cls):
    """None (every vertex) or sorted distinct int64 ids; device bool arrays / Bitmasks stay
    on the device (one flatnonzero there instead of a host round trip of n bools)."""
    if active is None or (isinstance(active, str) and active == "all"):
        return None
    if type(active) in (list, tuple) and len(active) <= 64 and all(
            isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
            for x in active):
        # a few ids (a source or two): checked in Python, without NumPy's per-call costs
        ids = [int(x) for x in active]
        for x in ids:
            if not 0 <= x < n:
                raise _outside(cls, x, n)
        return np.array(sorted(set(ids)), dtype=np.int64)
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
        raise _outside(cls, a[(a < 0) | (a >= n)][0], n)
    if a.size > 1:
        a = np.unique(a)
    return a


def _outside(cls, vertex, n):
    return IndexOutOfBound(f"{cls.__name__}.init: active vertex {vertex} is outside [0, {n})")


def bind(program, graph, params, max_iterations=None, outputs=None) -> BoundProgram:
    """Validate ``program`` against ``graph``, run its init, compile its callbacks (internal)."""
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
    relax = _relax(cls, kernels, gather_fn, update_fn, tolerances, max_iterations, conv,
                   priority)
    code_key = (cls.__name__, kernels.key, cls.edges, weighted, cls.apply_to, cls.gather_from,
                tuple(sorted(tolerances.items())), priority, cls.priority_order, witness,
                bool(cls.mask_excludes_active), relax)
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
        priority_order=cls.priority_order, priority_delta=delta, witness=witness,
        mask_excludes_active=bool(cls.mask_excludes_active), relax=relax)


def _relax(cls, kernels, gather_fn, update_fn, tolerances, max_iterations, conv, priority):
    """The property ``cls`` relaxes (:mod:`.relax`) where its run may reorder messages: no
    superstep limit or converged hook (both see intermediate supersteps), no tolerance on it,
    receivers applied, active senders, one gather side, a priority (if any) on that property
    in the monoid's order; else None."""
    if not config["engine_relax"] or max_iterations is not None or conv is not None \
            or cls.apply_to != "received" or cls.gather_from != "active" \
            or len(matrix_names(cls.edges)) != 1:
        return None
    name = kernels.monoid.name
    # the recognition walks the callbacks' syntax trees (~30 us): kept on the compiled
    # callbacks, which are memoised on everything they were compiled from (udf)
    key = (gather_fn, update_fn, name, cls.witness)
    if key not in kernels.relax_memo:
        from .relax import relaxed_property     # the syntax-tree walk, once per program

        kernels.relax_memo[key] = relaxed_property(gather_fn, update_fn, kernels, name,
                                                   cls.witness)
    prop = kernels.relax_memo[key]
    if prop is None or prop in tolerances:
        return None
    if priority is not None and (priority != prop or cls.priority_order != name):
        return None
    return prop


def default_priority_delta(graph) -> float:
    """The bucket width of near-far ordering when a program gives none: ``128 * mean |edge
    weight| / mean degree`` (Davidson et al.'s rule with the factor ``hp.sssp`` measured best;
    weight 1 on an unweighted graph)."""
    n = int(graph.num_vertices)
    m = int(graph.A.nnz)
    if n == 0 or m == 0:
        return 1.0
    derived = getattr(graph, "derived", None)
    # kept per graph: on the device the mean is a reduction and a sync (~2 ms on R-MAT 21,
    # a third of a near-far run), paid by every call that binds the program
    mean_w = derived("engine.mean_abs_weight", lambda: _mean_abs_weight(graph)) \
        if derived is not None else _mean_abs_weight(graph)
    return 128.0 * mean_w / (m / n)


def _mean_abs_weight(graph) -> float:
    """Mean |edge weight| over the finite weights (1 when unweighted or not a positive number)."""
    mean_w = 1.0
    if getattr(graph, "weighted", False) and getattr(graph.A, "values", None) is not None:
        xp = _backend.get_array_module(graph.A.values)
        vals = graph.A.values
        mean_w = float(xp.abs(vals[xp.isfinite(vals)]).astype(xp.float64).mean()) \
            if vals.size else 1.0
        if not math.isfinite(mean_w) or mean_w <= 0:
            mean_w = 1.0
    return mean_w


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


