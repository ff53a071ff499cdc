"""Typed errors raised by hpgraph.

Every error hpgraph raises on bad input derives from :class:`HpgraphError` and from the
built-in exception a Python user would expect (``ValueError``, ``TypeError``, ...), so
``except ValueError`` keeps working.  Messages name the argument (or file and line), what
was expected and what was given.
"""

from __future__ import annotations


class HpgraphError(Exception):
    """Base class of all hpgraph errors."""


class InvalidGraph(HpgraphError, ValueError):
    """A graph or sparse matrix is malformed (bad ids, mismatched lengths, NaN weights...)."""


class InvalidValue(HpgraphError, ValueError):
    """An argument has the right type but an unacceptable value."""


class IndexOutOfBound(InvalidValue, IndexError):
    """A vertex id or index lies outside ``[0, n)``."""


class DimensionMismatch(HpgraphError, ValueError):
    """Shapes of operands do not agree (matrix columns vs vector length, ...)."""


class DomainMismatch(HpgraphError, TypeError):
    """A dtype is not accepted by an operation (for example a float for a logical monoid)."""


class FileFormatError(InvalidGraph):
    """A graph file is malformed, truncated, or of an unknown type.

    Attributes
    ----------
    path : str or None
        The file.
    line : int or None
        1-based line number where the problem was found, when known.
    """

    def __init__(self, message: str, path=None, line=None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f":{line}"
            where += ": "
        super().__init__(where + message)
        self.path = None if path is None else str(path)
        self.line = line


class DeviceUnavailable(HpgraphError, RuntimeError):
    """``backend="gpu"`` was asked for but no usable CUDA device is there (the message says why)."""


class DeviceOutOfMemory(HpgraphError, MemoryError):
    """The GPU ran out of memory; the message says how much was asked for and what to try."""


class CompileError(HpgraphError, RuntimeError):
    """Generated CUDA source failed to compile.

    Attributes
    ----------
    source : str
        The generated CUDA C source.
    log : str
        The compiler's log.
    """

    def __init__(self, message: str, source: str = "", log: str = "", name: str = ""):
        super().__init__(f"{message}\n{log}".rstrip())
        self.source = source
        self.log = log
        self.name = name

    def numbered_source(self) -> str:
        """Return the source with line numbers, as compilers report them."""
        lines = self.source.splitlines()
        width = len(str(len(lines)))
        return "\n".join(f"{i + 1:>{width}} {line}" for i, line in enumerate(lines))

    def dump(self, file=None) -> None:
        """Print the numbered source and the compiler log (to ``file``, default stderr)."""
        import sys

        out = sys.stderr if file is None else file
        print(self.numbered_source(), file=out)
        print(self.log, file=out)


class UnsupportedSyntax(HpgraphError, SyntaxError):
    """A Python callback uses syntax outside the subset hpgraph can compile.

    The message quotes the user's source line with a marker under the offending part.
    """


class UdfTypeError(HpgraphError, TypeError):
    """A Python callback is well-formed but cannot be typed (unknown property, bad operand types)."""


class InvalidProgram(HpgraphError, TypeError):
    """A VertexProgram is malformed (missing reduce, unknown property, wrong signature...)."""


class NegativeCycleError(HpgraphError, ValueError):
    """A negative-weight cycle is reachable from the source of a shortest-path computation."""


class SuperstepLimitExceeded(HpgraphError, RuntimeError):
    """A vertex program still had active vertices after ``hp.config["max_supersteps"]``
    supersteps (a program that never settles); raise the cap or set ``max_iterations``."""


class ConvergenceError(HpgraphError, RuntimeError):
    """An iterative algorithm did not converge within ``max_iter`` iterations."""


class GraphFileNotFound(HpgraphError, FileNotFoundError):
    """A graph file does not exist.

    Also a :class:`FileNotFoundError` (and so an :class:`OSError`), so ``except OSError`` keeps working.

    Attributes
    ----------
    path : str
        The path that was asked for.
    """

    def __init__(self, message: str, path=None):
        super().__init__(message)
        self.path = None if path is None else str(path)

    def __str__(self) -> str:  # OSError would print "[Errno None] ..." once filename is set
        return str(self.args[0]) if self.args else ""


class VertexNotFound(InvalidValue, KeyError):
    """A vertex label is not a vertex of the graph (``VertexLabels.to_ids``).

    Also a :class:`KeyError`, as a missing dictionary key would be.
    """

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class HostOutOfMemory(HpgraphError, MemoryError):
    """An operation needs more host memory than the machine has.

    Raised before allocating when a size (``num_vertices``, an edge count, a file's declared
    length) is known to be too large, and in place of a bare ``MemoryError`` otherwise.  The
    message says what was being built and how many bytes it needs.
    """


class ClusterError(HpgraphError, RuntimeError):
    """A Dask cluster cannot run a distributed job: no workers, no GPU worker when
    ``backend="gpu"`` was asked, or a job that did not finish in its ``timeout``
    (:mod:`hpgraph.distributed`)."""


class VersionMismatch(ClusterError):
    """The workers of a cluster (or a worker and the client) run different hpgraph versions;
    the message lists each worker's version."""


class WorkerLost(ClusterError):
    """A worker died, or stopped answering, during a distributed job; the job's partial state
    is discarded and a :class:`~hpgraph.distributed.DistributedGraph` with a partition on
    that worker must be built again."""
