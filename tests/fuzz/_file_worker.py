"""Fuzz worker process: reads ``{"path": ..., "kwargs": {...}}`` lines on stdin, answers one JSON
line each on stdout with the outcome of ``hpgraph.io.read(path, backend="cpu", **kwargs)``.

Run by ``tests/fuzz/_harness.FileWorker``; if a parser crashes this process, the test process
sees the closed pipe and reports the file.
"""

import json
import os
import sys
import traceback

import hpgraph as hp
from hpgraph.exceptions import HpgraphError


def _limit_memory():
    """Cap this process's address space so a parse that allocates gigabytes fails (typed) fast
    instead of taking the shared machine's memory."""
    try:
        import resource

        cap = int(os.environ.get("HPGRAPH_FUZZ_WORKER_AS", str(6 << 30)))
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    except (ImportError, ValueError, OSError):
        pass


def main():
    _limit_memory()

    # every file through the direct parse first, then pyarrow's (where installed), then loadtxt
    hp.config.set(io_direct_min_bytes=0, io_arrow_min_bytes=0)
    out = sys.stdout
    for line in sys.stdin:
        req = json.loads(line)
        try:
            G = hp.io.read(req["path"], backend="cpu", **req["kwargs"])
            res = {"kind": "ok", "n": G.num_vertices, "m": G.num_edges}
        except HpgraphError as exc:
            res = {"kind": "typed", "type": type(exc).__name__, "msg": str(exc)[:2000]}
        except Exception as exc:  # noqa: BLE001 - reported to the test as untyped
            res = {"kind": "untyped", "type": f"{type(exc).__module__}.{type(exc).__name__}",
                   "msg": str(exc)[:2000], "tb": traceback.format_exc()[-3000:]}
        out.write(json.dumps(res) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
