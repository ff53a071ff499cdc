"""Collectives between the workers of one distributed job: allgather of dense slices (and of
bitmaps), allreduce of vectors and counters.

Two implementations of one interface:

* :class:`NcclCollective` (GPU): ``cupy.cuda.nccl``; rank 0 makes the NCCL unique id and
  hands it to the other ranks once, through a Dask ``Variable``.
* :class:`TcpCollective` (CPU, used by CI): a star over TCP sockets
  (``multiprocessing.connection``, raw array bytes, no pickling): each rank sends its slice to
  rank 0, which assembles (or reduces) and sends the whole vector back.  Rank 0's address
  is handed out once through a Dask ``Variable``, like NCCL's id.  Chosen over Dask's own
  ``Queue`` / ``Variable`` (every message a scheduler round trip, several ms) and over shared
  memory (single machine only): two socket hops per superstep, any number of machines.  A
  peer that dies closes its socket, so the others see EOF at once and raise
  :class:`~hpgraph.exceptions.WorkerLost`; a peer that hangs is caught by ``timeout``.

Slices may differ in length (``counts``, the same on every rank); every rank passes arrays of
the same dtype.
"""

from __future__ import annotations

import time

import numpy as np

from ..exceptions import ClusterError, InvalidValue, WorkerLost

__all__ = ["make_collective", "allgather_bitmap", "allreduce_or_bitmap", "TcpCollective",
           "NcclCollective", "REDUCE_OPS"]

REDUCE_OPS = ("sum", "min", "max")


def _publish(name, value):
    from distributed import Variable, get_client

    Variable(name, client=get_client()).set(value)


