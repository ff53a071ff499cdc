"""CompiledFunction and compile_function: the compiler's public result and entry point."""

from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

from .. import dtypes as _dt
from ..exceptions import UdfTypeError
from . import _ir
from ._numerics import guard, np_wrap_cast
from ._analysis import analyze_function, captures_key, read_captures
from ._translate import Translator
from ._values import DictVal, Weak, WeakExpr

_CACHE: dict = {}
_lock = threading.RLock()


class CompiledFunction:
    """A callback compiled for given argument dtypes: CUDA C and a NumPy callable.

    Attributes
    ----------
    name : str
        The Python function's name.
    c_name : str
        Name of the generated ``__device__`` function (``hp_udf_<name>_<hash>``); with several
        outputs, one function per output: ``<c_name>_<output>``.
    c_preamble : str
        Definitions to put before the kernel: helpers and the device function(s), all
        include-guarded (concatenating preambles twice is harmless).
    arg_names : tuple of str
        The Python parameters, in order.
    arg_types : dict
        Scalar parameter -> dtype.
    views : dict
        View parameter -> tuple of the properties the function reads (only those become C
        parameters), in C parameter order.
    view_types : dict
        View parameter -> {property: dtype} (as declared).
    c_params : tuple of (kind, python name, property or None, dtype, C name)
        The device function's parameters in order: ``kind`` is ``"arg"`` or ``"view"``.
    result_dtype : numpy.dtype or dict
        Per output name when the function returns a dict.
    outputs : tuple of str or None
        The keys of a returned dict (update callbacks), else None.
    cache_key : str
        SHA-256 of source, captured values, argument/view/result dtypes: equal keys mean
        identical generated code.
    source : str
        The callback's Python source.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __setattr__(self, k, v):
        raise AttributeError("CompiledFunction is immutable")

    def __repr__(self):
        return f"<CompiledFunction {self.name} -> {self.result_dtype} key={self.cache_key[:12]}>"

    # -- C ------------------------------------------------------------------------------
    def c_expr(self, args: dict | None = None, views: dict | None = None, output: str | None = None) -> str:
        """C expression calling the device function.

        Parameters
        ----------
        args : dict
            Scalar parameter name -> C expression (of the declared dtype; converted by C).
        views : dict
            View name -> {property: C expression} (e.g. ``{"src": {"dist": "dist[j]"}}``);
            only the properties in ``self.views[name]`` are read.
        output : str, optional
            For dict-returning functions, which output (required then).
        """
        args = args or {}
        views = views or {}
        cargs = []
        for kind, py, prop, dt, cname in self.c_params:
            if kind == "arg":
                if py not in args:
                    raise UdfTypeError(f"{self.name}: no C expression given for argument {py!r}")
                cargs.append(str(args[py]))
            else:
                props = views.get(py)
                if props is None:
                    raise UdfTypeError(f"{self.name}: no C expressions given for view {py!r}")
                try:
                    val = props[prop] if isinstance(props, dict) else getattr(props, prop)
                except (KeyError, AttributeError):
                    raise UdfTypeError(f"{self.name}: no C expression for {py}.{prop}") from None
                cargs.append(str(val))
        return f"{self._fname(output)}({', '.join(cargs)})"

    def c_call(self, *arg_exprs, output: str | None = None) -> str:
        """C call with positional C expressions, one per Python parameter (a view gets a dict
        {property: C expression})."""
        if len(arg_exprs) != len(self.arg_names):
            raise UdfTypeError(f"{self.name} takes {len(self.arg_names)} arguments, "
                               f"{len(arg_exprs)} C expressions given")
        args, views = {}, {}
        for nm, ex in zip(self.arg_names, arg_exprs):
            (views if nm in self.views else args)[nm] = ex
        return self.c_expr(args, views, output)

    def _fname(self, output):
        if self.outputs is None:
            if output is not None:
                raise UdfTypeError(f"{self.name} returns a single value; output= is not allowed")
            return self.c_name
        if output not in self.outputs:
            raise UdfTypeError(f"{self.name} returns a dict with keys {list(self.outputs)}; "
                               f"pass output= one of them (got {output!r})")
        return f"{self.c_name}_{output}"

    # -- NumPy --------------------------------------------------------------------------
    def np_call(self, *args, **kwargs):
        """Evaluate on NumPy arrays (vectorised; same semantics as the C code).

        Positional and keyword arguments follow the Python signature.  Scalars are cast to
        the declared dtypes; a view is a mapping ``{property: array}`` or any object with
        those attributes.  Returns an array (broadcast to the inputs' shape) of
        ``result_dtype``, or a dict of arrays for dict-returning functions.
        """
        if len(args) > len(self.arg_names):
            raise UdfTypeError(f"{self.name} takes {len(self.arg_names)} arguments, got {len(args)}")
        bound = dict(zip(self.arg_names, args))
        for k, v in kwargs.items():
            if k not in self.arg_names:
                raise UdfTypeError(f"{self.name} has no parameter {k!r}")
            if k in bound:
                raise UdfTypeError(f"{self.name} got two values for {k!r}")
            bound[k] = v
        missing = [a for a in self.arg_names if a not in bound]
        if missing:
            raise UdfTypeError(f"{self.name} is missing arguments {missing}")
        inputs = {}
        shapes = []
        for kind, py, prop, dt, cname in self.c_params:
            if kind == "arg":
                arr = np_wrap_cast(bound[py], dt)
            else:
                src = bound[py]
                try:
                    val = src[prop] if hasattr(src, "__getitem__") and not hasattr(src, prop) \
                        else getattr(src, prop)
                except (KeyError, AttributeError, TypeError):
                    raise UdfTypeError(f"{self.name}: view {py!r} has no property {prop!r}") from None
                arr = np_wrap_cast(val, dt)
            inputs[cname] = arr
            shapes.append(np.shape(arr))
        for nm in self.arg_names:  # unused scalar args still shape the result
            if nm not in self.views and not any(p[1] == nm for p in self.c_params):
                shapes.append(np.shape(bound[nm]))
        shape = np.broadcast_shapes(*shapes) if shapes else ()
        vals = {}
        with np.errstate(all="ignore"):
            for n in self._order:
                if n.op == "param":
                    vals[id(n)] = inputs[n.attr]
                    continue
                r = np.asarray(_ir.np_node(n, [vals[id(a)] for a in n.args]))
                if r.dtype != n.dtype:
                    r = np_wrap_cast(r, n.dtype)
                vals[id(n)] = r
        outs = {}
        for key, n in self._outputs.items():
            outs[key] = np.array(np.broadcast_to(vals[id(n)], shape), dtype=n.dtype)
        if self.outputs is None:
            return outs[None]
        return outs

    __call__ = np_call


def _norm_types(func_name, params, arg_types, views):
    views = dict(views or {})
    vt = {}
    for v, props in views.items():
        if v not in params:
            raise UdfTypeError(f"views names {v!r}, which is not a parameter of {func_name} "
                               f"(parameters: {params})")
        vt[v] = {str(p): _dt.lookup_dtype(d) for p, d in dict(props).items()}
    scalars = [p for p in params if p not in vt]
    if arg_types is None:
        arg_types = {}
    if not isinstance(arg_types, dict):
        seq = list(arg_types)
        if len(seq) != len(scalars):
            raise UdfTypeError(f"{func_name} has {len(scalars)} scalar parameters {scalars}; "
                               f"{len(seq)} argument types given")
        arg_types = dict(zip(scalars, seq))
    at = {}
    for p in scalars:
        if p not in arg_types:
            raise UdfTypeError(f"no dtype given for parameter {p!r} of {func_name}; pass "
                               f"arg_types={{{p!r}: np.float32, ...}} (or declare it as a view)")
        at[p] = _dt.lookup_dtype(arg_types[p])
    extra = set(arg_types) - set(scalars)
    if extra:
        raise UdfTypeError(f"arg_types names {sorted(extra)}, which are not scalar parameters of "
                           f"{func_name} (parameters: {params})")
    return at, vt


def compile_function(func, arg_types=None, views=None, result_dtype=None) -> CompiledFunction:
    """Compile a Python callback for given argument dtypes (cached).

    Parameters
    ----------
    func : function
        A lambda or ``def`` in the callback subset (see :mod:`hpgraph.compiler`).
    arg_types : dict or sequence
        Scalar parameter -> dtype (or the dtypes of the scalar parameters in order).
    views : dict, optional
        View parameter -> {property: dtype}: parameters used as ``src.dist``.
    result_dtype : dtype or dict, optional
        Cast the result to it (per output name for dict-returning functions); inferred
        (NumPy promotion) when omitted.

    Returns
    -------
    CompiledFunction

    Raises
    ------
    UnsupportedSyntax, UdfTypeError
        Quoting the offending source line.
    """
    a = analyze_function(func)
    name = getattr(func, "__name__", "udf")
    at, vt = _norm_types(name, a.params, arg_types, views)
    caps = read_captures(a)
    if isinstance(result_dtype, dict):
        rkey = tuple(sorted((k, _dt.lookup_dtype(v).name) for k, v in result_dtype.items()))
    else:
        rkey = None if result_dtype is None else _dt.lookup_dtype(result_dtype).name
    key = (a.source_hash, captures_key(caps), tuple((p, at[p].name) for p in at),
           tuple((v, tuple((p, d.name) for p, d in props.items())) for v, props in vt.items()),
           rkey, tuple(a.params))
    with _lock:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    cf = _build(a, name, at, vt, caps, result_dtype, key)
    with _lock:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[key] = cf
    return cf


def _final_node(tr, v, rdt, node):
    if isinstance(v, Weak):
        if rdt is None:
            x = v.value
            rdt = np.dtype(np.bool_) if isinstance(x, bool) else np.dtype(
                np.int64 if isinstance(x, int) else np.float64)
        if rdt.kind in "iu" and isinstance(v.value, float):
            v = Weak(int(v.value)) if np.isfinite(v.value) else v
        return tr.as_node(v, rdt, node)
    n = v.node if isinstance(v, WeakExpr) else v
    return n if rdt is None else tr.b.cast(n, rdt)


def _build(a, name, at, vt, caps, result_dtype, key) -> CompiledFunction:
    tr = Translator(a, at, vt, caps)
    val = tr.run()
    node = a.src.node
    if isinstance(val, DictVal):
        rd = result_dtype if isinstance(result_dtype, dict) else {}
        if result_dtype is not None and not isinstance(result_dtype, dict):
            rd = {k: result_dtype for k in val.items}
        unknown = set(rd) - set(val.items)
        if unknown:
            raise UdfTypeError(f"result_dtype names {sorted(unknown)}, which {name} does not return")
        outs = {k: _final_node(tr, v, _dt.lookup_dtype(rd[k]) if k in rd else None, node)
                for k, v in val.items.items()}
        outputs = tuple(val.items)
    else:
        if isinstance(result_dtype, dict):
            raise UdfTypeError(f"{name} returns a single value; result_dtype must be one dtype")
        rdt = None if result_dtype is None else _dt.lookup_dtype(result_dtype)
        outs = {None: _final_node(tr, val, rdt, node)}
        outputs = None
    digest = hashlib.sha256(repr(key).encode()).hexdigest()
    safe = re.sub(r"[^A-Za-z0-9_]", "_", name if name != "<lambda>" else "lambda")[:40]
    c_name = f"hp_udf_{safe}_{digest[:12]}"
    c_params = []
    for p in a.params:
        if p in vt:
            for prop in _used(tr, vt, p):
                c_params.append(("view", p, prop, vt[p][prop], f"v_{p}_{prop}"))
        elif f"p_{p}" in tr.param_nodes:
            c_params.append(("arg", p, None, at[p], f"p_{p}"))
        else:  # unused scalar parameter: keep it so call sites need not know
            c_params.append(("arg", p, None, at[p], f"p_{p}"))
    helpers: dict = {}
    funcs = []
    for k, n in outs.items():
        fname = c_name if k is None else f"{c_name}_{k}"
        funcs.append(_c_function(fname, n, c_params, helpers))
    body = "".join(helpers) + "\n".join(funcs)
    note = _comment_text(f"{name} ({a.src.filename})")
    preamble = guard(f"udf_{digest[:16]}", f"/* hpgraph callback {note} */\n" + body)
    order = _ir.topo(list(outs.values()))
    rd = {k: n.dtype for k, n in outs.items()}
    return CompiledFunction(
        name=name, c_name=c_name, c_preamble=preamble, arg_names=tuple(a.params),
        arg_types=dict(at), views={v: _used(tr, vt, v) for v in vt}, view_types=vt,
        c_params=tuple(c_params), result_dtype=rd[None] if outputs is None else rd,
        outputs=outputs, cache_key=digest, source=a.src.text(), _order=order, _outputs=outs,
        captured=dict(caps))


def _used(tr, vt, view) -> tuple:
    """Properties of ``view`` the function reads, in declaration order."""
    return tuple(p for p in vt[view] if p in tr.used_props[view])


def _ctype(dt):
    return "bool" if dt.kind == "b" else _dt.c_type(dt)


def _c_function(fname, out, c_params, helpers) -> str:
    order = _ir.topo([out])
    names = {}
    lines = []
    k = 0
    for n in order:
        if n.op == "param":
            names[id(n)] = n.attr
            continue
        expr = _ir.c_node(n, [names[id(a)] for a in n.args], helpers)
        if n.op == "const":
            names[id(n)] = expr
            continue
        t = f"t{k}"
        k += 1
        lines.append(f"    const {_ctype(n.dtype)} {t} = {expr};")
        names[id(n)] = t
    params = ", ".join(f"{_ctype(p[3])} {p[4]}" for p in c_params) or "void"
    ret = _ctype(out.dtype)
    body = "\n".join(lines)
    return (f"__device__ __forceinline__ {ret} {fname}({params}) {{\n"
            f"{body}{chr(10) if body else ''}    return {names[id(out)]};\n}}\n")


def _comment_text(text: str) -> str:
    """``text`` safe inside a C block comment: one ASCII line that cannot close the comment
    (function names and file paths are user text)."""
    out = "".join(ch if " " <= ch <= "~" else "?" for ch in str(text))
    return out.replace("*/", "*?").replace("/*", "?*")
