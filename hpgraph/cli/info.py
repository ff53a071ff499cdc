"""``hpgraph info``: the summary of a graph file or generator spec, optionally with a
degree-distribution plot."""

from __future__ import annotations

import json
import os

from . import _graphs
from ._common import (EXIT_OK, add_backend_argument, add_graph_arguments, check_output_path,
                      register_subcommand)


def _info_arguments(p):
    add_graph_arguments(p)
    add_backend_argument(p)
    p.add_argument("--plot", metavar="FILE.png", default=None,
                   help="also save a log-log out-degree distribution plot (needs matplotlib)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def _info(args) -> int:
    if args.plot:
        check_output_path(args.plot, "--plot", (".png", ".pdf", ".svg"))
    loaded = _graphs.load_graph_from_args(args)
    listed = loaded.edges.num_edges if loaded.edges is not None else None
    info = _graphs.graph_summary(loaded.graph, timings=loaded.timings, source=loaded.source,
                                 listed_edges=listed, duplicates=loaded.duplicates)
    if args.plot:
        title = f"out-degree distribution: {os.path.basename(str(args.graph))}"
        _graphs.plot_degree_distribution(loaded.graph, args.plot, title=title)
        info["plot"] = args.plot
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print(_graphs.format_summary(info))
        if args.plot:
            print(f"plot         {args.plot}")
    return EXIT_OK


register_subcommand(
    "info", help="summarize a graph file or a generated graph",
    description="Print vertices, edges, degree statistics, the HYB layout (K, ELL fill, COO share) "
                "and load/build times for a graph file or a generator spec.",
    epilog="examples:\n  hpgraph info USA-road-d.NY.gr.gz\n  hpgraph info rmat:20 --plot degrees.png\n"
           "  hpgraph info grid:1024x1024 --backend cpu --json",
    add_arguments=_info_arguments, handler=_info)
