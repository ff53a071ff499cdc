"""Definition-time analysis of a callback: the syntax check of the callback subset
(:func:`analyze_function`, no dtypes needed) and the values it captures from globals and
closures (:func:`read_captures`)."""

from __future__ import annotations

import ast
import builtins
import hashlib
import math
import threading
import types
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from .. import dtypes as _dt
from ..exceptions import UdfTypeError
from ._source import SourceInfo, get_source
from ._values import _supported_function

# ---------------------------------------------------------------------------------------
# Definition-time analysis

_STMT_NAMES = {
    ast.For: "'for' loops", ast.AsyncFor: "'for' loops", ast.While: "'while' loops",
    ast.With: "'with' statements", ast.AsyncWith: "'with' statements",
    ast.Try: "'try' statements", ast.Raise: "'raise' statements",
    ast.Assert: "'assert' statements", ast.Delete: "'del' statements",
    ast.Import: "imports", ast.ImportFrom: "imports", ast.Global: "'global' statements",
    ast.Nonlocal: "'nonlocal' statements", ast.FunctionDef: "nested functions",
    ast.AsyncFunctionDef: "nested functions", ast.ClassDef: "class definitions",
    ast.Break: "'break'", ast.Continue: "'continue'",
}
if hasattr(ast, "Match"):
    _STMT_NAMES[ast.Match] = "'match' statements"
if hasattr(ast, "TryStar"):
    _STMT_NAMES[ast.TryStar] = "'try' statements"

_EXPR_NAMES = {
    ast.Subscript: "indexing and slicing (x[...])", ast.List: "lists", ast.Tuple: "tuples",
    ast.Set: "sets", ast.ListComp: "list comprehensions", ast.SetComp: "set comprehensions",
    ast.DictComp: "dict comprehensions", ast.GeneratorExp: "generator expressions",
    ast.Lambda: "nested lambdas", ast.Await: "'await'", ast.Yield: "'yield'",
    ast.YieldFrom: "'yield from'", ast.NamedExpr: "assignment expressions (:=)",
    ast.Starred: "starred expressions (*x)", ast.JoinedStr: "f-strings",
    ast.FormattedValue: "f-strings", ast.Slice: "slices", ast.Dict: "dicts (except as "
    "the returned value of an update callback)",
}

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bitand",
           ast.BitOr: "bitor", ast.BitXor: "bitxor"}
_BAD_BINOPS = {ast.MatMult: "the '@' operator", ast.LShift: "the '<<' operator",
               ast.RShift: "the '>>' operator"}
_CMPOPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
           ast.GtE: "ge"}
_BAD_CMPOPS = {ast.Is: "'is' comparisons", ast.IsNot: "'is not' comparisons",
               ast.In: "'in' tests", ast.NotIn: "'not in' tests"}


@dataclass
class Analysis:
    """What :func:`analyze_function` learns from the source (types not involved)."""

    func: object
    src: SourceInfo
    params: list
    body: list           # statements (a lambda's body becomes one Return)
    free_names: list     # names read but never assigned: globals, closure cells, builtins
    locals: set
    source_hash: str
    name_nodes: dict = field(default_factory=dict)  # free name -> first ast.Name using it


