"""The package layering of docs/ARCHITECTURE.md, checked on the source: which package may import
which, and no import cycle between modules.

Every ``import`` / ``from ... import`` statement under ``hpgraph/`` is read with :mod:`ast`,
at module level or inside a function (a deferred import is still a dependency; only the
import system's implicit import of a parent package is not counted).  Imports built from
strings (``importlib.import_module(f"...")``, the lazy attributes of ``hpgraph/__init__.py``)
are not seen.

The edges that break the rules today are listed in :data:`KNOWN_EXCEPTIONS`, each with its
reason: a new violation fails, and so does an entry that no longer exists (remove it), so the
list can only shrink.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "hpgraph"

#: lowest first; a module may import from its own layer and from the layers below it.  A
#: "package" is the first name under hpgraph (``formats``, ``graph`` for graph.py, ``""``
#: for hpgraph/__init__.py).
LAYERS = [
    ("foundation", {"exceptions", "dtypes", "_config", "_config_keys", "_memory", "backend",
                    "cuda_source", "kernel_cache", "precompile", "_arrayops"}),
    ("storage", {"formats", "graph", "_graph_edges", "labels", "io", "generators", "_gen_chunks",
                 "_gen_gpu"}),
    ("operators", {"ops", "compiler"}),
    ("execution", {"engine", "spmv", "program", "graphblas"}),
    ("algorithms", {"algorithms"}),
    ("interop", {"nx_backend", "csgraph", "tables", "exchange", "distributed"}),
    ("entry points", {"cli", "__main__", ""}),
]

#: (importer, imported) -> why the edge is there.  Each entry is either a layer violation or
#: the edge that closes an import cycle (the deferred import inside a function).
KNOWN_EXCEPTIONS = {
    # Graph's convenience constructors delegate to the interop modules, which import Graph
    ("hpgraph.graph", "hpgraph.tables"):
        "Graph.from_pandas / from_arrow call hpgraph.tables (deferred import)",
    ("hpgraph.graph", "hpgraph.exchange"):
        "Graph.from_edge_index calls hpgraph.exchange (deferred import)",
    ("hpgraph.distributed.cluster", "hpgraph"):
        "the cluster check compares hpgraph.__version__ (defined in hpgraph/__init__.py) on the "
        "client and on every worker",
    # the storage formats convert into one another through methods of each class
    ("hpgraph.formats.coo", "hpgraph.formats.convert"):
        "COO.from_coo converts other formats with convert.from_any, which imports COO",
    ("hpgraph.formats.csr", "hpgraph.formats._build"):
        "csr.counting_sort runs the chunked counting sort of _build, which builds CSRs",
    ("hpgraph.formats.csr", "hpgraph.formats.convert"):
        "CSR.from_coo converts other formats with convert.from_any, which imports CSR",
    ("hpgraph.formats.csr", "hpgraph.formats.ell"):
        "CSR.to_ell builds an ELL, which is built from (and converts back to) a CSR",
    ("hpgraph.formats.csr", "hpgraph.formats.hyb"):
        "CSR.to_hyb builds a HYB, which is built from (and converts back to) a CSR",
    ("hpgraph._gen_chunks", "hpgraph.generators"):
        "the chunked generators reuse generators' private helpers (_Rng, _check_int, _xp), "
        "while generators dispatches to them",
    ("hpgraph.nx_backend._components", "hpgraph.nx_backend._analysis"):
        "components functions call _analysis helpers; _analysis imports _undirected_only from "
        "_components",
    ("hpgraph.nx_backend._paths", "hpgraph.nx_backend._paths_all"):
        "a _paths function calls the all-pairs module, which reuses _paths' single-source helpers",
    ("hpgraph.graphblas._build", "hpgraph.graphblas._args"):
        "the build resolves its dup_op with _args.binary_op; _args imports the objects",
    ("hpgraph.graphblas._methods", "hpgraph.graphblas._ewise"):
        "Matrix / Vector methods call the operations, which take Matrix / Vector arguments",
    ("hpgraph.graphblas._methods", "hpgraph.graphblas._mxm"):
        "Matrix / Vector methods call the operations, which take Matrix / Vector arguments",
    ("hpgraph.graphblas._methods", "hpgraph.graphblas._ops2"):
        "Matrix / Vector methods call the operations, which take Matrix / Vector arguments",
    ("hpgraph.graphblas._objects", "hpgraph.graphblas._ops2"):
        "Matrix / Vector methods call the operations, which take Matrix / Vector arguments",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _targets(module: str, is_package: bool, node, modules) -> list:
    """The hpgraph modules an import statement loads (a name imported from a package counts as
    its submodule when there is one, else as the package)."""
    found = []
    if isinstance(node, ast.Import):
        found = [a.name for a in node.names if a.name.split(".")[0] == "hpgraph"]
    else:
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if target.split(".")[0] != "hpgraph":
            return []
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            found.append(sub if sub in modules else target)
    out = []
    for t in found:
        while t not in modules and "." in t:
            t = t.rsplit(".", 1)[0]
        if t != module:
            out.append(t)
    return out


def _import_graph() -> dict:
    """module -> {imported module: line of the first import}."""
    modules = _modules()
    graph = collections.defaultdict(dict)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for t in _targets(name, path.name == "__init__.py", node, modules):
                    graph[name].setdefault(t, node.lineno)
    return graph


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer(module: str) -> int:
    pkg = _package(module)
    for i, (_, members) in enumerate(LAYERS):
        if pkg in members:
            return i
    raise KeyError(pkg)


GRAPH = _import_graph()


def test_every_package_has_a_layer():
    missing = sorted({_package(m) for m in _modules()} - set().union(*(s for _, s in LAYERS)))
    assert not missing, (f"hpgraph packages / modules without a layer in tests/test_architecture.py "
                         f"(add them to LAYERS and to docs/ARCHITECTURE.md): {missing}")


def test_imports_follow_the_layers():
    bad = []
    for src, targets in sorted(GRAPH.items()):
        for dst, line in sorted(targets.items()):
            if _layer(dst) > _layer(src) and (src, dst) not in KNOWN_EXCEPTIONS:
                bad.append(f"{src} (line {line}, layer {LAYERS[_layer(src)][0]}) imports {dst} "
                           f"(layer {LAYERS[_layer(dst)][0]})")
    assert not bad, "imports against the layering of docs/ARCHITECTURE.md:\n" + "\n".join(bad)


def _cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_no_import_cycles():
    graph = {src: {d for d in targets if (src, d) not in KNOWN_EXCEPTIONS}
             for src, targets in GRAPH.items()}
    found = []
    for comp in _cycles(graph):
        edges = [f"  {a} -> {b} (line {GRAPH[a][b]})" for a in comp for b in sorted(graph[a]) if b in comp]
        found.append(" <-> ".join(comp) + "\n" + "\n".join(edges))
    assert not found, "import cycles between modules:\n" + "\n".join(found)


@pytest.mark.parametrize("edge", sorted(KNOWN_EXCEPTIONS))
def test_known_exception_still_exists(edge):
    src, dst = edge
    assert dst in GRAPH.get(src, {}), (f"{src} no longer imports {dst}: remove the entry from "
                                       "KNOWN_EXCEPTIONS")


def test_architecture_doc_lists_the_same_layers():
    """The layer table of docs/ARCHITECTURE.md names the packages of :data:`LAYERS`, in order."""
    doc = (ROOT.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = []
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] in {name for name, _ in LAYERS}:
            names = {n.strip("`").removesuffix(".py").removeprefix("hpgraph/").strip("/")
                     for n in cells[1].split(", ")}
            rows.append((cells[0], {"" if n == "__init__" else n for n in names}))
    assert rows == LAYERS


def test_cycle_finder_on_a_small_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"x": {"y"}, "y": set()}) == []


def test_relative_imports_resolve():
    modules = {"hpgraph", "hpgraph.cli", "hpgraph.cli.run", "hpgraph.cli._common", "hpgraph.backend",
               "hpgraph.formats", "hpgraph.formats.csr"}
    tree = ast.parse("from . import _common\nfrom .. import backend, __version__\n"
                     "from ..formats import CSR\nfrom ..formats.csr import CSR\nimport numpy\n"
                     "import hpgraph.backend\n")
    got = [t for node in tree.body
           for t in _targets("hpgraph.cli.run", False, node, modules)]
    assert got == ["hpgraph.cli._common", "hpgraph.backend", "hpgraph", "hpgraph.formats",
                   "hpgraph.formats.csr", "hpgraph.backend"]


def test_no_module_over_600_lines():
    """The house rule of docs/ARCHITECTURE.md: small modules along the pipeline."""
    long = {str(p.relative_to(ROOT)): n for p in sorted(ROOT.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > 600}
    assert not long, f"modules over 600 lines: {long}"
