"""k-core peeling on the GPU: the rounds of :func:`hpgraph.k_core` run on the device, replayed
as CUDA graphs, with one host read per batch of rounds.

A specialised kernel beside the engine, kept because it measures far faster: a peeling round
needs the current level ``k``, a global value that changes when a round removes nothing, which
no vertex program can express; the generic form (one :func:`hpgraph.spmv.gpu.push` SpMV per
round, driven from the host) took 312.6 ms on R-MAT 21 (H200, 720 rounds at about 0.43 ms of
host work each); these device rounds take 15.4 ms on the same graph and GPU (721 rounds of
about 21 us; ``benchmarks/README.md``, session 8), 13.6 ms on an H100 since their counters take
one atomic per block (session 12).  The CUDA comes from ``templates/kcore.cu``
through :mod:`hpgraph.cuda_source`, with the warp-balanced row expansion of the engine
(``engine/templates/balanced.cuh``).
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from .. import backend as _backend
from .. import cuda_source
from .. import dtypes as _dt
from .._config import config
from ..engine.codegen import BALANCED

#: Rows longer than this are pushed in chunks of this many entries, a block each.
HEAVY = 1024
#: Rounds per replayed CUDA graph (the host reads the done flag once per batch).
BATCH = 32
#: Words of device state (``S_*`` in ``templates/kcore.cu``).
S_WORDS = 10
_BLOCK = 256
_TEMPLATE = Path(__file__).with_name("templates") / "kcore.cu"
_KERNELS = ("kc_select", "kc_push")


def kcore_source(idx_dtype, w_dtype) -> str:
    """CUDA source of the peeling kernels for index dtype ``idx_dtype`` and multiplicities of
    ``w_dtype`` (None: a pattern matrix, every entry counts once)."""
    return cuda_source.render(
        cuda_source.load(str(_TEMPLATE)),
        IDX_T=_dt.c_type(idx_dtype), W_T=_dt.c_type(w_dtype if w_dtype is not None else np.int32),
        WEIGHTED=int(w_dtype is not None), HEAVY=HEAVY, BALANCED=BALANCED)


class KCorePlan:
    """Device buffers, kernels and the captured round batch of one matrix (kept in the
    matrix's derived cache, so repeated calls reuse them)."""

    def __init__(self, S):
        cp = _backend.cupy()
        self.cp = cp
        self.n = n = int(S.shape[0])
        self.indptr, self.indices = S.indptr, S.indices
        self.vals = S.values
        src = kcore_source(S.indices.dtype, None if S.values is None else S.values.dtype)
        mod = _backend.raw_module(src, ("-std=c++17",))
        self.select, self.push = (mod.get_function(k) for k in _KERNELS)
        self.stream = cp.cuda.Stream(non_blocking=True)
        self.blocks = max(1, _backend.num_sms() * config["kcore_blocks_per_sm"])
        with _backend.out_of_memory_guard("preparing k-core buffers"), self.stream:
            cap = max(n, 1)
            self.deg = cp.empty(cap, np.int32)
            self.core = cp.empty(cap, np.int32)
            self.q = cp.empty(cap, S.indices.dtype)
            self.rem = [cp.empty(cap, S.indices.dtype), cp.empty(cap, S.indices.dtype)]
            # heavy chunks of one round: ceil(len / HEAVY) per heavy row, at most
            # nnz / HEAVY + (heavy rows) <= 2 nnz / HEAVY (every vertex of a large clique may go
            # in the same round)
            self.qh = cp.empty(max(1, 2 * (int(S.nnz) // HEAVY) + 2), S.indices.dtype)
            self.st = cp.zeros(S_WORDS, np.int64)
            self.null_w = cp.zeros(1, np.int32)
        self.graph = None
        self.capture_ok = True
        self.lock = threading.Lock()

    def _round(self):
        g, b = (self.blocks,), (_BLOCK,)
        w = self.null_w if self.vals is None else self.vals
        self.select(g, b, (self.indptr, self.deg, self.core, self.q, self.qh, self.rem[0], self.rem[1],
                           self.st))
        self.push(g, b, (self.indptr, self.indices, w, self.deg, self.q, self.qh, self.st))

    def _batch(self):
        if self.graph is None and self.capture_ok:
            self.graph = _backend.capture_graph(self.stream, lambda: [self._round() for _ in range(BATCH)])
            self.capture_ok = self.graph is not None
        if self.graph is not None:
            self.graph.launch(stream=self.stream)
        else:
            for _ in range(BATCH):
                self._round()

    def run(self, deg):
        """Core numbers (a new int32 array) from the starting degrees ``deg`` (int32)."""
        cp = self.cp
        caller = cp.cuda.get_current_stream()
        with self.lock, self.stream:
            self.stream.wait_event(caller.record())
            self.deg[:self.n] = deg
            self.core.fill(-1)
            self.rem[0][:self.n] = cp.arange(self.n, dtype=self.rem[0].dtype)
            st = np.zeros(S_WORDS, np.int64)
            st[3] = np.iinfo(np.int64).max            # S_MIN
            st[7] = self.n                            # S_N[0]: every vertex remains
            self.st.set(st, stream=self.stream)
            while True:
                self._batch()
                if int(self.st[4].get(stream=self.stream)):   # S_DONE
                    break
            out = self.core[:self.n].copy()
            caller.wait_event(self.stream.record())
        return out

    def rounds(self) -> int:
        """Rounds the last :meth:`run` took."""
        with self.lock:
            return int(self.st[5].get(stream=self.stream))


def core_numbers(S, deg):
    """Core numbers of the simple symmetric matrix ``S`` (device CSR) from degrees ``deg``."""
    per_sm = config["kcore_blocks_per_sm"]      # part of the plan: its graph holds the grid
    plan = S.derived(f"hpg.kcore_plan.{per_sm}", lambda: KCorePlan(S))
    return plan.run(deg)
