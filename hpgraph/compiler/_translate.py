"""Typed lowering of a callback: :class:`Translator` turns an analysed function
(:mod:`._analysis`) into typed IR (:mod:`._ir`) for given argument dtypes."""

from __future__ import annotations

import ast
import math

import numpy as np

from .. import dtypes as _dt
from ..exceptions import UdfTypeError, UnsupportedSyntax
from . import _ir
from ._analysis import _BINOPS, _CMPOPS, Analysis
from ._analysis import captures_key, read_captures  # noqa: F401  (hpgraph.engine.udf imports them from here)
from ._values import (_BOOL, _DEFAULT_BY_CAT, _F64, _I64, _MATH_CONSTS, _NP_ALIASES, _NP_DTYPE_FUNCS,
                      DictVal, FuncRef, ModuleRef, Undefined, ViewRef, Weak, WeakExpr, _cat_dtype,
                      _cat_weak, _fits)

class Translator:
    """Types and lowers one analysed function to IR for given argument dtypes."""

    def __init__(self, a: Analysis, arg_types: dict, views: dict, caps: dict):
        self.a = a
        self.src = a.src
        self.b = _ir.Builder()
        self.arg_types = arg_types
        self.views = views
        self.caps = caps
        self.used_props: dict = {v: [] for v in views}
        self.param_nodes: dict = {}

    # -- errors -------------------------------------------------------------------------
    def terr(self, node, msg):
        return self.src.error(node, msg, UdfTypeError)

    def serr(self, node, msg):
        return self.src.error(node, msg, UnsupportedSyntax)

    # -- values -------------------------------------------------------------------------
    def param(self, cname, dt):
        n = self.b.node("param", (), dt, cname)
        self.param_nodes[cname] = n
        return n

    def common(self, vals, node, arith=False):
        """Result dtype of combining ``vals`` (NumPy promotion, NEP 50 weak scalars)."""
        strong = [v.dtype for v in vals if isinstance(v, _ir.Node)]
        weak = [v for v in vals if isinstance(v, (Weak, WeakExpr))]
        if not strong:
            cat = max(_cat_weak(v) for v in weak)
            if arith and cat == 0:
                cat = 1
            return _DEFAULT_BY_CAT[cat], True
        T = _dt.lookup_dtype(np.result_type(*strong))
        if arith and T.kind == "b":
            T = _I64
        for w in weak:
            c = _cat_weak(w)
            if c > _cat_dtype(T):
                T = _dt.lookup_dtype(np.result_type(T, _DEFAULT_BY_CAT[c]))
        return T, False

    def as_node(self, v, dt, node) -> _ir.Node:
        if isinstance(v, Weak):
            val = v.value
            if dt.kind in "iu" and not isinstance(val, float) and not _fits(val, dt):
                raise self.terr(node, f"the constant {val!r} does not fit in {dt.name}, the type "
                                "of the other operand; cast explicitly (e.g. float(x))")
            if dt.kind in "iu" and isinstance(val, float):
                raise self.terr(node, f"cannot use float {val!r} as {dt.name}")
            return self.b.const(val, dt)
        if isinstance(v, WeakExpr):
            return self.b.cast(v.node, dt)
        if isinstance(v, _ir.Node):
            return self.b.cast(v, dt)
        raise self.value_error(v, node)

    def value_error(self, v, node):
        if isinstance(v, ViewRef):
            props = ", ".join(f"{v.name}.{p}" for p in self.views[v.name]) or "(none declared)"
            return self.terr(node, f"{v.name!r} is a vertex view; read one of its properties: {props}")
        if isinstance(v, ModuleRef):
            return self.terr(node, f"module {v.name!r} cannot be used as a value")
        if isinstance(v, FuncRef):
            return self.terr(node, f"function {v.name!r} cannot be used as a value; call it")
        if isinstance(v, DictVal):
            return self.terr(node, "a dict can only be returned, not computed with")
        if isinstance(v, Undefined):
            return self.terr(node, f"{v.name!r} may be undefined here (assigned on only one "
                             "branch of an 'if')")
        return self.terr(node, f"unsupported value {v!r}")

    def wrap(self, n, weak):
        return WeakExpr(n) if weak else n

    def strict(self, v, node):
        if isinstance(v, (ViewRef, ModuleRef, FuncRef, DictVal, Undefined)):
            raise self.value_error(v, node)
        return v

    def truth(self, v, node):
        v = self.strict(v, node)
        if isinstance(v, Weak):
            return Weak(bool(v.value))
        n = v.node if isinstance(v, WeakExpr) else v
        if n.dtype.kind == "b":
            return v
        t = self.b.node("ne", (n, self.b.const(0, n.dtype)), _BOOL)
        return self.wrap(t, isinstance(v, WeakExpr))

    # -- expressions --------------------------------------------------------------------
    def expr(self, e, env):
        m = getattr(self, "e_" + type(e).__name__, None)
        if m is None:  # pragma: no cover (the validator rejects these first)
            raise self.serr(e, f"'{type(e).__name__}' is not supported in hpgraph callbacks")
        return m(e, env)

    def e_Constant(self, e, env):
        if isinstance(e.value, (bool, int, float)):
            return Weak(e.value)
        raise self.serr(e, f"{type(e.value).__name__} constants are not supported in hpgraph callbacks")

    def e_Name(self, e, env):
        nm = e.id
        if nm in env:
            v = env[nm]
            if isinstance(v, Undefined):
                raise self.value_error(v, e)
            return v
        if nm in self.a.locals:
            raise self.terr(e, f"local variable {nm!r} is used before it is assigned")
        if nm in self.caps:
            c = self.caps[nm]
            if c[0] == "py":
                return Weak(c[2])
            if c[0] == "np":
                dt = np.dtype(c[1])
                return self.b.const(c[2], dt)
            if c[0] == "module":
                return ModuleRef(c[1])
            return FuncRef(c[1])
        raise self.terr(e, f"name {nm!r} is not defined")  # pragma: no cover (caught earlier)

    def e_Attribute(self, e, env):
        base = self.expr(e.value, env)
        attr = e.attr
        if isinstance(base, ViewRef):
            props = self.views[base.name]
            if attr not in props:
                known = ", ".join(props) or "none"
                raise self.terr(e, f"{base.name!r} has no property {attr!r} (declared: {known})")
            if attr not in self.used_props[base.name]:
                self.used_props[base.name].append(attr)
            return self.param(f"v_{base.name}_{attr}", props[attr])
        if isinstance(base, ModuleRef):
            if attr in _MATH_CONSTS and (base.name == "math" or attr in ("pi", "e", "inf", "nan")):
                return Weak(_MATH_CONSTS[attr])
            if attr in _ir.MATH_FUNCS or attr in _ir.MATH_PREDICATES:
                if base.name == "math" and not hasattr(math, attr):
                    raise self.terr(e, f"math.{attr} does not exist")
                return FuncRef("math." + attr)
            if base.name == "numpy":
                if attr in _NP_DTYPE_FUNCS:
                    return FuncRef("dtype:" + _NP_DTYPE_FUNCS[attr].name)
                if attr in _NP_ALIASES:
                    return FuncRef("np." + _NP_ALIASES[attr])
            raise self.terr(e, f"{base.name}.{attr} is not supported in hpgraph callbacks "
                            f"(supported: {', '.join(sorted(_ir.MATH_FUNCS))}, isnan, isinf, "
                            "isfinite, pi, e, inf, nan)")
        raise self.terr(e, "attribute access is only supported on vertex views (src.dist) and "
                        "the math/numpy modules")

    def e_UnaryOp(self, e, env):
        v = self.strict(self.expr(e.operand, env), e.operand)
        if isinstance(e.op, ast.Not):
            t = self.truth(v, e.operand)
            if isinstance(t, Weak):
                return Weak(not t.value)
            n = t.node if isinstance(t, WeakExpr) else t
            return self.wrap(self.b.node("not", (n,), _BOOL), isinstance(t, WeakExpr))
        if isinstance(v, Weak):
            x = v.value
            if isinstance(e.op, ast.USub):
                return Weak(-x)
            if isinstance(e.op, ast.UAdd):
                return Weak(+x)
            if isinstance(x, float):
                raise self.terr(e, "'~' needs an integer operand")
            return Weak(~x)
        weak = isinstance(v, WeakExpr)
        n = v.node if weak else v
        if isinstance(e.op, ast.Invert):
            if n.dtype.kind not in "iu":
                raise self.terr(e, f"'~' needs an integer operand, got {n.dtype.name}"
                                + ("; use 'not' for bools" if n.dtype.kind == "b" else ""))
            return self.wrap(self.b.node("invert", (n,), n.dtype), weak)
        if n.dtype.kind == "b":
            n = self.b.cast(n, _I64)
        if isinstance(e.op, ast.UAdd):
            return self.wrap(n, weak)
        return self.wrap(self.b.node("neg", (n,), n.dtype), weak)

    def e_BinOp(self, e, env):
        a = self.strict(self.expr(e.left, env), e.left)
        b = self.strict(self.expr(e.right, env), e.right)
        return self.binop(_BINOPS[type(e.op)], a, b, e)

    def binop(self, op, a, b, e):
        if isinstance(a, Weak) and isinstance(b, Weak):
            return self.fold_binop(op, a.value, b.value, e)
        if op in ("bitand", "bitor", "bitxor"):
            T, weak = self.common([a, b], e)
            if T.kind == "f":
                raise self.terr(e, f"bitwise operators need integer or bool operands, got {T.name}")
            n = self.b.node(op, (self.as_node(a, T, e), self.as_node(b, T, e)), T)
            return self.wrap(n, weak)
        T, weak = self.common([a, b], e, arith=True)
        if op == "truediv" and T.kind != "f":
            T = _F64
        if op == "pow" and isinstance(b, Weak) and b.value == 2 and not isinstance(b.value, bool):
            x = self.as_node(a, T, e)
            return self.wrap(self.b.node("mul", (x, x), T), weak)
        x = self.as_node(a, T, e)
        y = self.as_node(b, T, e)
        if op == "pow":
            n = self.b.node("math" if T.kind == "f" else "ipow", (x, y), T,
                            "pow" if T.kind == "f" else None)
        else:
            n = self.b.node(op, (x, y), T)
        return self.wrap(n, weak)

    def fold_binop(self, op, x, y, e):
        try:
            if op == "add":
                r = x + y
            elif op == "sub":
                r = x - y
            elif op == "mul":
                r = x * y
            elif op == "truediv":
                r = x / y
            elif op == "floordiv":
                r = x // y
            elif op == "mod":
                r = x % y
            elif op == "pow":
                r = x ** y
            elif op == "bitand":
                r = x & y
            elif op == "bitor":
                r = x | y
            else:
                r = x ^ y
        except (ZeroDivisionError, OverflowError, TypeError) as exc:
            raise self.terr(e, f"constant expression fails: {exc}") from None
        if isinstance(r, complex):
            raise self.terr(e, "constant expression gives a complex number")
        return Weak(r)

    def e_BoolOp(self, e, env):
        vals = [(self.strict(self.expr(v, env), v), v) for v in e.values]
        is_and = isinstance(e.op, ast.And)
        result, rnode = vals[-1]
        for v, vn in reversed(vals[:-1]):
            result = self.boolop(is_and, v, result, vn, e)
        return result

    def boolop(self, is_and, a, b, an, e):
        t = self.truth(a, an)
        if isinstance(t, Weak):
            if is_and:
                return b if t.value else a
            return a if t.value else b
        tn = t.node if isinstance(t, WeakExpr) else t
        both_bool = all(isinstance(v, (_ir.Node, WeakExpr)) and
                        (v.node if isinstance(v, WeakExpr) else v).dtype.kind == "b" for v in (a, b))
        if both_bool:
            an_ = a.node if isinstance(a, WeakExpr) else a
            bn_ = b.node if isinstance(b, WeakExpr) else b
            weak = isinstance(a, WeakExpr) and isinstance(b, WeakExpr)
            return self.wrap(self.b.node("and" if is_and else "or", (an_, bn_), _BOOL), weak)
        T, weak = self.common([a, b], e)
        x, y = self.as_node(a, T, e), self.as_node(b, T, e)
        n = self.b.node("where", (tn, y, x) if is_and else (tn, x, y), T)
        return self.wrap(n, weak)

    def e_Compare(self, e, env):
        left = self.strict(self.expr(e.left, env), e.left)
        result = None
        for op, comp in zip(e.ops, e.comparators):
            right = self.strict(self.expr(comp, env), comp)
            c = self.compare(_CMPOPS[type(op)], left, right, e)
            result = c if result is None else self.boolop(True, result, c, e, e)
            left = right
        return result

    def compare(self, op, a, b, e):
        if isinstance(a, Weak) and isinstance(b, Weak):
            x, y = a.value, b.value
            r = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y,
                 "ge": x >= y}[op]
            return Weak(bool(r))
        T, weak = self.common([a, b], e)
        for w in (a, b):
            if isinstance(w, Weak) and T.kind in "iu" and not isinstance(w.value, float) \
                    and not _fits(w.value, T):
                T = _dt.lookup_dtype(np.result_type(T, _I64))
                if not _fits(w.value, T):
                    T = _F64
        n = self.b.node(op, (self.as_node(a, T, e), self.as_node(b, T, e)), _BOOL)
        return self.wrap(n, weak)

    def e_IfExp(self, e, env):
        t = self.truth(self.expr(e.test, env), e.test)
        if isinstance(t, Weak):
            return self.expr(e.body if t.value else e.orelse, env)
        a = self.expr(e.body, env)
        b = self.expr(e.orelse, env)
        return self.select(t, a, b, e)

    def select(self, t, a, b, e):
        """``a if t else b`` for values (dicts key by key)."""
        if isinstance(a, DictVal) or isinstance(b, DictVal):
            if not (isinstance(a, DictVal) and isinstance(b, DictVal)):
                raise self.terr(e, "every return of an update callback must return a dict")
            if set(a.items) != set(b.items):
                raise self.terr(e, f"returned dicts have different keys: {sorted(a.items)} vs "
                                f"{sorted(b.items)}")
            return DictVal({k: self.select(t, a.items[k], b.items[k], e) for k in a.items})
        a = self.strict(a, e)
        b = self.strict(b, e)
        if a is b:
            return a
        if isinstance(t, Weak):
            return a if t.value else b
        tn = t.node if isinstance(t, WeakExpr) else t
        T, weak = self.common([a, b], e)
        n = self.b.node("where", (tn, self.as_node(a, T, e), self.as_node(b, T, e)), T)
        return self.wrap(n, weak)

    def e_Call(self, e, env):
        f = self.expr(e.func, env)
        if not isinstance(f, FuncRef):
            what = ast.unparse(e.func) if hasattr(ast, "unparse") else "this"
            raise self.terr(e.func, f"{what!r} cannot be called in an hpgraph callback "
                            "(supported: min, max, abs, float, int, bool, math.*)")
        name = f.name
        nargs = len(e.args)
        if name == "float" and nargs == 1 and isinstance(e.args[0], ast.Constant) \
                and isinstance(e.args[0].value, str):
            try:
                return Weak(float(e.args[0].value))
            except ValueError:
                raise self.terr(e, f"float({e.args[0].value!r}) is not a number") from None
        for a in e.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                raise self.serr(a, "string constants are not supported in hpgraph callbacks")
        args = [self.strict(self.expr(a, env), a) for a in e.args]
        if name in ("min", "max", "np.fmin", "np.fmax"):
            op = name[-3:]
            if nargs < 2:
                raise self.terr(e, f"{name}() needs at least two values here (iterables are not "
                                "supported): write min(a, b)")
            r = args[0]
            for v in args[1:]:
                r = self.minmax(op, r, v, e)
            return r
        if name == "np.where":
            if nargs != 3:
                raise self.terr(e, "np.where needs three arguments (cond, a, b)")
            return self.select(self.truth(args[0], e.args[0]), args[1], args[2], e)
        self.nargs(e, name, nargs, 2 if name in ("math.pow", "math.atan2", "math.hypot",
                                                  "math.fmod", "math.copysign") else 1)
        x = args[0]
        if name in ("abs", "np.abs"):
            if isinstance(x, Weak):
                return Weak(abs(x.value))
            weak = isinstance(x, WeakExpr)
            n = x.node if weak else x
            if n.dtype.kind == "b":
                n = self.b.cast(n, _I64)
            return self.wrap(self.b.node("abs", (n,), n.dtype), weak)
        if name in ("float", "int", "bool"):
            if name == "bool":
                return self.truth(x, e.args[0])
            T = _F64 if name == "float" else _I64
            if isinstance(x, Weak):
                v = x.value
                if name == "int" and isinstance(v, float) and not math.isfinite(v):
                    raise self.terr(e, f"int({v}) is undefined")
                return Weak(float(v) if name == "float" else int(v))
            n = x.node if isinstance(x, WeakExpr) else x
            return WeakExpr(self.b.cast(n, T))
        if name.startswith("dtype:"):
            T = np.dtype(name[6:])
            if isinstance(x, Weak):
                if T.kind in "iu" and isinstance(x.value, float):
                    if not math.isfinite(x.value):
                        raise self.terr(e, f"{T.name}({x.value}) is undefined")
                    return self.b.const(int(x.value), T)
                if T.kind in "iu" and not _fits(x.value, T):
                    raise self.terr(e, f"{x.value} does not fit in {T.name}")
                return self.b.const(x.value, T)
            n = x.node if isinstance(x, WeakExpr) else x
            return self.b.cast(n, T) if T.kind != "b" else self.truth(n, e.args[0])
        fname = name.split(".", 1)[1]
        if fname in _ir.MATH_PREDICATES:
            if isinstance(x, Weak):
                return Weak(bool(_ir.MATH_PREDICATES[fname](float(x.value))))
            weak = isinstance(x, WeakExpr)
            n = x.node if weak else x
            if n.dtype.kind != "f":
                return Weak(fname == "isfinite")
            return self.wrap(self.b.node("pred", (n,), _BOOL, fname), weak)
        if fname not in _ir.MATH_FUNCS:  # pragma: no cover (safety)
            raise self.terr(e, f"{name} is not supported")
        if all(isinstance(v, Weak) for v in args):
            with np.errstate(all="ignore"):
                r = _ir.MATH_FUNCS[fname][2](*[np.float64(v.value) for v in args])
            return Weak(float(r))
        T, weak = self.common(args, e)
        if T.kind != "f":
            T = _F64
        ns = [self.as_node(v, T, e) for v in args]
        return self.wrap(self.b.node("math", ns, T, fname), weak)

    def nargs(self, e, name, got, want):
        if len(e.args) != want:
            raise self.terr(e, f"{name}() takes {want} argument{'s' if want > 1 else ''}, got {got}")

    def minmax(self, op, a, b, e):
        if isinstance(a, Weak) and isinstance(b, Weak):
            x, y = a.value, b.value
            if isinstance(x, float) or isinstance(y, float):
                f = np.fmin if op == "min" else np.fmax
                return Weak(float(f(float(x), float(y))))
            return Weak(min(x, y) if op == "min" else max(x, y))
        T, weak = self.common([a, b], e)
        for w in (a, b):
            if isinstance(w, Weak) and T.kind in "iu" and not _fits(w.value, T):
                raise self.terr(e, f"the constant {w.value!r} does not fit in {T.name}")
        n = self.b.node(op, (self.as_node(a, T, e), self.as_node(b, T, e)), T)
        return self.wrap(n, weak)

    def e_Dict(self, e, env):
        return DictVal({k.value: self.strict(self.expr(v, env), v) for k, v in zip(e.keys, e.values)})

    # -- statements ---------------------------------------------------------------------
    def run(self):
        env = {}
        for p in self.a.params:
            if p in self.views:
                env[p] = ViewRef(p)
            else:
                env[p] = self.param(f"p_{p}", self.arg_types[p])
        kind, val = self.block(self.a.body, env)
        if kind != "return":
            raise self.src.error(self.a.src.node, "the callback can end without returning a value",
                                 UdfTypeError)
        return val

    def block(self, stmts, env):
        for k, st in enumerate(stmts):
            if isinstance(st, ast.Return):
                if isinstance(st.value, ast.Dict):
                    return "return", self.e_Dict(st.value, env)
                return "return", self.strict(self.expr(st.value, env), st.value)
            if isinstance(st, ast.Assign):
                if isinstance(st.value, ast.Tuple):
                    vals = [self.strict(self.expr(v, env), v) for v in st.value.elts]
                else:
                    vals = self.strict(self.expr(st.value, env), st.value)
                for tg in st.targets:
                    self.assign(tg, vals, env, st)
            elif isinstance(st, ast.AugAssign):
                cur = self.e_Name(ast.Name(id=st.target.id, ctx=ast.Load(), lineno=st.lineno,
                                           col_offset=st.col_offset, end_lineno=st.end_lineno,
                                           end_col_offset=st.end_col_offset), env)
                val = self.strict(self.expr(st.value, env), st.value)
                env[st.target.id] = self.binop(_BINOPS[type(st.op)], self.strict(cur, st), val, st)
            elif isinstance(st, ast.AnnAssign):
                env[st.target.id] = self.strict(self.expr(st.value, env), st.value)
            elif isinstance(st, ast.If):
                t = self.truth(self.strict(self.expr(st.test, env), st.test), st.test)
                rest = stmts[k + 1:]
                if isinstance(t, Weak):
                    return self.block((st.body if t.value else st.orelse) + rest, env)
                if any(isinstance(n, ast.Return) for s in (*st.body, *st.orelse)
                       for n in ast.walk(s)):
                    ka, va = self.block(st.body + rest, dict(env))
                    kb, vb = self.block(st.orelse + rest, dict(env))
                    if ka != "return" or kb != "return":
                        raise self.src.error(st, "the callback can end without returning a value",
                                             UdfTypeError)
                    return "return", self.select(t, va, vb, st)
                _, env_a = self.block(st.body, dict(env))
                _, env_b = self.block(st.orelse, dict(env))
                new = {}
                for nm in set(env_a) | set(env_b):
                    va, vb = env_a.get(nm), env_b.get(nm)
                    if va is vb:
                        new[nm] = va
                    elif va is None or vb is None or isinstance(va, Undefined) \
                            or isinstance(vb, Undefined):
                        new[nm] = Undefined(nm)
                    else:
                        new[nm] = self.select(t, va, vb, st)
                env = new
            # Pass and docstrings: nothing
        return "fallthrough", env

    def assign(self, tg, vals, env, st):
        if isinstance(tg, ast.Name):
            if isinstance(vals, list):
                raise self.terr(st, "tuples cannot be assigned to a single name")
            env[tg.id] = vals
            return
        if not isinstance(vals, list) or len(vals) != len(tg.elts):
            raise self.terr(st, "unpacking needs a tuple of the same length on the right")
        for t, v in zip(tg.elts, vals):
            env[t.id] = v
