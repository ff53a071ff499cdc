"""Shared machinery of the fuzz tests: profiles, the outcome tally, checked calls, a file worker.

Profiles: the default (CI) profile runs a bounded number of examples per test; with
``HPGRAPH_FUZZ_LONG=1`` every test runs ``HPGRAPH_FUZZ_EXAMPLES`` examples (default 20,000).
``HPGRAPH_FUZZ_REPORT=path.json`` makes the session write the tally (cases, typed errors,
accepted inputs, crashes, untyped errors, hangs, mutated inputs) to that file, every 500 cases
and at exit (end a time-boxed run with SIGINT, e.g. ``timeout -s INT``, so the exit write runs).
The GPU profile is the three ``gpu``-marked tests of test_fuzz_api.py: ``HPGRAPH_FUZZ_LONG=1
HPGRAPH_FUZZ_EXAMPLES=3400 python -m pytest tests/fuzz/test_fuzz_api.py -k gpu`` runs about
10,000 cases on the device.

Properties checked on every case:

* a failure is an :class:`~hpgraph.exceptions.HpgraphError` (``NotImplementedError`` for a
  named missing feature is tallied apart), never a bare NumPy / SciPy / Python error;
* no array the caller passed is modified (compared with a copy taken before the call);
* no call runs longer than :data:`CALL_LIMIT_S` (an alarm signal ends it: a hang is a failure);
* file cases run in a separate worker process, so a crash of the parser (a segmentation
  fault) is a test failure with the offending bytes, not a dead test run.
"""

from __future__ import annotations

import atexit
import copy
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, settings

from hpgraph.exceptions import FileFormatError, GraphFileNotFound, HpgraphError

LONG = os.environ.get("HPGRAPH_FUZZ_LONG", "") not in ("", "0")
LONG_EXAMPLES = int(os.environ.get("HPGRAPH_FUZZ_EXAMPLES", "20000"))
CALL_LIMIT_S = 30.0 if LONG else 20.0

TALLY: Counter = Counter()
FAILURES: list = []
NOT_IMPLEMENTED: Counter = Counter()  # message -> count (documented missing features)


def fuzz_settings(ci_examples: int):
    """Hypothesis settings: ``ci_examples`` in CI, the long count with HPGRAPH_FUZZ_LONG=1."""
    return settings(
        max_examples=LONG_EXAMPLES if LONG else ci_examples,
        deadline=None,
        derandomize=not LONG,  # CI runs are reproducible; the long run explores
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    )


def _write_report():
    path = os.environ.get("HPGRAPH_FUZZ_REPORT")
    if path and TALLY:
        Path(path).write_text(json.dumps({"tally": dict(TALLY), "failures": FAILURES[:50],
                                          "not_implemented": dict(NOT_IMPLEMENTED.most_common(20))},
                                         indent=1))


atexit.register(_write_report)


class Hang(BaseException):
    """Raised by the alarm inside a call that ran past CALL_LIMIT_S (BaseException: no
    ``except Exception`` in the library can swallow it)."""


def _alarm(signum, frame):
    raise Hang()


CALL_MEMORY = int(os.environ.get("HPGRAPH_FUZZ_CALL_MEMORY", str(3 << 30)))


