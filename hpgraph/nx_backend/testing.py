"""pytest plugin: count the networkx tests that execute an hpgraph implementation.

Run networkx's own tests against the backend with this plugin::

    NETWORKX_TEST_BACKEND=hpgraph NETWORKX_FALLBACK_TO_NX=True \\
        python -m pytest -p hpgraph.nx_backend.testing --pyargs networkx.algorithms

pytest's own totals include every test of the package, many of which never reach hpgraph
(the functions they call are not dispatched).  This plugin records, per test, whether any call
of a dispatched function returned hpgraph's result (:data:`~._registry.CALLS`; a call hpgraph
declined does not count), and prints the outcome counts of those tests and the reasons of
their expected failures.  ``HPGRAPH_NX_COUNT_JSON=path`` also writes them (and each test's
functions) as JSON.

**Strict mode** (on unless ``HPGRAPH_NX_STRICT=0``): while networkx's tests run against the
backend, a call of a function hpgraph dispatches that hpgraph cannot serve xfails the test with
hpgraph's reason (:func:`~._registry.strict_decline`) instead of falling back to networkx, so
fallback is off for every dispatched function.  With ``NETWORKX_FALLBACK_TO_NX=True`` the
functions hpgraph does not dispatch (graph builders, isomorphism checks, the algorithms a test
uses to set up or check its case) still run in networkx, so a test runs to its end; with
networkx's own fallback off, networkx xfails a test at its first call of such a function.
"""

from __future__ import annotations

import json
import os

import pytest

_RANK = {"passed": 0, "skipped": 1, "xfailed": 2, "xpassed": 3, "failed": 4}


class _Recorder:
    def __init__(self):
        self.tests = {}  # nodeid -> {"outcome": str, "functions": [names]}

    @staticmethod
    def _snapshot():
        from ._registry import CALLS, DECLINED

        return dict(CALLS), dict(DECLINED)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        before = self._snapshot()
        self._outcome = "passed"
        self._reason = None
        yield
        after = self._snapshot()
        called = sorted(k for k, v in after[0].items() if v != before[0].get(k, 0))
        declined = sorted(k for k, v in after[1].items() if v != before[1].get(k, 0))
        if called or declined:
            self.tests[item.nodeid] = {"outcome": self._outcome, "functions": called,
                                       "declined": declined}
            if self._reason:
                self.tests[item.nodeid]["reason"] = self._reason

    def pytest_runtest_logreport(self, report):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.failed:
            outcome = "failed"
        elif report.skipped:
            outcome = "skipped"
        else:
            outcome = "passed"
        if _RANK[outcome] > _RANK[getattr(self, "_outcome", "passed")]:
            self._outcome = outcome
            self._reason = getattr(report, "wasxfail", None) or None

    # pytest-xdist (``-n``): each worker records its own tests and hands them to the
    # controller, which prints the summary of all of them
    def pytest_sessionfinish(self, session):
        out = getattr(session.config, "workeroutput", None)
        if out is not None:
            out["hpgraph_nx_tests"] = json.dumps(self.tests)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        self.tests.update(json.loads(getattr(node, "workeroutput", {}).get("hpgraph_nx_tests",
                                                                           "{}")))

    def counts(self):
        out = dict.fromkeys(_RANK, 0)
        for t in self.tests.values():
            if t["functions"]:
                out[t["outcome"]] += 1
        return out

    def pytest_terminal_summary(self, terminalreporter):
        import networkx as nx

        counts = self.counts()
        ran = [t for t in self.tests.values() if t["functions"]]
        funcs = {f for t in ran for f in t["functions"]}
        declined = [t for t in self.tests.values() if t["declined"]]
        tr = terminalreporter
        tr.write_sep("=", "hpgraph backend")
        from ._registry import STRICT

        tr.write_line(f"nx.config.fallback_to_nx = {nx.config.fallback_to_nx}; strict mode "
                      f"(dispatched functions never fall back) = {STRICT['on']}")
        tr.write_line(
            f"tests that executed an hpgraph implementation: {len(ran)} "
            f"({', '.join(f'{v} {k}' for k, v in counts.items() if v)}); "
            f"{len(funcs)} distinct functions called")
        tr.write_line(f"tests in which hpgraph declined a call of a function it dispatches: "
                      f"{len(declined)}")
        reasons = {}
        for t in ran:
            if t["outcome"] == "xfailed":
                key = (t.get("reason") or "?").split(":", 1)[0][:110]
                reasons[key] = reasons.get(key, 0) + 1
        for key, v in sorted(reasons.items(), key=lambda kv: -kv[1]):
            tr.write_line(f"  xfailed {v}: {key}")
        for nodeid, t in sorted(self.tests.items()):
            if t["outcome"] in ("failed", "xpassed") and t["functions"]:
                tr.write_line(f"  {t['outcome'].upper()} {nodeid} ({', '.join(t['functions'])})")
        path = os.environ.get("HPGRAPH_NX_COUNT_JSON")
        if path:
            with open(path, "w") as f:
                json.dump({"fallback_to_nx": nx.config.fallback_to_nx, "counts": counts,
                           "functions": sorted(funcs), "tests": self.tests},
                          f, indent=1, sort_keys=True)


def pytest_configure(config):
    from ._registry import STRICT

    STRICT["on"] = os.environ.get("HPGRAPH_NX_STRICT", "1") != "0"
    config.pluginmanager.register(_Recorder(), "hpgraph-nx-count")
