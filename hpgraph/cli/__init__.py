"""The ``hpgraph`` command line (also ``python -m hpgraph``).

One module per subcommand (:mod:`~hpgraph.cli.demo`, :mod:`~hpgraph.cli.info`,
:mod:`~hpgraph.cli.run`, :mod:`~hpgraph.cli.bench`, :mod:`~hpgraph.cli.warmup`), each registering itself in
:data:`SUBCOMMANDS` (name -> :class:`Subcommand`: an ``add_arguments(parser)`` and a
``handler(args) -> int``) on import; what they share lives in ``_common`` (registry, argument
groups, output-path checks), ``_graphs`` (loading and summarizing a graph), ``_algorithms``
(the algorithm table and how each is run) and ``_validate`` (the SciPy / networkx references
of ``run --validate``); ``_main`` builds the parser and maps errors to exit statuses. To add a
subcommand, call :func:`register_subcommand` from a module and list that module in
:data:`PLUGIN_MODULES`. Handlers can reuse :func:`add_graph_arguments` / :func:`load_graph` (a
file or a generator spec, timed) and :func:`add_backend_argument`.

Exit status (the same with or without ``--traceback``, which only adds the traceback):

* 0 -- success;
* 2 -- bad input or usage: bad arguments, a missing, unreadable or malformed file, an
  unwritable output path (checked before the run), a graph the algorithm does not accept,
  a graph too large for this machine, a GPU asked for where none is usable; one line
  ``hpgraph: error: ...`` on stderr;
* 1 -- the run failed: an algorithm did not converge, validation failed, or an internal error
  (a bug: ``hpgraph: internal error: ...``, please report it with ``--traceback``);
* 130 -- interrupted.
"""

from __future__ import annotations

# the subcommand modules register themselves in this order (the order of ``hpgraph --help``)
from . import demo, info, run, bench, warmup
from ._algorithms import (ALGORITHMS, BENCH_DEFAULT, Algorithm, algorithm_function, check_source,
                          default_source, describe_result, lookup_algorithm, run_algorithm)
from ._common import (EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, PLUGIN_MODULES, PROG,
                      SUBCOMMANDS, CLIError, Subcommand, add_backend_argument, add_graph_arguments,
                      check_output_path, register_subcommand)
from ._graphs import (LoadedGraph, device_description, format_summary, graph_summary, load_graph,
                      load_graph_from_args, plot_degree_distribution)
from ._main import build_parser, main
from ._validate import validate_result
from .demo import DEMO_ALGORITHMS, demo_algorithms
from .run import write_result

__all__ = [
    "ALGORITHMS", "BENCH_DEFAULT", "DEMO_ALGORITHMS", "EXIT_FAILURE", "EXIT_INTERRUPTED", "EXIT_OK",
    "EXIT_USAGE", "PLUGIN_MODULES", "PROG", "SUBCOMMANDS", "Algorithm", "CLIError", "LoadedGraph",
    "Subcommand", "add_backend_argument", "add_graph_arguments", "algorithm_function", "bench",
    "build_parser", "check_output_path", "check_source", "default_source", "demo",
    "demo_algorithms", "describe_result", "device_description", "format_summary", "graph_summary",
    "info", "load_graph", "load_graph_from_args", "lookup_algorithm", "main",
    "plot_degree_distribution", "register_subcommand", "run", "run_algorithm", "validate_result",
    "warmup", "write_result",
]
