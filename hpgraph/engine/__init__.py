"""The vertex-program engine: ``hp.VertexProgram`` and ``hp.run`` (PREPROCESS -> SPMV -> APPLY).

* :mod:`.program` -- :class:`VertexProgram` (the user's class: properties, gather / reduce /
  update, mask, priority, witness) and its structural checks; :class:`Seeded` initial values.
* :mod:`.bind` -- a program typed against one graph (:class:`BoundProgram`): init run, callbacks
  compiled, ordering features resolved.
* :mod:`.run` -- :func:`run`: picks the side and hands the bound program to an engine.
* :mod:`.results` -- :class:`RunResult`, :class:`SuperstepStats`.
* :mod:`.udf` -- compiles ``gather``/``update``/``mask`` through :mod:`hpgraph.compiler` into
  vectorised NumPy callables and CUDA C snippets over structure-of-arrays properties.
* :mod:`.relax` -- recognises programs that relax a property (SSSP, BFS depths, widest
  paths): their GPU pushes combine straight into the property (one kernel a superstep).
* :mod:`.cpu` -- the superstep loop on NumPy (push or pull, identical results), near-far
  ordering and witnesses included.
* :mod:`.codegen` + ``templates/engine*.cu`` -- the one generated CUDA module of a program:
  pull kernels over HYB (ELL + COO tail) with the x_bitmask and early exit, a push kernel over
  the frontier queue with monoid atomics, the witness pass, the near-far split, one fused
  APPLY kernel; compiled with ``HP_PERSISTENT`` the same bodies form the device loop.
* :mod:`.gpu` -- run states (module, buffers, stream, CUDA graphs) kept per (device graph,
  program code), a fixed launch sequence per superstep, blind batches replayed as CUDA graphs;
  :mod:`.launch` -- the superstep's kernel launches (grid sizes, argument lists).
* :mod:`.device_loop` -- the whole run in one cooperative launch (grid barriers).

Importing this package imports neither cupy nor the compiler.
"""
