"""A user :class:`~hpgraph.VertexProgram` on a :class:`~hpgraph.distributed.DistributedGraph`.

Each superstep every rank runs ONE superstep of the program with :func:`hpgraph.run` on the
graph of its partition's in-edges (an ordinary ``Graph`` with all ``n`` vertices, whose only
edges end in the rank's vertex range), starting from the global properties and active set;
it keeps the new values of its own range, and the ranks allgather every property's slice and
the bitmap of the vertices that changed (which, as in the engine, are the next active set).
So the program's own callbacks, reduction, ``mask`` and ``witness`` run in hpgraph's engine,
per partition; the result equals :func:`hpgraph.run`'s (floating-point sums aside, which
may round differently).

Not supported (``NotImplementedError``): ``edges="out"`` / ``"all"`` (partitions hold
in-edges only) and ``priority`` (its ordering is global).  The program's ``init`` runs on every
rank with that rank's graph: all ``n`` vertices but only the rank's in-edges, so an ``init``
that reads the structure (degrees, edges) must get those values as parameters instead.  A
``tolerance`` declared by the program decides "changed" as in the engine (``|new - old| >
tolerance``).
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidValue, SuperstepLimitExceeded
from ._collective import allgather_bitmap
from ._job import run_job

__all__ = ["run"]


def _local_graph(part):
    """The rank's in-edges as a directed ``Graph`` on all n vertices (cached on the worker)."""
    g = getattr(part, "_local_graph", None)   # not Partition.graph()'s cache: another graph
    if g is None:
        from ..formats import CSR
        from ..graph import Graph

        m = part.matrix
        xp = m.xp
        ip = m.indptr
        nnz = int(m.nnz)
        full = xp.concatenate([xp.zeros(part.lo, dtype=ip.dtype), ip,
                               xp.full(part.n - part.hi, nnz, dtype=ip.dtype)])
        AT = CSR(full, m.indices, m.values, shape=(part.n, part.n))
        g = Graph._new(AT.transpose(), True)
        part._local_graph = g
    return g


def _step_class(program_cls):
    """The program with an ``init`` that takes the current state (one superstep per call)."""
    def init(self, graph, _state=None, _active=None):
        return dict(_state), _active

    return type(f"{program_cls.__name__}Step", (program_cls,), {"init": init,
                                                                 "__module__": __name__})


def _program_kernel(part, coll, program, params, max_supersteps):
    from ..engine.run import run as hp_run

    xp, n, lo, hi = part.xp, part.n, part.lo, part.hi
    G = _local_graph(part)
    cls = program if isinstance(program, type) else type(program)
    base = program if not isinstance(program, type) else cls()
    # superstep 0's state: the program's own init, through the engine (defaults, Seeded...)
    res = hp_run(base, G, backend=part.side, max_iterations=0, **params)
    state = {k: xp.asarray(v) for k, v in res.properties.items()}
    init_out = base.init(G, **params)  # the initial active set (and attributes init sets)
    active = init_out[1] if isinstance(init_out, tuple) else None
    if active is None or (isinstance(active, str) and active == "all"):
        active_ids = None
    else:
        active_ids = xp.asarray(np.asarray(active).reshape(-1))
        if active_ids.dtype == np.bool_:
            active_ids = xp.nonzero(active_ids)[0]
    step = _step_class(cls)
    inst = step.__new__(step)
    inst.__dict__.update(base.__dict__)
    tol = getattr(cls, "tolerance", None) or {}
    if not isinstance(tol, dict):  # one tolerance for every floating-point property
        tol = {k: tol for k, v in state.items() if v.dtype.kind == "f"}
    steps = 0
    while True:
        if active_ids is not None and int(active_ids.size) == 0:
            break
        if steps >= max_supersteps:
            raise SuperstepLimitExceeded(f"the program ran {max_supersteps} supersteps "
                                         "without settling (raise max_iterations)")
        out = hp_run(inst, G, backend=part.side, max_iterations=1, _state=state,
                     _active="all" if active_ids is None else active_ids)
        steps += 1
        changed = xp.zeros(hi - lo, dtype=np.bool_)
        new_state = {}
        for k, old in state.items():
            mine = xp.asarray(out.properties[k])[lo:hi]
            before = old[lo:hi]
            diff = (xp.abs(mine - before) > tol[k]) if k in tol else (mine != before)
            if mine.dtype.kind == "f":
                diff &= ~(xp.isnan(mine) & xp.isnan(before))
            changed |= diff
            new_state[k] = coll.allgather(mine, part.counts)
        state = new_state
        active_ids = xp.nonzero(allgather_bitmap(coll, xp, changed, part.counts))[0]
    return {k: v[lo:hi] for k, v in state.items()}, steps, n * sum(
        v.dtype.itemsize for v in state.values())


def run(dg, program, *, max_iterations=None, return_info=False, to=None, timeout=None,
        **params):
    """Run a vertex program over the partitions (module docstring): ``hp.run``'s results.

    Parameters
    ----------
    dg : DistributedGraph
    program : VertexProgram subclass or instance
        Gathering over in-edges (``edges="in"``), without ``priority``.
    max_iterations : int, optional
        Supersteps at most (default: the program's ``max_iterations``, else ``10 n + 1000``);
        :class:`~hpgraph.exceptions.SuperstepLimitExceeded` after.
    to : {None, "numpy", "cupy"}
    **params
        Passed to the program's ``init`` (on every worker).

    Returns
    -------
    dict {property: ndarray}
        Every property, gathered (and a JobInfo with ``return_info=True``).

    Raises
    ------
    NotImplementedError
        ``edges`` other than "in", a ``priority`` or a ``converged`` hook.
    InvalidProgram, UdfTypeError, ...
        As :func:`hpgraph.run` raises them for a malformed program.
    """
    from ..engine.program import VertexProgram

    cls = program if isinstance(program, type) else type(program)
    if not (isinstance(cls, type) and issubclass(cls, VertexProgram)):
        raise InvalidValue(f"program must be a VertexProgram subclass or instance, got {program!r}")
    if getattr(cls, "edges", "in") != "in":
        raise NotImplementedError(f"hpgraph.distributed.run: edges={cls.edges!r} (partitions hold "
                                  "in-edges only; write the program with edges='in')")
    if getattr(cls, "priority", None) is not None:
        raise NotImplementedError("hpgraph.distributed.run: priority-ordered programs (the order "
                                  "is global); drop priority for the same result")
    if callable(getattr(cls, "converged", None)):
        raise NotImplementedError("hpgraph.distributed.run: programs with a converged() hook "
                                  "(it reads the global state); use a tolerance instead")
    if to not in (None, "numpy", "cupy"):
        raise InvalidValue(f"to must be None, 'numpy' or 'cupy', got {to!r}")
    limit = max_iterations if max_iterations is not None else getattr(cls, "max_iterations", None)
    if limit is None:
        limit = 10 * dg.num_vertices + 1000
    values, info = run_job(dg, _program_kernel, dict(program=program, params=params,
                                                     max_supersteps=int(limit)),
                           timeout=timeout, name="run")
    out = {k: np.concatenate([v[k] for v in values]) for k in values[0]}
    if to == "cupy":
        import cupy

        out = {k: cupy.asarray(v) for k, v in out.items()}
    return (out, info) if return_info else out
