"""``python -m hpgraph``: the same command line as the ``hpgraph`` script."""

from .cli import main

raise SystemExit(main())