def _lookup(name, timeout):
    from distributed import Variable, get_client

    try:
        return Variable(name, client=get_client()).get(timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - Dask raises TimeoutError and others here
        raise WorkerLost(f"rank 0 of the job did not publish its address within {timeout} s "
                         f"({type(exc).__name__}: {exc})") from None


def _no_delay(conn):
    """Turn Nagle's algorithm off on a connection's socket: the small messages of a superstep
    (a counter, a short slice) would otherwise wait for the peer's delayed ACK (~40 ms)."""
    import socket

    s = socket.fromfd(conn.fileno(), socket.AF_INET, socket.SOCK_STREAM)  # a dup of the fd
    try:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    finally:
        s.close()
    return conn


class TcpCollective:
    """The CPU collective: a TCP star centred on rank 0 (module docstring)."""

    def __init__(self, rank, size, session, timeout=60.0):
        self.rank, self.size, self.timeout = int(rank), int(size), float(timeout)
        self.bytes_sent = 0
        self._spent = 0.0
        self._conns = []
        if self.size == 1:
            return
        from multiprocessing.connection import Client, Listener

        key = session.encode()
        if self.rank == 0:
            from distributed import get_worker

            host = get_worker().address.split("://")[-1].rsplit(":", 1)[0]
            listener = Listener((host, 0), authkey=key)
            try:
                _publish(f"hpgraph-{session}", [host, listener.address[1]])
                conns = {}
                # accept() has no timeout: a peer that never connects shows up as the job's
                # timeout on the client, which cancels this task
                for _ in range(self.size - 1):
                    conn = _no_delay(listener.accept())
                    conns[int(np.frombuffer(conn.recv_bytes(), np.int64)[0])] = conn
            finally:
                listener.close()
            self._conns = [conns[r] for r in range(1, self.size)]
        else:
            host, port = _lookup(f"hpgraph-{session}", self.timeout)
            try:
                conn = Client((host, int(port)), authkey=key)
            except OSError as exc:
                raise WorkerLost(f"rank {self.rank} could not reach rank 0 at {host}:{port}: "
                                 f"{exc}") from None
            _no_delay(conn)
            conn.send_bytes(np.int64(self.rank).tobytes())
            self._conns = [conn]

    # -- transport -----------------------------------------------------------------------

    def _send(self, conn, peer, buf):
        try:
            conn.send_bytes(buf)
        except (OSError, EOFError) as exc:
            raise WorkerLost(f"rank {self.rank}: rank {peer} is gone ({type(exc).__name__})") from None
        self.bytes_sent += memoryview(buf).nbytes

    def _recv_into(self, conn, peer, buf):
        try:
            if not conn.poll(self.timeout):
                raise WorkerLost(f"rank {self.rank}: rank {peer} sent nothing for {self.timeout} s")
            conn.recv_bytes_into(buf)
        except (OSError, EOFError) as exc:
            raise WorkerLost(f"rank {self.rank}: rank {peer} is gone ({type(exc).__name__})") from None

    # -- collectives ---------------------------------------------------------------------

    @property
    def exchange_seconds(self) -> float:
        """Seconds spent in collectives so far (waiting for the peers included)."""
        return self._spent

    def start_job(self):
        """Zero the statistics (bytes sent, exchange time) for what follows."""
        self.bytes_sent = 0
        self._spent = 0.0

    def allgather(self, local, counts):
        """The concatenation of every rank's slice (rank order); ``counts[r]`` is rank r's length."""
        t = time.perf_counter()
        try:
            return self._allgather(local, counts)
        finally:
            self._spent += time.perf_counter() - t

    def allreduce(self, value, op="sum"):
        """Elementwise reduction of an array (or scalar) over the ranks; the same array on all."""
        t = time.perf_counter()
        try:
            return self._allreduce(value, op)
        finally:
            self._spent += time.perf_counter() - t

    def _allgather(self, local, counts):
        local = np.ascontiguousarray(local)
        if len(local) != counts[self.rank]:
            raise InvalidValue(f"allgather: rank {self.rank} has {len(local)} values, counts say "
                               f"{counts[self.rank]}")
        out = np.empty(int(sum(counts)), dtype=local.dtype)
        if self.size == 1:
            out[...] = local
            return out
        starts = np.concatenate([[0], np.cumsum(counts)])
        if self.rank == 0:
            out[: counts[0]] = local
            for r, conn in enumerate(self._conns, start=1):
                if counts[r]:
                    self._recv_into(conn, r, out[starts[r]: starts[r + 1]])
            for r, conn in enumerate(self._conns, start=1):
                self._send(conn, r, out)
        else:
            if counts[self.rank]:
                self._send(self._conns[0], 0, local)
            self._recv_into(self._conns[0], 0, out)
        return out

    def _allreduce(self, value, op):
        arr = np.ascontiguousarray(np.atleast_1d(value))
        if op not in REDUCE_OPS:
            raise InvalidValue(f"allreduce: op must be one of {REDUCE_OPS}, got {op!r}")
        if self.size == 1:
            out = arr.copy()
        elif self.rank == 0:
            parts = np.empty((self.size,) + arr.shape, dtype=arr.dtype)
            parts[0] = arr
            for r, conn in enumerate(self._conns, start=1):
                self._recv_into(conn, r, parts[r])
            out = np.ascontiguousarray(getattr(np, op)(parts, axis=0).astype(arr.dtype))
            for r, conn in enumerate(self._conns, start=1):
                self._send(conn, r, out)
        else:
            self._send(self._conns[0], 0, arr)
            out = np.empty_like(arr)
            self._recv_into(self._conns[0], 0, out)
        return out if np.ndim(value) else out[0]

    def close(self):
        for conn in self._conns:
            conn.close()
        self._conns = []


class NcclCollective:
    """The GPU collective over ``cupy.cuda.nccl`` (one communicator per job)."""

    _DTYPES = {"float64": "NCCL_FLOAT64", "float32": "NCCL_FLOAT32", "int64": "NCCL_INT64",
               "int32": "NCCL_INT32", "uint8": "NCCL_UINT8", "bool": "NCCL_UINT8"}

    def __init__(self, rank, size, session, timeout=60.0):
        import cupy as cp
        from cupy.cuda import nccl

        self.cp, self.nccl = cp, nccl
        self.rank, self.size = int(rank), int(size)
        self.bytes_sent = 0
        self.profile = None   # what a job's kernel reports of its steps (JobInfo.profiles)
        self._events = []     # (start, end) CUDA events around the NCCL calls not yet summed
        self._summed = 0.0    # seconds of the calls whose events were folded in
        name = f"hpgraph-nccl-{session}"
        if self.rank == 0:
            uid = nccl.get_unique_id()   # bytes or a tuple of ints, by CuPy version
            if self.size > 1:
                _publish(name, bytes(uid) if isinstance(uid, (bytes, bytearray)) else list(uid))
        else:
            got = _lookup(name, timeout)
            uid = bytes(got) if isinstance(got, (bytes, bytearray)) else tuple(got)
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)

    @property
    def exchange_seconds(self) -> float:
        """Seconds the NCCL calls so far took on the stream (CUDA events; waiting for the peers
        included).  Synchronises with the last call."""
        self._fold()
        return self._summed

    def _fold(self):
        """Sum the recorded calls' times into ``_summed`` (waits for each, on whatever stream
        it ran)."""
        if self._events:
            cp = self.cp
            for _, end in self._events:
                end.synchronize()
            self._summed += sum(cp.cuda.get_elapsed_time(a, b) for a, b in self._events) / 1e3
            self._events = []

    #: Recorded calls kept before they are summed (a long job does not pile up events).
    FOLD_EVERY = 512

    def _timed(self, call):
        cp = self.cp
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        call()
        b.record()
        self._events.append((a, b))
        if len(self._events) >= self.FOLD_EVERY:
            self._fold()

    def _dtype(self, dtype):
        name = np.dtype(dtype).name
        if name not in self._DTYPES:
            raise InvalidValue(f"NCCL collective: unsupported dtype {name}")
        return getattr(self.nccl, self._DTYPES[name])

    def allgather(self, local, counts, out=None):
        """As :meth:`TcpCollective.allgather`, on device arrays.  Slices of one length go
        through NCCL's allGather; slices of different lengths through one broadcast per rank,
        grouped, each into its place in the result (an allgatherv, as RAFT / cuGraph make
        it), so no slice is padded or copied afterwards.  ``out``: a contiguous device array
        of ``sum(counts)`` elements of ``local``'s dtype to gather into (a superstep loop
        passes the same one every time), else a new one."""
        cp = self.cp
        local = cp.ascontiguousarray(cp.asarray(local))
        stream = cp.cuda.get_current_stream().ptr
        item = local.dtype.itemsize
        u8 = self.nccl.NCCL_UINT8      # moved as bytes: one code path for every dtype
        counts = [int(c) for c in counts]
        width = max(counts)
        recv = cp.empty(sum(counts), dtype=local.dtype) if out is None else out
        if recv.shape != (sum(counts),) or recv.dtype != local.dtype \
                or not recv.flags.c_contiguous:
            raise InvalidValue(f"allgather: out must be a contiguous {local.dtype} array of "
                               f"{sum(counts)} elements, got {recv.dtype} {recv.shape}")
        if all(c == width for c in counts):
            self._timed(lambda: self.comm.allGather(local.data.ptr, recv.data.ptr, width * item,
                                                    u8, stream))
        else:
            starts = np.concatenate([[0], np.cumsum(counts)]) * item

            def group():
                self.nccl.groupStart()
                try:
                    for r, c in enumerate(counts):
                        dst = recv.data.ptr + int(starts[r])
                        src = local.data.ptr if r == self.rank else dst
                        self.comm.broadcast(src, dst, c * item, u8, r, stream)
                finally:
                    self.nccl.groupEnd()
            self._timed(group)
        self.bytes_sent += counts[self.rank] * item
        return recv

    def allreduce(self, value, op="sum"):
        cp = self.cp
        if op not in REDUCE_OPS:
            raise InvalidValue(f"allreduce: op must be one of {REDUCE_OPS}, got {op!r}")
        scalar = np.ndim(value) == 0
        arr = cp.ascontiguousarray(cp.atleast_1d(cp.asarray(value)))
        dt = arr.dtype
        if dt == np.bool_:
            arr = arr.astype(np.uint8)
        out = cp.empty_like(arr)
        code = {"sum": self.nccl.NCCL_SUM, "min": self.nccl.NCCL_MIN, "max": self.nccl.NCCL_MAX}[op]
        ncdt = self._dtype(arr.dtype)
        self._timed(lambda: self.comm.allReduce(arr.data.ptr, out.data.ptr, arr.size, ncdt, code,
                                                cp.cuda.get_current_stream().ptr))
        self.bytes_sent += arr.nbytes
        out = out.astype(dt, copy=False)
        return out[0].item() if scalar else out

    def start_job(self):
        """Zero the statistics (bytes sent, exchange time, the job's profile) for the next job
        on this communicator."""
        self.profile = None
        self.bytes_sent = 0
        self._events = []
        self._summed = 0.0

    def close(self):
        self.comm.destroy()


