"""The vertex-program engine behind :func:`hpgraph.run` (internal).

* :mod:`.udf` -- compiles a program's ``gather``/``update`` through :mod:`hpgraph.compiler`
  into vectorised NumPy callables and CUDA C snippets that read properties from
  structure-of-arrays.
* :mod:`.cpu` -- the superstep loop on NumPy (push or pull, identical results).
* :mod:`.codegen` + ``templates/`` -- the generated CUDA module of one program: pull kernels
  over HYB (ELL + COO tail) with the x_bitmask and early exit, a push kernel over the frontier
  queue with monoid atomics, and one fused APPLY kernel.
* :mod:`.gpu` -- run states (module, buffers, stream, CUDA graphs) kept per (device graph,
  program code) and reused by the next call, a fixed launch sequence per superstep, blind
  batches of supersteps (direction chosen on the device) replayed as CUDA graphs, one small
  counter read per batch.

Importing this package imports neither cupy nor the compiler.
"""
