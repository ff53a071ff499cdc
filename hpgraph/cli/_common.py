"""What every ``hpgraph`` subcommand shares: the subcommand registry, the parser class, the
exit statuses, the graph / backend argument groups and the output-path checks."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Callable

PROG = "hpgraph"

#: modules imported when the parser is built; each may call :func:`register_subcommand`
PLUGIN_MODULES: list = []

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CLIError(Exception):
    """A usage problem found by a handler; printed as ``hpgraph: error: ...``, exit status 2."""


@dataclass
class Subcommand:
    """One ``hpgraph <name>`` subcommand."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handler: Callable[[argparse.Namespace], int | None]
    description: str | None = None
    epilog: str | None = None


#: name -> Subcommand, in the order they appear in ``hpgraph --help``
SUBCOMMANDS: dict = {}


def register_subcommand(name, *, help, add_arguments, handler, description=None, epilog=None):
    """Register ``hpgraph <name>``; a later registration under the same name replaces it."""
    SUBCOMMANDS[name] = Subcommand(name, help, add_arguments, handler, description, epilog)
    return SUBCOMMANDS[name]


class Parser(argparse.ArgumentParser):
    """argparse with errors always reported as ``hpgraph: error: ...`` (exit status 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{PROG}: error: {message}\n")


# ---------------------------------------------------------------------------------------------
# shared argument groups and helpers (for every subcommand)


def add_backend_argument(parser):
    """``--backend auto|cpu|gpu`` (default: $HPGRAPH_BACKEND or auto)."""
    parser.add_argument("--backend", choices=("auto", "cpu", "gpu"), default=None,
                        help="where to build and run: auto (the GPU when one is usable, else the CPU; "
                             "default, or $HPGRAPH_BACKEND), cpu or gpu")


def add_graph_arguments(parser, *, positional=True):
    """``GRAPH`` (a file or a generator spec) and the options of :func:`hpgraph.cli.load_graph`."""
    from ..generators import SPEC_HELP
    from ..io import FORMATS

    if positional:
        parser.add_argument("graph", metavar="GRAPH",
                            help=f"a graph file ({', '.join(FORMATS)}; .gz accepted) or a generator "
                                 f"spec: {SPEC_HELP}")
    d = parser.add_mutually_exclusive_group()
    d.add_argument("--directed", dest="directed", action="store_true", default=None,
                   help="treat the graph as directed (a symmetric file gives both arcs)")
    d.add_argument("--undirected", dest="directed", action="store_false",
                   help="treat the graph as undirected (symmetrize)")
    parser.add_argument("--format", default=None, help=f"file format, when the extension does not "
                                                       f"tell ({', '.join(FORMATS)})")
    parser.add_argument("--unweighted", action="store_true", help="ignore edge weights in the file")
    parser.add_argument("--relabel", action="store_true",
                        help="compact the vertex ids of an edge list to 0..k-1")
    parser.add_argument("--seed", type=int, default=42,
                        help="seed for generator specs (default 42)")
    from ..formats.coo import DUPLICATE_POLICIES

    parser.add_argument("--duplicates", choices=[d for d in DUPLICATE_POLICIES], default="min",
                        help="how repeated edges combine (default min: the shortest of parallel "
                             "edges; keep stores them all)")
    p = parser.add_mutually_exclusive_group()
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="show a progress bar while reading (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="never show one")


def check_output_path(path, flag, extensions=None) -> None:
    """Fail fast (exit 2) when ``path`` cannot be written: wrong extension, missing or
    unwritable directory, an existing directory or read-only file.  Runs before the work."""
    if extensions is not None:
        ext = os.path.splitext(str(path))[1].lower()
        if ext not in extensions:
            raise CLIError(f"{flag} must end in {' or '.join(extensions)}, got {path!r}")
    full = os.path.abspath(str(path))
    d = os.path.dirname(full)
    if os.path.isdir(full):
        raise CLIError(f"cannot write {flag} {path}: it is a directory")
    if not os.path.isdir(d):
        raise CLIError(f"cannot write {flag} {path}: directory {d} does not exist")
    if not os.access(d, os.W_OK | os.X_OK):
        raise CLIError(f"cannot write {flag} {path}: directory {d} is not writable")
    if os.path.exists(full) and not os.access(full, os.W_OK):
        raise CLIError(f"cannot write {flag} {path}: the file exists and is read-only")


def positive(value, what):
    """A usage error unless ``value`` (the value of option ``what``) is at least 1."""
    if value < 1:
        raise CLIError(f"{what} must be at least 1, got {value}")


def format_ms(t) -> str:
    """Seconds as ``"12.345 ms"`` below one second, else ``"1.234 s"``."""
    return f"{t * 1e3:.3f} ms" if t < 1 else f"{t:.3f} s"


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save_figure(plt, fig, path) -> None:
    """Write ``fig`` to ``path`` and close it; a path that cannot be written is a :class:`CLIError`."""
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise CLIError(f"cannot write the plot to {path}: {exc}") from None
    finally:
        plt.close(fig)


def sync(be):
    """Wait for the GPU's queued work when ``be`` is ``"gpu"`` (so wall-clock timings are whole)."""
    if be == "gpu":
        from .. import backend

        backend.synchronize()
