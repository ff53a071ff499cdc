"""The device-side superstep loop: a whole run of a vertex program in one kernel launch.

``hp_loop`` (``templates/engine*.cu`` compiled with ``HP_PERSISTENT`` 1) is launched
cooperatively (``cuLaunchCooperativeKernel``: every block resident at once, or the launch is
refused), so its blocks can wait for each other at grid barriers: it runs SPMV (push or pull,
chosen per superstep on the device), the witness pass, APPLY and the priority split of
superstep after superstep -- the same kernel bodies the host loop launches one by one (a
fused program's push supersteps are ``hp_push_fused_w`` and one barrier) -- and the host reads
the state words once at the end.  A launch runs at most ``HIST_CAP``
supersteps (the history ring's size), so the host reads the history between launches of a
long run.  The barrier words are state words, zeroed with the others before every run.

When the device refuses a cooperative launch (too many blocks for the occupancy, MPS limits)
the run falls back to the host loop; the run statistics say so (``extra["loop"]``,
``extra["loop_fallback"]``).
"""

from __future__ import annotations

import time

import numpy as np

from .. import backend as _backend
from .._config import config
from ..exceptions import SuperstepLimitExceeded
from . import codegen, common
from .common import S_CNT, S_EXEC, S_HALT, S_STEP

#: ``engine_loop_blocks_per_sm`` is capped by the kernel's occupancy at this block size.
BLOCK = 256


class LoopRefused(RuntimeError):
    """The device refused the cooperative launch (the caller falls back to the host loop)."""


#: Why a call took the host loop while the device loop's unit compiles.
COMPILING = ("the device loop's module is compiling in the background (a program new to the "
             "kernel cache); this call ran on the host loop, later ones take the device loop "
             "once it is ready (hp.config['engine_loop_wait'] = True waits instead)")


def _kernel(state):
    """The device loop's kernel of ``state``'s program, through hpgraph's cubin cache and
    launched cooperatively: compiled with the program's other units where the state was made
    for a device-loop run, else started here on first use.  Where it is not compiled yet,
    ``hp.config["engine_loop_wait"]`` waits for it; otherwise this call raises
    :class:`LoopRefused` (the host loop runs it) and the compile goes on in the background."""
    if state.loop_kernel is None:
        wait = config["engine_loop_wait"]
        if "hp_loop" not in state.k and "hp_loop" not in state.failed \
                and not state.compiling("hp_loop"):
            # unit LOOP_UNIT: hp_loop alone (with HP_PERSISTENT the other kernels are its
            # device functions)
            state.add_unit(codegen.LOOP_UNIT, ("hp_loop",), background=not wait)
        if wait:
            state.wait("hp_loop")           # a failed compile raises its CompileError
        elif not state.ready("hp_loop"):
            if "hp_loop" in state.failed:   # every later call takes the host loop too
                state.loop_refused = ("the device loop's module did not compile: "
                                      f"{state.failed['hp_loop']}")
                raise LoopRefused(state.loop_refused)
            raise LoopRefused(COMPILING)
        kern = state.k["hp_loop"]
        occ = _backend.occupancy(kern, BLOCK)
        if occ < 1:
            state.loop_refused = "the loop kernel cannot be resident (occupancy 0)"
            raise LoopRefused(state.loop_refused)
        want = config["engine_loop_blocks_per_sm"]
        if want == 0:
            want = 4 if state.mean_degree > 8 else 1
        per_sm = max(1, min(want, occ))
        state.loop_kernel = (kern, state.n_sm * per_sm)
    return state.loop_kernel


def _part_args(run, p):
    s = run.s
    ell_val = s.dummy_w if p.ell_val is None else p.ell_val
    ell_idx = p.ell_idx if p.K > 0 else s.dummy_ids
    if p.tail is None:
        tail = (s.dummy_ids, s.dummy_ll, np.int64(0), s.dummy_ids, s.dummy_w)
    else:
        seg_row, seg_ptr, nseg, col, val = p.tail
        tail = (seg_row, seg_ptr, np.int64(nseg), col, s.dummy_w if val is None else val)
    return (ell_idx, ell_val, np.int32(p.K)) + tail + \
        (p.indptr, p.indices, s.dummy_w if p.vals is None else p.vals)


def loop_args(run, max_steps):
    """The arguments of ``hp_loop`` (and, after ``big``, of ``hp_block_loop``) for ``run``."""
    s, bp = run.s, run.bp
    if run.direction == "push":
        dirmode = 1
    elif run.direction == "pull" or not run.can_push:
        dirmode = 2
    else:
        dirmode = 0
    parts = (s.parts + s.parts)[:2]
    args = (np.int64(run.n), np.int32(len(s.parts)), np.int64(max_steps), run.limit,
            np.int32(dirmode), np.int32(bp.apply_to == "received"))
    for p in parts:
        args += _part_args(run, p)
    args += (s.y, s.bm[0], s.bm[1], s.q[0], s.q[1], s.qh[0], s.qh[1], s.tbm, s.tq, s.deg,
             s.st, s.hist, np.int64(run.hist_cap))
    if s.win is not None:
        args += run._pull_csr_args() + (s.win, s.wedge, s.yk)
    if s.far is not None:
        args += (s.far, bp.priority_delta)
    if s.stamp is not None:
        args += (s.stamp,)
    if s.rk is not None:
        args += (s.rk,)
    return args + run.prop_args


def _launch(run, max_steps):
    kern, blocks = _kernel(run.s)
    try:
        kern((blocks,), (BLOCK,), loop_args(run, max_steps))
    except Exception as exc:  # noqa: BLE001 -- only the refusals below are ours
        from cupy_backends.cuda.api.driver import CUDADriverError

        if isinstance(exc, CUDADriverError) and (
                "COOPERATIVE_LAUNCH_TOO_LARGE" in str(exc) or "NOT_SUPPORTED" in str(exc)):
            run.s.loop_refused = str(exc)
            raise LoopRefused(str(exc)) from None
        raise


def loop(run, t_start):
    """Run ``run`` (a :class:`~hpgraph.engine.gpu._Run` after ``start``) on the device loop.

    Returns what ``_Run.loop`` returns, or raises :class:`LoopRefused` before any superstep
    ran (the state is then untouched and the host loop can take over).
    """
    bp = run.bp
    max_it = bp.max_iterations
    cap = bp.superstep_cap
    hist_cap = run.hist_cap
    records, syncs, launches, hist_read = [], 0, 0, 0
    converged = True
    with run.s.stream:
        setup = time.perf_counter() - t_start
        t0 = time.perf_counter()
        step = 0
        while True:
            k = hist_cap
            if max_it is not None:
                k = min(k, max_it - step)
            if cap is not None:
                k = min(k, cap - step)
            if k > 0:
                _launch(run, k)
                launches += 1
            st, head = run.read_state()
            syncs += 1
            step = int(st[S_STEP])
            records.append(run._history(hist_read, step, head if hist_read == 0 else None))
            hist_read = step
            cur = int(st[S_EXEC]) & 1
            done = int(st[S_HALT]) == 1 or int(st[S_CNT + cur]) == 0
            if done:
                break
            if max_it is not None and step >= max_it:
                converged = False
                break
            if cap is not None and step >= cap:
                raise SuperstepLimitExceeded(common.cap_message(bp, step))
        elapsed = time.perf_counter() - t0
        clean = int(st[S_CNT + (int(st[S_EXEC]) & 1)]) == 0
    run.loop_info = {"loop": "device", "launches": launches,
                     "loop_blocks": int(run.s.loop_kernel[1])}
    return np.concatenate(records), converged, setup, elapsed, syncs, clean
