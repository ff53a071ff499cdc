"""The superstep loop on the GPU.

Per (device graph, program code) a *run state* (:class:`.gpu_state._State`): the program's
compiled units (:mod:`.codegen`), every buffer (``y``, two bitmasks and two frontier queues -- the paper's
x_bitmask and active_bitmask, swapped by parity --, the touched queue, a 32-word device state
followed by a history ring, the properties as structure of arrays), the stream and the CUDA
graphs captured for blind batches.  States are kept between calls (a few per graph, LRU, the
graph weakly referenced), so a repeated ``hp.run`` allocates nothing: it copies or fills the
initial properties, zeroes the 32 state words, and one kernel (``hp_init_frontier``) writes
the initial frontier -- queue, bitmask, size, push-edge count, heavy list -- on the device.
Invariants that make that enough: between supersteps ``y`` is the identity, the packed
winners ``yk`` are ~0 and the touched bitmask is zero (APPLY restores all three), and the
bitmasks are zero after a run that ended with an empty frontier (other runs mark the state for
a bitmask reset).

A fixed launch sequence per superstep:

* pull: ``hp_pull_ell`` (+ ``hp_pull_coo`` for the HYB tail) per gather side, then
  ``hp_apply_step`` over every vertex;
* push: ``hp_push`` per gather side, then ``hp_apply_step`` over the receivers it recorded
  (or every vertex);
* mixed (direction ``"auto"``): both, each kernel running only if the device-side direction
  rule (the host's :func:`.common.choose_push`, as a precomputed edge limit) picks it, then
  ``hp_apply_step`` after whichever ran.

Kernels find the current parity and frontier size in the device state, and the last block of
APPLY closes the superstep, so the host never has to look between supersteps.  It looks once
per *blind batch*: a run starts with a mixed batch of ``hp.config["engine_mixed_batch"]``
supersteps, or of as many as the last complete run on the same state took where that is fewer
(:meth:`_Run._mixed_len`; no read before it: the device knows the initial frontier), and
while the frontier is small the host launches push-only batches -- 1, 2, 4, 8 launched
directly, then 16 and 64 replayed as CUDA graphs -- which end early on the device when the
frontier empties or outgrows the push threshold; after such an abort a mixed batch follows.
Each read brings the state words and the first :data:`HIST_HEAD` history records in one small
copy.  On a reused state every batch
is replayed from a CUDA graph.

The launches themselves (grid sizes and argument lists) are in :mod:`.launch`.

Results: properties are handed over to the caller (the state allocates fresh ones next call)
unless CUDA graphs hold their addresses; then the caller gets copies.  Nothing returned aliases
a buffer that a later call writes.
"""

from __future__ import annotations

import time

import numpy as np

from .. import backend as _backend
from .._config import config
from ..exceptions import InvalidProgram, SuperstepLimitExceeded
from .program import Seeded
from .results import RunResult, SuperstepStats
from . import codegen, common, device_loop
from . import gpu_state as _st
from .common import push_limit  # noqa: F401  (hpgraph.engine.gpu.push_limit)
from .gpu_state import (_acquire, _aliasable, _bits, _fill, _ptr, _release,  # noqa: F401
                        clear_cache, split_segments)
from .common import S_CNT, S_EDG, S_EXEC, S_HALT, S_HCNT, S_REACHED, S_STEP, ST_WORDS
from .launch import APPLY_AUTO, APPLY_PULLED, BLOCK, Launches, track_edges