class _Validator(ast.NodeVisitor):
    def __init__(self, src: SourceInfo):
        self.src = src

    def err(self, node, what):
        raise self.src.error(node, f"{what} are not supported in hpgraph callbacks"
                             if what.endswith("s") or what.endswith(")") else
                             f"{what} is not supported in hpgraph callbacks")

    def stmts(self, stmts):
        for st in stmts:
            self.stmt(st)

    def stmt(self, st):
        t = type(st)
        if t in _STMT_NAMES:
            self.err(st, _STMT_NAMES[t])
        if isinstance(st, ast.Return):
            if st.value is None:
                raise self.src.error(st, "a callback must return a value")
            if isinstance(st.value, ast.Dict):
                self.dict_return(st.value)
            else:
                self.expr(st.value)
        elif isinstance(st, ast.Assign):
            for tg in st.targets:
                self.target(tg)
            if isinstance(st.value, ast.Tuple) and all(isinstance(t, ast.Tuple) for t in st.targets):
                for e in st.value.elts:
                    self.expr(e)
            else:
                self.expr(st.value)
        elif isinstance(st, ast.AugAssign):
            if not isinstance(st.target, ast.Name):
                self.target(st.target)
            self.binop_type(st.op, st)
            self.expr(st.value)
        elif isinstance(st, ast.AnnAssign):
            if st.value is None or not isinstance(st.target, ast.Name):
                raise self.src.error(st, "annotated assignments need a plain name and a value")
            self.expr(st.value)
        elif isinstance(st, ast.If):
            self.expr(st.test)
            self.stmts(st.body)
            self.stmts(st.orelse)
        elif isinstance(st, ast.Pass):
            pass
        elif isinstance(st, ast.Expr):
            if not (isinstance(st.value, ast.Constant) and isinstance(st.value.value, str)):
                raise self.src.error(st, "expression statements have no effect in a callback "
                                     "(only a docstring may stand alone); assign or return it")
        else:
            self.err(st, f"'{type(st).__name__}' statements")

    def target(self, tg):
        if isinstance(tg, ast.Name):
            return
        if isinstance(tg, ast.Tuple) and all(isinstance(e, ast.Name) for e in tg.elts):
            return
        if isinstance(tg, ast.Attribute):
            raise self.src.error(tg, "assigning to attributes is not supported in hpgraph "
                                 "callbacks; return the new values instead")
        self.err(tg, "assignments to anything but plain names")

    def dict_return(self, d):
        for k, v in zip(d.keys, d.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                raise self.src.error(k if k is not None else d,
                                     "a returned dict needs constant string keys (property names)")
            self.expr(v)

    def binop_type(self, op, node):
        if type(op) in _BAD_BINOPS:
            self.err(node, _BAD_BINOPS[type(op)])

    def expr(self, e):
        t = type(e)
        if t in _EXPR_NAMES:
            self.err(e, _EXPR_NAMES[t])
        if isinstance(e, ast.BinOp):
            self.binop_type(e.op, e)
            self.expr(e.left)
            self.expr(e.right)
        elif isinstance(e, ast.UnaryOp):
            self.expr(e.operand)
        elif isinstance(e, ast.BoolOp):
            for v in e.values:
                self.expr(v)
        elif isinstance(e, ast.Compare):
            for op in e.ops:
                if type(op) in _BAD_CMPOPS:
                    self.err(e, _BAD_CMPOPS[type(op)])
            self.expr(e.left)
            for c in e.comparators:
                self.expr(c)
        elif isinstance(e, ast.IfExp):
            self.expr(e.test)
            self.expr(e.body)
            self.expr(e.orelse)
        elif isinstance(e, ast.Call):
            if e.keywords:
                self.err(e.keywords[0].value if e.keywords[0].value is not None else e,
                         "keyword arguments in calls")
            if not isinstance(e.func, (ast.Name, ast.Attribute)):
                self.err(e.func, "calls of computed functions")
            if isinstance(e.func, ast.Attribute):
                self.expr(e.func)
            for a in e.args:
                if isinstance(a, ast.Starred):
                    self.err(a, "starred arguments (*args)")
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    continue  # float("inf"); checked when typed
                self.expr(a)
        elif isinstance(e, ast.Attribute):
            if not isinstance(e.value, ast.Name):
                self.err(e, "attribute access on anything but a name (src.dist, math.pi)")
        elif isinstance(e, ast.Name):
            pass
        elif isinstance(e, ast.Constant):
            if not isinstance(e.value, (bool, int, float)):
                what = "None" if e.value is None else type(e.value).__name__ + " constants"
                if isinstance(e.value, str):
                    what = "string constants"
                elif isinstance(e.value, complex):
                    what = "complex numbers"
                self.err(e, what)
        else:
            self.err(e, f"'{type(e).__name__}' expressions")


_ANALYSES: dict = {}
_lock = threading.RLock()


def analyze_function(func) -> Analysis:
    """Check ``func`` against the callback subset (definition time; no dtypes needed).

    Raises
    ------
    UnsupportedSyntax
        Quoting the offending line with ``^`` markers.
    UdfTypeError
        A captured global/closure variable is neither a number, a bool, ``math``/``numpy``
        nor a supported function.
    """
    if isinstance(func, (staticmethod, classmethod)):
        func = func.__func__
    code = getattr(func, "__code__", None)
    if code is None:
        raise UdfTypeError(f"expected a Python function (lambda or def), got {type(func).__name__}")
    key = (code, code.co_filename)
    with _lock:
        hit = _ANALYSES.get(key)
    if hit is not None and hit.func is func:
        return hit
    if hit is not None:
        a = Analysis(func, hit.src, hit.params, hit.body, hit.free_names, hit.locals,
                     hit.source_hash, hit.name_nodes)
        read_captures(a)  # validates this function's captured values
        return a
    src = get_source(func)
    node = cast("ast.FunctionDef | ast.Lambda", src.node)  # the two kinds get_source returns
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise src.error(node, "*args, **kwargs and keyword-only parameters are not supported in "
                        "hpgraph callbacks")
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    body: list[ast.stmt]
    if isinstance(node, ast.Lambda):
        body = [ast.Return(value=node.body, lineno=node.body.lineno,
                           col_offset=node.body.col_offset, end_lineno=node.body.end_lineno,
                           end_col_offset=node.body.end_col_offset)]
    else:
        body = node.body
    v = _Validator(src)
    v.stmts(body)
    assigned = set()
    loads = {}
    for st in body:
        for n in ast.walk(st):
            if isinstance(n, ast.Name):
                if isinstance(n.ctx, ast.Store):
                    assigned.add(n.id)
                elif n.id not in loads:
                    loads[n.id] = n
    free = [nm for nm in loads if nm not in assigned and nm not in params]
    text = src.text()
    h = hashlib.sha256(f"{text}\0{params}".encode()).hexdigest()
    a = Analysis(func, src, params, body, free, assigned, h,
                 {nm: loads[nm] for nm in free})
    read_captures(a)
    with _lock:
        _ANALYSES[key] = a
    return a


# ---------------------------------------------------------------------------------------
# Captured values


def resolve_free(func, name):
    """What free name ``name`` of ``func`` refers to now: its closure cell, else its module
    global, else the builtin.

    Returns
    -------
    (found, value) : (bool, object)
        ``(False, None)`` when the name is unbound (or an empty cell).
    """
    code = func.__code__
    if name in code.co_freevars and func.__closure__:
        cell = func.__closure__[code.co_freevars.index(name)]
        try:
            return True, cell.cell_contents
        except ValueError:
            return False, None
    g = getattr(func, "__globals__", {})
    if name in g:
        return True, g[name]
    b = g.get("__builtins__", builtins)
    b = b if isinstance(b, dict) else vars(b)
    if name in b:
        return True, b[name]
    return False, None


def read_captures(a: Analysis) -> dict:
    """Current values of the captured names: name -> Weak / Node-spec / ModuleRef / FuncRef.

    Numbers and bools are captured by value (Python scalars are "weak", NumPy scalars keep
    their dtype); ``math``/``numpy`` modules and supported functions by identity.
    """
    out: dict[str, tuple] = {}
    for nm in a.free_names:
        found, val = resolve_free(a.func, nm)
        node = a.name_nodes[nm]
        if not found:
            raise a.src.error(node, f"name {nm!r} is not defined", UdfTypeError)
        if isinstance(val, (bool, np.bool_)) or (isinstance(val, (int, float, np.number))
                                                 and not isinstance(val, complex)):
            if isinstance(val, np.generic):
                try:
                    dt = _dt.lookup_dtype(val.dtype)
                except Exception:
                    raise a.src.error(node, f"captured {nm!r} has unsupported dtype {val.dtype}",
                                      UdfTypeError) from None
                out[nm] = ("np", dt.name, val.item())
            else:
                out[nm] = ("py", type(val).__name__, val)
            continue
        if isinstance(val, types.ModuleType):
            if val is math or val.__name__ == "math":
                out[nm] = ("module", "math")
                continue
            if val is np or val.__name__ == "numpy":
                out[nm] = ("module", "numpy")
                continue
        fn = _supported_function(val)
        if fn is not None:
            out[nm] = ("func", fn)
            continue
        kind = type(val).__name__
        hint = ("only numbers and bools are captured (by value), plus math/numpy and the "
                "functions min, max, abs, float, int, bool, math.*")
        if callable(val):
            hint = "calling other Python functions is not supported; inline its body (" + hint + ")"
        raise a.src.error(node, f"cannot use {nm!r} (a {kind}) in an hpgraph callback: {hint}",
                          UdfTypeError)
    return out


def captures_key(caps: dict) -> tuple:
    items = []
    for k in sorted(caps):
        v = caps[k]
        if v[0] in ("py", "np"):
            val = v[2]
            if isinstance(val, float):
                val = ("f", val.hex() if not math.isnan(val) else "nan")
            items.append((k, v[0], v[1], val))
        else:
            items.append((k, *v))
    return tuple(items)
