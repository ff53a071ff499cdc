"""Relaxation programs: the vertex programs whose push supersteps may apply as they push.

A program *relaxes* property ``P`` when its reduce is the built-in ``min`` (or ``max``), its
update is ``P = min(P, y)`` (``max``), and its gather is non-decreasing in the sender's ``P``
and reads nothing of the receiver nor the witness: SSSP (``src.dist + edge``), BFS depths
(``src.depth + 1``), widest paths (``min(src.width, edge)`` under ``max``).  Such a program's
result is the fixed point ``P[v] = min(init[v], min over in-edges from senders ever active
of gather(P[u], w))`` whichever order the messages arrive in, so the GPU engine may run a
push superstep as one
kernel in which each sender combines its message straight into ``P[v]`` with the monoid's
atomic (as ``hp.sssp``'s kernels do): no ``y`` vector, no touched list, no APPLY pass.  A
sender whose own ``P`` drops during the superstep then sends the lower value at once, so a
run can take fewer supersteps (and other frontiers) than the CPU engine's, with the same
properties; the witness (``witness = ...``) is the sender that brought each vertex to its
final value (of the senders that lowered it strictly, the one with the best value), recorded
with the value in one 64-bit word -- where several senders offer the best value, another of
them than the CPU engine's.  Integer gathers must not wrap around (``src.depth + 1`` at the
dtype's largest value): a wrapped value is not ordered, and the result then depends on the
order as it does on the CPU.

:func:`relaxed_property` recognises the form from the callbacks' source (the same checked
syntax trees the compiler translates); ``hp.config["engine_relax"] = False`` turns it off.
"""

from __future__ import annotations

import ast
import builtins

import numpy as np

__all__ = ["relaxed_property"]


def _name(node, want) -> bool:
    return isinstance(node, ast.Name) and node.id == want


def _prop_of(node, view) -> str | None:
    """``P`` when ``node`` is ``view.P``."""
    if isinstance(node, ast.Attribute) and _name(node.value, view):
        return node.attr
    return None


def _returned(fn):
    """The expression of ``fn``'s single ``return`` statement (None for any other body)."""
    from ..compiler import analyze_function

    body = analyze_function(fn).body
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    return body[0].value


def _builtin_call(node, fn, names):
    """``node`` is a call of the builtin ``min`` / ``max`` (one of ``names``) with two
    positional arguments, the name resolving in ``fn`` (closure, globals, builtins) to the
    builtin itself: its name, else None."""
    from ..compiler import resolve_free

    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in names and len(node.args) == 2 and not node.keywords):
        return None
    name = node.func.id
    found, value = resolve_free(fn, name)
    return name if found and value is getattr(builtins, name) else None


def _update_target(update_fn, roles, op) -> str | None:
    """``P`` when ``update`` returns ``op(v.P, y)`` (either order), bare or as ``{"P": ...}``."""
    params = dict(zip(roles, update_fn.__code__.co_varnames[:update_fn.__code__.co_argcount]))
    v, y = params.get("v"), params.get("y")
    expr = _returned(update_fn)
    if expr is None or v is None or y is None:
        return None
    key = None
    if isinstance(expr, ast.Dict):
        if len(expr.keys) != 1 or not isinstance(expr.keys[0], ast.Constant) \
                or not isinstance(expr.keys[0].value, str):
            return None
        key, expr = expr.keys[0].value, expr.values[0]
    if _builtin_call(expr, update_fn, (op,)) is None:
        return None
    a, b = expr.args
    prop = _prop_of(a, v) if _name(b, y) else _prop_of(b, v) if _name(a, y) else None
    if prop is None or (key is not None and key != prop):
        return None
    return prop


def _reads(node, name) -> bool:
    return any(_name(x, name) for x in ast.walk(node))


def _monotone(node, fn, src, prop, others, witness=None) -> bool:
    """``node`` is non-decreasing in ``src.prop`` and reads it once: ``src.prop``, ``m + x``,
    ``x + m``, ``m - x``, ``min(m, x)`` / ``max(m, x)`` (either order) with ``m`` monotone and
    ``x`` free of ``src.prop`` and of ``src.<witness>`` (the engine writes it at the end)
    (``others``: names ``x`` must not read, the receiver's view)."""
    if _prop_of(node, src) == prop:
        return True

    def free(x):
        banned = {prop} if witness is None else {prop, witness}
        return not any(_prop_of(n, src) in banned for n in ast.walk(x)) and \
            not any(_reads(x, o) for o in others)

    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        if _monotone(node.left, fn, src, prop, others, witness) and free(node.right):
            return True
        return isinstance(node.op, ast.Add) and free(node.left) and \
            _monotone(node.right, fn, src, prop, others, witness)
    if _builtin_call(node, fn, ("min", "max")) is not None:
        a, b = node.args
        return (_monotone(a, fn, src, prop, others, witness) and free(b)) or \
            (free(a) and _monotone(b, fn, src, prop, others, witness))
    return False


def relaxed_property(gather_fn, update_fn, kernels, monoid_name: str,
                     witness: str | None = None) -> str | None:
    """The property a program relaxes (module docstring), or None.

    Parameters
    ----------
    gather_fn, update_fn : function
        The program's callbacks (``self`` first where they take it).
    kernels : hpgraph.engine.udf.CompiledCallbacks
        The callbacks typed for the run (roles of the parameters, dtypes, monoid).
    monoid_name : str
        The reduce's name (``"min"`` / ``"max"`` qualify, built-in only).
    witness : str or None
        The program's witness property (the gather must not read it).
    """
    mon = kernels.monoid
    if monoid_name not in ("min", "max") or mon.c_atomic_body() is None \
            or not getattr(getattr(mon, "parent", None), "is_builtin", False):
        return None
    if kernels.mask is not None or len(kernels.update_outputs) != 1:
        return None
    prop = _update_target(update_fn, kernels.update_args, monoid_name)
    if prop is None or prop != kernels.update_outputs[0]:
        return None
    pdt = next(p.dtype for p in kernels.props if p.name == prop)
    if np.dtype(pdt) != np.dtype(kernels.y_dtype):
        return None
    params = dict(zip(kernels.gather_args,
                      gather_fn.__code__.co_varnames[:gather_fn.__code__.co_argcount]))
    expr = _returned(gather_fn)
    src, dst = params.get("src"), params.get("dst")
    if expr is None or src is None:
        return None
    if not _monotone(expr, gather_fn, src, prop, (dst,) if dst else (), witness):
        return None
    return prop