#: Initial frontiers up to this size travel as kernel arguments (``hp_init_fused``).
INLINE_IDS = 8
#: Blind batch sizes (push supersteps between two host syncs); the last one repeats (the
#: fixed schedule; the mixed batch, the CUDA-graph threshold and the block loop's length are
#: hp.config keys: engine_mixed_batch, engine_graph_min, engine_block_loop_steps).
BATCHES = (1, 2, 4, 8, 16, 64)
#: CUDA graphs kept per run state (keyed by batch kind, length, limit, direction, property
#: addresses and the small-frontier grid choice).
MAX_GRAPHS = 32
HIST_HEAD = 64
def _starts_at_identity(bp, idx_dtype) -> bool:
    """Whether ``bp``'s pulls may take senders by their relaxed property (``hp_sends``;
    :func:`.codegen.pull_reached_ok`): a :class:`Seeded` rule starts every vertex outside the
    initial frontier at the reduce's identity and every vertex in it elsewhere.  A frontier
    vertex at the identity sends ``gather(identity)`` in the first superstep (not the identity
    where gather is, say, ``min(src.p, edge)``), which a pull by value would skip; a scalar
    start puts both sets at one value, and an array is never inspected: neither qualifies."""
    if not codegen.pull_reached_ok(bp, idx_dtype):
        return False
    v = bp.init_props[bp.relax]
    if not isinstance(v, Seeded) or isinstance(v.at_active, str):
        return False
    ident = np.asarray(bp.monoid.identity, dtype=bp.y_dtype).tobytes()

    def bits(x):
        return np.asarray(x, dtype=bp.y_dtype).tobytes()
    return bits(v.default) == ident and bits(v.at_active) != ident


