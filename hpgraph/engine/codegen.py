"""CUDA source of one bound vertex program (no GPU needed: CI compiles it with NVRTC).

:func:`program_source` fills the engine template (``templates/engine*.cu``, joined in the
order of :data:`ENGINE_PARTS`) with the program's dtypes, the monoid's C
expressions and atomic form, and the compiled ``gather``/``update`` bodies reading properties
from structure-of-arrays (one pointer parameter ``P_<name>`` per property).

Why the engine has its own templates rather than the spmv ones: a superstep needs things the
semiring SpMV kernels have no reason to carry -- the parity-selected double-buffered bitmask
and frontier queue, device-side frontier counters that let a fixed launch sequence be replayed
blind (CUDA graphs), the touched queue for ``apply_to="received"``, and the fused APPLY with
last-block superstep bookkeeping.  The row loops themselves (column-major ELL, warp per COO
segment, warp per pushed row) follow the same layout as ``hpgraph/spmv``.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np

from .. import cuda_source
from .. import dtypes as _dt
from . import common

_TEMPLATE_DIR = Path(__file__).with_name("templates")

#: The warp-balanced row expansion (device code shared with the traversal kernels).
BALANCED = (_TEMPLATE_DIR / "balanced.cuh").read_text()

KERNELS = ("hp_pull_ell", "hp_pull_coo", "hp_push", "hp_apply_step", "hp_init_frontier",
           "hp_init_fused")


#: The compile unit of each kernel (``HP_UNIT`` in the engine template): a program's units
#: are compiled as separate modules, in parallel threads.  On the device (16 cores, NVRTC 13)
#: parallel compiles slow each other down -- eight units took ~450 ms, in threads or in
#: processes alike, against 50-230 ms each alone -- so a new program waits for about the
#: units' total work more than for its longest unit.  So APPLY is one kernel whose pass is a
#: launch argument: with three entry points (three units) the two SSSP examples' units took
#: 1,200-1,800 ms in all, compiled one after another on a 2-core host; with one, 670-1,200 ms.
#: And units are few: each pays the whole template's front end and ptxas' start (~50 ms on
#: that host: the two pull kernels took 141-216 ms as two units, 99-150 as one; the far-set
#: split and setup kernels 234-249 against 177-196).
UNITS = {"hp_pull_ell": 1, "hp_pull_coo": 1, "hp_push": 2, "hp_push_fused": 2, "hp_witness": 3,
         "hp_apply_step": 4,
         "hp_far_min": 6, "hp_far_take": 6, "hp_init_frontier": 6, "hp_init_fused": 6,
         "hp_relax_witness": 6, "hp_block_loop": 7}

#: Units a run can do without: compiled in the background when not in the kernel cache, after
#: the others, one after another (the block loop, 240-290 ms, the longest unit; the host loop
#: runs small frontiers with the other kernels until it is ready; and a fused program's plain
#: push, which only a mixed batch under ``max_iterations`` launches: such a run waits for it).
DEFERRED_UNITS = (5, 7)


def push_unit(bp, idx_dtype) -> int:
    """The compile unit of ``hp_push`` (``HP_PUSH_UNIT`` in the template): 2, beside the fused
    push, or for a fused program (:func:`fused_kind`), whose pushes are ``hp_push_fused``
    except in mixed batches under ``max_iterations``, a unit of its own (5) compiled in the
    background: its first run does not wait for it."""
    return 5 if fused_kind(bp, idx_dtype) else 2


def can_push(bp) -> bool:
    """Whether ``bp`` can run a superstep as a push (an atomic form of its reduce, gathers from
    the active vertices): then the direction rule may pick either direction."""
    return bp.monoid.atomic is not None and bp.gather_from == "active"


def kernel_units(bp, idx_dtype) -> dict:
    """``{unit: (kernel names)}`` of ``bp``'s module for graphs with index dtype
    ``idx_dtype``, in unit order."""
    out: dict = {}
    for name in kernel_names(bp, idx_dtype):
        u = push_unit(bp, idx_dtype) if name == "hp_push" else UNITS[name]
        out.setdefault(u, []).append(name)
    return {u: tuple(out[u]) for u in sorted(out)}


#: The device loop's compile unit (``hp_loop``, :mod:`.device_loop`): a persistent-mode unit
#: launched cooperatively, compiled with the others where the run asks for the device loop.
LOOP_UNIT = 8


def unit_options(unit: int) -> tuple:
    """NVRTC options of compile unit ``unit`` (the block loop and the device loop are
    persistent-mode units)."""
    return ("-std=c++17", f"-DHP_UNIT={unit}") + \
        (("-DHP_PERSISTENT=1",) if unit in (7, LOOP_UNIT) else ())


def block_loop_ok(bp) -> bool:
    """Whether ``bp`` can run small frontiers in the block loop (``hp_block_loop``): it pushes
    and applies to the receivers only, and has no priority (a far-set split scans all n)."""
    return (bp.apply_to == "received" and bp.priority is None and bp.gather_from == "active"
            and bp.monoid.atomic is not None)


def fuse_ok(bp) -> bool:
    """Whether ``bp``'s push supersteps can apply as they push (``hp_push_fused``: one launch
    per superstep instead of push and APPLY): an ``any`` reduce applied to the receivers, one
    gather side, no priority, and a mask that the program declares false on every active
    vertex (``mask_excludes_active``), so no sender is also a receiver and the first sender to
    claim a receiver may run its update at once (any received value is a valid ``any``)."""
    return (bool(getattr(bp, "mask_excludes_active", False)) and bp.kernels.mask is not None
            and bool(bp.monoid.terminal_any) and bp.apply_to == "received"
            and bp.priority is None and bp.gather_from == "active"
            and len(common.matrix_names(bp.edges)) == 1)


def pull_reached_ok(bp, idx_dtype) -> bool:
    """Whether ``bp``'s pulls may take a sender by its relaxed property instead of its frontier
    bit (``hp_sends``; the run turns it on when its start allows: ``gpu._starts_at_identity``):
    the program relaxes a property (``bp.relax``) of the reduce's value type, and has no
    witness or one whose winners pack (:func:`pack_ok`).  A witness pass (``hp_witness``)
    looks for the winner among the frontier's senders only, and a pull by value may take the
    best message from a vertex outside the frontier (one parked in a priority's far set)."""
    relax = getattr(bp, "relax", None)
    if relax is None or (bp.witness is not None and not pack_ok(bp, idx_dtype)):
        return False
    dt = {p.name: p.dtype for p in bp.props}[relax]
    return np.dtype(dt) == np.dtype(bp.y_dtype)


def relax_ok(bp, idx_dtype) -> bool:
    """Whether ``bp``'s push supersteps relax (``hp_push_fused`` in its second form): the
    program relaxes a property (``bp.relax``, :mod:`.relax`) and has no witness or one whose
    winners pack with their values (:func:`pack_ok`: the relaxation keeps them in one 64-bit
    word per vertex)."""
    return getattr(bp, "relax", None) is not None and (bp.witness is None
                                                       or pack_ok(bp, idx_dtype))


def fused_kind(bp, idx_dtype) -> int:
    """How ``bp``'s push supersteps apply: 0 after the push (APPLY), 1 as the first sender
    claims each receiver (:func:`fuse_ok`), 2 as every sender relaxes it (:func:`relax_ok`)."""
    if fuse_ok(bp):
        return 1
    return 2 if relax_ok(bp, idx_dtype) else 0


def pack_ok(bp, idx_dtype) -> bool:
    """Whether ``bp`` records exact winners (``HP_PACK``): it has a witness, a min / max
    monoid on a 32-bit ``y`` (or ``any`` on 32-bit integers: the smallest packed word is one
    valid ``any``) and the graph 32-bit vertex ids, so value and sender fit one 64-bit
    ``atomicMin`` -- pushes and the chunks of split pull rows write them into ``yk``, APPLY
    unpacks them, and no witness pass runs."""
    ydt = np.dtype(bp.y_dtype)
    mon = bp.monoid
    builtin = getattr(getattr(mon, "parent", None), "is_builtin", False)
    kinds = "iuf" if mon.name in ("min", "max") else "iu" if mon.name == "any" else ""
    return (bp.witness is not None and builtin and ydt.kind in kinds and ydt.itemsize == 4
            and np.dtype(idx_dtype).itemsize == 4)


def kernel_names(bp, idx_dtype) -> tuple:
    """The kernels of ``bp``'s module for graphs with index dtype ``idx_dtype`` (the witness,
    priority and block-loop kernels only where used: a program whose winners are packed
    (:func:`pack_ok`) needs no witness pass, APPLY unpacks them)."""
    wit = bp.witness is not None and not pack_ok(bp, idx_dtype)
    kind = fused_kind(bp, idx_dtype)
    extra = (("hp_witness",) if wit else ()) + \
        (("hp_far_min", "hp_far_take") if bp.priority is not None else ()) + \
        (("hp_block_loop",) if block_loop_ok(bp) else ()) + \
        (("hp_push_fused",) if kind else ()) + \
        (("hp_relax_witness",) if kind == 2 and bp.witness is not None else ())
    return KERNELS + extra

#: Push rows longer than this (heavy frontier vertices) are split over the whole grid.
HEAVY = 1024


#: The engine's CUDA template, in the order the parts are joined into one module: header and
#: shared device functions; SPMV (pull, push); priority keys and WITNESS; APPLY and the far-set
#: split; the persistent loops and the setup kernels.
ENGINE_PARTS = ("engine.cu", "engine_spmv.cu", "engine_order.cu", "engine_apply.cu", "engine_loop.cu")


@functools.lru_cache(maxsize=1)
def _engine_template():
    """The engine template: :data:`ENGINE_PARTS` joined (one ``string.Template``, made once)."""
    import string

    return string.Template("".join(cuda_source.load(str(_TEMPLATE_DIR / p)).template
                                   for p in ENGINE_PARTS))


def _bits_type(dt: np.dtype) -> str:
    return {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
            8: "unsigned long long"}[dt.itemsize]


def shfl_down_expr(dt: np.dtype) -> str:
    """``__shfl_down_sync`` of a value of ``dt`` (narrow types travel as int)."""
    if dt.itemsize < 4:
        return "(y_t)__shfl_down_sync(HP_FULL, (int)a, off)"
    return "__shfl_down_sync(HP_FULL, a, off)"


def atomic_body(monoid, returning=False) -> str:
    """Body of ``hp_atomic(y_t* p, y_t v)`` (``returning``: of ``y_t hp_atomic_old(y_t* p,
    y_t v)``, which returns the value before): the monoid's atomic form
    (:meth:`hpgraph.ops.TypedMonoid.c_atomic_body`, the one table every generator uses); a
    trap where there is none (push is then never launched)."""
    body = monoid.c_atomic_body(returning)
    if body is None:
        return "    (void)p; (void)v; __trap();  // no atomic form: push is never launched" + \
            ("\n    return v;" if returning else "")
    return "\n".join("    " + ln for ln in body.splitlines())


def change_test(name: str, dt: np.dtype, tol) -> str:
    """C boolean: property ``name`` changed from ``o_<name>`` to ``n_<name>``.

    The same test as :func:`hpgraph.engine.common.np_changed`.
    """
    o, n = f"o_{name}", f"n_{name}"
    if tol is None:
        if dt.kind == "f":
            return f"(!({n} == {o} || ({n} != {n} && {o} != {o})))"
        return f"({n} != {o})"
    t = _dt.c_literal(float(tol), np.float64)
    return (f"(fabs((double){n} - (double){o}) > {t} || "
            f"(((double){n} != (double){n}) != ((double){o} != (double){o})))")


def program_source(bp, idx_dtype) -> str:
    """The CUDA module of bound program ``bp`` for graphs with index dtype ``idx_dtype``."""
    k = bp.kernels
    mon = bp.monoid
    ydt = np.dtype(bp.y_dtype)
    wdt = np.dtype(bp.edge_dtype)
    props = bp.props
    const_params = "".join(f", const {_dt.c_type(p.dtype)}* HP_MUT P_{p.name}" for p in props)
    mut_params = "".join(f", {_dt.c_type(p.dtype)}* HP_MUT P_{p.name}" for p in props)
    # the fused push reads and writes the properties in one kernel: no __restrict__
    plain_params = "".join(f", {_dt.c_type(p.dtype)}* P_{p.name}" for p in props)
    args = "".join(f", P_{p.name}" for p in props)
    # The kernels combine an inactive sender as the identity and test "terminal" on the
    # accumulated value.  ``any``'s identity is not neutral under its plain combine, and every
    # value is terminal, so for ``any`` the engine combines as "keep a unless it is the
    # identity" (the identity is then neutral; associative; a valid ``any``) and calls a row
    # finished once it holds a non-identity value.  ``update`` cannot tell a received identity
    # from nothing on either backend, so CPU and GPU still agree.
    if mon.terminal_any:
        is_term = f"((a) != {mon.c_identity})"
        add_expr = f"(((a) == {mon.c_identity}) ? (b) : (a))"
    else:
        is_term = mon.c_is_terminal("a")
        add_expr = mon.c_add("a", "b")
    gather_body = k.c_gather_body(u="u", w="w", v="v", ptr="P_")
    upd = k.c_update_body(v="v", y="yv", ptr="P_")
    lines = [upd]
    outputs = k.update_outputs
    for p in props:
        if p.name in outputs:
            lines.append(f"changed = changed || {change_test(p.name, p.dtype, bp.tolerances.get(p.name))};")
            lines.append(f"P_{p.name}[v] = n_{p.name};")
    update_body = "\n".join("                " + ln for blk in lines for ln in blk.splitlines())
    fill_params = "".join(f", u64 D_{p.name}, u64 S_{p.name}" for p in props)
    fill_lines = []
    for i, p in enumerate(props):
        t = _dt.c_type(p.dtype)
        fill_lines.append(
            f"        {{ const int f = (int)((fmode_v >> {2 * i}) & 3), s = (int)((smode_v >> {2 * i}) & 3);\n"
            f"          if (f) {{\n"
            f"              {t} x = f == 2 ? ({t})v : hp_unbits<{t}>(D_{p.name});\n"
            f"              if (hit && s) x = s == 2 ? ({t})v : hp_unbits<{t}>(S_{p.name});\n"
            f"              P_{p.name}[v] = x;\n"
            f"          }} }}")
    edge_load = "((w_t)__ldg((vals) + (pos)))" if bp.weighted else "((w_t)1)"
    mask_body = k.c_mask_body(v="v", ptr="P_")
    preamble = "\n".join(x for x in (mon.c_preamble, k.c_preamble) if x)
    subst = dict(
        PROGRAM=re.sub(r"[^A-Za-z0-9_]", "_", bp.name),   # a comment: no way to close it
        IDX_T=_dt.c_type(idx_dtype),
        Y_T=_dt.c_type(ydt),
        W_T=_dt.c_type(wdt),
        BITS_T=_bits_type(ydt),
        GATHER_ALL=int(bp.gather_from == "all"),
        HAS_TERMINAL=int(is_term is not None),
        IDEMPOTENT=int(bool(mon.idempotent)),
        RECEIVED_ONLY=int(bp.apply_to == "received"),
        HAS_MASK=int(k.mask is not None),
        ANY=int(bool(mon.terminal_any)),
        PULL_REACHED=int(pull_reached_ok(bp, idx_dtype)),
        MASK_BODY=mask_body,
        HEAVY=HEAVY,
        EDGE_LOAD=edge_load,
        PREAMBLE=preamble,
        BALANCED=BALANCED,
        IDENTITY=mon.c_identity,
        ADD=add_expr,
        IS_TERMINAL="false" if is_term is None else is_term,
        SHFL_DOWN=shfl_down_expr(ydt),
        ATOMIC=atomic_body(mon),
        ATOMIC_OLD=atomic_body(mon, returning=True),
        PROPS_CONST_PARAMS=const_params,
        PROPS_MUT_PARAMS=mut_params,
        PROPS_PLAIN_PARAMS=plain_params,
        FUSED=fused_kind(bp, idx_dtype),
        PROPS_ARGS=args,
        GATHER_BODY=gather_body,
        GATHER_BODY_CG=gather_body.replace("HP_LDM(", "__ldcg("),
        MASK_BODY_CG=mask_body.replace("HP_LDM(", "__ldcg("),
        UPDATE_BODY=update_body,
        FILL_PARAMS=fill_params,
        FILL_BODY="\n".join(fill_lines) if fill_lines else "        (void)v;",
        **_ordering_subst(bp, idx_dtype),
        PACK=int(pack_ok(bp, idx_dtype)),
        PACK_MAX=int(mon.name == "max"),
        Y_FLOAT=int(ydt.kind == "f"),
        Y_SIGNED=int(ydt.kind == "i"),
    )
    return cuda_source.render(_engine_template(), **subst)


def _ordering_subst(bp, idx_dtype) -> dict:
    """Template slots of the witness, priority and fused-push features (inactive ones compile
    away)."""
    by_name = {p.name: p for p in bp.props}
    first = bp.props[0].name
    wit = bp.witness
    prio = bp.priority
    pdt = np.dtype(by_name[prio].dtype) if prio is not None else np.dtype(np.int32)
    if pdt.kind in "iu":
        info = np.iinfo(pdt)
        lowest, highest = _dt.c_literal(int(info.min), pdt), _dt.c_literal(int(info.max), pdt)
    else:
        lowest = highest = "0"
    apply_params, apply_args, loop_params = "", "", ""
    pull_params = pull_args = push_params = push_args = ""
    if wit is not None:
        apply_params += ", idx_t* HP_MUT win, u64* HP_MUT yk"
        apply_args += ", win, yk"
        pull_params = push_params = ", idx_t* HP_MUT win, long long* HP_MUT wedge, u64* HP_MUT yk"
        pull_args = push_args = ", win, wedge, yk"
        loop_params += ("".join(f", const idx_t* __restrict__ pip{i}, const idx_t* __restrict__ "
                                f"pix{i}, const w_t* __restrict__ pval{i}" for i in (0, 1))
                        + ", idx_t* win, long long* wedge, u64* yk")
    if prio is not None:
        apply_params += ", unsigned* HP_MUT far"
        apply_args += ", far"
        loop_params += ", unsigned* far, prio_t delta"
    kind = fused_kind(bp, idx_dtype)
    if kind == 1:
        loop_params += ", unsigned* stamp"       # the fused push's claims
    elif kind == 2 and wit is not None:
        loop_params += ", u64* rk"               # the relaxation's packed winners
    if kind == 2:
        fuse_params = "unsigned* far, u64* rk"
        fuse_args = ("far" if prio is not None else "nullptr") + ", " + \
            ("rk" if wit is not None else "nullptr")
    else:
        fuse_params, fuse_args = "unsigned* stamp", "stamp"
    relax = getattr(bp, "relax", None) or first
    rdt = np.dtype(by_name[relax].dtype)
    same = "(nv == old || (nv != nv && old != old))" if rdt.kind == "f" else "(nv == old)"
    return dict(
        FUSE_PARAMS=fuse_params,
        FUSE_ARGS=fuse_args,
        RELAX_PROP=relax,
        RELAX_SAME=same,
        WITNESS=int(wit is not None),
        WITNESS_PROP=wit or first,
        WITNESS_T=_dt.c_type(by_name[wit].dtype) if wit is not None else "int",
        PRIORITY=int(prio is not None),
        PRIORITY_PROP=prio or first,
        PRIO_MAX=int(bp.priority_order == "max"),
        PRIO_T=_dt.c_type(pdt),
        PRIO_FLOAT=int(pdt.kind == "f"),
        PRIO_SIGNED=int(pdt.kind == "i"),
        PRIO_LOWEST=lowest,
        PRIO_HIGHEST=highest,
        APPLY_PARAMS=apply_params,
        PULL_PARAMS=pull_params,
        PULL_ARGS=pull_args,
        PUSH_PARAMS=push_params,
        PUSH_ARGS=push_args,
        APPLY_ARGS=apply_args,
        LOOP_PARAMS=loop_params,
    )
