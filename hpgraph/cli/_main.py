"""The ``hpgraph`` entry point: the parser built from the registered subcommands, and the
mapping of errors to exit statuses."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from .. import __version__
from ._common import (EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, PLUGIN_MODULES, PROG,
                      SUBCOMMANDS, CLIError, Parser)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per entry of :data:`SUBCOMMANDS`."""
    for mod in PLUGIN_MODULES:
        importlib.import_module(mod)
    parser = Parser(prog=PROG, description="hpgraph: GraphBLAS-style graph analytics on NVIDIA GPUs "
                                           "(and on the CPU through NumPy/SciPy).")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--traceback", action="store_true",
                        help="show the full Python traceback on errors (for bug reports)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for sc in SUBCOMMANDS.values():
        p = sub.add_parser(sc.name, help=sc.help, description=sc.description or sc.help,
                           epilog=sc.epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
        sc.add_arguments(p)
        p.set_defaults(_handler=sc.handler)
    return parser


def _expected_errors():
    """Errors that mean bad input or usage (exit status 2)."""
    from ..exceptions import (DeviceUnavailable, DimensionMismatch, DomainMismatch,
                              FileFormatError, GraphFileNotFound, HostOutOfMemory, InvalidGraph,
                              InvalidValue, NegativeCycleError)

    return (CLIError, InvalidValue, InvalidGraph, FileFormatError, GraphFileNotFound,
            DeviceUnavailable, DimensionMismatch, DomainMismatch, NegativeCycleError, HostOutOfMemory,
            OSError)


def _error(message) -> None:
    text = " ".join(str(message).split("\n")[0:1]) or type(message).__name__
    print(f"{PROG}: error: {text}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input or usage, 1 failure or
    internal error; ``--traceback`` adds the traceback and keeps the status)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = getattr(args, "_handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        _error(f"a command is required: {', '.join(SUBCOMMANDS)}")
        return EXIT_USAGE
    from ..exceptions import HpgraphError

    try:
        rc = handler(args)
        return EXIT_OK if rc is None else int(rc)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `hpgraph info ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except _expected_errors() as exc:
        if args.traceback:
            traceback.print_exc()
        _error(exc)
        return EXIT_USAGE
    except HpgraphError as exc:
        if args.traceback:
            traceback.print_exc()
        _error(f"{type(exc).__name__}: {exc}")
        from ..exceptions import ConvergenceError

        if isinstance(exc, ConvergenceError):
            print(f"{PROG}: (raise --max-iter or --tol)", file=sys.stderr)
        elif not args.traceback:
            print(f"{PROG}: (run with --traceback for details)", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as exc:  # a bug: one line (and the traceback when asked), exit status 1
        if args.traceback:
            traceback.print_exc()
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc}".split("\n")[0], file=sys.stderr)
        if not args.traceback:
            print(f"{PROG}: (this is a bug; run with --traceback and report it)", file=sys.stderr)
        return EXIT_FAILURE
