"""A vertex program's callbacks compiled for one run (both back ends from one typing).

``gather(src, edge, dst)`` is compiled with ``src``/``dst`` as property views (every declared
property, typed), ``edge`` as a scalar of the edge dtype; ``update(v, y)`` with ``v`` a view
and ``y`` of ``y_dtype``, its outputs cast to the properties' dtypes; the optional
``mask(v)`` with ``v`` a view, its result converted to bool.  A leading ``self`` is a
third kind of view whose "properties" are the numeric attributes of the program instance,
compiled in as constants (Python ``float`` -> float64, ``int`` -> int64, ``bool`` -> bool, NumPy
scalars keep their dtype); changing one recompiles (the value is part of the cache key).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import dtypes as _dt
from ..compiler import analyze_function, compile_function
from ..compiler._analysis import captures_key, read_captures
from ..exceptions import DomainMismatch, HpgraphError, InvalidProgram, UdfTypeError


def check_syntax(fn) -> None:
    """Raise :class:`UnsupportedSyntax` (quoting the line) if ``fn`` is outside the subset."""
    analyze_function(fn)


def _self_constants(instance) -> dict:
    """{name: (dtype, value)} numeric attributes visible as ``self.<name>``."""
    names = {}
    for klass in reversed(type(instance).__mro__):
        for k, v in vars(klass).items():
            names[k] = v
    names.update(getattr(instance, "__dict__", {}))
    out = {}
    for k, v in names.items():
        if k.startswith("_") or k in ("max_iterations",):
            continue
        if isinstance(v, (bool, np.bool_)):
            out[k] = (np.dtype(np.bool_), bool(v))
        elif isinstance(v, np.generic) and v.dtype.kind in "iuf":
            try:
                out[k] = (_dt.lookup_dtype(v.dtype), v.item())
            except DomainMismatch:
                continue
        elif isinstance(v, int):
            if -2**63 <= v < 2**63:
                out[k] = (np.dtype(np.int64), int(v))
        elif isinstance(v, float):
            out[k] = (np.dtype(np.float64), float(v))
    return out


@dataclass
class CompiledCallbacks:
    """gather/update of one program, typed for one run (the engines' only view of them)."""

    gather: Any                  # compiler.CompiledFunction
    update: Any
    gather_args: tuple           # per Python parameter: "self" | "src" | "edge" | "dst"
    update_args: tuple           # per Python parameter: "self" | "v" | "y"
    consts: dict                 # self constants: name -> (dtype, value)
    props: tuple                 # PropertySpec
    monoid: Any                  # TypedMonoid at y_dtype
    y_dtype: np.dtype
    edge_dtype: np.dtype
    update_outputs: tuple        # property names update writes
    single_output: bool          # update returned a bare value
    mask: Any = None             # compiler.CompiledFunction of mask(v), or None
    mask_args: tuple = ()        # per Python parameter: "self" | "v"
    # bind's relaxation recognitions (engine.relax), kept with the callbacks they read
    relax_memo: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> tuple:
        """Hashable: equal keys give identical generated code (compiled functions are cached
        by source, captured values and dtypes)."""
        return (self.gather.cache_key, self.update.cache_key,
                None if self.mask is None else self.mask.cache_key,
                tuple(sorted(self.consts.items())), self.monoid.key, self.y_dtype.str,
                self.edge_dtype.str, tuple((p.name, p.dtype.str) for p in self.props))

    # ---- NumPy ----------------------------------------------------------------------------
    def gather_np(self, props, src, w, dst):
        """Gathered values (``y_dtype``) for edges ``src -> dst`` with weights ``w``."""
        cf = self.gather
        args = []
        for role, pyname in zip(self.gather_args, cf.arg_names):
            if role == "self":
                args.append({k: self.consts[k][1] for k in cf.views[pyname]})
            elif role == "edge":
                args.append(w)
            else:
                idx = src if role == "src" else dst
                args.append({k: props[k][idx] for k in cf.views[pyname]})
        out = cf.np_call(*args)
        out = np.broadcast_to(out, src.shape)
        return np.asarray(out, dtype=self.y_dtype)

    def update_np(self, props, verts, y):
        """New values ``{name: array}`` for vertices ``verts`` (None = all) given ``y``."""
        cf = self.update
        args = []
        for role, pyname in zip(self.update_args, cf.arg_names):
            if role == "self":
                args.append({k: self.consts[k][1] for k in cf.views[pyname]})
            elif role == "y":
                args.append(y)
            else:
                args.append({k: (props[k] if verts is None else props[k][verts])
                             for k in cf.views[pyname]})
        out = cf.np_call(*args)
        if self.single_output:
            out = {self.update_outputs[0]: out}
        shape = np.shape(y)
        return {k: np.array(np.broadcast_to(v, shape), dtype=self._pdt(k)) for k, v in out.items()}

    def mask_np(self, props):
        """``mask(v)`` for every vertex (bool array), or None when the program has no mask."""
        cf = self.mask
        if cf is None:
            return None
        n = len(next(iter(props.values())))
        args = []
        for role, pyname in zip(self.mask_args, cf.arg_names):
            if role == "self":
                args.append({k: self.consts[k][1] for k in cf.views[pyname]})
            else:
                args.append({k: props[k] for k in cf.views[pyname]})
        out = cf.np_call(*args)
        return np.array(np.broadcast_to(out, (n,)), dtype=bool)

    def _pdt(self, name):
        for p in self.props:
            if p.name == name:
                return p.dtype
        raise KeyError(name)

    # ---- CUDA C -------------------------------------------------------------------------
    @property
    def c_preamble(self) -> str:
        return self.gather.c_preamble + self.update.c_preamble + \
            ("" if self.mask is None else self.mask.c_preamble)

    def _const_exprs(self, cf, pyname):
        return {k: _dt.c_literal(self.consts[k][1], self.consts[k][0]) for k in cf.views[pyname]}

    def c_gather_body(self, u="u", w="w", v="v", ptr="P_") -> str:
        """Body of ``y_t hp_gather(idx_t u, w_t w, idx_t v, <property pointers>)``."""
        cf = self.gather
        exprs = []
        for role, pyname in zip(self.gather_args, cf.arg_names):
            if role == "self":
                exprs.append(self._const_exprs(cf, pyname))
            elif role == "edge":
                exprs.append(w)
            else:
                idx = u if role == "src" else v
                exprs.append({k: _load(ptr + k, idx, self._pdt(k)) for k in cf.views[pyname]})
        return f"    return (y_t)({cf.c_call(*exprs)});"

    def c_mask_body(self, v="v", ptr="P_") -> str:
        """Body of ``bool hp_mask(idx_t v, <property pointers>)`` (``return true;`` without a
        mask)."""
        cf = self.mask
        if cf is None:
            return "    return true;"
        exprs = []
        for role, pyname in zip(self.mask_args, cf.arg_names):
            if role == "self":
                exprs.append(self._const_exprs(cf, pyname))
            else:
                exprs.append({k: _load(ptr + k, v, self._pdt(k)) for k in cf.views[pyname]})
        return f"    return (bool)({cf.c_call(*exprs)});"

    def c_update_body(self, v="v", y="yv", ptr="P_") -> str:
        """Statements defining ``o_<p>`` (old value) and ``n_<p>`` (new) for every output."""
        cf = self.update
        lines = []
        view_name = None
        for role, pyname in zip(self.update_args, cf.arg_names):
            if role == "v":
                view_name = pyname
        needed = list(dict.fromkeys([*(cf.views.get(view_name, ()) if view_name else ()),
                                     *self.update_outputs]))
        for k in needed:
            lines.append(f"const {_dt.c_type(self._pdt(k))} o_{k} = {ptr}{k}[{v}];")
        exprs = []
        for role, pyname in zip(self.update_args, cf.arg_names):
            if role == "self":
                exprs.append(self._const_exprs(cf, pyname))
            elif role == "y":
                exprs.append(y)
            else:
                exprs.append({k: f"o_{k}" for k in cf.views[pyname]})
        for k in self.update_outputs:
            call = cf.c_call(*exprs) if self.single_output else cf.c_call(*exprs, output=k)
            lines.append(f"const {_dt.c_type(self._pdt(k))} n_{k} = "
                         f"({_dt.c_type(self._pdt(k))})({call});")
        return "\n".join(lines)


def _load(ptr, idx, dt):
    # properties are read-only during SPMV: the read-only data cache (HP_LDM: a coherent L2
    # load in the device loop's module, where phases of one launch write them); none for bool
    if np.dtype(dt).kind == "b":
        return f"{ptr}[{idx}]"
    return f"HP_LDM({ptr} + {idx})"


def _roles(fn, takes_self, roles):
    # plain positional parameters (checked by program._check_callback): read off the code
    # object rather than through inspect.signature, which costs ~10 us a call
    code = fn.__code__
    params = list(code.co_varnames[:code.co_argcount])
    out = (["self"] if takes_self else []) + list(roles)
    assert len(out) == len(params)
    return tuple(out), params


_MEMO: dict = {}


def _captures(fn):
    """The compiler's cache-key part for ``fn``'s captured globals/closure values (read now;
    ``()`` for a function that names none: the common case, skipped without a read)."""
    a = analyze_function(fn)
    return captures_key(read_captures(a)) if a.free_names else ()


def compile_callbacks(prog_name, instance, props, edge_dtype, gather_fn, gather_self,
                      update_fn, update_self, *, y_dtype=None, monoid=None, mask_fn=None,
                      mask_self=False) -> CompiledCallbacks:
    """Type and compile ``gather``/``update`` (and ``mask``) of a program (raises on malformed
    callbacks).

    Memoised on everything the compilation reads -- the functions, the ``self`` constants,
    the dtypes, the monoid and the current values of captured names (the same key parts as
    :func:`hpgraph.compiler.compile_function`'s cache) --, because ``hp.run`` binds the
    program on every call and the five typed compilations' cache lookups cost ~0.1 ms.
    """
    consts = _self_constants(instance) if (gather_self or update_self or mask_self) else {}
    try:
        key = (prog_name, gather_fn, bool(gather_self), update_fn, bool(update_self), mask_fn,
               bool(mask_self),
               tuple(sorted((k, t.str, v) for k, (t, v) in consts.items())),
               tuple((p.name, np.dtype(p.dtype).str) for p in props), np.dtype(edge_dtype).str,
               None if y_dtype is None else np.dtype(y_dtype).str, monoid,
               _captures(gather_fn), _captures(update_fn),
               None if mask_fn is None else _captures(mask_fn))
        hash(key)
    except TypeError:           # an unhashable part: compile without the memo
        key = None
    except HpgraphError:        # let the compilation below raise it, quoting the line
        key = None
    if key is not None:
        hit = _MEMO.get(key)
        if hit is not None:
            return hit
    out = _compile_callbacks(prog_name, instance, props, edge_dtype, gather_fn, gather_self,
                             update_fn, update_self, y_dtype=y_dtype, monoid=monoid,
                             mask_fn=mask_fn, mask_self=mask_self, consts=consts)
    if key is not None:
        if len(_MEMO) > 512:
            _MEMO.clear()
        _MEMO[key] = out
    return out


def _compile_callbacks(prog_name, instance, props, edge_dtype, gather_fn, gather_self,
                       update_fn, update_self, *, y_dtype=None, monoid=None, mask_fn=None,
                       mask_self=False, consts=None) -> CompiledCallbacks:
    ptypes = {p.name: p.dtype for p in props}
    const_types = {k: t for k, (t, _) in consts.items()}

    g_roles, g_params = _roles(gather_fn, gather_self, ("src", "edge", "dst"))
    views = {}
    arg_types = {}
    for role, pn in zip(g_roles, g_params):
        if role == "self":
            views[pn] = const_types
        elif role == "edge":
            arg_types[pn] = edge_dtype
        else:
            views[pn] = ptypes
    g = compile_function(gather_fn, arg_types=arg_types, views=views,
                         result_dtype=y_dtype)
    if isinstance(g.result_dtype, dict):
        raise InvalidProgram(f"{prog_name}.gather must return one value (the message along the "
                             f"edge), not a dict")
    ydt = np.dtype(g.result_dtype)
    try:
        typed = monoid[ydt]
    except HpgraphError as exc:
        raise UdfTypeError(f"{prog_name}.reduce cannot reduce gather's {ydt.name} values: {exc}") \
            from None
    if np.dtype(typed.dtype) != ydt:
        # e.g. a logical monoid: y takes the monoid's dtype; gather's value is converted
        ydt = np.dtype(typed.dtype)
        g = compile_function(gather_fn, arg_types=arg_types, views=views, result_dtype=ydt)

    u_roles, u_params = _roles(update_fn, update_self, ("v", "y"))
    views = {}
    arg_types = {}
    for role, pn in zip(u_roles, u_params):
        if role == "self":
            views[pn] = const_types
        elif role == "y":
            arg_types[pn] = ydt
        else:
            views[pn] = ptypes
    probe = compile_function(update_fn, arg_types=arg_types, views=views)
    if probe.outputs is None:
        if len(props) != 1:
            raise InvalidProgram(
                f"{prog_name}.update returned a bare value, but the program has "
                f"{len(props)} properties ({', '.join(ptypes)}); return a dict "
                f"{{name: value}} naming the properties it sets")
        outputs = (props[0].name,)
        u = compile_function(update_fn, arg_types=arg_types, views=views,
                             result_dtype=props[0].dtype)
        single = True
    else:
        unknown = [k for k in probe.outputs if k not in ptypes]
        if unknown:
            raise InvalidProgram(f"{prog_name}.update returned unknown property "
                                 f"{unknown[0]!r}; declared properties: {sorted(ptypes)}")
        if not probe.outputs:
            raise InvalidProgram(f"{prog_name}.update returned an empty dict")
        outputs = tuple(probe.outputs)
        u = compile_function(update_fn, arg_types=arg_types, views=views,
                             result_dtype={k: ptypes[k] for k in outputs})
        single = False
    mask = None
    m_roles = ()
    if mask_fn is not None:
        m_roles, m_params = _roles(mask_fn, mask_self, ("v",))
        views = {pn: (const_types if role == "self" else ptypes)
                 for role, pn in zip(m_roles, m_params)}
        probe = compile_function(mask_fn, arg_types={}, views=views)
        if probe.outputs is not None:
            raise InvalidProgram(f"{prog_name}.mask must return one bool (may v receive?), "
                                 f"not a dict")
        mask = compile_function(mask_fn, arg_types={}, views=views, result_dtype=np.bool_)
    return CompiledCallbacks(gather=g, update=u, gather_args=g_roles, update_args=u_roles,
                             consts=consts, props=tuple(props), monoid=typed, y_dtype=ydt,
                             edge_dtype=np.dtype(edge_dtype), update_outputs=outputs,
                             single_output=single, mask=mask, mask_args=m_roles)