class _Run(Launches):
    """One call: the per-call settings over a :class:`_State`."""

    def __init__(self, state, bp, direction, push_alpha, loop=None):
        self.s = state
        self.loop_mode = loop           # None: hp.config["engine_loop"]
        self.cp = state.cp
        self.bp = bp
        self.n = state.n
        self.direction = direction
        self.alpha = push_alpha
        self.can_push = codegen.can_push(bp)
        self.limit = np.uint64(push_limit(state.nnz_pull, state.n, push_alpha))
        self.track = track_edges(state.n)     # the state word S_TRACK, read once per call
        self.props = None
        self.prop_args = ()
        self.ptrs = ()
        self.hist_cap = _st.HIST_CAP
        self.loop_info = {"loop": "host"}

    # ---- per-call setup ----------------------------------------------------------------
    def start(self):
        """Initial properties (caller's stream), then frontier and state words (run stream):
        one fused launch (``hp_init_fused``) for the state words, an initial frontier of up
        to :data:`INLINE_IDS` vertices (passed by value: no upload) and every property given
        as a scalar or :class:`~hpgraph.engine.program.Seeded` rule; properties that
        ``update`` never writes read from the caller's device array instead of a copy; only
        the properties in ``hp.run(outputs=)`` are copied out or handed over."""
        return self._start_fast()

    def _adopt(self, props, caller):
        """Take ``props`` as this run's property arrays; order the run stream after the caller's
        (where the properties were written) and clear the bitmaps a previous run left set."""
        s = self.s
        self.props = props
        self.prop_args = tuple(props[p.name] for p in self.bp.props)
        self.ptrs = tuple(_ptr(a) for a in self.prop_args)
        s.stream.wait_event(caller.record())
        if not s.clean:
            with s.stream:
                s.bm[0].fill(0)
                s.bm[1].fill(0)
                if s.far is not None:
                    s.far.fill(0)
        if s.calls > 1:                 # made so; each later run restores it
            with s.stream:
                if s.stamp is not None:     # the superstep count restarts at 0 (claims)
                    s.stamp.fill(0)
                if s.rk is not None:        # no winner yet (relaxation)
                    s.rk.fill(np.uint64(0xFFFFFFFFFFFFFFFF))
        s.clean = False

    def _init_frontier(self, ids):
        """Zero the state words and write the initial frontier (``ids``: None = every vertex)
        with ``hp_init_frontier``: queue, bitmask, counts and heavy list.  On the run stream."""
        s, cp = self.s, self.cp
        s.st.fill(0)
        if ids is None:
            nids, every, arr = self.n, 1, s.dummy_ids
        else:
            nids, every = int(ids.shape[0]), 0
            arr = cp.asarray(ids).astype(s.idt, copy=False) if nids else s.dummy_ids
        s.k["hp_init_frontier"](self._grid(max(nids, 1), BLOCK, s.n_sm * 8), (BLOCK,),
                                (arr, np.int64(nids), np.int32(every), s.deg, s.bm[0],
                                 s.q[0], s.qh[0], s.st, self.track))

    def _start_fast(self):
        """:meth:`start`.  Properties: a scalar or :class:`Seeded` value is written by ``hp_init_fused`` (no
        per-property fill, no array built by the caller); a device array of the right dtype
        for a property that ``update`` never writes is read in place (the engine never writes
        it; while the state holds CUDA graphs, only an address also given last call, so a
        caller passing new arrays each call does not recapture graphs each call); anything else is copied into the state's own buffer, as before.
        The frontier: up to INLINE_IDS host ids go by value into the same launch, which also
        zeroes the state words; larger ones take the old path (zeroing + hp_init_frontier).
        """
        s, cp, bp, n = self.s, self.cp, self.bp, self.n
        caller = cp.cuda.get_current_stream()
        # the engine writes update's outputs and the witness: those are never read in place
        written = bp.kernels.update_outputs + ((bp.witness,) if bp.witness else ())
        ids = bp.init_active
        inline = ids is not None and not _backend.is_device_array(ids) \
            and int(ids.shape[0]) <= INLINE_IDS
        props = {}
        fills = []              # (index, fill mode, seed mode, default bits, seed bits)
        for i, p in enumerate(bp.props):
            v = bp.init_props[p.name]
            scalar = np.ndim(v) == 0 and not _backend.is_device_array(v) \
                and not isinstance(v, Seeded)
            fusable = i < 31 and (scalar or (isinstance(v, Seeded) and (inline or ids is None)))
            if fusable:
                if scalar:
                    fills.append((i, 1, 0, _bits(v, p.dtype), 0))
                elif ids is None:               # every vertex active: every vertex is seeded
                    if isinstance(v.at_active, str):
                        fills.append((i, 2, 0, 0, 0))
                    else:
                        fills.append((i, 1, 0, _bits(v.at_active, p.dtype), 0))
                else:
                    seed = (2, 0) if isinstance(v.at_active, str) else \
                        (1, _bits(v.at_active, p.dtype))
                    fills.append((i, 1, seed[0], _bits(v.default, p.dtype), seed[1]))
                props[p.name] = self._own(p)
            elif p.name not in written and _aliasable(v, p.dtype, n) and \
                    (not s.graphs or s.alias.get(p.name) == _ptr(v)):
                props[p.name] = v
                s.alias[p.name] = _ptr(v)
            else:
                if p.name not in written and _aliasable(v, p.dtype, n):
                    # a new address while graphs exist: copied now (the graphs replay), read
                    # in place from the next call on if the caller passes it again
                    s.alias[p.name] = _ptr(v)
                if isinstance(v, Seeded):
                    v = v.materialize(cp, n, p.dtype, ids)
                buf = self._own(p)
                _fill(cp, buf, v)
                props[p.name] = buf
        self._adopt(props, caller)
        reached = _starts_at_identity(bp, s.idt)
        with s.stream:
            if not inline:
                self._init_frontier(ids)
            if inline or fills:
                vals = [np.uint64(0)] * (2 * len(bp.props))
                fmode = smode = 0
                for i, f, sm, d, sd in fills:
                    fmode |= f << (2 * i)
                    smode |= sm << (2 * i)
                    vals[2 * i], vals[2 * i + 1] = np.uint64(d), np.uint64(sd)
                hid = [int(x) for x in ids] if inline else []
                nid = len(hid)
                hid += [0] * (INLINE_IDS - nid)
                grid = self._grid(n, BLOCK, s.n_sm * 8) if fills else (1,)
                s.k["hp_init_fused"](grid, (BLOCK,),
                                     (np.int64(n), np.int32(inline), np.int64(nid))
                                     + tuple(np.int64(x) for x in hid)
                                     + (s.deg, s.bm[0], s.q[0], s.qh[0], s.st, self.track,
                                        np.uint64(reached), np.int64(fmode),
                                        np.int64(smode if inline else 0))
                                     + tuple(vals) + self.prop_args)
            elif reached:
                s.st[S_REACHED] = 1         # after the zeroing above, on the run stream

    def _own(self, p):
        """The state's own buffer for property ``p`` (allocated on the caller's stream)."""
        buf = self.s.own.get(p.name)
        if buf is None:
            buf = self.s.own[p.name] = self.cp.empty(self.n, p.dtype)
        return buf

    def _finish_fast(self):
        """Only the requested properties; own buffers that no captured graph holds are handed
        over, the rest (caller arrays read in place, graph-held buffers) copied."""
        s, bp = self.s, self.bp
        names = bp.outputs if bp.outputs is not None else [p.name for p in bp.props]
        out = {}
        for name in names:
            a = self.props[name]
            if s.own.get(name) is not a or _ptr(a) in s.graph_ptrs:
                out[name] = a.copy()      # the caller's array, or one captured graphs hold
            else:
                out[name] = a             # handed over: the state allocates anew next call
                del s.own[name]
        return out

    def finish(self, clean):
        """The properties for the caller (never a buffer a later call writes); a relaxation's
        witnesses copied from its packed winners first."""
        s, cp = self.s, self.cp
        if s.rk is not None:
            with s.stream:
                s.k["hp_relax_witness"](self._grid(self.n, BLOCK, s.n_sm * 8), (BLOCK,),
                                        (np.int64(self.n), s.rk) + self.prop_args)
        cp.cuda.get_current_stream().wait_event(s.stream.record())
        s.clean = clean
        return self._finish_fast()

    # ---- launches ---------------------------------------------------------------------------
    def _step(self, kind, count_hint=None, heavy=0, edges=None):
        """One superstep of ``kind``: "push", "pull" or "mixed" (device-side choice);
        ``count_hint`` / ``heavy`` / ``edges``: the frontier's size, heavy-list length and push
        edges where the host knows them."""
        touched = self.bp.apply_to == "received"
        if kind == "push":
            # under direction="auto" a blind push aborts when the frontier outgrew the limit
            mode = 2 if self.direction == "auto" else 0
            if self.s.fused:        # one launch (codegen.fused_kind): applies and closes
                self._push_fused(mode, count_hint, heavy, small=edges == 0)
                self._far()
                return
            self._push(mode, count_hint, heavy, small=edges == 0)
            self._witness(0, touched, pushed=1)
            self._apply(touched=touched, dir_code=0, edges=edges)
        elif kind == "pull":
            self._pull(0)
            self._witness(0, False)
            self._apply(touched=False, dir_code=1)
        elif self._mixed_fuses():
            # the pull half (each kernel returns at once where the rule says push), then the
            # fused push of the frontier current then: the step's own, or the next one
            self._pull(1)
            self._witness(1, False)
            self._apply_step(self._grid(self.n, BLOCK, self.s.n_sm * 8), APPLY_PULLED)
            self._far()
            self._push_fused(1)
        else:
            self._push(1)
            self._pull(1)
            self._witness(1, False)
            self._apply_step(self._grid(self.n, BLOCK, self.s.n_sm * 8), APPLY_AUTO)
        self._far()

    def _mixed_fuses(self):
        """Whether a mixed step pushes fused: it then runs up to two supersteps (a pull, then
        a push), so not for a program with ``max_iterations``, which a batch must not pass."""
        return self.s.fused != 0 and self.bp.max_iterations is None

    def _mixed_len(self, mixed_k, step, left):
        """Supersteps of the blind mixed batch starting at superstep ``step``: ``mixed_k``
        (``hp.config["engine_mixed_batch"]``), at most ``left`` (under ``max_iterations``), and
        no more than the last complete run on this state still had to go at this step.  A
        batch's supersteps after its frontier emptied still launch their five kernels, which
        return at once (~25 us each on R-MAT 21, H200): repeated runs of one program on one
        graph usually take the same number of supersteps.  A run that needs more reads the
        state after the shorter batch and goes on; one that needs fewer is as before."""
        k = mixed_k if left is None else min(mixed_k, left)
        last = self.s.last_steps
        if last is not None and last > step:
            k = min(k, last - step)
        return k

    def _block_loop(self, k, small):
        """Up to ``k`` supersteps in one block (``hp_block_loop``), while the frontier has at
        most ``small`` push edges and the direction rule says push."""
        big = small if self.direction == "push" else min(small, int(self.limit))
        self.s.k["hp_block_loop"]((1,), (BLOCK,), (np.uint64(big),)
                                  + device_loop.loop_args(self, k))

    def _batch(self, kind, k, edges=None):
        """``k`` blind supersteps of ``kind`` (replayed from a CUDA graph when worth it);
        ``edges``: the push edges of the batch's first frontier, where the host knows them."""
        s = self.s
        # a frontier far below the tracking threshold keeps its touched APPLY on one block per
        # SM through the batch (a larger launch costs ~0.7 us per superstep on long thin
        # graphs, where a blind batch is thousands of small pushes); a frontier that outgrows
        # it in the batch is still applied right, on fewer threads
        small = edges is not None and edges * 64 <= int(self.track)
        hint = 0 if small else None
        if s.graphs_ok and (k >= config["engine_graph_min"] or (k > 1 and s.calls > 1)):
            # a fused mixed step is another launch sequence (_mixed_fuses: not under
            # max_iterations, which the code key does not hold)
            key = (kind, k, int(self.limit), self.direction, self.ptrs, small,
                   kind == "mixed" and self._mixed_fuses())
            g = s.graphs.get(key)
            if g is None:
                g = self._capture(kind, k, key, hint)
            if g is not None:
                g.launch(stream=s.stream)
                return
        for _ in range(k):
            self._step(kind, edges=hint)

    def _capture(self, kind, k, key, hint=None):
        s = self.s

        def steps():
            for _ in range(k):
                self._step(kind, edges=hint)

        g = _backend.capture_graph(s.stream, steps)
        if g is None:
            s.graphs_ok = False
            return None
        if len(s.graphs) >= MAX_GRAPHS:
            s.graphs.clear()
            s.graph_ptrs.clear()
        s.graphs[key] = g
        s.graph_ptrs.update(self.ptrs)
        return g

    def read_state(self):
        """State words and the first HIST_HEAD history records (one small copy)."""
        h = self.cp.asnumpy(self.s.sh[:ST_WORDS + HIST_HEAD * 3], stream=self.s.stream)
        h = h.astype(np.int64)
        return h[:ST_WORDS], h[ST_WORDS:]

    # ---- the loop ------------------------------------------------------------------------
    def loop(self, t_start):
        """The superstep loop: the host loop below, or with ``engine_loop == "device"`` (the
        call's ``hp.run(engine_loop=)``, else ``hp.config["engine_loop"]``) the device loop
        (one cooperative launch, :mod:`.device_loop`), which falls back to the host loop where
        the device refuses the launch."""
        mode = self.loop_mode or config["engine_loop"]
        if mode == "device" and self.bp.converged_hook is not None:
            raise InvalidProgram(
                f"{self.bp.name} defines converged(), which runs on the host between "
                "supersteps, so it cannot run in the device loop (engine_loop == 'device', "
                "by hp.run's argument or hp.config): use engine_loop='auto' (the host loop for "
                "such programs) or 'host'")
        if mode == "device" and self.s.loop_refused is None:
            try:
                return device_loop.loop(self, t_start)
            except device_loop.LoopRefused as exc:
                self.loop_info = {"loop": "host", "loop_fallback": str(exc)}
        elif self.s.loop_refused is not None and mode == "device":
            self.loop_info = {"loop": "host", "loop_fallback": self.s.loop_refused}
        return self._host_loop(t_start)

    def _host_loop(self, t_start):
        bp = self.bp
        max_it = bp.max_iterations
        hook = bp.converged_hook
        # hp.config["trace"]: one superstep at a time, each timed by CUDA events
        timed = config["trace"]
        blind = hook is None and not timed
        if self.s.fused and blind and max_it is not None and max_it > 0 and \
                self.direction == "auto" and self.can_push:
            # mixed batches under max_iterations push unfused (_mixed_fuses): the plain push
            # (a deferred unit for fused programs) is loaded now, before any graph capture
            self.s.wait("hp_push")
        step_ms = []
        syncs = 0
        hist_read = 0
        # frontiers with at most `small` push edges run in the block loop (0: never, or not
        # yet: a block loop still compiling in the background is looked for again each batch)
        small = config["engine_small_frontier"] if self.s.ready("hp_block_loop") else 0
        late = not small and any("hp_block_loop" in names for _, names in self.s.pending)
        mixed_k, loop_k = config["engine_mixed_batch"], config["engine_block_loop_steps"]
        records = []
        converged = True
        bi = pi = 0
        with self.s.stream:
            setup = time.perf_counter() - t_start
            t0 = time.perf_counter()
            if blind and (max_it is None or max_it > 0):
                # the first batch needs no read: the device knows the initial frontier
                if self.direction == "auto" and self.can_push:
                    self._batch("mixed", self._mixed_len(mixed_k, 0, max_it))
                elif self.direction == "push":
                    self._step("push")
                    bi = 1
                else:
                    self._step("pull")
                    pi = 1
            st, head = self.read_state()
            syncs += 1
            while True:
                cur = int(st[S_EXEC]) & 1
                cnt, edg, step = int(st[S_CNT + cur]), int(st[S_EDG + cur]), int(st[S_STEP])
                if cnt == 0:
                    break
                if max_it is not None and step >= max_it:
                    converged = False
                    break
                if bp.superstep_cap is not None and step >= bp.superstep_cap:
                    raise SuperstepLimitExceeded(common.cap_message(bp, step))
                if step + max(BATCHES[-1], 2 * mixed_k, loop_k) - hist_read > _st.HIST_CAP:
                    records.append(self._history(hist_read, step, None))
                    hist_read = step
                if st[S_HALT] != 0:
                    self.s.st[S_HALT:S_HALT + 1] = 0
                if self.direction == "auto":
                    push = self.can_push and common.choose_push(edg, self.s.nnz_pull, self.n,
                                                                self.alpha)
                else:
                    push = self.direction == "push"
                left = None if max_it is None else max_it - step
                if late and self.s.ready("hp_block_loop"):
                    small, late = config["engine_small_frontier"], False
                if blind:
                    if push and small and edg <= small:
                        # no more supersteps than the history ring holds unread
                        k = min(loop_k, _st.HIST_CAP - (step - hist_read))
                        if left is not None:
                            k = min(k, left)
                        if bp.superstep_cap is not None:
                            k = min(k, bp.superstep_cap - step)
                        self._block_loop(k, small)
                        bi = 0
                    elif push:
                        k = BATCHES[min(bi, len(BATCHES) - 1)]
                        k = k if left is None else min(k, left)
                        if k == 1:
                            self._step("push", count_hint=cnt, heavy=int(st[S_HCNT + cur]),
                                       edges=edg)
                        else:
                            self._batch("push", k, edges=edg)
                        bi += 1
                    elif self.direction == "auto" and self.can_push:
                        self._batch("mixed", self._mixed_len(mixed_k, step, left))
                        bi = 0
                    else:
                        k = BATCHES[min(pi, len(BATCHES) - 1)]
                        self._batch("pull", k if left is None else min(k, left))
                        pi += 1
                else:
                    prev = {kk: v.copy() for kk, v in self.props.items()} if hook else None
                    if timed:
                        ev = (self.cp.cuda.Event(), self.cp.cuda.Event())
                        ev[0].record(self.s.stream)
                    if push and self.s.fused:
                        self._push_fused(0, count_hint=cnt, heavy=int(st[S_HCNT + cur]))
                    elif push:
                        self._push(0, count_hint=cnt, heavy=int(st[S_HCNT + cur]))
                        self._witness(0, bp.apply_to == "received", pushed=1)
                        self._apply(touched=bp.apply_to == "received", dir_code=0, edges=edg)
                    else:
                        self._pull(0)
                        self._witness(0, False)
                        self._apply(touched=False, dir_code=1)
                    self._far()
                    if timed:
                        ev[1].record(self.s.stream)
                    st, head = self.read_state()
                    syncs += 1
                    if timed:
                        step_ms.append(self.cp.cuda.get_elapsed_time(*ev))
                    if hook is None:
                        continue
                    nxt = int(st[S_EXEC]) & 1
                    stats = SuperstepStats(step, cnt, int(st[S_CNT + nxt]),
                                           "push" if push else "pull", dict(self.props), prev)
                    if hook(stats):
                        break
                    continue
                st, head = self.read_state()
                syncs += 1
            elapsed = time.perf_counter() - t0
            step = int(st[S_STEP])
            records.append(self._history(hist_read, step, head))
            clean = int(st[S_CNT + (int(st[S_EXEC]) & 1)]) == 0
            if clean and converged:
                self.s.last_steps = step
        if timed:
            self.loop_info = dict(self.loop_info, step_ms=step_ms)
        return np.concatenate(records), converged, setup, elapsed, syncs, clean

    def _history(self, start, stop, head):
        """History records ``start..stop`` as an int64 array of shape (k, 3): active count,
        frontier edges, pull flag (arrays, not per-record tuples: a grid BFS has 4,095)."""
        if stop <= start:
            return np.zeros((0, 3), np.int64)
        if start == 0 and stop <= HIST_HEAD and head is not None:
            return head.reshape(HIST_HEAD, 3)[:stop].astype(np.int64)
        a, b = start % _st.HIST_CAP, (stop - 1) % _st.HIST_CAP + 1
        if a < b:   # one piece of the ring
            h = self.cp.asnumpy(self.s.hist[a * 3:b * 3], stream=self.s.stream)
            return h.reshape(-1, 3).astype(np.int64)
        h = self.cp.asnumpy(self.s.hist, stream=self.s.stream).reshape(_st.HIST_CAP, 3)
        return h.astype(np.int64)[np.arange(start, stop) % _st.HIST_CAP]


