"""Python callbacks -> CUDA C and vectorised NumPy, with the same semantics.

hpgraph callbacks (user binary ops, vertex-program gather/update functions) are plain Python
in a small subset.  :func:`compile_function` reads the function's source (``inspect`` +
``ast``; a lambda is found among the lambdas of its line by its parameter names and, on
Python >= 3.11, by its bytecode column positions), types it for given argument dtypes and
produces a :class:`CompiledFunction` with

* ``c_preamble``: a ``__device__ __forceinline__`` function ``hp_udf_<name>_<hash>`` (plus
  helpers), and ``c_expr(args, views)`` / ``c_call(*exprs)`` giving the C call;
* ``np_call(*arrays)``: a vectorised NumPy evaluation of the same typed expression DAG.

The subset
----------
* parameters; vertex-view properties ``src.dist`` (the caller declares which parameters are
  views and the dtype of each property); numeric and bool constants;
* ``+ - * / // % **``, unary ``-``/``+``, ``& | ^ ~`` (ints and bools), comparisons (chained
  too), ``and``/``or``/``not``, ``a if c else b``;
* local assignments (``t = a + b``, ``t += 1``, ``a, b = x, y``), ``if``/``elif``/``else``
  statements that assign or return, ``return`` of a value or (update callbacks) of a dict
  with constant string keys;
* ``min``/``max`` (two or more arguments), ``abs``, ``float()``/``int()``/``bool()``,
  ``float("inf")``; ``math.``: sqrt exp exp2 expm1 log log2 log10 log1p floor ceil trunc fabs
  sin cos tan asin acos atan sinh cosh tanh pow atan2 hypot fmod copysign isnan isinf
  isfinite and the constants pi e tau inf nan; the same through ``numpy`` (``np.sqrt``,
  ``np.float32(x)`` casts, ``np.where``, ``np.fmin``/``np.fmax``, ``np.inf``);
* module globals and closure variables that hold numbers or bools, captured **by value**
  each time the function is typed (a changed value gives a new compilation: it is part of
  the cache key), and ``math``/``numpy`` modules and the supported functions.

Anything else raises :class:`~hpgraph.exceptions.UnsupportedSyntax` when the callback is
defined, quoting the line with ``^`` under the offending part; typing problems raise
:class:`~hpgraph.exceptions.UdfTypeError`, quoted the same way.

Semantics (identical on both back ends)
---------------------------------------
* Types follow NumPy 2 promotion; Python number literals and captured Python numbers are
  "weak" (NEP 50): ``x + 1`` stays float32 for float32 ``x``; a literal that does not fit
  the other operand's integer type is an error.  Arithmetic on two bools gives int64 (as in
  Python, ``True + True == 2``).
* ``/`` is true division (integers give float64, as in Python).  ``//`` and ``%`` follow
  Python's floor semantics (``-7 // 2 == -4``, ``-7 % 2 == 1``; for floats exactly NumPy's
  ``floor_divide``/``remainder``), except that an integer ``x // 0`` or ``x % 0`` is 0 (NumPy's
  convention; Python would raise).  Integer ``**`` wraps; a negative exponent gives 0
  (except for bases 1 and -1).
* Integer ``+ - *`` and negation wrap around modulo 2**bits (the C code computes them in
  unsigned arithmetic, so it never hits C's undefined signed overflow).
* ``min``/``max`` on floats ignore NaN (C ``fmin``/``fmax``, NumPy ``fmin``/``fmax``; the
  GraphBLAS ``min``/``max`` semantics), unlike Python's order-dependent builtins.
* ``a if c else b``, ``and``/``or`` evaluate both sides (there are no side effects; errors
  such as division by zero produce values, never exceptions).  ``and``/``or`` return one of
  their operands, as in Python (``x or 1``), promoted to a common type.
* ``math`` functions follow NumPy's ufunc typing: float32 stays float32, integers become
  float64; ``math.floor``/``ceil``/``trunc`` return floats (Python returns ints).
  ``sqrt``, ``floor``, ``ceil``, ``trunc``, ``fabs``, ``fmod``, ``copysign`` are exact on both
  back ends; transcendental functions (``exp``, ``log``, ``pow``, ``sin``...) may differ in the
  last bits (CUDA's math library has documented ULP bounds, NumPy uses the C library).
* Converting a NaN, an infinity or an out-of-range float to an integer is undefined (as
  in C); ``bool(x)`` is ``x != 0`` (NaN is true).
"""

from ._compiled import CompiledFunction, compile_function
from ._analysis import analyze_function, resolve_free

__all__ = ["CompiledFunction", "compile_function", "analyze_function", "resolve_free"]
