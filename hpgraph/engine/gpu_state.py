"""The GPU engine's per-(graph, program) run state: device matrices, buffers and the
compiled program units, kept between calls.

:class:`_State` holds, for one bound program on one device graph, the program's compiled
units (:func:`hpgraph.backend.raw_modules`), the gather sides' device matrices
(:class:`_Part`: the pull matrix in HYB, the push matrix in CSR, derived once per matrix and
cached), and every buffer a run needs (``y``, two bitmasks and two frontier queues swapped by
parity, the heavy lists, the touched queue, the state words and history ring, the witness and
far-set arrays).  States are kept per device graph (weakly referenced, least recently used
first out) and taken out while in use, so two threads never share one.  :mod:`.gpu` runs
them.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import backend as _backend
from .._config import config
from . import codegen, common
from .common import ST_WORDS

#: Run states kept per device graph (least recently used first out).
MAX_STATES = 4
HIST_CAP = 1 << 14
#: HYB COO-tail segments longer than this are split into chunks (one warp each) when the
#: monoid has an atomic form, so a hub row is not one warp's critical path.
CHUNK = 1024


#: device Graph -> OrderedDict(state key -> _State); weak, so a dead graph frees its states
_states: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_source_cache: dict = {}
_lock = threading.Lock()


def clear_cache():
    """Drop every kept run state (their device buffers return to CuPy's pool) and source."""
    with _lock:
        _states.clear()
        _source_cache.clear()


def _cached(owner, key, make):
    """Per-matrix device arrays derived once (ELL flattening, COO segments, casts), kept in the
    matrix's own cache (:meth:`~hpgraph.formats.SparseMatrix.derived`)."""
    return owner.derived(("engine",) + tuple(key), make)

class _Part:
    """One gather side on the device: the pull matrix in HYB, the push matrix in CSR."""

    def __init__(self, cp, graph, pull_name, push_name, wdt, weighted, idt, split, witness=False):
        hyb = graph.hyb(pull_name)
        push = graph.A if push_name == "A" else graph.AT
        n = graph.num_vertices
        self.K = int(hyb.K)
        self.nnz = int(hyb.nnz) if hasattr(hyb, "nnz") else int(push.nnz)

        def ell():
            idx = hyb.ell.indices.reshape(-1).astype(idt, copy=False)
            val = None
            if weighted:
                val = hyb.ell.values.reshape(-1).astype(wdt, copy=False)
            return cp.ascontiguousarray(idx), (None if val is None else cp.ascontiguousarray(val))

        def tail():
            coo = hyb.coo
            if coo.nnz == 0:
                return None
            row = coo.row.astype(idt, copy=False)
            starts = cp.flatnonzero(cp.concatenate([cp.ones(1, bool), row[1:] != row[:-1]]))
            seg_row = _backend.to_host(row[starts]).astype(np.int64)
            seg_ptr = np.append(_backend.to_host(starts).astype(np.int64), coo.nnz)
            if split:
                seg_row, seg_ptr = split_segments(seg_row, seg_ptr, CHUNK)
            col = cp.ascontiguousarray(coo.col.astype(idt, copy=False))
            val = cp.ascontiguousarray(coo.values.astype(wdt, copy=False)) if weighted else None
            return (cp.asarray(seg_row.astype(idt)), cp.asarray(seg_ptr), int(seg_row.size), col,
                    val)

        def csr():
            ip = cp.ascontiguousarray(push.indptr.astype(idt, copy=False))
            ix = cp.ascontiguousarray(push.indices.astype(idt, copy=False))
            val = cp.ascontiguousarray(push.values.astype(wdt, copy=False)) if weighted else None
            return ip, ix, val

        wkey = (np.dtype(wdt).str if weighted else None, np.dtype(idt).str)
        self.ell_idx, self.ell_val = _cached(hyb, ("ell",) + wkey, ell)
        self.tail = _cached(hyb, ("tail", bool(split)) + wkey, tail)
        self.indptr, self.indices, self.vals = _cached(push, ("csr",) + wkey, csr)
        # the pull side as CSR: the witness kernel scans a receiver's row for its winner
        self.pull_csr = None
        if witness:
            pull = graph.A if pull_name == "A" else graph.AT
            self.pull_csr = (self.indptr, self.indices, self.vals) if pull is push else \
                _cached(pull, ("csr",) + wkey, lambda: (
                    cp.ascontiguousarray(pull.indptr.astype(idt, copy=False)),
                    cp.ascontiguousarray(pull.indices.astype(idt, copy=False)),
                    cp.ascontiguousarray(pull.values.astype(wdt, copy=False)) if weighted
                    else None))
        self.degree = push.row_lengths() if hasattr(push, "row_lengths") else \
            cp.diff(push.indptr)
        self.n = n


def _ptr(a):
    d = a.data
    return d.ptr if hasattr(d, "ptr") else a.__array_interface__["data"][0]


def _source(bp, idt):
    key = (bp.code_key, np.dtype(idt).str, codegen.HEAVY)
    with _lock:
        src = _source_cache.get(key)
    if src is None:
        src = codegen.program_source(bp, idt)
        with _lock:
            if len(_source_cache) > 256:
                _source_cache.clear()
            _source_cache[key] = src
    return src


class _State:
    """Everything a run of one program on one device graph can reuse on the next call."""

    def __init__(self, cp, bp, graph, src, idt, wdt, device_loop=False):
        self.cp = cp
        n = self.n = int(graph.num_vertices)
        self.idt = idt
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.n_sm = int(_backend.num_sms())
        units = codegen.kernel_units(bp, idt)
        deferred = set(codegen.DEFERRED_UNITS)
        if device_loop:
            # the run asks for the device loop: its unit compiles with the others, in the
            # background unless hp.config["engine_loop_wait"] (device_loop._kernel)
            units[codegen.LOOP_UNIT] = ("hp_loop",)
            if not config["engine_loop_wait"]:
                deferred.add(codegen.LOOP_UNIT)
        # deferred units compile one after another in this order (the others in parallel):
        # a fused program's plain push where its runs wait for it (max_iterations:
        # _host_loop), the device loop's (its run asked for it; the longest, so first too when
        # waited for), the block loop, a plain push nothing waits for
        order = [5, codegen.LOOP_UNIT, 7] if bp.max_iterations is not None \
            else [codegen.LOOP_UNIT, 7, 5]
        units = {u: units[u] for u in sorted(
            units, key=lambda u: (order.index(u) if u in order else len(order), u))}
        self.source = src
        self.k = {}
        self.pending = []          # (compiling module, its kernel names): see ready()
        self.failed = {}           # kernel name -> why its deferred unit failed
        self._compile(units, deferred)
        self.loop_kernel = None        # the device loop: (kernel, blocks), made on first use
        self.loop_refused = None       # why the device refused a cooperative launch
        # The graph's derived matrices (A^T, HYB, casts) are built on the caller's stream,
        # where the graph's arrays were written and where the graph's caches are used later;
        # the run stream (non-blocking: no implicit ordering with the legacy default stream)
        # waits for them before its first use.
        split = bp.monoid.atomic is not None
        self.parts = [_Part(cp, graph, a, b, wdt, bp.weighted, idt, split,
                            witness=bp.witness is not None)
                      for a, b in common.matrix_names(bp.edges)]
        self.nnz_pull = sum(p.nnz for p in self.parts)
        self.mean_degree = self.nnz_pull / max(n, 1)
        self.stream.wait_event(cp.cuda.get_current_stream().record())
        with self.stream:
            deg = cp.zeros(n, dtype=cp.int64)
            for p in self.parts:
                deg += p.degree.astype(cp.int64)
            self.deg = deg
            self.y = cp.full(n, bp.monoid.identity, dtype=bp.y_dtype)
            nw = max(1, (n + 31) // 32)
            self.bm = [cp.zeros(nw, cp.uint32), cp.zeros(nw, cp.uint32)]
            self.q = [cp.zeros(max(n, 1), idt), cp.zeros(max(n, 1), idt)]
            # heavy lists: chunk entries, at most nnz / HEAVY full chunks plus one partial per
            # heavy row (hp_heavy_add)
            hcap = max(n, 2 * self.nnz_pull // codegen.HEAVY + 2, 1)
            self.qh = [cp.zeros(hcap, idt), cp.zeros(hcap, idt)]
            self.tbm = cp.zeros(nw, cp.uint32)
            self.tq = cp.zeros(max(n, 1), idt)
            # state words then the history ring: one allocation, so one copy reads both
            self.sh = cp.zeros(ST_WORDS + HIST_CAP * 3, cp.uint64)
            self.st = self.sh[:ST_WORDS]
            self.hist = self.sh[ST_WORDS:]
            # winners of the superstep (witness) and the waiting set (priority)
            self.win = cp.zeros(max(n, 1), idt) if bp.witness is not None else None
            self.wedge = cp.zeros(max(n, 1), cp.int64) if bp.witness is not None else None
            # exact winners (codegen.pack_ok): ~0 between supersteps (APPLY resets it)
            self.yk = cp.full(max(n, 1), np.uint64(0xFFFFFFFFFFFFFFFF), cp.uint64) \
                if codegen.pack_ok(bp, idt) else cp.zeros(1, cp.uint64)
            self.far = cp.zeros(nw, cp.uint32) if bp.priority is not None else None
            # the fused push (codegen.fused_kind): the claims' superstep stamps (zeroed per
            # run), or the relaxation's packed winners of a witness (~0 at each run's start)
            kind = self.fused = codegen.fused_kind(bp, idt)
            self.stamp = cp.zeros(max(n, 1), cp.uint32) if kind == 1 else None
            self.rk = cp.full(max(n, 1), np.uint64(0xFFFFFFFFFFFFFFFF), cp.uint64) \
                if kind == 2 and bp.witness is not None else None
            self.dummy_w = cp.zeros(1, wdt)
            self.dummy_ids = cp.zeros(1, idt)
            self.dummy_ll = cp.zeros(2, cp.int64)
        self.own = {}              # {name: array} owned by the state (missing:
                                   # handed over or never needed)
        self.alias = {}            # {name: address} of the caller's array last
                                   # given for a property update never writes
        self.graph_ptrs = set()    # property addresses that captured graphs hold
        self.graphs = {}
        self.graphs_ok = True
        self.clean = True          # bitmasks are zero
        self.last_steps = None     # supersteps of the last run that emptied its frontier
        self.calls = 0


    def _compile(self, units, deferred) -> None:
        """Compile ``units`` ({unit: kernel names}; those in ``deferred`` in the background) and
        keep their kernels, or the compiling modules (:meth:`ready`, :meth:`wait`); the device
        loop's unit launches cooperatively."""
        opts = [codegen.unit_options(u) for u in units]
        defer = [codegen.unit_options(u) for u in units if u in deferred]
        coop = [codegen.unit_options(codegen.LOOP_UNIT)]
        mods = _backend.raw_modules(self.source, opts, defer=defer, cooperative=coop)
        for mod, names in zip(mods, units.values()):
            if hasattr(mod, "get_function"):
                self.k.update((name, mod.get_function(name)) for name in names)
            else:
                self.pending.append((mod, tuple(names)))

    def add_unit(self, unit, names, background) -> None:
        """Compile unit ``unit`` (holding kernels ``names``) now, or with ``background`` in the
        background."""
        self._compile({unit: names}, {unit} if background else set())

    def compiling(self, name) -> bool:
        """Whether kernel ``name`` is in a unit compiling in the background."""
        return any(name in names for _, names in self.pending)

    def _take(self, i) -> None:
        """Load pending module ``i`` (waiting for its compile) and keep its kernels; a failure
        is kept in ``failed`` for its kernels, then raised."""
        mod, names = self.pending.pop(i)
        try:
            m = mod.module()
        except Exception as exc:  # noqa: BLE001 -- NVRTC, or writing the cubin
            self.failed.update(dict.fromkeys(names, exc))
            raise
        self.k.update((nm, m.get_function(nm)) for nm in names)

    def ready(self, name) -> bool:
        """Whether kernel ``name`` can be launched: compiled with the program, or in a deferred
        unit (:data:`.codegen.DEFERRED_UNITS`) whose background compile has finished (its
        module is then loaded here)."""
        if name in self.k:
            return True
        if name in self.failed:
            return False
        for i, (mod, names) in enumerate(self.pending):
            if name in names:
                if not mod.ready():
                    return False
                try:
                    self._take(i)
                except Exception as exc:  # noqa: BLE001 -- kept in failed by _take
                    # a unit the runs can do without: they go on without it
                    warnings.warn(f"hpgraph: the engine's deferred unit {names} did not "
                                  f"compile; runs go on without it ({exc})", RuntimeWarning,
                                  stacklevel=2)
                    return False
                return True
        return False

    def wait(self, name) -> None:
        """Make kernel ``name`` launchable, waiting for its deferred unit's compile if needed
        (a run that will launch it); a failed compile raises its CompileError (a failed
        cubin write its OSError), now and for every later call."""
        if name in self.k:
            return
        if name in self.failed:
            raise self.failed[name]
        for i, (_, names) in enumerate(self.pending):
            if name in names:
                self._take(i)
                return


def _state_key(bp, idt, wdt, n):
    return (bp.code_key, np.dtype(idt).str, np.dtype(wdt).str, n)


def _acquire(cp, bp, graph, idt, wdt, device_loop=False):
    """A kept state for (graph, program code) -- taken out while in use, so two threads never
    share one -- or a new one (``device_loop``: the run asks for the device loop, whose unit a
    new state compiles with the others)."""
    key = _state_key(bp, idt, wdt, int(graph.num_vertices))
    state = None
    with _lock:
        try:
            per = _states.get(graph)
        except TypeError:  # not weak-referenceable: nothing is kept
            per = None
        if per is not None:
            state = per.pop(key, None)
    if state is None:
        state = _State(cp, bp, graph, _source(bp, idt), idt, wdt, device_loop)
    state.calls += 1
    return key, state


def _release(graph, key, state):
    with _lock:
        try:
            per = _states.get(graph)
            if per is None:
                per = _states[graph] = OrderedDict()
        except TypeError:
            return
        per[key] = state
        per.move_to_end(key)
        while len(per) > MAX_STATES:
            per.popitem(last=False)


def split_segments(seg_row, seg_ptr, chunk):
    """Split COO-tail segments longer than ``chunk`` into chunks (host arrays).

    Returns ``(rows, ptr)``: a chunk of a split segment has row ``-(row + 1)`` (the kernel then
    combines it into ``y`` with the monoid's atomic); unsplit segments keep their row.
    """
    lens = np.diff(seg_ptr)
    nch = np.maximum(1, -(-lens // chunk))
    if (nch == 1).all():
        return seg_row, seg_ptr
    seg = np.repeat(np.arange(lens.size), nch)
    first = np.cumsum(nch) - nch
    k = np.arange(seg.size) - np.repeat(first, nch)
    starts = seg_ptr[seg] + k * chunk
    rows = seg_row[seg].copy()
    split = nch[seg] > 1
    rows[split] = -(rows[split] + 1)
    return rows, np.append(starts, seg_ptr[-1])


def _fill(cp, buf, value):
    """Write a property's initial value into ``buf`` on the current stream (no host array of
    n values is ever built for a scalar; device arrays are copied device to device)."""
    if np.ndim(value) == 0 and not _backend.is_device_array(value):
        buf.fill(value)
    elif _backend.is_device_array(value):
        if value.dtype == buf.dtype and value.flags.c_contiguous:
            buf.data.copy_from_device_async(value.data, buf.nbytes)
        else:
            cp.copyto(buf, value, casting="unsafe")
    else:
        buf.set(np.ascontiguousarray(np.asarray(value).astype(buf.dtype, copy=False)))


def _bits(value, dtype):
    """``value`` cast to ``dtype``, its bytes as the low bytes of a uint64 (little-endian, as
    ``hp_unbits`` reads them back)."""
    w = np.zeros(1, np.uint64)
    w.view(np.uint8)[:np.dtype(dtype).itemsize] = \
        np.array([value], dtype=dtype).view(np.uint8)
    return int(w[0])


def _aliasable(value, dtype, n):
    """A device array the kernels can read in place as a property of ``dtype``."""
    return _backend.is_device_array(value) and value.dtype == dtype and \
        tuple(value.shape) == (n,) and value.flags.c_contiguous