def execute(bp, graph, *, direction, push_alpha, t_start, loop=None):
    """Run bound program ``bp`` on device graph ``graph``; returns a :class:`RunResult`.
    ``loop``: the superstep loop (``hp.run(engine_loop=)``; None: ``hp.config["engine_loop"]``).

    ``setup_time`` is host time until the first superstep is launched (device-side setup --
    property copies, the initial frontier -- overlaps it and counts in ``time``).
    """
    cp = _backend.cupy()
    n = int(graph.num_vertices)
    if n == 0:
        props = {p.name: cp.zeros(0, p.dtype) for p in bp.props
                 if bp.outputs is None or p.name in bp.outputs}
        return RunResult(props, 0, [], [], [], True, 0.0, time.perf_counter() - t_start, "gpu", 0)
    idt = np.dtype(graph.A.index_dtype)
    wdt = np.dtype(bp.edge_dtype)
    with _backend.out_of_memory_guard(f"preparing vertex program {bp.name}"):
        # a program with a converged() hook cannot run on the device loop (_Run.loop raises)
        key, state = _acquire(cp, bp, graph, idt, wdt,
                              device_loop=(loop or config["engine_loop"]) == "device"
                              and bp.converged_hook is None)
    reused = state.calls > 1
    run = _Run(state, bp, direction, push_alpha, loop)
    try:
        with _backend.out_of_memory_guard(f"running vertex program {bp.name}"):
            run.start()
            records, converged, setup, elapsed, syncs, clean = run.loop(t_start)
            props = run.finish(clean)
    except BaseException:
        # the state is dropped (not kept for the next call); let queued work finish first
        try:
            state.stream.synchronize()
        except Exception:
            pass
        raise
    _release(graph, key, state)
    return RunResult(
        properties=props, supersteps=len(records), active=records[:, 0].tolist(),
        directions=["pull" if d else "push" for d in records[:, 2].tolist()],
        frontier_edges=records[:, 1].tolist(), converged=converged, time=elapsed,
        setup_time=setup, backend="gpu", syncs=syncs,
        extra={"graphs": sorted({g[1] for g in state.graphs if g[0] == "push"}),
               "mixed_graphs": sorted({g[1] for g in state.graphs if g[0] != "push"}),
               "blind_batches": BATCHES, "mixed_batch": config["engine_mixed_batch"],
               "reused_state": reused, **run.loop_info})