def make_collective(side, rank, size, session, timeout):
    """The collective of ``side`` ("cpu": TCP, "gpu": NCCL) for one rank of a job."""
    if side == "gpu":
        return NcclCollective(rank, size, session, timeout)
    if side == "cpu":
        return TcpCollective(rank, size, session, timeout)
    raise ClusterError(f"no collective for side {side!r}")


def allgather_bitmap(coll, xp, bits, counts):
    """Allgather of boolean slices packed 8 per byte (each slice padded to whole bytes)."""
    packed = xp.packbits(bits.astype(np.bool_, copy=False))
    nbytes = [(int(c) + 7) // 8 for c in counts]
    whole = coll.allgather(packed, nbytes)
    if all(int(c) % 8 == 0 for c in counts):
        return xp.unpackbits(whole).astype(np.bool_)
    starts = np.concatenate([[0], np.cumsum(nbytes)])
    return xp.concatenate([xp.unpackbits(whole[starts[r]: starts[r + 1]])[: int(c)]
                           for r, c in enumerate(counts)]).astype(np.bool_)


def allreduce_or_bitmap(coll, xp, bits):
    """The element-wise OR of every rank's boolean array (all of one length), as a bool array.

    Each rank's array travels packed 8 per byte through an allgather (NCCL has no bitwise-OR
    reduction) and the ranks' rows are OR-ed locally: ``P * n / 8`` bytes received per rank.
    """
    n = int(bits.shape[0])
    packed = xp.packbits(bits.astype(np.bool_, copy=False))
    nb = int(packed.shape[0])
    whole = coll.allgather(packed, [nb] * coll.size).reshape(coll.size, nb)
    acc = whole[0].copy()
    for r in range(1, coll.size):
        acc |= whole[r]
    return xp.unpackbits(acc)[:n].astype(np.bool_)
