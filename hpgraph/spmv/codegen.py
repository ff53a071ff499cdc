"""CUDA source generation for the SpMV kernels (no GPU needed).

A :class:`KernelSpec` (frozen, hashable) says everything that changes the generated code: the
kernel family, the per-edge expression, the monoid, the types and the mask/epilogue flags.
:func:`generate` fills the templates in ``templates/*.cu`` (``string.Template`` holes) and
returns the CUDA source and the names of the ``extern "C"`` kernels it defines.

Two ways to build a spec:

* :func:`semiring_spec` -- the GraphBLAS case: the edge value is
  ``mul.c_expr("a", "x[j]", "i", "j")`` and the only extra kernel parameter is ``x``.
* :func:`make_spec` -- the generic form the vertex-program engine uses: any C expression over
  ``i`` (row = destination), ``j`` (column = source), ``a`` (the edge value, in ``in_dtype``;
  1 for a pattern matrix) and the extra kernel parameters it declares (e.g. property arrays of
  both endpoints), reduced with any monoid.

Kernel families (one generated module each):

``ell``         ``<name>``: one thread per row of a column-major ELL block, epilogue applied.
``hyb``         ``<name>_ell`` (epilogue applied; used when the COO part is empty),
                ``<name>_ell_raw`` (partial row values), ``<name>_coo`` (warp-segmented
                reduction of the row-sorted COO part, no atomics), ``<name>_carry`` (rows
                crossing warp chunks), ``<name>_epilogue`` (out/accum/replace after both parts).
``csr_vector``  ``<name>``: G lanes per row (``group``), G = 1 is the scalar CSR kernel.
``csr_lb``      ``<name>_empty``, ``<name>`` (load-balanced: equal entry chunks per warp,
                warp-segmented reduction), ``<name>_carry``.
``csr_mp``      ``<name>_search`` (merge-path tile starts, once per matrix), ``<name>``
                (merge path staged through shared memory: each block takes an equal share of
                rows + entries), ``<name>_carry`` (rows crossing tiles).
``push``        ``<name>``: edge-balanced expansion of a sparse frontier over out-edges,
                combined into ``y`` with the monoid's atomic (native or CAS loop).

Names are readable: ``hpgraph_ell_min_plus_f32_i32``; flags add suffixes (``_m``: bitmask
mask, ``_mb``: bool mask, ``c``: complement, ``_xa``/``_xab``: x_active, ``_out``, ``_acc...``,
``_rep``, ``_g8``: group size, ``_noterm``), user-defined semirings add a short hash.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace as _dc_replace
import os

import numpy as np

from .. import cuda_source
from .. import dtypes as _dt
from ..exceptions import DomainMismatch, InvalidValue

__all__ = ["KernelSpec", "make_spec", "semiring_spec", "generate", "kernel_names", "FAMILIES",
           "sanitize", "semiring_label", "batch_source", "gather_source", "reads_column"]

FAMILIES = ("ell", "hyb", "csr_vector", "csr_lb", "csr_mp", "push")

#: mask / x_active encodings
MASK_NONE, MASK_BITS, MASK_BOOL = 0, 1, 2



@dataclass(frozen=True)
class KernelSpec:
    """Everything that changes a generated SpMV module.  Frozen: it is the cache key.

    Attributes
    ----------
    family : str
        One of :data:`FAMILIES`.
    name : str
        Readable identifier part (``"min_plus"``), already sanitized.
    edge_value : str
        C expression over ``i``, ``j``, ``a`` and the extra parameters.
    extra_params : str
        C parameter declarations appended to every kernel that evaluates ``edge_value``
        (no leading comma), e.g. ``"const float* __restrict__ x"``.
    preamble : str
        ``__device__`` helpers the expressions call (placed at file scope, include-guarded).
    add, identity : str
        Monoid: C expression over ``a`` and ``b`` (of ``y_dtype``) and the identity literal.
    is_terminal : str or None
        C boolean expression over ``a``: the reduction may stop (None: no terminal).
    terminal_any : bool
        Every value is terminal (the ``any`` monoid).
    atomic : str or None
        Monoid's atomic strategy (push only): ``add``/``min``/``max``/``or``/``and``/``cas``.
    index_dtype, a_dtype, in_dtype, y_dtype, out_dtype, acc_dtype : str
        NumPy dtype names; ``a_dtype`` None for a pattern matrix; ``out_dtype`` None without out.
    mask, complement, x_active, has_out, replace : flags
    accum : str or None
        C expression over ``o`` (out's value) and ``t`` (the product), both ``acc_dtype``.
    accum_name : str
    terminal : bool
        Use the terminal early exit (when the monoid has one).
    group : int
        Lanes per row (``csr_vector``).
    items : int
        Entries per lane per warp chunk (segmented kernels and push).
    block : int
        Threads per block (``__launch_bounds__``).
    min_blocks : int
        Minimum resident blocks per multiprocessor asked of the compiler (0: none); caps the
        registers per thread.
    stream : int
        How the segmented CSR kernels (``csr_lb``, ``csr_mp``) load column indices and values,
        which are read exactly once: 0 ``__ldg`` (read-only path, cached in L1), 1 ``__ldcs``
        (evict-first in L1 and L2), 2 ``ld.global.nc.L1::no_allocate`` with an L2 evict-first
        policy, 3 ``ld.global.nc.L1::no_allocate`` alone.  1-3 aim to leave L1/L2 to the x
        gathers; 1- and 2-byte types always use ``__ldg``.
    """

    family: str
    name: str
    edge_value: str
    extra_params: str
    preamble: str
    add: str
    identity: str
    is_terminal: str | None
    terminal_any: bool
    atomic: str | None
    index_dtype: str
    a_dtype: str | None
    in_dtype: str
    y_dtype: str
    out_dtype: str | None = None
    acc_dtype: str | None = None
    mask: int = MASK_NONE
    complement: bool = False
    x_active: int = MASK_NONE
    has_out: bool = False
    replace: bool = False
    accum: str | None = None
    accum_name: str = ""
    terminal: bool = True
    group: int = 1
    items: int = 8
    block: int = 256
    min_blocks: int = 0
    stream: int = 0
    tag: str = ""
    atomic_body: str | None = None   # the monoid's atomic form (TypedMonoid.c_atomic_body)

    # -- derived --------------------------------------------------------------------
    @property
    def result_dtype(self) -> str:
        return self.out_dtype if self.has_out else self.y_dtype

    @property
    def module_name(self) -> str:
        """Readable base name, e.g. ``hpgraph_ell_min_plus_f32_i32``."""
        parts = [f"hpgraph_{self.family}_{self.name}_{_dt.short_name(self.in_dtype)}"
                 f"_{_dt.short_name(self.index_dtype)}"]
        if self.a_dtype is None:
            parts.append("pat")
        elif self.a_dtype != self.in_dtype:
            parts.append("a" + _dt.short_name(self.a_dtype))
        if self.family == "csr_vector":
            parts.append(f"g{self.group}")
        if self.mask or self.complement:
            m = {MASK_NONE: "m0", MASK_BITS: "m", MASK_BOOL: "mb"}[self.mask]
            parts.append(m + ("c" if self.complement else ""))
        if self.x_active:
            parts.append("xa" if self.x_active == MASK_BITS else "xab")
        if self.has_out:
            parts.append("out" + ("" if self.out_dtype == self.y_dtype else _dt.short_name(self.out_dtype)))
            if self.accum is not None:
                parts.append("acc_" + sanitize(self.accum_name or "op"))
            if self.replace:
                parts.append("rep")
        if not self.terminal and (self.is_terminal is not None):
            parts.append("noterm")
        if self.items != 8 and self.family in ("hyb", "csr_lb", "csr_mp", "push"):
            parts.append(f"it{self.items}")
        if self.block != 256:
            parts.append(f"b{self.block}")
        if self.min_blocks:
            parts.append(f"mb{self.min_blocks}")
        if self.stream:
            parts.append(f"s{self.stream}")
        if self.tag:
            parts.append(sanitize(self.tag))
        return "_".join(parts)

    def digest(self) -> str:
        """Short stable hash of every field (distinguishes specs with equal readable names)."""
        h = hashlib.sha256(repr(tuple(getattr(self, f) for f in self.__dataclass_fields__)).encode())
        return h.hexdigest()[:8]


def sanitize(name: str) -> str:
    """An identifier fragment: ``"min_plus[float32]"`` -> ``"min_plus"``, odd chars -> ``_``."""
    base = re.sub(r"\[.*?\]", "", str(name))
    base = re.sub(r"[^A-Za-z0-9_]", "_", base).strip("_")
    base = re.sub(r"_+", "_", base)
    return (base or "op")[:40]


def _is_builtin(op) -> bool:
    parent = getattr(op, "parent", None)
    return bool(getattr(parent, "is_builtin", False))


def semiring_label(sr) -> str:
    """Kernel-name fragment of a semiring: its name for built-ins, name + hash for user ones."""
    name = sanitize(getattr(sr, "name", "semiring"))
    builtin = _is_builtin(sr) and _is_builtin(sr.mul) and _is_builtin(sr.add)
    if builtin:
        return name
    h = hashlib.sha256(repr(getattr(sr, "key", name)).encode()).hexdigest()[:8]
    return f"{name}_{h}"


def _dtname(d) -> str | None:
    return None if d is None else _dt.lookup_dtype(d).name


def make_spec(family: str, *, name: str, edge_value: str, extra_params: str = "", monoid,
              in_dtype, index_dtype, a_dtype=None, preamble: str = "", mask: int = MASK_NONE,
              complement: bool = False, x_active: int = MASK_NONE, out_dtype=None, accum=None,
              replace: bool = False, terminal: bool = True, group: int = 1, items: int = 8,
              block: int = 256, min_blocks: int = 0, stream: int = 0, tag: str = "") -> KernelSpec:
    """A spec from an arbitrary edge expression (the engine's entry point).

    Parameters
    ----------
    family : str
        One of :data:`FAMILIES`.
    name : str
        Readable kernel-name fragment (sanitized here).
    edge_value : str
        C expression over ``i``, ``j``, ``a`` and names declared in ``extra_params``; its value
        is converted to the monoid's type.
    extra_params : str
        Extra kernel parameters (C declarations, comma-separated, no leading comma).
    monoid : TypedMonoid
        The reduction (``c_add``, ``c_identity``, ``c_is_terminal``, ``atomic``, ``dtype``).
    in_dtype : dtype
        Type of ``a`` (the edge value is converted to it).
    index_dtype : dtype
        int32 or int64.
    a_dtype : dtype or None
        Stored value dtype of the matrix; None for a pattern matrix (``a`` is 1).
    mask, x_active : int
        0 none, 1 bitmask words, 2 bool array.
    out_dtype : dtype or None
        out's dtype when ``out`` is given (then the result has it).
    accum : TypedBinaryOp or None
        ``y = accum(out, t)`` where the row has a value (needs ``out_dtype``).
    """
    if family not in FAMILIES:
        raise InvalidValue(f"unknown kernel family {family!r}; expected one of {FAMILIES}")
    idx = _dt.lookup_dtype(index_dtype)
    if idx not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise DomainMismatch(f"index dtype must be int32 or int64, got {idx.name}")
    if group not in (1, 2, 4, 8, 16, 32):
        raise InvalidValue(f"group must be a power of two in 1..32, got {group}")
    if items < 1 or items > 32:
        raise InvalidValue(f"items must be in 1..32, got {items}")
    if stream not in (0, 1, 2, 3):
        raise InvalidValue(f"stream must be 0, 1, 2 or 3, got {stream}")
    if block < 32 or block > 1024 or block % 32:
        raise InvalidValue(f"block must be a multiple of 32 in 32..1024, got {block}")
    has_out = out_dtype is not None
    if accum is not None and not has_out:
        accum = None  # accum only applies with out (INTERNALS.md)
    acc_expr = None
    acc_dt = None
    acc_name = ""
    pre = [preamble] if preamble else []
    if accum is not None:
        acc_dt = _dtname(accum.in_dtype)
        acc_expr = accum.c_expr("o", "t")
        acc_name = getattr(accum, "name", "op")
        if accum.c_preamble:
            pre.append(accum.c_preamble)
        if not _is_builtin(accum):
            acc_name = f"{sanitize(acc_name)}_{hashlib.sha256(repr(accum.key).encode()).hexdigest()[:6]}"
    if monoid.c_preamble and monoid.c_preamble not in pre:
        pre.append(monoid.c_preamble)
    is_term = monoid.c_is_terminal("a")
    term_any = bool(getattr(monoid, "terminal_any", False))
    return KernelSpec(
        family=family, name=sanitize(name), edge_value=edge_value, extra_params=extra_params.strip(),
        preamble="".join(_dedupe(pre)), add=monoid.c_add("a", "b"), identity=monoid.c_identity,
        is_terminal=is_term, terminal_any=term_any, atomic=monoid.atomic,
        index_dtype=idx.name, a_dtype=_dtname(a_dtype), in_dtype=_dtname(in_dtype),
        y_dtype=_dtname(monoid.dtype), out_dtype=_dtname(out_dtype), acc_dtype=acc_dt,
        mask=int(mask), complement=bool(complement), x_active=int(x_active), has_out=has_out,
        replace=bool(replace) and has_out, accum=acc_expr, accum_name=acc_name,
        terminal=bool(terminal), group=int(group), items=int(items), block=int(block),
        min_blocks=int(min_blocks), stream=int(stream), tag=tag,
        atomic_body=monoid.c_atomic_body())


def _dedupe(parts):
    seen = []
    for p in parts:
        if p and p not in seen:
            seen.append(p)
    return seen


def x_load_expr(x_dtype, in_dtype, var: str = "x", index: str = "j") -> str:
    """C expression reading ``var[index]`` through the read-only path, as ``in_dtype``."""
    return f"(({_dt.c_type(in_dtype)})hp_ld({var} + {index}))"


def semiring_spec(family: str, sr, *, a_dtype, x_dtype, index_dtype, mask: int = MASK_NONE,
                  complement: bool = False, x_active: int = MASK_NONE, out_dtype=None, accum=None,
                  replace: bool = False, terminal: bool = True, group: int = 1, items: int = 8,
                  block: int = 256, min_blocks: int = 0, stream: int = 0) -> KernelSpec:
    """A spec for ``y[i] = ADD_j MUL(A[i, j], x[j])`` with the typed semiring ``sr``."""
    in_dt = _dt.lookup_dtype(sr.in_dtype)
    x_dt = _dt.lookup_dtype(x_dtype)
    edge = sr.mul.c_expr("a", x_load_expr(x_dt, in_dt), "i", "j")
    return make_spec(
        family, name=semiring_label(sr), edge_value=edge,
        extra_params=f"const {_dt.c_type(x_dt)}* __restrict__ x", monoid=sr.add, in_dtype=in_dt,
        index_dtype=index_dtype, a_dtype=a_dtype, preamble=sr.c_preamble, mask=mask,
        complement=complement, x_active=x_active, out_dtype=out_dtype, accum=accum, replace=replace,
        terminal=terminal, group=group, items=items, block=block, min_blocks=min_blocks,
        stream=stream, tag="" if x_dt == in_dt else "x" + _dt.short_name(x_dt))


# ---------------------------------------------------------------------------------------
# source generation


def _template(name: str):
    return cuda_source.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates",
                                         f"{name}.cu"))


def _atomic_code(spec: KernelSpec) -> str:
    """``hp_atomic_combine(y_t* p, y_t v)`` for the push kernel (the monoid's atomic form:
    :meth:`hpgraph.ops.TypedMonoid.c_atomic_body`)."""
    if spec.atomic is None or spec.atomic_body is None:
        raise DomainMismatch(
            f"the monoid of {spec.name!r} on {spec.y_dtype} has no atomic form (8/16-bit or bool "
            "dtype), so push is not allowed; use a 32/64-bit dtype or the pull (mxv) path")
    body = "\n".join("  " + ln for ln in spec.atomic_body.splitlines())
    return ("// monoid combine with an atomic (push)\n"
            f"__device__ __forceinline__ void hp_atomic_combine(y_t* p, y_t v) {{\n{body}\n}}\n")


def kernel_names(spec: KernelSpec) -> dict:
    """Role -> extern "C" kernel name for the spec's family."""
    base = spec.module_name
    if spec.family == "ell":
        return {"ell": base}
    if spec.family == "hyb":
        return {"ell": base + "_ell", "ell_raw": base + "_ell_raw", "coo": base + "_coo",
                "carry": base + "_carry", "epilogue": base + "_epilogue"}
    if spec.family == "csr_vector":
        return {"vector": base}
    if spec.family == "csr_lb":
        return {"empty": base + "_empty", "lb": base, "carry": base + "_carry"}
    if spec.family == "csr_mp":
        return {"search": base + "_search", "mp": base, "carry": base + "_carry"}
    if spec.family == "push":
        return {"push": base}
    raise InvalidValue(spec.family)


def _ctype_or(dtname, fallback: str) -> str:
    return fallback if dtname is None else _dt.c_type(dtname)


def generate(spec: KernelSpec, *, namespace: str | None = None) -> tuple[str, dict]:
    """CUDA source of the module for ``spec`` and its kernel names (role -> name)."""
    names = kernel_names(spec)
    base = spec.module_name
    ns = namespace or ("hpns_" + spec.digest())
    in_c = _dt.c_type(spec.in_dtype)
    y_c = _dt.c_type(spec.y_dtype)
    r_c = _dt.c_type(spec.result_dtype)
    extra = (", " + spec.extra_params) if spec.extra_params else ""
    use_term = spec.terminal and spec.is_terminal is not None
    if spec.family == "push" and spec.terminal_any:
        use_term = False  # "y already has a value" is unknowable in push: no shortcut
    common = dict(
        MODULE=base, FAMILY=spec.family, NS=ns, PREAMBLE=spec.preamble,
        IDX_T=_dt.c_type(spec.index_dtype), A_T=_ctype_or(spec.a_dtype, in_c), IN_T=in_c, Y_T=y_c,
        R_T=r_c, OUT_T=_ctype_or(spec.out_dtype, r_c), ACC_T=_ctype_or(spec.acc_dtype, r_c),
        PATTERN=_b(spec.a_dtype is None), MASK=str(spec.mask), COMPLEMENT=_b(spec.complement),
        XACTIVE=str(spec.x_active), HAS_OUT=_b(spec.has_out), ACCUM=_b(spec.accum is not None),
        REPLACE=_b(spec.replace), TERMINAL=_b(use_term), ITEMS=str(spec.items),
        IDENTITY=spec.identity, ADD=spec.add,
        IS_TERMINAL=spec.is_terminal if spec.is_terminal is not None else "false",
        ACCUM_EXPR=spec.accum if spec.accum is not None else "t",
        EDGE_USES_ROW=_b(re.search(r"\bi\b", spec.edge_value) is not None),
        ANY=_b(spec.terminal_any), STREAM=str(spec.stream),
        ATOMIC=_atomic_code(spec) if spec.family == "push" else "",
    )
    parts = [cuda_source.render(_template("common"), common)]
    bounds = f"{spec.block}, {spec.min_blocks}" if spec.min_blocks else str(spec.block)
    kw = dict(BLOCK=bounds, EXTRA=extra, EDGE_VALUE=spec.edge_value, GROUP=str(spec.group),
              BLOCK_THREADS=str(spec.block))
    if spec.family == "ell":
        parts.append(cuda_source.render(_template("ell"), kw, KNAME=names["ell"], FINAL="true"))
    elif spec.family == "hyb":
        parts.append(cuda_source.render(_template("ell"), kw, KNAME=names["ell"], FINAL="true"))
        parts.append(cuda_source.render(_template("ell"), kw, KNAME=names["ell_raw"], FINAL="false"))
        parts.append(cuda_source.render(_template("hyb"), kw, KNAME=base))
    elif spec.family == "csr_vector":
        parts.append(cuda_source.render(_template("csr_vector"), kw, KNAME=names["vector"]))
    elif spec.family == "csr_lb":
        parts.append(cuda_source.render(_template("csr_lb"), kw, KNAME=base))
    elif spec.family == "csr_mp":
        parts.append(cuda_source.render(_template("csr_mp"), kw, KNAME=base))
    elif spec.family == "push":
        parts.append(cuda_source.render(_template("push"), kw, KNAME=names["push"]))
    parts.append(f"}}  // namespace {ns}\n")
    return "\n".join(parts), names


def row_free(spec: KernelSpec) -> bool:
    """Edge values can be formed before rows are known (the kernels' ``kRowFree``)."""
    uses_row = re.search(r"\bi\b", spec.edge_value) is not None
    return not uses_row and spec.mask == MASK_NONE and not spec.complement


def mp_shared_bytes(spec: KernelSpec) -> int:
    """Static shared memory of the ``csr_mp`` main kernel (must stay under 48 KiB)."""
    tile = spec.block * spec.items
    ysz = np.dtype(spec.y_dtype).itemsize
    isz = np.dtype(spec.index_dtype).itemsize
    insz = np.dtype(spec.in_dtype).itemsize
    has = spec.has_out or spec.terminal_any
    n = (tile + 1) * 4 + tile * ysz + (tile if has else 1)       # row ends, row values (+ flags)
    if row_free(spec):
        n += tile * ysz + (tile if has else 1)                     # staged edge values (+ flags)
    else:
        n += tile * isz + (insz if spec.a_dtype is None else tile * insz)  # staged cols, values
    warps = spec.block // 32
    n += warps * (4 + ysz + 1) + spec.block * ysz + (spec.block if has else 1)
    return n + 64  # alignment padding


def _b(v) -> str:
    return "true" if v else "false"


# ---------------------------------------------------------------------------------------
# column relabeling (format "<csr kernel>+relabel")

_WORD = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
_COL_PROBE = "hp_column_index_probe"


def gather_source(itemsize: int, index_dtype) -> tuple[str, str]:
    """CUDA source and kernel name of ``x2[k] = x[perm[k]]`` for values of ``itemsize`` bytes.

    The relabeled products gather the operand vector into the new column numbering with it;
    values move as unsigned words of their width (one kernel per width and index type).

    Raises
    ------
    DomainMismatch
        ``itemsize`` not 1, 2, 4 or 8, or an index dtype other than int32 / int64.
    """
    w = _WORD.get(int(itemsize))
    if w is None:
        raise DomainMismatch(f"gather: values of {itemsize} bytes are not supported (1, 2, 4 or 8)")
    idx = _dt.lookup_dtype(index_dtype)
    if idx not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise DomainMismatch(f"index dtype must be int32 or int64, got {idx.name}")
    name = f"hpgraph_gather_w{int(itemsize)}_{_dt.short_name(idx)}"
    src = cuda_source.render(_template("gather"), KNAME=name, W_T=w, IDX_T=_dt.c_type(idx))
    return src, name


def reads_column(mul) -> bool:
    """Whether the multiply ``mul`` (TypedBinaryOp) reads the column index ``j`` itself.

    The semiring kernels evaluate ``mul.c_expr("a", <x[j]>, "i", "j")``; when ``j`` reaches
    the expression only through the ``x[j]`` load, renumbering the columns (and ``x`` with
    them) leaves every edge value unchanged.  Index ops that read ``j`` (``secondi``, the
    ``*_secondi`` / ``*_firstj`` semirings) and user ops whose C form names its ``j`` argument
    answer True (conservatively: any mention counts).
    """
    return re.search(rf"\b{_COL_PROBE}\b", mul.c_expr("a", "b", "i", _COL_PROBE)) is not None


def batch_source(specs) -> tuple[str, list]:
    """One translation unit holding the modules of several specs (CI compiles in batches).

    Kernel names must be unique across the batch; specs whose readable names collide get the
    spec digest appended (through ``tag``).
    """
    seen = set()
    parts = []
    all_names = []
    for s in specs:
        names = kernel_names(s)
        if any(n in seen for n in names.values()):
            s = _dc_replace(s, tag=(s.tag + "_" if s.tag else "") + s.digest())
            names = kernel_names(s)
        seen.update(names.values())
        src, names = generate(s)
        parts.append(src)
        all_names.append(names)
    return "\n".join(parts), all_names