def _cap_memory():
    """Lower the soft address-space limit to what the process maps now + CALL_MEMORY, so that a
    call that would allocate gigabytes fails (and must fail typed) instead of swapping the
    shared machine; hpgraph's size checks read this limit.  Returns what to restore."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        new = used + CALL_MEMORY
        if hard != resource.RLIM_INFINITY:
            new = min(new, hard)
        resource.setrlimit(resource.RLIMIT_AS, (new, hard))
        return soft, hard
    except (ImportError, OSError, ValueError):
        return None


def _uncap_memory(saved):
    if saved is not None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, saved)


def _snapshot(obj, out, depth=0):
    """Collect (array, copy) pairs of every NumPy array reachable in args (lists, tuples, dicts)."""
    if depth > 3:
        return
    if isinstance(obj, np.ndarray):
        out.append((obj, obj.copy()))
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _snapshot(x, out, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            _snapshot(x, out, depth + 1)
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("scipy"):
        for name in ("data", "indices", "indptr", "row", "col", "coords"):
            _snapshot(getattr(obj, name, None), out, depth + 1)


def _same(a, b) -> bool:
    """Bit-for-bit equality (NaN and NaT included); element identity for object arrays."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.hasobject:
        return all(x is y for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
    return a.tobytes() == b.tobytes()


def checked(label: str, fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)``; tally and assert the fuzz properties.

    Returns ``(ok, value)``: ``ok`` is False when the call raised a typed error (the value is
    then the exception).
    """
    snaps = []
    _snapshot((args, kwargs), snaps)
    old = signal.signal(signal.SIGALRM, _alarm)
    cap = _cap_memory()
    signal.setitimer(signal.ITIMER_REAL, CALL_LIMIT_S)
    t0 = time.perf_counter()
    err = None
    value = None
    try:
        value = fn(*args, **kwargs)
    except Hang:
        err = "hang"
    except HpgraphError as exc:
        value = exc
    except NotImplementedError as exc:
        value = exc
    except Exception as exc:  # noqa: BLE001 - the property under test
        err = exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        _uncap_memory(cap)
    TALLY["cases"] += 1
    if TALLY["cases"] % 500 == 0:
        _write_report()  # a long run cut off by a time limit still leaves its counts
    mutated = [i for i, (a, c) in enumerate(snaps) if not _same(a, c)]
    if mutated:
        TALLY["mutated"] += 1
        FAILURES.append(f"{label}: caller array(s) {mutated} modified")
        raise AssertionError(f"{label}: the call modified caller array(s) {mutated}")
    if err == "hang":
        TALLY["hangs"] += 1
        FAILURES.append(f"{label}: no result within {CALL_LIMIT_S} s")
        raise AssertionError(f"{label}: no result within {CALL_LIMIT_S} s "
                             f"({time.perf_counter() - t0:.1f} s)")
    if err is not None:
        TALLY["untyped"] += 1
        FAILURES.append(f"{label}: {type(err).__module__}.{type(err).__name__}: {err}"[:400])
        raise AssertionError(f"{label}: untyped {type(err).__module__}.{type(err).__name__}: {err}") from err
    if isinstance(value, NotImplementedError) and not isinstance(value, HpgraphError):
        TALLY["not_implemented"] += 1
        NOT_IMPLEMENTED[str(value)[:160]] += 1
        return False, value
    if isinstance(value, HpgraphError):
        TALLY["typed"] += 1
        assert str(value).strip(), f"{label}: {type(value).__name__} with an empty message"
        return False, value
    TALLY["accepted"] += 1
    return True, value


# ---------------------------------------------------------------------------------------------
# file cases: a worker process parses; the test process survives whatever the worker does

WORKER = Path(__file__).with_name("_file_worker.py")


class FileWorker:
    """A long-lived ``python _file_worker.py`` reading one JSON request per line."""

    def __init__(self):
        self.proc = None

    def _start(self):
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONFAULTHANDLER"] = "1"
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, bufsize=0)

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except Exception:  # noqa: BLE001 - shutting down a worker that may be dead
                self.proc.kill()
            self.proc = None

    def _kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def parse(self, path, limit_s: float = CALL_LIMIT_S, **kwargs) -> dict:
        """The worker's verdict on ``hpgraph.io.read(path, backend='cpu', **kwargs)``:
        ``{"kind": "ok" | "typed" | "untyped" | "crash" | "hang", ...}``."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        req = json.dumps({"path": str(path), "kwargs": kwargs}) + "\n"
        try:
            self.proc.stdin.write(req.encode())
        except BrokenPipeError:
            pass
        out = self.proc.stdout
        ready, _, _ = select.select([out], [], [], limit_s)
        if not ready:
            self._kill()
            return {"kind": "hang"}
        line = out.readline()
        if not line:  # the worker died
            rc = self.proc.wait()
            err = self.proc.stderr.read().decode(errors="replace")[-2000:]
            self.proc = None
            return {"kind": "crash", "returncode": rc, "stderr": err}
        return json.loads(line)


def check_file(worker: FileWorker, label: str, path, content: bytes, **kwargs) -> dict:
    """Parse ``path`` in the worker and assert: no crash, no hang, typed errors naming the file."""
    res = worker.parse(path, **kwargs)
    TALLY["cases"] += 1
    TALLY["file_cases"] += 1
    if TALLY["cases"] % 500 == 0:
        _write_report()
    kind = res["kind"]
    shown = repr(content[:300]) + ("..." if len(content) > 300 else "")
    if kind == "crash":
        TALLY["crashes"] += 1
        FAILURES.append(f"{label}: worker died (rc {res['returncode']}) on {shown}")
        raise AssertionError(f"{label}: the parser took its process down (return code {res['returncode']}) "
                             f"on {shown}\n{res['stderr']}")
    if kind == "hang":
        TALLY["hangs"] += 1
        FAILURES.append(f"{label}: hang on {shown}")
        raise AssertionError(f"{label}: no result within {CALL_LIMIT_S} s on {shown}")
    if kind == "untyped":
        TALLY["untyped"] += 1
        FAILURES.append(f"{label}: {res['type']}: {res['msg']} on {shown}"[:600])
        raise AssertionError(f"{label}: untyped {res['type']}: {res['msg']} on {shown}\n{res.get('tb', '')}")
    if kind == "typed":
        TALLY["typed"] += 1
        if res["type"] in (FileFormatError.__name__, GraphFileNotFound.__name__):
            assert str(path) in res["msg"], f"{label}: {res['type']} does not name the file: {res['msg']}"
    else:
        TALLY["accepted"] += 1
    return res


def deep_copy_args(*args):
    return copy.deepcopy(args)
